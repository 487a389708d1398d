// SPDX-License-Identifier: MIT
// etm3_source.h: the ETMv3 sources of one trace buffer, raw or behind a
// CoreSight formatter, to packets: coresight::SourceBufferDecoder
// (coresight/source_buffer_decoder.h, the routing) over one
// Etm3PacketProcessor per source.
//
//   Etm3BufferDecoder dec(format, SnapshotEtm3Sources(snap, buf), on_packet, on_error, ctx);
//   dec.Push(bytes, n) ... dec.Finish();
//
// Each trace ID goes to the ETMv3 source whose ETMTRACEIDR it is; the IDs of
// the buffer's other sources (ETE/ETMv4, PTM, ITM) are left to their own
// decoders. A raw (source_data) buffer is the stream of its first source,
// trace ID 0.
#ifndef MABUTRACE_HOST_ETM3_ETM3_SOURCE_H
#define MABUTRACE_HOST_ETM3_ETM3_SOURCE_H

#include <string>
#include <vector>

#include "coresight/source_buffer_decoder.h"
#include "etm3/etm3_packet_processor.h"
#include "snapshot/snapshot.h"

namespace mabutrace::etm3 {

struct Etm3SourceSpec {
  std::string name;  // device name ("ETM_0")
  Etm3Config config;
};

// The ETMv3 trace sources ("ETM3", "ETM3.5", "ETMv3.x") of `buffer`, in
// [source_buffers] order (source_data: only the first source of the buffer,
// if it is ETMv3). Throws snapshot::SnapshotError for missing registers.
std::vector<Etm3SourceSpec> SnapshotEtm3Sources(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buffer);

// What coresight::SourceBufferDecoder needs of ETMv3.
struct Etm3Protocol {
  using Processor = Etm3PacketProcessor;
  using Packet = Etm3Packet;
  using Error = Etm3Error;
  using Policy = ErrorPolicy;
  using Source = Etm3SourceSpec;
  static Etm3Config Raw(Etm3Config c) {
    c.etmtraceidr = 0;  // a raw buffer: no trace ID
    return c;
  }
};

using Etm3BufferDecoder = coresight::SourceBufferDecoder<Etm3Protocol>;
using SourcePacketCallback = Etm3BufferDecoder::SourcePacketCallback;
using SourceErrorCallback = Etm3BufferDecoder::SourceErrorCallback;

}  // namespace mabutrace::etm3

#endif  // MABUTRACE_HOST_ETM3_ETM3_SOURCE_H
