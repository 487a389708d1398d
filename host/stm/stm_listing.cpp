// SPDX-License-Identifier: MIT
// stm_listing.cpp: see stm_listing.h.
#include "stm_listing.h"

#include <cinttypes>
#include <string_view>

#include "format/json_escape.h"

namespace mabutrace::stm {
namespace {

// Appends printf-formatted text (numbers; strings go through Quoted).
template <class... Args>
void Add(std::string* s, const char* fmt, Args... args) {
  char buf[96];
  const int n = std::snprintf(buf, sizeof buf, fmt, args...);
  s->append(buf, static_cast<size_t>(n));
}

// ,"key":"value" with the value escaped.
void AddString(std::string* s, const char* key, std::string_view value) {
  Add(s, ",\"%s\":", key);
  JsonEscape(value.data(), value.size(), [s](const char* p, size_t n) { s->append(p, n); });
}

std::string RawHex(const StpPacket& p) {
  std::string raw;
  for (size_t i = 0; i < p.raw.size(); ++i) Add(&raw, i ? " %02x" : "%02x", p.raw[i]);
  return raw;
}

std::string PacketJson(const StpPacket& p) {
  std::string s;
  Add(&s, "{\"offset\":%" PRIu64, p.offset);
  AddString(&s, "raw", RawHex(p));
  AddString(&s, "type", StpTypeName(p));
  switch (p.type) {
    case StpType::kM8:
    case StpType::kM16: Add(&s, ",\"master\":%u", p.master); break;
    case StpType::kC8:
    case StpType::kC16: Add(&s, ",\"channel\":%u", p.channel); break;
    case StpType::kVersion: Add(&s, ",\"version\":%" PRIu64, p.payload); break;
    case StpType::kFreq: Add(&s, ",\"freq_hz\":%" PRIu64, p.payload); break;
    case StpType::kIncompleteEot:
    case StpType::kBadSequence: AddString(&s, "err_type", StpTypeBaseName(p.err_type)); break;
    default: break;
  }
  if (p.payload_bits && p.type != StpType::kFreq)
    Add(&s, ",\"data\":\"0x%" PRIx64 "\",\"size\":%u", p.payload, p.payload_bits);
  if (p.has_ts) Add(&s, ",\"timestamp\":%" PRIu64 ",\"ts_bits\":%u", p.timestamp, p.ts_bits);
  if (!p.error.empty()) AddString(&s, "error", p.error);
  return s + "}";
}

std::string PacketText(const StpPacket& p) {
  std::string s;
  Add(&s, "Idx:%" PRIu64 "; [", p.offset);
  s += RawHex(p) + "]; " + StpTypeName(p);
  if (p.payload_bits) Add(&s, " 0x%" PRIx64, p.payload);
  if (p.has_ts) Add(&s, " TS=0x%" PRIx64, p.timestamp);
  if (!p.error.empty()) s += " (" + p.error + ")";
  return s;
}

std::string MessageJson(const StmMessage& m) {
  std::string s;
  Add(&s, "{\"offset\":%" PRIu64, m.offset);
  AddString(&s, "kind", StmMessageKindName(m.kind));
  if (m.id_valid) Add(&s, ",\"master\":%u,\"channel\":%u", m.master, m.channel);
  if (m.size_bits) Add(&s, ",\"data\":\"0x%" PRIx64 "\",\"size\":%u", m.data, m.size_bits);
  if (m.marker) s += ",\"marker\":true";
  if (m.has_ts) Add(&s, ",\"timestamp\":%" PRIu64, m.timestamp);
  return s + "}";
}

std::string MessageText(const StmMessage& m) {
  std::string s;
  if (m.id_valid)
    Add(&s, "Idx:%" PRIu64 "; Ma:0x%02x Ch:0x%02x ", m.offset, m.master, m.channel);
  else
    Add(&s, "Idx:%" PRIu64 "; Ma:?? Ch:?? ", m.offset);
  s += StmMessageKindName(m.kind);
  if (m.size_bits) Add(&s, " 0x%0*" PRIx64, (m.size_bits + 3) / 4, m.data);
  if (m.marker) s += " +Mrk";
  if (m.has_ts) Add(&s, " TS=0x%" PRIx64, m.timestamp);
  return s;
}

// Writes a line per packet, or feeds the message decoder and writes a line
// per message; keeps the packet errors either way.
class Lister final : public StpPacketSink, public StmMessageSink {
 public:
  Lister(ListingLevel level, ListingFormat format, FILE* out, std::vector<std::string>* errors)
      : level_(level), format_(format), out_(out), errors_(errors), messages_(this) {}
  void OnPacket(const StpPacket& p) override {
    if (!p.error.empty()) errors_->push_back(p.error);
    if (level_ == ListingLevel::kMessages) return messages_.OnPacket(p);
    Put(PacketLine(p, format_));
  }
  void OnMessage(const StmMessage& m) override { Put(MessageLine(m, format_)); }

 private:
  void Put(std::string line) {
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), out_);
  }
  ListingLevel level_;
  ListingFormat format_;
  FILE* out_;
  std::vector<std::string>* errors_;
  StmMessageDecoder messages_;
};

}  // namespace

std::string PacketLine(const StpPacket& p, ListingFormat format) {
  return format == ListingFormat::kJsonl ? PacketJson(p) : PacketText(p);
}

std::string MessageLine(const StmMessage& m, ListingFormat format) {
  return format == ListingFormat::kJsonl ? MessageJson(m) : MessageText(m);
}

bool ListCapture(const std::filesystem::path& capture, const CaptureOptions& options, ListingLevel level,
                 ListingFormat format, FILE* out, ListingResult* result, std::string* error) {
  *result = {};
  Lister lister(level, format, out, &result->packet_errors);
  StpDecoder dec(&lister);
  CaptureInfo info;
  if (!FeedCapture(capture, options, &dec, &info, error)) return false;
  result->warnings = std::move(info.warnings);
  result->synchronised = info.synchronised;
  return true;
}

}  // namespace mabutrace::stm
