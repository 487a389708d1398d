// SPDX-License-Identifier: MIT
// ptm_source.h: decode the PTM sources of one trace buffer, raw or framed.
//
//   PtmBufferDecoder dec(format, sources, on_packet, on_error, ctx);
//   dec.Push(bytes, n) ... dec.Finish();
//
// kSourceData: the buffer is sources[0]'s byte stream (packets report trace
// ID 0, as OpenCSD does for a raw buffer). kCoresight / kDstreamCoresight:
// coresight::FrameDeformatter routes each trace ID to the PTM source whose
// ETMTRACEIDR matches; other IDs (ETMv4, ETMv3, ITM sources of the same
// buffer) are dropped silently - their own decoders read them.
#ifndef MABUTRACE_HOST_PTM_PTM_SOURCE_H
#define MABUTRACE_HOST_PTM_PTM_SOURCE_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coresight/deformatter.h"
#include "coresight/dstream.h"
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

using SourcePacketCallback = void (*)(void* ctx, size_t source, const PtmPacket& packet);
// source = index, or SIZE_MAX for framing errors.
using SourceErrorCallback = void (*)(void* ctx, size_t source, uint64_t index, const std::string& message);

class PtmBufferDecoder {
 public:
  PtmBufferDecoder(snapshot::BufferFormat format, std::vector<PtmSource> sources, SourcePacketCallback on_packet,
                   SourceErrorCallback on_error, void* ctx, ErrorPolicy policy = ErrorPolicy::kResync);
  ~PtmBufferDecoder();
  PtmBufferDecoder(const PtmBufferDecoder&) = delete;
  PtmBufferDecoder& operator=(const PtmBufferDecoder&) = delete;

  void Push(const uint8_t* data, size_t n);
  void Finish();
  const std::vector<PtmSource>& sources() const { return sources_; }
  uint64_t packets() const;

 private:
  struct Route;
  class FrameSink;
  snapshot::BufferFormat format_;
  std::vector<PtmSource> sources_;
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

}  // namespace mabutrace::ptm

#endif  // MABUTRACE_HOST_PTM_PTM_SOURCE_H
