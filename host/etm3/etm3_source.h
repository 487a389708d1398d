// SPDX-License-Identifier: MIT
// etm3_source.h: the ETMv3 sources of one trace buffer, raw or behind a
// CoreSight formatter, to packets.
//
//   Etm3BufferDecoder dec(format, SnapshotEtm3Sources(snap, buf), on_packet, on_error, ctx);
//   dec.Push(bytes, n) ... dec.Finish();
//
// Formatted buffers go through their own coresight::FrameDeformatter, which
// delivers every trace ID; the IDs of the ETMv3 sources reach their packet
// processor and the others (ETE/ETMv4, PTM, ITM sources of the same
// buffer, decoded elsewhere) are skipped silently. Packet indexes follow
// the deformatter's input_offset convention (OpenCSD's "Idx"). A raw
// (source_data) buffer is the stream of its first source, trace ID 0.
#ifndef MABUTRACE_HOST_ETM3_ETM3_SOURCE_H
#define MABUTRACE_HOST_ETM3_ETM3_SOURCE_H

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coresight/deformatter.h"
#include "coresight/dstream.h"
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

using SourcePacketCallback = void (*)(void* ctx, size_t source, const Etm3Packet& packet);
// source = index into the sources, or SIZE_MAX for framing errors.
using SourceErrorCallback = void (*)(void* ctx, size_t source, uint64_t index, const std::string& message);

class Etm3BufferDecoder {
 public:
  Etm3BufferDecoder(snapshot::BufferFormat format, std::vector<Etm3SourceSpec> sources, SourcePacketCallback on_packet,
                    SourceErrorCallback on_error, void* ctx, ErrorPolicy policy = ErrorPolicy::kResync);
  ~Etm3BufferDecoder();
  Etm3BufferDecoder(const Etm3BufferDecoder&) = delete;
  Etm3BufferDecoder& operator=(const Etm3BufferDecoder&) = delete;

  void Push(const uint8_t* data, size_t n);
  void Finish();
  const std::vector<Etm3SourceSpec>& sources() const { return sources_; }

 private:
  struct Route;
  class FrameSink;
  snapshot::BufferFormat format_;
  std::vector<Etm3SourceSpec> sources_;
  SourcePacketCallback on_packet_;
  SourceErrorCallback on_error_;
  void* ctx_;
  std::vector<std::unique_ptr<Route>> routes_;
  std::array<Route*, coresight::kNumTraceIds> by_id_{};
  std::unique_ptr<FrameSink> frame_sink_;
  std::unique_ptr<coresight::FrameDeformatter> deformatter_;
  std::unique_ptr<coresight::DstreamBlockReader> dstream_;
  uint64_t offset_ = 0;
};

}  // namespace mabutrace::etm3

#endif  // MABUTRACE_HOST_ETM3_ETM3_SOURCE_H
