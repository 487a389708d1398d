// SPDX-License-Identifier: MIT
// ptm_source.h: the PTM sources of one trace buffer, raw or framed, to
// packets: coresight::SourceBufferDecoder (coresight/source_buffer_decoder.h,
// the routing) over one PtmPacketProcessor per source.
//
//   PtmBufferDecoder dec(format, SnapshotPtmSources(snap, buf), on_packet, on_error, ctx);
//   dec.Push(bytes, n) ... dec.Finish();
//
// kSourceData: packets report trace ID 0, as OpenCSD does for a raw buffer.
// Formatted: each trace ID goes to the PTM source whose ETMTRACEIDR it is;
// the IDs of the buffer's other sources (ETMv4, ETMv3, ITM) are left to
// their own decoders.
#ifndef MABUTRACE_HOST_PTM_PTM_SOURCE_H
#define MABUTRACE_HOST_PTM_PTM_SOURCE_H

#include <string>
#include <vector>

#include "coresight/source_buffer_decoder.h"
#include "ptm/ptm_packet_processor.h"
#include "snapshot/snapshot.h"

namespace mabutrace::ptm {

struct PtmSource {
  std::string name;  // device name ("PTM_0")
  std::string type;  // [device] type ("PTM1.0")
  PtmConfig config;
};

// The PTM sources ([device] type PTM1.m / PFT1.m) attached to `buffer`, in
// [source_buffers] order (kSourceData: only the first source, and only if it
// is PTM, as OpenCSD decodes only that one). Throws snapshot::SnapshotError
// for missing registers.
std::vector<PtmSource> SnapshotPtmSources(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buffer);

// What coresight::SourceBufferDecoder needs of PTM.
struct PtmProtocol {
  using Processor = PtmPacketProcessor;
  using Packet = PtmPacket;
  using Error = PtmError;
  using Policy = ErrorPolicy;
  using Source = PtmSource;
  static PtmConfig Raw(PtmConfig c) {
    c.etmtraceidr = 0;  // a raw buffer: no trace ID
    return c;
  }
};

using PtmBufferDecoder = coresight::SourceBufferDecoder<PtmProtocol>;
using SourcePacketCallback = PtmBufferDecoder::SourcePacketCallback;
using SourceErrorCallback = PtmBufferDecoder::SourceErrorCallback;

}  // namespace mabutrace::ptm

#endif  // MABUTRACE_HOST_PTM_PTM_SOURCE_H
