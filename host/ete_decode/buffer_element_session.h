// SPDX-License-Identifier: MIT
// buffer_element_session.h: one trace buffer's bytes -> the protocol's
// buffer packet decoder (deformatter + one packet processor per source) ->
// one element decoder per source, for every Arm protocol decoded here (ETE
// and ETMv4: ete_decode_session.h, PTM: ptm/ptm_decode_session.h, ETMv3:
// etm3/etm3_decode_session.h), and the chunked read of a buffer file.
//
//   BufferElementSession<ptm::PtmBufferDecoder, ptm::PtmElementDecoder, ptm::PtmDecodeBuffer>
//       s(buffer, on_element, on_error, ctx, ptm::ErrorPolicy::kOpenCsd);
//   DecodeFileInChunks(buffer.buffer.file, [&](const uint8_t* d, size_t n) { s.Push(d, n); }, on_file_error);
//   s.Finish();
//
// Buffer: a struct with `buffer` (snapshot::TraceBuffer: format, file),
// `sources` (each with `config`) and `images` (per source, never null).
// PacketDecoder(format, sources, on_packet, on_error, ctx, policy) calls
// on_packet(ctx, source, packet) with packets whose `type` has a kAsync
// value (the A-sync that synchronises a source); ElementDecoder(config, image,
// on_element, ctx, on_error) takes them through OnPacket() and has
// Finish() and stats().
//
// Errors go to on_error(ctx, source, index, message), source = SIZE_MAX for
// the buffer's own (framing, file). Two rules apply to every protocol:
//   - a packet-layer error of a source that has not synchronised yet falls
//     in bytes skipped before the first sync: it is counted
//     (buffer_stats().presync_errors), not reported, as the ETE packet
//     processor itself does not report those bytes;
//   - a buffer whose bytes reached a source but in which no source found a
//     sync decodes to nothing: Finish() reports "byte 0: no sync found in N
//     bytes" (source SIZE_MAX) and counts it (buffer_stats().no_sync), so
//     the CLI's exit code says the data was not decoded.
#ifndef MABUTRACE_HOST_ETE_DECODE_BUFFER_ELEMENT_SESSION_H
#define MABUTRACE_HOST_ETE_DECODE_BUFFER_ELEMENT_SESSION_H

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "element_output.h"
#include "ete_element.h"

namespace mabutrace::ete_decode {

// Packet-layer or element-layer error, with the byte index in its message;
// source = SIZE_MAX for the buffer's own errors (framing, file, no sync).
// Messages do not name the buffer file: the sink does.
using SourceDecodeErrorCallback = void (*)(void* ctx, size_t source, uint64_t index, const std::string& message);

// What a session counts for the whole buffer (the per-source element counts
// are the element decoders' DecodeStats).
struct BufferStats {
  uint64_t bytes = 0;           // bytes pushed
  uint64_t presync_errors = 0;  // packet-layer errors in bytes before a source's first sync (not reported)
  uint64_t no_sync = 0;         // 1 when bytes reached a source but no source found a sync (reported)
};

enum class FileRead : uint8_t { kOk, kCannotOpen, kReadError };

// Reads `path` in 1 MiB chunks into push(). on_error("cannot open: REASON"
// / "read error: REASON", without the file name: the sink adds it) when it
// cannot be read; the chunks read before a read error have been pushed.
FileRead DecodeFileInChunks(const std::filesystem::path& path, const std::function<void(const uint8_t*, size_t)>& push,
                            const std::function<void(const std::string&)>& on_error);

template <typename PacketDecoder, typename ElementDecoder, typename Buffer>
class BufferElementSession {
 public:
  template <typename Policy>
  BufferElementSession(const Buffer& buffer, SourceElementCallback on_element, SourceDecodeErrorCallback on_error,
                       void* ctx, Policy policy)
      : buffer_(buffer), on_element_(on_element), on_error_(on_error), ctx_(ctx) {
    for (size_t i = 0; i < buffer.sources.size(); ++i) {
      sinks_.push_back(std::make_unique<Sink>(Sink{this, i}));
      decoders_.push_back(std::make_unique<ElementDecoder>(buffer.sources[i].config, buffer.images[i], &OnElement,
                                                           sinks_.back().get(), &OnElementError));
      // A decoder that can call on_element with the source itself saves a call per element.
      if constexpr (requires(ElementDecoder & d) { d.SetSourceSink(on_element, ctx, i); })
        decoders_.back()->SetSourceSink(on_element, ctx, i);
    }
    make_packets_ = [this, policy] {
      synced_.assign(buffer_.sources.size(), false);
      packets_before_ = DecodedPackets();
      return std::make_unique<PacketDecoder>(
          buffer_.buffer.format, buffer_.sources,
          [](void* c, size_t source, const auto& packet) {
            auto* self = static_cast<BufferElementSession*>(c);
            if constexpr (!kDecoderKeepsSync) {
              if (packet.type == decltype(packet.type)::kAsync) self->synced_[source] = true;
            }
            self->decoders_[source]->OnPacket(packet);
          },
          &OnPacketError, this, policy);
    };
    packets_ = make_packets_();
  }
  BufferElementSession(const BufferElementSession&) = delete;
  BufferElementSession& operator=(const BufferElementSession&) = delete;

