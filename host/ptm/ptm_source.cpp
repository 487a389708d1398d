// SPDX-License-Identifier: MIT
// ptm_source.cpp: buffer -> (deformatter) -> per-source PTM packet processors.
#include "ptm/ptm_source.h"

#include <cstdio>

#include "ete/trace_protocol.h"

namespace mabutrace::ptm {

std::string PtmConfig::Describe() const {
  char s[160];
  std::snprintf(s, sizeof s, "PTM 1.%d trace_id=0x%x cycle_accurate=%d ctxid_bytes=%d ts=%d-bit %s", minor_rev(),
                trace_id(), cycle_accurate() ? 1 : 0, context_id_bytes(), ts_64bit() ? 64 : 48,
                ts_binary() ? "binary" : "gray");
  return s;
}

PtmConfig PtmConfig::FromDevice(const snapshot::Device& d) {
  auto req = [&](const char* name) -> uint32_t {
    auto v = d.Reg(name);
    if (!v) throw snapshot::SnapshotError(d.ini_file.string(), std::string("[regs] ") + name, "missing register");
    return static_cast<uint32_t>(*v);
  };
  PtmConfig c;
  c.etmcr = req("ETMCR");
  c.etmtraceidr = req("ETMTRACEIDR");
  c.etmidr = static_cast<uint32_t>(d.RegOr("ETMIDR", 0x411CF300));  // PFT 1.0 when absent
  c.etmccer = static_cast<uint32_t>(d.RegOr("ETMCCER", 0));
  return c;
}

std::vector<PtmSource> SnapshotPtmSources(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buffer) {
  std::vector<PtmSource> out;
  for (const snapshot::Device* d : snap.SourcesOfBuffer(buffer.name)) {
    const bool is_ptm = ete::ProtocolOfType(d->type) == ete::TraceProtocol::kPtm;
    if (is_ptm) out.push_back({d->name, d->type, PtmConfig::FromDevice(*d)});
    if (buffer.format == snapshot::BufferFormat::kSourceData) break;
  }
  return out;
}

struct PtmBufferDecoder::Route {
  PtmBufferDecoder* owner;
  size_t source;
  std::unique_ptr<PtmPacketProcessor> proc;
  static void OnPacket(void* c, const PtmPacket& p) {
    auto* r = static_cast<Route*>(c);
    r->owner->on_packet_(r->owner->ctx_, r->source, p);
  }
  static void OnError(void* c, const PtmError& e) {
    auto* r = static_cast<Route*>(c);
    if (r->owner->on_error_) r->owner->on_error_(r->owner->ctx_, r->source, e.index, e.message);
  }
};

class PtmBufferDecoder::FrameSink : public coresight::DeformatterSink {
 public:
  explicit FrameSink(PtmBufferDecoder* owner) : owner_(owner) {}
  void OnData(uint8_t id, uint64_t, uint64_t input_offset, const uint8_t* data, size_t n, const uint64_t*) override {
    if (Route* r = owner_->by_id_[id]) r->proc->Push(input_offset, data, n);
  }
  void OnError(const coresight::DeformatterError& e) override {
    if (e.kind == coresight::DeformatterErrorKind::kUnknownId) return;  // another protocol's source
    if (owner_->on_error_) owner_->on_error_(owner_->ctx_, SIZE_MAX, e.input_offset, e.message);
  }
  void OnReset(uint64_t) override {
    for (auto& r : owner_->routes_) {
      r->proc->Finish();
      r->proc->Reset();
    }
  }

 private:
  PtmBufferDecoder* owner_;
};

PtmBufferDecoder::PtmBufferDecoder(snapshot::BufferFormat format, std::vector<PtmSource> sources,
                                   SourcePacketCallback on_packet, SourceErrorCallback on_error, void* ctx,
                                   ErrorPolicy policy)
    : format_(format), sources_(std::move(sources)), on_packet_(on_packet), on_error_(on_error), ctx_(ctx) {
  if (format_ == snapshot::BufferFormat::kSourceData && sources_.size() > 1) sources_.resize(1);
  for (size_t i = 0; i < sources_.size(); ++i) {
    auto r = std::make_unique<Route>();
    r->owner = this;
    r->source = i;
    PtmConfig cfg = sources_[i].config;
    if (format_ == snapshot::BufferFormat::kSourceData) cfg.etmtraceidr = 0;  // raw: no trace ID
    r->proc = std::make_unique<PtmPacketProcessor>(cfg, &Route::OnPacket, r.get(), &Route::OnError, policy);
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

PtmBufferDecoder::~PtmBufferDecoder() = default;

void PtmBufferDecoder::Push(const uint8_t* data, size_t n) {
  if (dstream_)
    dstream_->Push(data, n);
  else if (deformatter_)
    deformatter_->Push(data, n);
  else if (!routes_.empty())
    routes_[0]->proc->Push(offset_, data, n);
  offset_ += n;
}

void PtmBufferDecoder::Finish() {
  if (deformatter_) deformatter_->Finish();
  for (auto& r : routes_) r->proc->Finish();
}

uint64_t PtmBufferDecoder::packets() const {
  uint64_t n = 0;
  for (auto& r : routes_) n += r->proc->packets();
  return n;
}

}  // namespace mabutrace::ptm
