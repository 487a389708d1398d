// SPDX-License-Identifier: MIT
// ete_source.cpp: buffer -> (deformatter) -> per-source packet processors.
#include "ete/ete_source.h"

#include <cctype>
#include <cstdio>

#include "ete/trace_protocol.h"

namespace mabutrace::ete {

struct BufferDecoder::Route {
  BufferDecoder* owner;
  size_t source;
  std::unique_ptr<EtePacketProcessor> proc;
  static void OnPacket(void* c, const EtePacket& p) {
    auto* r = static_cast<Route*>(c);
    r->owner->on_packet_(r->owner->ctx_, r->source, p);
  }
  static void OnError(void* c, const EteError& e) {
    auto* r = static_cast<Route*>(c);
    if (r->owner->on_error_) r->owner->on_error_(r->owner->ctx_, r->source, e.index, e.message);
  }
};

class BufferDecoder::FrameSink : public coresight::DeformatterSink {
 public:
  explicit FrameSink(BufferDecoder* owner) : owner_(owner) {}
  void OnData(uint8_t id, uint64_t, uint64_t input_offset, const uint8_t* data, size_t n, const uint64_t*) override {
    if (Route* r = owner_->by_id_[id]; r && r->proc) r->proc->Push(input_offset, data, n);
  }
  // Consecutive runs of one ID: read across frames in place.
  void OnBlock(uint8_t id, uint64_t, const uint8_t* data, size_t n, const coresight::DataRun* runs,
               size_t nruns) override {
    if (Route* r = owner_->by_id_[id]; r && r->proc) r->proc->PushBlock(data, n, runs, nruns);
  }
  void OnError(const coresight::DeformatterError& e) override {
    if (owner_->on_error_) owner_->on_error_(owner_->ctx_, SIZE_MAX, e.input_offset, e.message);
  }
  void OnReset(uint64_t) override {
    for (auto& r : owner_->routes_) {
      if (!r->proc) continue;
      r->proc->Finish();
      r->proc->Reset();
    }
  }

 private:
  BufferDecoder* owner_;
};

BufferDecoder::BufferDecoder(snapshot::BufferFormat format, std::vector<SourceSpec> sources,
                             SourcePacketCallback on_packet, SourceErrorCallback on_error, void* ctx,
                             ErrorPolicy policy)
    : format_(format), sources_(std::move(sources)), on_packet_(on_packet), on_error_(on_error), ctx_(ctx) {
  if (format_ == snapshot::BufferFormat::kSourceData && sources_.size() > 1) sources_.resize(1);
  for (size_t i = 0; i < sources_.size(); ++i) {
    auto r = std::make_unique<Route>();
    r->owner = this;
    r->source = i;
    EteConfig cfg = sources_[i].config;
    if (format_ == snapshot::BufferFormat::kSourceData) cfg.trctraceidr = 0;  // raw: no trace ID
    if (sources_[i].supported()) {
      r->proc = std::make_unique<EtePacketProcessor>(cfg, &Route::OnPacket, r.get(), &Route::OnError, policy);
      r->proc->SetSourcePacketCallback(on_packet_, ctx_, i);  // straight to the caller, no Route::OnPacket
    } else if (on_error_)
      on_error_(ctx_, SIZE_MAX, 0, sources_[i].UnsupportedMessage());
    routes_.push_back(std::move(r));
  }
  if (format_ != snapshot::BufferFormat::kSourceData) {
    coresight::DeformatterOptions opt;
    opt.restrict_ids = true;
    if (format_ == snapshot::BufferFormat::kDstreamCoresight) opt.has_fsyncs = true;
    for (auto& r : routes_) {
      const uint8_t id = sources_[r->source].config.trace_id();
      opt.known_ids[id] = true;
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

BufferDecoder::~BufferDecoder() = default;

void BufferDecoder::Push(const uint8_t* data, size_t n) {
  if (dstream_) {
    dstream_->Push(data, n);
  } else if (deformatter_) {
    deformatter_->Push(data, n);
  } else if (!routes_.empty() && routes_[0]->proc) {
    routes_[0]->proc->Push(offset_, data, n);
  }
  offset_ += n;
}

void BufferDecoder::Finish() {
  if (deformatter_) deformatter_->Finish();
  for (auto& r : routes_)
    if (r->proc) r->proc->Finish();
}

uint64_t BufferDecoder::packets() const {
  uint64_t n = 0;
  for (auto& r : routes_)
    if (r->proc) n += r->proc->stats().packets;
  return n;
}

std::string SourceSpec::UnsupportedMessage() const {
  char id[32];
  std::snprintf(id, sizeof id, " (trace ID 0x%x)", config.trace_id());
  return "source " + name + id + ": trace unit " + arch.Name() +
         " is not supported by this decoder (ETE and ETMv4 only); not decoded";
}

std::string SourceSpec::Describe() const {
  return supported()
             ? config.Describe()
             : "trace unit " + arch.Name() + ": not supported by this decoder (ETE and ETMv4 only), not decoded";
}

SourceSpec SourceOf(const snapshot::Device& device, const snapshot::Device* core) {
  return {device.name, EteConfig::FromDevice(device, core), TraceUnitArch::Of(device)};
}

std::vector<SourceSpec> SnapshotSources(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buffer) {
  std::vector<SourceSpec> out;
  for (const snapshot::Device* d : snap.SourcesOfBuffer(buffer.name)) {
    // ETE and ETMv4 types as snapshots spell them: "ETE", "ETM4", "ETM4.1", "ETMV4.2"
    const TraceProtocol protocol = ProtocolOfType(d->type);
    if (protocol != TraceProtocol::kEte && protocol != TraceProtocol::kEtmV4) continue;
    out.push_back(SourceOf(*d, snap.CoreOfSource(d->name)));
    if (buffer.format == snapshot::BufferFormat::kSourceData) break;
  }
  return out;
}

}  // namespace mabutrace::ete
