// SPDX-License-Identifier: MIT
// stats_baseline.cpp: see stats_baseline.h.
#include "stats_baseline.h"

#include <cstdio>
#include <cstdlib>

#include "stats_check.h"

namespace mabutrace::stats {
namespace {

void CompareKind(const char* kind, const std::map<std::string, DurationStats, std::less<>>& now,
                 const std::map<std::string, DurationStats, std::less<>>& before, const BaselineOptions& o,
                 BaselineResult* r) {
  for (const auto& [key, d] : now) {
    const std::string name = std::string(kind) + ":" + key;
    auto it = before.find(key);
    if (it == before.end()) {
      r->only_new.push_back(name);
      continue;
    }
    if (d.sketch.count() < o.min_count || it->second.sketch.count() < o.min_count) {
      r->too_few.push_back(name);
      continue;
    }
    for (const std::string& stat : o.stats) {
      const auto a = DurationStat(d, stat), b = DurationStat(it->second, stat);
      if (!a || !b) continue;
      if (*b == 0) {
        r->zero_baseline.push_back(name + "." + stat);
        continue;
      }
      Comparison c;
      c.what = name + "." + stat;
      c.before = *b;
      c.after = *a;
      c.change = (*a - *b) / *b;
      c.regression = c.change > o.max_regression;
      r->regressions += c.regression;
      r->compared.push_back(std::move(c));
    }
  }
  for (const auto& [key, d] : before) {
    if (!now.count(key)) r->only_old.push_back(std::string(kind) + ":" + key);
  }
}

}  // namespace

BaselineResult CompareToBaseline(const TraceStats& now, const TraceStats& baseline, const BaselineOptions& o) {
  BaselineResult r;
  CompareKind("slice", now.slices(), baseline.slices(), o, &r);
  CompareKind("flow", now.flows(), baseline.flows(), o, &r);
  CompareKind("chain", now.chains(), baseline.chains(), o, &r);
  return r;
}

std::string ComparisonLine(const Comparison& c, const BaselineOptions& o) {
  char buf[96];
  std::snprintf(buf, sizeof buf, " (%+.1Lf%%, limit +%.4Lg%%)", c.change * 100, o.max_regression * 100);
  return std::string(c.regression ? "REGRESSION " : "ok         ") + c.what + " " + FormatDuration(c.before) + " -> " +
         FormatDuration(c.after) + buf;
}

std::optional<long double> ParsePercent(std::string_view text) {
  std::string s(text);
  if (!s.empty() && s.back() == '%') s.pop_back();
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const long double v = std::strtold(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !(v >= 0)) return std::nullopt;
  return v / 100;
}

}  // namespace mabutrace::stats
