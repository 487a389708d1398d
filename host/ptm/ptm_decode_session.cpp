// SPDX-License-Identifier: MIT
// ptm_decode_session.cpp: snapshot PTM sources -> packets -> elements.
#include "ptm/ptm_decode_session.h"

#include <cstdio>

namespace mabutrace::ptm {

std::vector<PtmDecodeBuffer> PtmBuffers(ete_decode::LoadedSnapshot* snap) {
  std::vector<PtmDecodeBuffer> out;
  for (const snapshot::TraceBuffer& buf : snap->snap.buffers) {
    std::vector<PtmSource> sources = SnapshotPtmSources(snap->snap, buf);
    if (sources.empty()) continue;
    PtmDecodeBuffer b;
    b.buffer = buf;
    for (const PtmSource& s : sources) b.images.push_back(ete_decode::CoreImage(snap, snap->snap.CoreOfSource(s.name)));
    b.sources = std::move(sources);
    out.push_back(std::move(b));
  }
  return out;
}

PtmBufferElementDecoder::PtmBufferElementDecoder(const PtmDecodeBuffer& buffer,
                                                 ete_decode::SourceElementCallback on_element,
                                                 ete_decode::SourceDecodeErrorCallback on_error, void* ctx)
    : on_element_(on_element), on_error_(on_error), ctx_(ctx) {
  for (size_t i = 0; i < buffer.sources.size(); ++i) {
    sinks_.push_back(std::make_unique<Sink>(Sink{this, i}));
    decoders_.push_back(std::make_unique<PtmElementDecoder>(
        buffer.sources[i].config, buffer.images[i],
        [](void* c, const ete_decode::EteElement& e) {
          auto* s = static_cast<Sink*>(c);
          s->owner->on_element_(s->owner->ctx_, s->source, e);
        },
        sinks_.back().get(),
        [](void* c, uint64_t index, const std::string& m) {
          auto* s = static_cast<Sink*>(c);
          if (s->owner->on_error_) s->owner->on_error_(s->owner->ctx_, s->source, index, m);
        }));
  }
  packets_ = std::make_unique<PtmBufferDecoder>(
      buffer.buffer.format, buffer.sources,
      [](void* c, size_t source, const PtmPacket& p) {
        static_cast<PtmBufferElementDecoder*>(c)->decoders_[source]->OnPacket(p);
      },
      [](void* c, size_t source, uint64_t index, const std::string& m) {
        auto* self = static_cast<PtmBufferElementDecoder*>(c);
        if (self->on_error_) self->on_error_(self->ctx_, source, index, m);
      },
      this, ErrorPolicy::kOpenCsd);
}

PtmBufferElementDecoder::~PtmBufferElementDecoder() = default;

void PtmBufferElementDecoder::Finish() {
  packets_->Finish();
  for (auto& d : decoders_) d->Finish();
}

bool DecodePtmBufferFile(const PtmDecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                         ete_decode::SourceDecodeErrorCallback on_error, void* ctx) {
  FILE* in = std::fopen(buffer.buffer.file.string().c_str(), "rb");
  if (!in) {
    if (on_error) on_error(ctx, SIZE_MAX, 0, buffer.buffer.file.string() + ": cannot open");
    return false;
  }
  PtmBufferElementDecoder dec(buffer, on_element, on_error, ctx);
  std::vector<uint8_t> chunk(1 << 20);
  size_t n;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), in)) > 0) dec.Push(chunk.data(), n);
  const bool ok = !std::ferror(in);
  std::fclose(in);
  if (!ok && on_error) on_error(ctx, SIZE_MAX, 0, buffer.buffer.file.string() + ": read error");
  dec.Finish();
  return ok;
}

}  // namespace mabutrace::ptm
