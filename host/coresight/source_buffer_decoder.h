// SPDX-License-Identifier: MIT
// source_buffer_decoder.h: one trace buffer, raw or behind a CoreSight
// formatter, to the packets of each of its trace sources of one protocol
// (the PTM and ETMv3 buffer decoders are this template; ptm_source.h,
// etm3_source.h).
//
//   using PtmBufferDecoder = coresight::SourceBufferDecoder<PtmProtocol>;
//   PtmBufferDecoder dec(buffer.format, SnapshotPtmSources(snap, buffer), on_packet, on_error, ctx);
//   dec.Push(bytes, n) ... dec.Finish();
//
// Routing, by snapshot::BufferFormat:
//   kSourceData        the buffer is the byte stream of sources[0] (others
//                      are dropped from the list), given Protocol::Raw(config):
//                      no trace ID, as OpenCSD decodes a raw buffer;
//   kCoresight         16-byte frames (deformatter.h); each trace ID goes to
//                      the first source whose config.trace_id() it is;
//   kDstreamCoresight  the same behind DSTREAM's FSYNC blocks (dstream.h).
// Trace IDs of no source here (another protocol's sources in the same
// buffer, decoded by their own decoder) are dropped without an error.
// Packet indexes are the deformatter's input_offset convention (OpenCSD's
// "Idx"); a formatter reset (OnReset) finishes and resets every processor.
//
// Protocol supplies the types and one hook:
//   Processor  ctor (Config, void(*)(void*, const Packet&), void* ctx,
//                    void(*)(void*, const Error&), Policy);
//              Push(uint64_t index, const uint8_t*, size_t), Finish(), Reset()
//   Packet, Error (with .index and .message), Policy, Source (with .config,
//   whose trace_id() is the source's trace ID)
//   static Config Raw(Config)  the config of a raw (kSourceData) stream
//
// Errors go to on_error (may be null): source = the index into sources(),
// or SIZE_MAX for a framing error with its input offset. Not thread-safe;
// the callbacks run inside Push and Finish.
#ifndef MABUTRACE_HOST_CORESIGHT_SOURCE_BUFFER_DECODER_H
#define MABUTRACE_HOST_CORESIGHT_SOURCE_BUFFER_DECODER_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coresight/deformatter.h"
#include "coresight/dstream.h"
#include "snapshot/snapshot.h"

namespace mabutrace::coresight {

template <class Protocol>
class SourceBufferDecoder {
 public:
  using Processor = typename Protocol::Processor;
  using Packet = typename Protocol::Packet;
  using Error = typename Protocol::Error;
  using Source = typename Protocol::Source;
  using Policy = typename Protocol::Policy;
  using SourcePacketCallback = void (*)(void* ctx, size_t source, const Packet& packet);
  // source = index into sources(), or SIZE_MAX for framing errors.
  using SourceErrorCallback = void (*)(void* ctx, size_t source, uint64_t index, const std::string& message);

  SourceBufferDecoder(snapshot::BufferFormat format, std::vector<Source> sources, SourcePacketCallback on_packet,
                      SourceErrorCallback on_error, void* ctx, Policy policy = Policy::kResync)
      : sources_(std::move(sources)), on_packet_(on_packet), on_error_(on_error), ctx_(ctx) {
    const bool raw = format == snapshot::BufferFormat::kSourceData;
    if (raw && sources_.size() > 1) sources_.resize(1);
    for (size_t i = 0; i < sources_.size(); ++i) {
      auto r = std::make_unique<Route>();
      r->owner = this;
      r->source = i;
      const auto& config = sources_[i].config;
      r->proc = std::make_unique<Processor>(raw ? Protocol::Raw(config) : config, &Route::OnPacket, r.get(),
                                            &Route::OnError, policy);
      routes_.push_back(std::move(r));
    }
    if (raw) return;
    DeformatterOptions opt;
    opt.restrict_ids = true;  // OnError drops kUnknownId: other protocols' IDs are not ours to report
    opt.has_fsyncs = format == snapshot::BufferFormat::kDstreamCoresight;
    for (auto& r : routes_) {
      const uint8_t id = sources_[r->source].config.trace_id();
      opt.known_ids[id] = true;
      if (!by_id_[id]) by_id_[id] = r.get();
    }
    frame_sink_ = std::make_unique<FrameSink>(this);
    deformatter_ = std::make_unique<FrameDeformatter>(opt, frame_sink_.get());
    if (opt.has_fsyncs)
      dstream_ = std::make_unique<DstreamBlockReader>(
          [](void* c, const uint8_t* d, size_t k) { static_cast<FrameDeformatter*>(c)->Push(d, k); },
          deformatter_.get());
  }
  SourceBufferDecoder(const SourceBufferDecoder&) = delete;
  SourceBufferDecoder& operator=(const SourceBufferDecoder&) = delete;

  // The next `n` bytes of the buffer (any chunking).
  void Push(const uint8_t* data, size_t n) {
    if (dstream_) {
      dstream_->Push(data, n);
    } else if (deformatter_) {
      deformatter_->Push(data, n);
    } else if (!routes_.empty()) {
      routes_[0]->proc->Push(offset_, data, n);
    }
    offset_ += n;
  }

  // End of the buffer: a trailing partial frame or packet is reported.
  void Finish() {
    if (deformatter_) deformatter_->Finish();
    for (auto& r : routes_) r->proc->Finish();
  }

  const std::vector<Source>& sources() const { return sources_; }
  // Packets of every source so far (Processor::packets()).
  uint64_t packets() const {
    uint64_t n = 0;
    for (auto& r : routes_) n += r->proc->packets();
    return n;
  }

 private:
  struct Route {
    SourceBufferDecoder* owner;
    size_t source;
    std::unique_ptr<Processor> proc;
    static void OnPacket(void* c, const Packet& p) {
      auto* r = static_cast<Route*>(c);
      r->owner->on_packet_(r->owner->ctx_, r->source, p);
    }
    static void OnError(void* c, const Error& e) {
      auto* r = static_cast<Route*>(c);
      if (r->owner->on_error_) r->owner->on_error_(r->owner->ctx_, r->source, e.index, e.message);
    }
  };

  class FrameSink : public DeformatterSink {
   public:
    explicit FrameSink(SourceBufferDecoder* owner) : owner_(owner) {}
    void OnData(uint8_t id, uint64_t, uint64_t input_offset, const uint8_t* data, size_t n, const uint64_t*) override {
      if (Route* r = owner_->by_id_[id]) r->proc->Push(input_offset, data, n);
    }
    void OnError(const DeformatterError& e) override {
      if (e.kind == DeformatterErrorKind::kUnknownId) return;  // another protocol's source
      if (owner_->on_error_) owner_->on_error_(owner_->ctx_, SIZE_MAX, e.input_offset, e.message);
    }
    void OnReset(uint64_t) override {
      for (auto& r : owner_->routes_) {
        r->proc->Finish();
        r->proc->Reset();
      }
    }

   private:
    SourceBufferDecoder* owner_;
  };

  std::vector<Source> sources_;
  SourcePacketCallback on_packet_;
  SourceErrorCallback on_error_;
  void* ctx_;
  std::vector<std::unique_ptr<Route>> routes_;
  std::array<Route*, kNumTraceIds> by_id_{};
  std::unique_ptr<FrameSink> frame_sink_;
  std::unique_ptr<FrameDeformatter> deformatter_;
  std::unique_ptr<DstreamBlockReader> dstream_;
  uint64_t offset_ = 0;
};

}  // namespace mabutrace::coresight

#endif  // MABUTRACE_HOST_CORESIGHT_SOURCE_BUFFER_DECODER_H
