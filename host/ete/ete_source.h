// SPDX-License-Identifier: MIT
// ete_source.h: decode the ETE sources of one trace buffer, raw or framed.
//
//   BufferDecoder dec(format, sources, on_packet, on_error, ctx);
//   dec.Push(bytes, n) ... dec.Finish();
//
// format kSourceData: the buffer is the byte stream of sources[0] (a raw
// buffer has no trace IDs; packets report trace_id 0, as OpenCSD does).
// format kCoresight / kDstreamCoresight: (DSTREAM: the probe's block
// footers dropped first, coresight/dstream.h) a coresight::FrameDeformatter
// routes each trace ID to the source whose TRCTRACEIDR matches; data for
// other IDs is reported once per ID (not fatal). A source whose trace unit
// is neither ETE nor ETMv4 (SourceSpec::supported()) is reported at construction and its
// data is not decoded (rather than decoded wrongly). Packet indexes then follow
// the deformatter's input_offset convention (OpenCSD's "Idx").
//
// SnapshotSources() picks the ETE/ETM4 trace sources of a snapshot buffer.
#ifndef MABUTRACE_HOST_ETE_ETE_SOURCE_H
#define MABUTRACE_HOST_ETE_ETE_SOURCE_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coresight/deformatter.h"
#include "coresight/dstream.h"
#include "ete/ete_config.h"
#include "ete/ete_packet_processor.h"
#include "snapshot/snapshot.h"

namespace mabutrace::ete {

struct SourceSpec {
  std::string name;  // device name ("ETE_0_s1")
  EteConfig config;
  TraceUnitArch arch;  // ETE and ETMv4 are decoded (one packet processor)
  bool supported() const { return arch.ete || arch.major == 4; }
  // "source ETM_0 (trace ID 0x10): trace unit ETMv3.5 is not supported by this decoder (ETE and ETMv4 only)"
  std::string UnsupportedMessage() const;
  // The configuration line of the CLI listings: config.Describe(), or
  // "trace unit ETMv3.5: not supported by this decoder (ETE and ETMv4 only), not decoded".
  std::string Describe() const;
};

// The source that `device` (a trace source: ETE, ETM4...) describes;
// `core` is the PE it traces (its type selects the M profile), or nullptr.
// Throws snapshot::SnapshotError for missing registers.
SourceSpec SourceOf(const snapshot::Device& device, const snapshot::Device* core = nullptr);

// Packets of source `source` (index into the sources vector) go to a
// SourcePacketCallback (ete_packet_processor.h).
// Error text with its byte index; source = index, or SIZE_MAX for framing errors.
using SourceErrorCallback = void (*)(void* ctx, size_t source, uint64_t index, const std::string& message);

class BufferDecoder {
 public:
  BufferDecoder(snapshot::BufferFormat format, std::vector<SourceSpec> sources, SourcePacketCallback on_packet,
                SourceErrorCallback on_error, void* ctx, ErrorPolicy policy = ErrorPolicy::kResync);
  ~BufferDecoder();
  BufferDecoder(const BufferDecoder&) = delete;
  BufferDecoder& operator=(const BufferDecoder&) = delete;

  void Push(const uint8_t* data, size_t n);
  void Finish();
  const std::vector<SourceSpec>& sources() const { return sources_; }
  uint64_t packets() const;

 private:
  struct Route;
  class FrameSink;
  snapshot::BufferFormat format_;
  std::vector<SourceSpec> sources_;
  SourcePacketCallback on_packet_;
  SourceErrorCallback on_error_;
  void* ctx_;
  std::vector<std::unique_ptr<Route>> routes_;  // one per source
  std::array<Route*, coresight::kNumTraceIds> by_id_{};
  std::unique_ptr<FrameSink> frame_sink_;
  std::unique_ptr<coresight::FrameDeformatter> deformatter_;
  std::unique_ptr<coresight::DstreamBlockReader> dstream_;  // kDstreamCoresight: drops the probe's footers
  uint64_t offset_ = 0;
};

// ETE / ETM4 (any "ETM4.m" / "ETMv4.m" type) trace sources attached to
// `buffer`, in [source_buffers] order, with the trace unit each one has:
// BufferDecoder decodes the ETE and ETMv4 ones; for the others it reports
// UnsupportedMessage() once (source SIZE_MAX, index 0) and decodes nothing.
// For kSourceData only the first (OpenCSD decodes only that one).
// Throws snapshot::SnapshotError for missing registers.
std::vector<SourceSpec> SnapshotSources(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buffer);

}  // namespace mabutrace::ete

#endif  // MABUTRACE_HOST_ETE_ETE_SOURCE_H