  void Push(const uint8_t* data, size_t n) {
    stats_.bytes += n;
    packets_->Push(data, n);
  }

  void Finish() {
    packets_->Finish();
    for (size_t i = 0; i < decoders_.size(); ++i) {
      if constexpr (requires(const Buffer& b) { b.sources[0].supported(); }) {
        if (!buffer_.sources[i].supported()) continue;  // decodes nothing
      }
      decoders_[i]->Finish();
    }
    bool any_sync = false;
    for (size_t i = 0; i < decoders_.size(); ++i) any_sync = any_sync || Synced(i);
    const bool fed = DecodedPackets() != packets_before_;  // a packet (NOTSYNC included) reached a source
    if (fed && !any_sync) {
      ++stats_.no_sync;
      if (on_error_)
        on_error_(ctx_, SIZE_MAX, 0, "byte 0: no sync found in " + std::to_string(stats_.bytes) + " bytes");
    }
  }

  // Restart every source as if the trace began again (the benchmark decodes
  // one buffer many times in one run).
  void Reset() {
    packets_ = make_packets_();
    for (auto& d : decoders_) d->Reset();
    stats_ = BufferStats{};
  }

  const DecodeStats& stats(size_t source) const { return decoders_[source]->stats(); }
  const BufferStats& buffer_stats() const { return stats_; }
  size_t source_count() const { return decoders_.size(); }

 private:
  struct Sink {
    BufferElementSession* owner;
    size_t source;
  };

  // Whether source i's packets held an A-sync: a decoder that keeps that
  // itself (ETE/ETMv4: its A-Sync never takes the fast path) saves the
  // session a test per packet; else synced_ says it.
  static constexpr bool kDecoderKeepsSync = requires(const ElementDecoder& d) { d.seen_async(); };
  bool Synced(size_t i) const {
    if constexpr (kDecoderKeepsSync)
      return decoders_[i]->seen_async();
    else
      return synced_[i];
  }
  // Every element decoder counts each packet it is given.
  uint64_t DecodedPackets() const {
    uint64_t n = 0;
    for (const auto& d : decoders_) n += d->stats().packets;
    return n;
  }
  static void OnPacketError(void* c, size_t source, uint64_t index, const std::string& message) {
    auto* self = static_cast<BufferElementSession*>(c);
    if (source < self->decoders_.size() && !self->Synced(source)) {
      ++self->stats_.presync_errors;
      return;
    }
    if (self->on_error_) self->on_error_(self->ctx_, source, index, message);
  }
  static void OnElement(void* c, const EteElement& element) {
    auto* s = static_cast<Sink*>(c);
    s->owner->on_element_(s->owner->ctx_, s->source, element);
  }
  static void OnElementError(void* c, uint64_t index, const std::string& message) {
    auto* s = static_cast<Sink*>(c);
    if (s->owner->on_error_) s->owner->on_error_(s->owner->ctx_, s->source, index, message);
  }

  const Buffer& buffer_;
  SourceElementCallback on_element_;
  SourceDecodeErrorCallback on_error_;
  void* ctx_;
  std::vector<std::unique_ptr<Sink>> sinks_;
  std::vector<std::unique_ptr<ElementDecoder>> decoders_;
  std::function<std::unique_ptr<PacketDecoder>()> make_packets_;
  std::unique_ptr<PacketDecoder> packets_;
  std::vector<bool> synced_;     // per source: an A-sync packet seen (see Synced)
  uint64_t packets_before_ = 0;  // DecodedPackets() when packets_ was made (Reset keeps the decoders' counts)
  BufferStats stats_;
};

// Decodes the whole buffer file `buffer.buffer.file` through a session;
// false when the file cannot be read (on_error, source SIZE_MAX).
template <typename PacketDecoder, typename ElementDecoder, typename Buffer, typename Policy>
bool DecodeBufferFileWith(const Buffer& buffer, SourceElementCallback on_element, SourceDecodeErrorCallback on_error,
                          void* ctx, Policy policy) {
  BufferElementSession<PacketDecoder, ElementDecoder, Buffer> session(buffer, on_element, on_error, ctx, policy);
  const FileRead r = DecodeFileInChunks(
      buffer.buffer.file, [&](const uint8_t* d, size_t n) { session.Push(d, n); },
      [&](const std::string& m) {
        if (on_error) on_error(ctx, SIZE_MAX, 0, m);
      });
  if (r != FileRead::kCannotOpen) session.Finish();
  return r == FileRead::kOk;
}

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_BUFFER_ELEMENT_SESSION_H
