// SPDX-License-Identifier: MIT
// cmd_stm.cpp: `mabutrace stm packets|decode CAPTURE [--format jsonl|text]`
// (docs/cptracer.md). CAPTURE: a CoreSight snapshot directory, a TI
// .bin/.dcm capture or a raw STP file (host/stm/stm_capture.h); the lines
// are host/stm/stm_listing.h's.
#include <cstdio>
#include <memory>
#include <string>

#include "cli_io.h"
#include "command.h"
#include "stm_listing.h"

namespace mabutrace::cli {
namespace {

struct StmOptions {
  std::string capture;
  std::string format = "jsonl";
  stm::CaptureOptions capture_options;
};

int Run(const StmOptions& o, stm::ListingLevel level) {
  const auto format = o.format == "jsonl" ? stm::ListingFormat::kJsonl : stm::ListingFormat::kText;
  stm::ListingResult result;
  std::string err;
  if (!stm::ListCapture(o.capture, o.capture_options, level, format, stdout, &result, &err)) {
    std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
    return kExitBadInput;
  }
  std::vector<std::string> problems = result.warnings;
  problems.insert(problems.end(), result.packet_errors.begin(), result.packet_errors.end());
  ReportProblems(o.capture, problems);
  if (std::fflush(stdout) != 0) return kExitBadInput;
  // A damaged frame (the de-formatter's warnings) is bad input as a bad
  // packet is, as in `cptracer` and `arm`: listed on, exit code 1.
  const bool clean = result.packet_errors.empty() && result.warnings.empty() && result.synchronised;
  return clean ? kExitOk : kExitBadInput;
}

void AddCommon(CLI::App* c, StmOptions* o) {
  c->add_option("CAPTURE", o->capture, "snapshot directory, TI .bin (with .dcm) or raw STP file")->required();
  c->add_option("--format", o->format, "jsonl (default) | text")->check(CLI::IsMember({"jsonl", "text"}));
  c->add_option("--trace-id", o->capture_options.trace_id, "STM trace ID in the frames (default: STMTCSR / 0x40)")
      ->transform(Number(0x7F))
      ->check(CLI::Range(1, 0x6F).description("CoreSight trace IDs are 0x01-0x6F"));
  c->add_flag("--halt-on-frame-error", o->capture_options.halt_on_frame_error,
              "stop at the first frame error, as OpenCSD does");
}

Registration reg{"stm",
                 [](CLI::App& app) {
                   auto* cmd = app.add_subcommand("stm", "MIPI STPv2 (STM) trace: packets and messages");
                   cmd->require_subcommand(1);
                   auto po = std::make_shared<StmOptions>();
                   auto mo = std::make_shared<StmOptions>();
                   auto* pk = cmd->add_subcommand("packets", "List the STPv2 packets (offset, raw bytes, type)");
                   AddCommon(pk, po.get());
                   auto* dc = cmd->add_subcommand("decode",
                                                  "List the STM messages (master, channel, data, marker, timestamp)");
                   AddCommon(dc, mo.get());
                   return Runner{cmd, [po, mo, pk] {
                                   return pk->parsed() ? Run(*po, stm::ListingLevel::kPackets)
                                                       : Run(*mo, stm::ListingLevel::kMessages);
                                 }};
                 },
                 40};

}  // namespace
}  // namespace mabutrace::cli
