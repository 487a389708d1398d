// SPDX-License-Identifier: MIT
// cmd_stats.cpp: `mabutrace stats IN [--by name|thread|name,thread]
// [--top N] [--format text|json|csv] [-o OUT] [--elf FW] [--check EXPR]...`
// (docs/stats.md). The input is read as `convert` reads it (ReadTrace);
// the statistics, report and checks are host/stats'.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_io.h"
#include "command.h"
#include "convert.h"
#include "stats_check.h"
#include "stats_report.h"
#include "trace_stats.h"

namespace mabutrace::cli {
namespace {

struct StatsOptions {
  std::string in, out = "-", by = "name", format, elf;
  size_t top = 5;
  std::vector<std::string> checks;
};

// The --format, or from OUT's extension (.json, .csv), else text.
std::string PickStatsFormat(const StatsOptions& o) {
  if (!o.format.empty()) return o.format;
  auto ends = [&](const char* ext) {
    const std::string e = ext;
    return o.out.size() > e.size() && o.out.compare(o.out.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".json")) return "json";
  if (ends(".csv")) return "csv";
  return "text";
}

int RunStats(const StatsOptions& o) {
  std::vector<stats::Check> checks;
  for (const std::string& text : o.checks) {
    stats::CheckError err;
    auto c = stats::ParseCheck(text, &err);
    if (!c) {
      std::fprintf(stderr, "mabutrace: stats: --check '%s': column %zu: %s\n  %s\n  %*s^\n", text.c_str(), err.column,
                   err.message.c_str(), text.c_str(), int(err.column - 1), "");
      return kExitUsage;
    }
    checks.push_back(std::move(*c));
  }
  stats::Options options;
  options.by = o.by == "thread"        ? stats::GroupBy::kThread
               : o.by == "name,thread" ? stats::GroupBy::kNameThread
                                       : stats::GroupBy::kName;
  options.top = o.top;
  auto fin = InputFile::Open(o.in);
  if (!fin) return kExitBadInput;
  stats::TraceStats result(options);
  const ReadResult r = ReadTrace(*fin, o.elf, [&]() -> model::EventSink* { return &result; });
  if (!r.opened) return r.rc;  // nothing was read: no report
  const std::string format = PickStatsFormat(o);
  const std::string report = format == "json"  ? stats::JsonReport(result)
                             : format == "csv" ? stats::CsvReport(result)
                                               : stats::TextReport(result);
  int rc = r.rc;
  if (!WriteFile(o.out, report)) rc = kExitBadInput;
  for (const stats::Check& c : checks) {
    const stats::CheckResult cr = stats::Evaluate(c, result);
    std::fprintf(stderr, "mabutrace: check %s\n", cr.line.c_str());
    if (!cr.pass) rc = kExitBadInput;
  }
  return rc;
}

Registration reg{
    "stats",
    [](CLI::App& app) {
      auto o = std::make_shared<StatsOptions>();
      auto* cmd = app.add_subcommand(
          "stats", "Statistics of a trace (slices, flow latency, counters, instants, threads) and performance gates");
      cmd->add_option("IN", o->in, "binary stream file, or raw dump (docs/raw-dump.md); '-' for stdin")->required();
      cmd->add_option("-o,--output", o->out, "report file, '-' for stdout (default)");
      cmd->add_option("--format", o->format, "text | json | csv (default: from OUT's extension, else text)")
          ->check(CLI::IsMember({"text", "json", "csv"}));
      cmd->add_option("--by", o->by, "key of slices, flows and instants: name (default) | thread | name,thread")
          ->check(CLI::IsMember({"name", "thread", "name,thread"}));
      cmd->add_option("--top", o->top, "longest instances listed per slice and flow (default 5)")
          ->check(CLI::Range(0, 1000));
      cmd->add_option("--elf", o->elf, "firmware ELF resolving a raw dump's name pointers")->check(CLI::ExistingFile);
      cmd->add_option("--check", o->checks,
                      "gate, repeatable: 'slice:NAME.p99 < 2ms', 'flow:NAME.p99 < 500us', "
                      "'counter:NAME.max <= 8', 'instant:NAME.count == 0' (exit 1 when one fails)")
          ->allow_extra_args(false);
      return Runner{cmd, [o] { return RunStats(*o); }};
    },
    15};

}  // namespace
}  // namespace mabutrace::cli
