// SPDX-License-Identifier: MIT
// cmd_stats.cpp: `mabutrace stats IN [--by name|thread|name,thread]
// [--top N] [--format text|json|csv|html] [-o OUT] [--elf FW] [--check EXPR]...
// [--baseline OLD [--max-regression PCT] [--regression-stats LIST] [--min-count N]]`
// (docs/stats.md). The input is read as `convert` reads it (ReadTrace), or
// as its kind's export does (input_kinds.h: Arm, ITM, CP_Tracer);
// the statistics, report and checks are host/stats'.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli_io.h"
#include "command.h"
#include "convert.h"
#include "input_kinds.h"
#include "stats_baseline.h"
#include "stats_check.h"
#include "stats_report.h"
#include "trace_stats.h"

namespace mabutrace::cli {
namespace {

struct StatsOptions {
  std::string in, out = "-", by = "name", format, elf, kind;
  size_t top = 5;
  std::vector<std::string> checks;
  std::string baseline, max_regression = "10%", regression_stats = "p50,p99";
  uint64_t min_count = 5;
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
  if (ends(".html") || ends(".htm")) return "html";
  return "text";
}

// --baseline: OLD read the same way, compared key by key; a line per
// regression and a summary on stderr.
int CompareBaseline(const StatsOptions& o, const stats::Options& options, const stats::BaselineOptions& bo,
                    const stats::TraceStats& now) {
  stats::TraceStats old(options);
  const ReadResult r = ReadAnyInput(o.baseline, o.kind, o.elf, [&]() -> model::EventSink* { return &old; });
  if (!r.opened || r.rc != kExitOk) {
    std::fprintf(stderr, "mabutrace: stats: baseline %s could not be read whole: no comparison\n", o.baseline.c_str());
    return kExitBadInput;
  }
  const stats::BaselineResult b = stats::CompareToBaseline(now, old, bo);
  for (const stats::Comparison& c : b.compared) {
    if (c.regression) std::fprintf(stderr, "mabutrace: baseline %s\n", stats::ComparisonLine(c, bo).c_str());
  }
  std::fprintf(stderr,
               "mabutrace: baseline %s: %zu compared, %zu regression%s (limit +%.4Lg%%); %zu keys new, %zu gone, "
               "%zu with fewer than %llu instances\n",
               o.baseline.c_str(), b.compared.size(), b.regressions, b.regressions == 1 ? "" : "s",
               bo.max_regression * 100, b.only_new.size(), b.only_old.size(), b.too_few.size(),
               static_cast<unsigned long long>(bo.min_count));
  return b.regressions ? kExitBadInput : kExitOk;
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
  stats::BaselineOptions bo;
  if (!o.baseline.empty()) {
    const auto pct = stats::ParsePercent(o.max_regression);
    if (!pct) {
      std::fprintf(stderr, "mabutrace: stats: --max-regression '%s': expected a percentage, e.g. 10%%\n",
                   o.max_regression.c_str());
      return kExitUsage;
    }
    bo.max_regression = *pct;
    bo.min_count = o.min_count;
    bo.stats.clear();
    for (size_t at = 0; at <= o.regression_stats.size();) {
      size_t comma = o.regression_stats.find(',', at);
      if (comma == std::string::npos) comma = o.regression_stats.size();
      const std::string stat = o.regression_stats.substr(at, comma - at);
      if (stat == "count" || stat == "open" || !stats::DurationStat(stats::DurationStats(1), stat)) {
        std::fprintf(stderr,
                     "mabutrace: stats: --regression-stats: '%s' is not a duration statistic "
                     "(total self mean min p50 p90 p99 p99.9 max)\n",
                     stat.c_str());
        return kExitUsage;
      }
      bo.stats.push_back(stat);
      at = comma + 1;
    }
  }
  stats::Options options;
  options.by = o.by == "thread"        ? stats::GroupBy::kThread
               : o.by == "name,thread" ? stats::GroupBy::kNameThread
                                       : stats::GroupBy::kName;
  options.top = o.top;
  std::error_code ec;
  for (const std::string& in : {o.in, o.baseline})
    if (!in.empty() && in != "-" && o.out != "-" && std::filesystem::exists(o.out, ec) &&
        std::filesystem::equivalent(in, o.out, ec)) {
      std::fprintf(stderr, "mabutrace: stats: %s is both an input and the report\n", o.out.c_str());
      return kExitUsage;
    }
  stats::TraceStats result(options);
  const ReadResult r = ReadAnyInput(o.in, o.kind, o.elf, [&]() -> model::EventSink* { return &result; });
  if (!r.opened) return r.rc;  // nothing was read: no report
  const std::string format = PickStatsFormat(o);
  const std::string report = format == "json"   ? stats::JsonReport(result)
                             : format == "csv"  ? stats::CsvReport(result)
                             : format == "html" ? stats::HtmlReport(result, o.in)
                                                : stats::TextReport(result);
  int rc = r.rc;
  if (!WriteFile(o.out, report)) rc = kExitBadInput;
  for (const stats::Check& c : checks) {
    const stats::CheckResult cr = stats::Evaluate(c, result);
    std::fprintf(stderr, "mabutrace: check %s\n", cr.line.c_str());
    if (!cr.pass) rc = kExitBadInput;
  }
  if (!o.baseline.empty() && CompareBaseline(o, options, bo, result) != kExitOk) rc = kExitBadInput;
  return rc;
}

Registration reg{
    "stats",
    [](CLI::App& app) {
      auto o = std::make_shared<StatsOptions>();
      auto* cmd = app.add_subcommand(
          "stats", "Statistics of a trace (slices, flow latency, counters, instants, threads) and performance gates");
      cmd->add_option("IN", o->in,
                      "binary stream file, raw dump (docs/raw-dump.md), a .json / .pftrace mabutrace wrote, an Arm "
                      "trace or ITM snapshot, a CP_Tracer capture (see --kind); '-' for stdin")
          ->required();
      cmd->add_option("-o,--output", o->out, "report file, '-' for stdout (default)");
      cmd->add_option("--format", o->format, "text | json | csv | html (default: from OUT's extension, else text)")
          ->check(CLI::IsMember({"text", "json", "csv", "html"}));
      cmd->add_option("--by", o->by, "key of slices, flows and instants: name (default) | thread | name,thread")
          ->check(CLI::IsMember({"name", "thread", "name,thread"}));
      cmd->add_option("--top", o->top, "longest instances listed per slice and flow (default 5)")
          ->check(CLI::Range(0, 1000));
      cmd->add_option("--elf", o->elf,
                      "firmware ELF resolving a raw dump's name pointers; of an Arm snapshot FILE[@ADDR] "
                      "(function slices and instruction counts), of an ITM input (handler names)");
      cmd->add_option("--kind", o->kind,
                      "read IN as: trace, " + InputKindNames() +
                          " (default: from IN, as `merge` does: a snapshot by its trace sources, .dcm is cptracer)");
      cmd->add_option("--check", o->checks,
                      "gate, repeatable: 'slice:NAME.p99 < 2ms', 'flow:NAME.p99 < 500us', "
                      "'counter:NAME.max <= 8', 'instant:NAME.count == 0' (exit 1 when one fails)")
          ->allow_extra_args(false);
      cmd->add_option("--baseline", o->baseline,
                      "an older trace of the same program: exit 1 when a slice or flow got slower than "
                      "--max-regression")
          ->check(CLI::ExistingPath);
      cmd->add_option("--max-regression", o->max_regression, "allowed slowdown per statistic (default 10%)");
      cmd->add_option("--regression-stats", o->regression_stats,
                      "statistics compared, comma-separated (default p50,p99; any of total self mean min p50 p90 "
                      "p99 p99.9 max)");
      cmd->add_option("--min-count", o->min_count, "instances a key needs in both traces to be compared (default 5)")
          ->check(PositiveCheck());
      return Runner{cmd, [o] { return RunStats(*o); }};
    },
    15};

}  // namespace
}  // namespace mabutrace::cli
