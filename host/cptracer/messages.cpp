// SPDX-License-Identifier: MIT
// messages.cpp: see messages.h.
#include "messages.h"

#include <cstdio>

#include "json_text.h"

namespace mabutrace::cptracer {

using exporter::JsonString;

TracerDecoder::TracerDecoder(Layout layout, TracerMessageSink* sink) : layout_(std::move(layout)), sink_(sink) {
  for (const auto& m : layout_.messages)
    if (m.words > max_words_) max_words_ = m.words;
}

void TracerDecoder::Bad(uint16_t channel, Pending* p, const std::string& why) {
  TracerMessage t;
  t.offset = p->offset;
  t.stm_master = layout_.hw_master;
  t.stm_channel = channel;
  t.words = p->words;
  char buf[64];
  std::snprintf(buf, sizeof buf, "STM byte offset %llu: ", static_cast<unsigned long long>(p->offset));
  t.error = buf + why;
  ++unknown_;
  sink_->OnTracerMessage(t);
  p->words.clear();
}

void TracerDecoder::OnMessage(const stm::StmMessage& m) {
  if (m.kind == stm::StmMessageKind::kFreq) ts_freq_hz_ = m.data;
  if (!m.id_valid || m.master != layout_.hw_master) return;
  if (m.kind != stm::StmMessageKind::kData) return;
  Pending& p = pending_[m.channel];
  if (p.words.empty()) p.offset = m.offset;
  if (m.size_bits != 32) {
    p.words.push_back(static_cast<uint32_t>(m.data));
    return Bad(m.channel, &p, "tracer word is not a 32-bit data packet (" + std::to_string(m.size_bits) + " bits)");
  }
  p.words.push_back(static_cast<uint32_t>(m.data));
  if (m.marker) return Complete(m.channel, &p, &m);
  if (p.words.size() >= max_words_) Bad(m.channel, &p, "no marked word within the longest message");
}

void TracerDecoder::Complete(uint16_t channel, Pending* p, const stm::StmMessage* last) {
  const uint32_t* w = p->words.data();
  const size_t n = p->words.size();
  const MessageSpec* spec = nullptr;
  const uint32_t type_value = layout_.type_field.Extract(w, n);
  for (const auto& ms : layout_.messages) {
    if (ms.words != n) continue;
    if (ms.type_value >= 0 && static_cast<uint32_t>(ms.type_value) != type_value) continue;
    spec = &ms;
    break;
  }
  if (!spec) {
    return Bad(
        channel, p,
        std::to_string(n) + "-word message with type field " + std::to_string(type_value) + " matches no layout entry");
  }
  TracerMessage t;
  t.offset = p->offset;
  t.stm_master = last->master;
  t.stm_channel = channel;
  t.has_ts = last->has_ts;
  t.timestamp = last->timestamp;
  t.type = spec->type;
  t.words = p->words;
  auto get = [&](Field f) { return spec->f(f).Extract(w, n); };
  t.sid = get(Field::kSid);
  t.group = get(Field::kGroup);
  t.access_status = get(Field::kAccessStatus);
  t.mid = get(Field::kMid);
  t.xid = get(Field::kXid);
  t.address = get(Field::kAddress);
  t.overflow = get(Field::kOverflow) != 0;
  t.write = get(Field::kRw) != 0;
  t.throughput0 = get(Field::kThroughput0);
  t.throughput1 = get(Field::kThroughput1);
  t.wait_cycles = get(Field::kWait);
  t.grants = get(Field::kGrants);
  t.tracer = spec->f(Field::kSid).present ? t.sid : channel;
  p->words.clear();
  sink_->OnTracerMessage(t);
}

void TracerDecoder::OnSyncLost(uint64_t offset) {
  for (auto& [ch, p] : pending_)
    if (!p.words.empty())
      Bad(ch, &p, "message cut off by loss of STM synchronisation at byte offset " + std::to_string(offset));
}

void TracerDecoder::OnResync(uint64_t offset, stm::StpType type) {
  // An STM resync inside a message: its first words are a fragment; gluing
  // them to the words after the resync would make one bad message of two.
  const char* what = type == stm::StpType::kAsync ? "ASYNC" : "VERSION";
  for (auto& [ch, p] : pending_)
    if (!p.words.empty())
      Bad(ch, &p, std::string("message cut off by an STM ") + what + " at byte offset " + std::to_string(offset));
}

void TracerDecoder::Finish() {
  for (auto& [ch, p] : pending_)
    if (!p.words.empty()) Bad(ch, &p, "message cut off by the end of the trace");
}

std::string TracerMessageJson(const TracerMessage& m) {
  char buf[160];
  std::string s;
  auto add = [&](const char* fmt, auto... v) {
    const int n = std::snprintf(buf, sizeof buf, fmt, v...);
    s.append(buf, static_cast<size_t>(n));
  };
  add("{\"offset\":%llu,\"type\":", static_cast<unsigned long long>(m.offset));
  s += JsonString(MsgTypeName(m.type));
  add(",\"tracer\":%u,\"channel\":%u", m.tracer, m.stm_channel);
  if (m.has_ts) add(",\"timestamp\":%llu", static_cast<unsigned long long>(m.timestamp));
  switch (m.type) {
    case MsgType::kStatus:
      add(",\"sid\":%u,\"group\":%u,\"access_status\":\"0x%06x\"", m.sid, m.group, m.access_status);
      break;
    case MsgType::kEventB:
    case MsgType::kEventC:
    case MsgType::kEventE:
      add(",\"sid\":%u,\"mid\":%u,\"xid\":%u,\"overflow\":%s,\"rw\":\"%s\",\"address\":\"0x%03x\"", m.sid, m.mid, m.xid,
          m.overflow ? "true" : "false", m.write ? "write" : "read", m.address);
      break;
    case MsgType::kStatistics:
      add(",\"throughput0\":%u,\"throughput1\":%u,\"wait_cycles\":%u,\"grants\":%u", m.throughput0, m.throughput1,
          m.wait_cycles, m.grants);
      break;
    case MsgType::kUnknown:
      s += ",\"words\":[";
      for (size_t i = 0; i < m.words.size(); ++i) add("%s\"0x%08x\"", i ? "," : "", m.words[i]);
      s += "],\"error\":" + JsonString(m.error);
      break;
  }
  s += '}';
  return s;
}

}  // namespace mabutrace::cptracer

