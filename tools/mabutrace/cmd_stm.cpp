// cmd_stm.cpp: `mabutrace stm packets|decode CAPTURE [--format jsonl|text]`
// (docs/cptracer.md). CAPTURE: a CoreSight snapshot directory, a TI
// .bin/.dcm capture or a raw STP file (host/stm/stm_capture.h).
//   packets: one line per STPv2 packet: {"offset","raw","type", fields...}
//   decode:  one line per STM message: {"offset","kind","master","channel",
//            "data" (hex string),"size", "marker"/"timestamp" when present}
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>

#include "command.h"
#include "stm_capture.h"
#include "stm_messages.h"

namespace mabutrace::cli {
namespace {

struct StmOptions {
  std::string capture;
  std::string format = "jsonl";
  int trace_id = -1;
  bool halt = false;
};

class Printer final : public stm::StpPacketSink, public stm::StmMessageSink {
 public:
  Printer(bool packets, bool json) : packets_(packets), json_(json), md_(this) {}
  void OnPacket(const stm::StpPacket& p) override {
    if (!p.error.empty()) errors_.push_back(p.error);
    if (!packets_) return md_.OnPacket(p);
    std::string raw;
    char b[8];
    for (size_t i = 0; i < p.raw.size(); ++i) {
      std::snprintf(b, sizeof b, i ? " %02x" : "%02x", p.raw[i]);
      raw += b;
    }
    const std::string type = stm::StpTypeName(p);
    if (json_) {
      std::printf("{\"offset\":%" PRIu64 ",\"raw\":\"%s\",\"type\":\"%s\"", p.offset, raw.c_str(), type.c_str());
      switch (p.type) {
        case stm::StpType::kM8: case stm::StpType::kM16: std::printf(",\"master\":%u", p.master); break;
        case stm::StpType::kC8: case stm::StpType::kC16: std::printf(",\"channel\":%u", p.channel); break;
        case stm::StpType::kVersion: std::printf(",\"version\":%" PRIu64, p.payload); break;
        case stm::StpType::kFreq: std::printf(",\"freq_hz\":%" PRIu64, p.payload); break;
        case stm::StpType::kIncompleteEot: case stm::StpType::kBadSequence:
          std::printf(",\"err_type\":\"%s\"", stm::StpTypeBaseName(p.err_type));
          break;
        default: break;
      }
      if (p.payload_bits && p.type != stm::StpType::kFreq)
        std::printf(",\"data\":\"0x%" PRIx64 "\",\"size\":%u", p.payload, p.payload_bits);
      if (p.has_ts) std::printf(",\"timestamp\":%" PRIu64 ",\"ts_bits\":%u", p.timestamp, p.ts_bits);
      if (!p.error.empty()) std::printf(",\"error\":\"%s\"", p.error.c_str());
      std::printf("}\n");
    } else {
      std::printf("Idx:%" PRIu64 "; [%s]; %s", p.offset, raw.c_str(), type.c_str());
      if (p.payload_bits) std::printf(" 0x%" PRIx64, p.payload);
      if (p.has_ts) std::printf(" TS=0x%" PRIx64, p.timestamp);
      if (!p.error.empty()) std::printf(" (%s)", p.error.c_str());
      std::printf("\n");
    }
  }
  void OnMessage(const stm::StmMessage& m) override {
    if (json_) {
      std::printf("{\"offset\":%" PRIu64 ",\"kind\":\"%s\"", m.offset, stm::StmMessageKindName(m.kind));
      if (m.id_valid) std::printf(",\"master\":%u,\"channel\":%u", m.master, m.channel);
      if (m.size_bits) std::printf(",\"data\":\"0x%" PRIx64 "\",\"size\":%u", m.data, m.size_bits);
      if (m.marker) std::printf(",\"marker\":true");
      if (m.has_ts) std::printf(",\"timestamp\":%" PRIu64, m.timestamp);
      std::printf("}\n");
    } else {
      if (m.id_valid) std::printf("Idx:%" PRIu64 "; Ma:0x%02x Ch:0x%02x %s", m.offset, m.master, m.channel,
                                  stm::StmMessageKindName(m.kind));
      else std::printf("Idx:%" PRIu64 "; Ma:?? Ch:?? %s", m.offset, stm::StmMessageKindName(m.kind));
      if (m.size_bits) std::printf(" 0x%0*" PRIx64, (m.size_bits + 3) / 4, m.data);
      if (m.marker) std::printf(" +Mrk");
      if (m.has_ts) std::printf(" TS=0x%" PRIx64, m.timestamp);
      std::printf("\n");
    }
  }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  bool packets_, json_;
  stm::StmMessageDecoder md_;
  std::vector<std::string> errors_;
};

int Run(const StmOptions& o, bool packets) {
  if (o.format != "jsonl" && o.format != "text") {
    std::fprintf(stderr, "mabutrace: stm: --format must be jsonl or text\n");
    return kExitUsage;
  }
  Printer printer(packets, o.format == "jsonl");
  stm::StpDecoder dec(&printer);
  stm::CaptureOptions copts;
  copts.trace_id = o.trace_id;
  copts.halt_on_frame_error = o.halt;
  stm::CaptureInfo info;
  std::string err;
  if (!stm::FeedCapture(o.capture, copts, &dec, &info, &err)) {
    std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
    return kExitBadInput;
  }
  std::vector<std::string> all = info.warnings;
  all.insert(all.end(), printer.errors().begin(), printer.errors().end());
  for (size_t i = 0; i < all.size() && i < 20; ++i)
    std::fprintf(stderr, "mabutrace: %s: %s\n", o.capture.c_str(), all[i].c_str());
  if (all.size() > 20) std::fprintf(stderr, "mabutrace: %s: %zu more problems\n", o.capture.c_str(), all.size() - 20);
  if (std::fflush(stdout) != 0) return kExitBadInput;
  return printer.errors().empty() ? kExitOk : kExitBadInput;
}

void AddCommon(CLI::App* c, StmOptions* o) {
  c->add_option("CAPTURE", o->capture, "snapshot directory, TI .bin (with .dcm) or raw STP file")->required();
  c->add_option("--format", o->format, "jsonl (default) | text");
  c->add_option("--trace-id", o->trace_id, "STM trace ID in the frames (default: STMTCSR / 0x40)");
  c->add_flag("--halt-on-frame-error", o->halt, "stop at the first frame error, as OpenCSD does");
}

Registration reg{"stm", [](CLI::App& app) {
  auto* cmd = app.add_subcommand("stm", "MIPI STPv2 (STM) trace: packets and messages");
  cmd->require_subcommand(1);
  auto po = std::make_shared<StmOptions>();
  auto mo = std::make_shared<StmOptions>();
  auto* pk = cmd->add_subcommand("packets", "List the STPv2 packets (offset, raw bytes, type)");
  AddCommon(pk, po.get());
  auto* dc = cmd->add_subcommand("decode", "List the STM messages (master, channel, data, marker, timestamp)");
  AddCommon(dc, mo.get());
  return Runner{cmd, [po, mo, pk] { return pk->parsed() ? Run(*po, true) : Run(*mo, false); }};
}, 40};

}  // namespace
}  // namespace mabutrace::cli
