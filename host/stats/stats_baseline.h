// SPDX-License-Identifier: MIT
// stats_baseline.h: two traces compared key by key, for a CI gate that
// fails when a change made things slower (`mabutrace stats NEW --baseline
// OLD --max-regression 10%`, docs/stats.md §4).
//
// For every slice and flow key present in both traces with at least
// min_count instances in each, each statistic of `stats` (durations: p50,
// p99, mean, ...) is compared: change = (new - old) / old. A change above
// max_regression is a regression. Keys found in one trace only are listed,
// never failed (a renamed scope is not a slowdown); a statistic that is 0
// in the baseline has no ratio and is listed as not compared.
#ifndef MABUTRACE_HOST_STATS_STATS_BASELINE_H
#define MABUTRACE_HOST_STATS_STATS_BASELINE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace_stats.h"

namespace mabutrace::stats {

struct BaselineOptions {
  long double max_regression = 0.10L;  // a fraction: 0.10 = 10 %
  std::vector<std::string> stats = {"p50", "p99"};
  uint64_t min_count = 5;  // instances a key needs in both traces (fewer: too noisy to judge)
};

struct Comparison {
  std::string what;                   // "slice:process_data.p99"
  long double before = 0, after = 0;  // ns
  long double change = 0;             // (after - before) / before
  bool regression = false;
};

struct BaselineResult {
  std::vector<Comparison> compared;  // in key order, slices then flows
  size_t regressions = 0;
  std::vector<std::string> only_new, only_old, too_few, zero_baseline;  // "slice:KEY"
};

BaselineResult CompareToBaseline(const TraceStats& now, const TraceStats& baseline, const BaselineOptions& o);

// "REGRESSION slice:x.p99 1.2ms -> 1.5ms (+25.0%, limit +10%)" / "ok ...".
std::string ComparisonLine(const Comparison& c, const BaselineOptions& o);

// "10%", "10", "2.5%" → 0.10, 0.10, 0.025; nullopt when not a number >= 0.
std::optional<long double> ParsePercent(std::string_view text);

}  // namespace mabutrace::stats

#endif  // MABUTRACE_HOST_STATS_STATS_BASELINE_H