namespace mabutrace::cptracer {
namespace {
struct Chain final : stm::StpPacketSink, TracerMessageSink {
  Chain(const Layout& l, std::vector<TracerMessage>* out, std::vector<std::string>* warnings)
      : tracer(l, this), msgs(&tracer), out(out), warnings(warnings) {}
  void OnPacket(const stm::StpPacket& p) override {
    if (!p.error.empty() && warnings) warnings->push_back(p.error);
    msgs.OnPacket(p);
  }
  void OnTracerMessage(const TracerMessage& m) override { out->push_back(m); }
  TracerDecoder tracer;
  stm::StmMessageDecoder msgs;
  std::vector<TracerMessage>* out;
  std::vector<std::string>* warnings;
};
}  // namespace

bool DecodeTracerCapture(const std::filesystem::path& path, const Layout& layout, const stm::CaptureOptions& options,
                         std::vector<TracerMessage>* out, uint64_t* ts_freq_hz, std::vector<std::string>* warnings,
                         std::string* error) {
  Chain chain(layout, out, warnings);
  stm::StpDecoder dec(&chain);
  stm::CaptureInfo info;
  if (!stm::FeedCapture(path, options, &dec, &info, error)) return false;
  chain.tracer.Finish();
  if (warnings) warnings->insert(warnings->end(), info.warnings.begin(), info.warnings.end());
  *ts_freq_hz = chain.tracer.ts_freq_hz();
  return true;
}

}  // namespace mabutrace::cptracer
