// SPDX-License-Identifier: MIT
// etm3_source.cpp: buffer -> (deformatter) -> ETMv3 packet processors.
#include "etm3/etm3_source.h"

#include "ete/trace_protocol.h"

namespace mabutrace::etm3 {

struct Etm3BufferDecoder::Route {
  Etm3BufferDecoder* owner;
  size_t source;
  std::unique_ptr<Etm3PacketProcessor> proc;
  static void OnPacket(void* c, const Etm3Packet& p) {
    auto* r = static_cast<Route*>(c);
    r->owner->on_packet_(r->owner->ctx_, r->source, p);
  }
  static void OnError(void* c, const Etm3Error& e) {
    auto* r = static_cast<Route*>(c);
    if (r->owner->on_error_) r->owner->on_error_(r->owner->ctx_, r->source, e.index, e.message);
  }
};

class Etm3BufferDecoder::FrameSink : public coresight::DeformatterSink {
 public:
  explicit FrameSink(Etm3BufferDecoder* owner) : owner_(owner) {}
  void OnData(uint8_t id, uint64_t, uint64_t input_offset, const uint8_t* data, size_t n, const uint64_t*) override {
    if (Route* r = owner_->by_id_[id]) r->proc->Push(input_offset, data, n);
  }
  void OnError(const coresight::DeformatterError& e) override {
    if (owner_->on_error_) owner_->on_error_(owner_->ctx_, SIZE_MAX, e.input_offset, e.message);
  }
  void OnReset(uint64_t) override {
    for (auto& r : owner_->routes_) {
      r->proc->Finish();
      r->proc->Reset();
    }
  }

 private:
  Etm3BufferDecoder* owner_;
};

Etm3BufferDecoder::Etm3BufferDecoder(snapshot::BufferFormat format, std::vector<Etm3SourceSpec> sources,
                                     SourcePacketCallback on_packet, SourceErrorCallback on_error, void* ctx,
                                     ErrorPolicy policy)
    : format_(format), sources_(std::move(sources)), on_packet_(on_packet), on_error_(on_error), ctx_(ctx) {
  if (format_ == snapshot::BufferFormat::kSourceData && sources_.size() > 1) sources_.resize(1);
  for (size_t i = 0; i < sources_.size(); ++i) {
    auto r = std::make_unique<Route>();
    r->owner = this;
    r->source = i;
    Etm3Config cfg = sources_[i].config;
    if (format_ == snapshot::BufferFormat::kSourceData) cfg.etmtraceidr = 0;  // raw: no trace ID
    r->proc = std::make_unique<Etm3PacketProcessor>(cfg, &Route::OnPacket, r.get(), &Route::OnError, policy);
    routes_.push_back(std::move(r));
  }
  if (format_ != snapshot::BufferFormat::kSourceData) {
    coresight::DeformatterOptions opt;  // every ID delivered: the others are skipped here, not reported
    if (format_ == snapshot::BufferFormat::kDstreamCoresight) opt.has_fsyncs = true;
    for (auto& r : routes_) {
      const uint8_t id = sources_[r->source].config.trace_id();
      if (!by_id_[id]) by_id_[id] = r.get();
    }
    frame_sink_ = std::make_unique<FrameSink>(this);
    deformatter_ = std::make_unique<coresight::FrameDeformatter>(opt, frame_sink_.get());
    if (format_ == snapshot::BufferFormat::kDstreamCoresight)
      dstream_ = std::make_unique<coresight::DstreamBlockReader>(
          [](void* c, const uint8_t* d, size_t k) { static_cast<coresight::FrameDeformatter*>(c)->Push(d, k); },
          deformatter_.get());
  }
}

Etm3BufferDecoder::~Etm3BufferDecoder() = default;

void Etm3BufferDecoder::Push(const uint8_t* data, size_t n) {
  if (dstream_)
    dstream_->Push(data, n);
  else if (deformatter_)
    deformatter_->Push(data, n);
  else if (!routes_.empty())
    routes_[0]->proc->Push(offset_, data, n);
  offset_ += n;
}

void Etm3BufferDecoder::Finish() {
  if (deformatter_) deformatter_->Finish();
  for (auto& r : routes_) r->proc->Finish();
}

std::vector<Etm3SourceSpec> SnapshotEtm3Sources(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buffer) {
  std::vector<Etm3SourceSpec> out;
  for (const snapshot::Device* d : snap.SourcesOfBuffer(buffer.name)) {
    const bool etm3 = ete::ProtocolOfType(d->type) == ete::TraceProtocol::kEtmV3;
    if (etm3) out.push_back({d->name, Etm3Config::FromDevice(*d, snap.CoreOfSource(d->name))});
    if (buffer.format == snapshot::BufferFormat::kSourceData) break;  // only the first source is decoded
  }
  return out;
}

}  // namespace mabutrace::etm3
