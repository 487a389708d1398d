// SPDX-License-Identifier: MIT
// stats_check.h: performance gates over a trace's statistics
// (`mabutrace stats --check`, docs/stats.md §4).
//
// Grammar (spaces allowed around the operator and before a unit):
//   check := kind ':' key '.' stat op ['-'] number [unit]
//   kind  := slice | flow | chain | counter | instant
//   stat  := slice, flow, chain: count total mean min p50 p90 p99 p99.9 max
//            slice also:  self open (instances closed at the end)
//            counter:     count min max mean last twmean p50 p90 p99 p99.9
//            instant:     count
//   op    := <  <=  >  >=  ==  !=
//   unit  := ns us ms s (durations only; none = ns); counts and counter
//            values are plain numbers
// The key is everything between ':' and the last '.stat' before the
// operator (so it may hold dots), or a "double-quoted" string. The number
// is decimal with an optional sign and fraction ("1.5ms", "-7").
#ifndef MABUTRACE_HOST_STATS_STATS_CHECK_H
#define MABUTRACE_HOST_STATS_STATS_CHECK_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "trace_stats.h"

namespace mabutrace::stats {

enum class CheckKind { kSlice, kFlow, kChain, kCounter, kInstant };
enum class CheckOp { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };

struct Check {
  std::string text;  // as given
  CheckKind kind = CheckKind::kSlice;
  std::string key;
  std::string stat;
  CheckOp op = CheckOp::kLess;
  long double threshold = 0;  // ns for durations
};

struct CheckError {
  size_t column = 0;  // 1-based, into the check's text
  std::string message;
};

// Parses one --check; on failure *error says what and where.
std::optional<Check> ParseCheck(std::string_view text, CheckError* error);

struct CheckResult {
  bool pass = false;
  std::string line;  // "FAIL slice:x.p99 < 2ms: 2.5ms" / "ok ..."; why, when the key is absent
};

// Evaluates `check` on finished statistics. A key the trace does not have
// fails (its statistics do not exist), except a count, which is then 0.
CheckResult Evaluate(const Check& check, const TraceStats& stats);

// Statistic `stat` (the names of the grammar above: count total self open
// mean min max p50 p90 p99 p99.9) of a slice or flow key, in ns for
// durations; nullopt for a name that is not one.
std::optional<long double> DurationStat(const DurationStats& d, std::string_view stat);

// A duration for people: "812ns", "3.25us", "1.5ms", "2.000s" (4 significant digits).
std::string FormatDuration(long double ns);

}  // namespace mabutrace::stats

#endif  // MABUTRACE_HOST_STATS_STATS_CHECK_H
