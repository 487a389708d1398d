// SPDX-License-Identifier: MIT
// ete_decode_session.cpp: snapshot -> buffers -> packets -> elements.
#include "ete_decode_session.h"

#include <cstdio>
#include <map>

#include "ete/trace_protocol.h"

namespace mabutrace::ete_decode {

const armisa::MemoryImage* CoreImage(LoadedSnapshot* snap, const snapshot::Device* core) {
  LoadedSnapshot& out = *snap;
  if (out.images.empty()) out.images.push_back(std::make_unique<armisa::MemoryImage>());  // [0]: empty
  if (!core) return out.images[0].get();
  if (auto it = out.image_of_core.find(core->name); it != out.image_of_core.end()) return it->second;
  auto img = std::make_unique<armisa::MemoryImage>();
  for (const snapshot::MemoryDump& d : core->dumps) {
    std::error_code ec;
    if (!std::filesystem::exists(d.file, ec)) {
      out.warnings.push_back(core->ini_file.string() + ": [" + d.section + "] file " + d.file.string() +
                             " not found; its addresses will be reported as not accessible");
      continue;
    }
    uint8_t space = armisa::kMemAny;
    if (!d.space.empty()) {
      auto s = armisa::ParseMemSpace(d.space);
      if (!s) {
        out.warnings.push_back(core->ini_file.string() + ": [" + d.section + "] unknown space '" + d.space +
                               "', using ANY");
      } else {
        space = *s;
      }
    }
    std::string error;
    if (!img->AddFile(d.file.string(), d.address, space, &error, d.offset, d.length))
      out.warnings.push_back(core->ini_file.string() + ": [" + d.section + "] " + error);
  }
  const armisa::MemoryImage* p = img.get();
  out.images.push_back(std::move(img));
  out.image_of_core[core->name] = p;
  return p;
}

LoadedSnapshot LoadSnapshotForDecode(const std::filesystem::path& dir) {
  LoadedSnapshot out;
  out.snap = snapshot::ReadSnapshot(dir);
  out.images.push_back(std::make_unique<armisa::MemoryImage>());  // [0]: empty, for sources without a core
  auto image_of = [&](const snapshot::Device* core) { return CoreImage(&out, core); };
  for (const snapshot::TraceBuffer& buf : out.snap.buffers) {
    for (const ete::UndecodedSource& u : ete::UndecodedSources(out.snap, buf))
      out.undecoded.push_back(u.Message(buf.name));
    std::vector<ete::SourceSpec> sources = ete::SnapshotSources(out.snap, buf);
    if (sources.empty()) continue;
    DecodeBuffer db;
    db.buffer = buf;
    for (const ete::SourceSpec& s : sources) {
      const snapshot::Device* core = out.snap.CoreOfSource(s.name);
      db.images.push_back(image_of(core));
      db.cores.push_back(core ? core->name : std::string());
    }
    db.sources = std::move(sources);
    out.buffers.push_back(std::move(db));
  }
  return out;
}

struct BufferElementDecoder::Sink {
  BufferElementDecoder* owner;
  size_t source;
};

BufferElementDecoder::BufferElementDecoder(const DecodeBuffer& buffer, SourceElementCallback on_element,
                                           SourceDecodeErrorCallback on_error, void* ctx)
    : buffer_(buffer), on_element_(on_element), on_error_(on_error), ctx_(ctx) {
  for (size_t i = 0; i < buffer.sources.size(); ++i) {
    sinks_.push_back(std::make_unique<Sink>(Sink{this, i}));
    decoders_.push_back(std::make_unique<EteElementDecoder>(buffer.sources[i].config, buffer.images[i], &OnElement,
                                                            sinks_.back().get(), &OnElementError));
  }
  packets_ = std::make_unique<ete::BufferDecoder>(buffer_.buffer.format, buffer_.sources, &OnPacket, &OnPacketError,
                                                  this, ete::ErrorPolicy::kOpenCsd);
}

BufferElementDecoder::~BufferElementDecoder() = default;

void BufferElementDecoder::Reset() {
  packets_ = std::make_unique<ete::BufferDecoder>(buffer_.buffer.format, buffer_.sources, &OnPacket, &OnPacketError,
                                                  this, ete::ErrorPolicy::kOpenCsd);
  for (auto& d : decoders_) d->Reset();
}

void BufferElementDecoder::Push(const uint8_t* data, size_t n) { packets_->Push(data, n); }

void BufferElementDecoder::Finish() {
  packets_->Finish();
  for (size_t i = 0; i < decoders_.size(); ++i)
    if (buffer_.sources[i].supported()) decoders_[i]->Finish();  // the others decode nothing
}

const DecodeStats& BufferElementDecoder::stats(size_t source) const { return decoders_[source]->stats(); }

void BufferElementDecoder::OnPacket(void* ctx, size_t source, const ete::EtePacket& packet) {
  static_cast<BufferElementDecoder*>(ctx)->decoders_[source]->OnPacket(packet);
}

void BufferElementDecoder::OnPacketError(void* ctx, size_t source, uint64_t index, const std::string& message) {
  auto* self = static_cast<BufferElementDecoder*>(ctx);
  if (self->on_error_) self->on_error_(self->ctx_, source, index, message);
}

void BufferElementDecoder::OnElement(void* ctx, const EteElement& element) {
  auto* sink = static_cast<Sink*>(ctx);
  sink->owner->on_element_(sink->owner->ctx_, sink->source, element);
}

void BufferElementDecoder::OnElementError(void* ctx, uint64_t index, const std::string& message) {
  auto* sink = static_cast<Sink*>(ctx);
  if (sink->owner->on_error_) sink->owner->on_error_(sink->owner->ctx_, sink->source, index, message);
}

bool DecodeBufferFile(const DecodeBuffer& buffer, SourceElementCallback on_element, SourceDecodeErrorCallback on_error,
                      void* ctx) {
  FILE* in = std::fopen(buffer.buffer.file.string().c_str(), "rb");
  if (!in) {
    if (on_error) on_error(ctx, SIZE_MAX, 0, buffer.buffer.file.string() + ": cannot open");
    return false;
  }
  BufferElementDecoder dec(buffer, on_element, on_error, ctx);
  std::vector<uint8_t> chunk(1 << 20);
  size_t n;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), in)) > 0) dec.Push(chunk.data(), n);
  const bool ok = !std::ferror(in);
  std::fclose(in);
  if (!ok && on_error) on_error(ctx, SIZE_MAX, 0, buffer.buffer.file.string() + ": read error");
  dec.Finish();
  return ok;
}

}  // namespace mabutrace::ete_decode
