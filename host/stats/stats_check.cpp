// SPDX-License-Identifier: MIT
// stats_check.cpp: see stats_check.h.
#include "stats_check.h"

#include <cstdio>
#include <span>

namespace mabutrace::stats {

namespace {

bool IsDurationKind(CheckKind k) { return k == CheckKind::kSlice || k == CheckKind::kFlow || k == CheckKind::kChain; }

// The statistics each kind has (none is a '.'-suffix of another, so the
// order does not matter).
std::span<const std::string_view> StatsOf(CheckKind k) {
  static constexpr std::string_view kSlice[] = {"p99.9", "count", "total", "self", "mean", "open",
                                                "min",   "p50",   "p90",   "p99",  "max"};
  static constexpr std::string_view kFlow[] = {"p99.9", "count", "total", "mean", "min", "p50", "p90", "p99", "max"};
  static constexpr std::string_view kCounter[] = {"twmean", "count", "mean", "last", "min",
                                                  "max",    "p50",   "p90",  "p99",  "p99.9"};
  static constexpr std::string_view kInstant[] = {"count"};
  switch (k) {
    case CheckKind::kSlice: return kSlice;
    case CheckKind::kFlow:
    case CheckKind::kChain: return kFlow;
    case CheckKind::kCounter: return kCounter;
    case CheckKind::kInstant: return kInstant;
  }
  return kInstant;
}

std::string_view KindName(CheckKind k) {
  switch (k) {
    case CheckKind::kSlice: return "slice";
    case CheckKind::kFlow: return "flow";
    case CheckKind::kChain: return "chain";
    case CheckKind::kCounter: return "counter";
    case CheckKind::kInstant: return "instant";
  }
  return "";
}

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

std::optional<Check> Fail(CheckError* e, size_t index, std::string message) {
  if (e) *e = CheckError{index + 1, std::move(message)};
  return std::nullopt;
}

// The operator at text[i], and its length (0: none).
size_t OperatorAt(std::string_view text, size_t i, CheckOp* op) {
  const char c = text[i];
  const bool eq = i + 1 < text.size() && text[i + 1] == '=';
  switch (c) {
    case '<': *op = eq ? CheckOp::kLessEqual : CheckOp::kLess; return eq ? 2 : 1;
    case '>': *op = eq ? CheckOp::kGreaterEqual : CheckOp::kGreater; return eq ? 2 : 1;
    case '=': *op = CheckOp::kEqual; return eq ? 2 : 0;
    case '!': *op = CheckOp::kNotEqual; return eq ? 2 : 0;
    default: return 0;
  }
}

// A decimal number "D[.D]" at text[i...]; advances i.
std::optional<long double> Number(std::string_view text, size_t* i) {
  long double v = 0;
  size_t digits = 0;
  while (*i < text.size() && text[*i] >= '0' && text[*i] <= '9') {
    v = v * 10 + (text[*i] - '0');
    ++*i, ++digits;
  }
  if (*i < text.size() && text[*i] == '.') {
    ++*i;
    long double scale = 0.1L;
    while (*i < text.size() && text[*i] >= '0' && text[*i] <= '9') {
      v += scale * (text[*i] - '0');
      scale /= 10;
      ++*i, ++digits;
    }
  }
  if (digits == 0) return std::nullopt;
  return v;
}

}  // namespace

std::optional<Check> ParseCheck(std::string_view text, CheckError* error) {
  Check c;
  c.text = std::string(text);
  size_t i = 0;
  while (i < text.size() && IsSpace(text[i])) ++i;
  const size_t colon = text.find(':', i);
  if (colon == std::string_view::npos)
    return Fail(error, i, "expected KIND:KEY.STAT (KIND: slice, flow, chain, counter, instant)");
  const std::string_view kind = text.substr(i, colon - i);
  if (kind == "slice") {
    c.kind = CheckKind::kSlice;
  } else if (kind == "flow") {
    c.kind = CheckKind::kFlow;
  } else if (kind == "chain") {
    c.kind = CheckKind::kChain;
  } else if (kind == "counter") {
    c.kind = CheckKind::kCounter;
  } else if (kind == "instant") {
    c.kind = CheckKind::kInstant;
  } else {
    return Fail(error, i, "unknown kind '" + std::string(kind) + "' (slice, flow, chain, counter, instant)");
  }
  i = colon + 1;
  // The key: quoted, or up to the operator.
  size_t stat_from;  // where ".STAT" starts
  size_t op_at;
  if (i < text.size() && text[i] == '"') {
    const size_t close = text.find('"', i + 1);
    if (close == std::string_view::npos) return Fail(error, i, "unterminated quoted key");
    c.key = std::string(text.substr(i + 1, close - i - 1));
    stat_from = close + 1;
    if (stat_from >= text.size() || text[stat_from] != '.')
      return Fail(error, stat_from, "expected '.STAT' after the key");
    op_at = stat_from;
    CheckOp op;
    while (op_at < text.size() && !OperatorAt(text, op_at, &op)) ++op_at;
  } else {
    op_at = i;
    CheckOp op;
    while (op_at < text.size() && !OperatorAt(text, op_at, &op)) ++op_at;
    stat_from = std::string_view::npos;
  }
  if (op_at >= text.size()) return Fail(error, text.size(), "expected an operator (<, <=, >, >=, ==, !=)");
  size_t left_end = op_at;
  while (left_end > i && IsSpace(text[left_end - 1])) --left_end;
  const std::string_view left = text.substr(0, left_end);
  // The statistic: a known name after the last '.' that makes one.
  bool found = false;
  for (std::string_view s : StatsOf(c.kind)) {
    if (left.size() < s.size() + 1) continue;
    const size_t at = left.size() - s.size() - 1;
    if (left.substr(at + 1) != s || left[at] != '.') continue;
    if (stat_from != std::string_view::npos && at != stat_from) continue;
    if (stat_from == std::string_view::npos && at == i) return Fail(error, i, "empty key");
    c.stat = std::string(s);
    if (stat_from == std::string_view::npos) c.key = std::string(text.substr(i, at - i));
    found = true;
    break;
  }
  if (!found) {
    const size_t dot = left.rfind('.');
    std::string names;
    for (std::string_view s : StatsOf(c.kind)) names += (names.empty() ? "" : ", ") + std::string(s);
    if (dot == std::string_view::npos || dot < i)
      return Fail(error, left_end, "expected '.STAT' after the key (" + names + ")");
    return Fail(error, dot + 1,
                "unknown statistic '" + std::string(left.substr(dot + 1)) + "' of a " + std::string(KindName(c.kind)) +
                    " (" + names + ")");
  }
  if (c.key.empty()) return Fail(error, i, "empty key");
  i = op_at + OperatorAt(text, op_at, &c.op);
  while (i < text.size() && IsSpace(text[i])) ++i;
  const size_t number_at = i;
  const bool negative = i < text.size() && text[i] == '-';  // counters may be below 0
  if (negative) ++i;
  const auto v = Number(text, &i);
  if (!v) return Fail(error, number_at, "expected a number");
  c.threshold = negative ? -*v : *v;
  while (i < text.size() && IsSpace(text[i])) ++i;
  const size_t unit_at = i;
  size_t unit_end = i;
  while (unit_end < text.size() && !IsSpace(text[unit_end])) ++unit_end;
  const std::string_view unit = text.substr(unit_at, unit_end - unit_at);
  const bool duration = IsDurationKind(c.kind) && c.stat != "count" && c.stat != "open";
  if (!unit.empty()) {
    if (!duration) return Fail(error, unit_at, "'" + c.stat + "' is a plain number: no unit");
    if (unit == "ns") {
    } else if (unit == "us") {
      c.threshold *= 1e3L;
    } else if (unit == "ms") {
      c.threshold *= 1e6L;
    } else if (unit == "s") {
      c.threshold *= 1e9L;
    } else {
      return Fail(error, unit_at, "unknown unit '" + std::string(unit) + "' (ns, us, ms, s)");
    }
  }
  i = unit_end;
  while (i < text.size() && IsSpace(text[i])) ++i;
  if (i < text.size()) return Fail(error, i, "unexpected '" + std::string(text.substr(i)) + "'");
  return c;
}

namespace {

bool Compare(long double v, CheckOp op, long double t) {
  switch (op) {
    case CheckOp::kLess: return v < t;
    case CheckOp::kLessEqual: return v <= t;
    case CheckOp::kGreater: return v > t;
    case CheckOp::kGreaterEqual: return v >= t;
    case CheckOp::kEqual: return v == t;
    case CheckOp::kNotEqual: return v != t;
  }
  return false;
}

}  // namespace

std::optional<long double> DurationStat(const DurationStats& d, std::string_view s) {
  const QuantileSketch& q = d.sketch;
  if (s == "count") return q.count();
  if (s == "total") return static_cast<long double>(q.sum());
  if (s == "self") return d.self;
  if (s == "open") return d.open_at_end;
  if (s == "mean") return q.mean();
  if (s == "min") return q.min();
  if (s == "max") return q.max();
  if (s == "p50") return q.Quantile(5000);
  if (s == "p90") return q.Quantile(9000);
  if (s == "p99") return q.Quantile(9900);
  if (s == "p99.9") return q.Quantile(9990);
  return std::nullopt;
}

namespace {

std::string FormatNumber(long double v) {
  char buf[64];
  if (v == static_cast<long double>(static_cast<long long>(v)))
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.6Lg", v);
  return buf;
}

}  // namespace

std::string FormatDuration(long double ns) {
  char buf[64];
  if (ns < 1000) {
    std::snprintf(buf, sizeof buf, "%.4Lgns", ns);
  } else if (ns < 1e6L) {
    std::snprintf(buf, sizeof buf, "%.4Lgus", ns / 1e3L);
  } else if (ns < 1e9L) {
    std::snprintf(buf, sizeof buf, "%.4Lgms", ns / 1e6L);
  } else {
    std::snprintf(buf, sizeof buf, "%.4Lgs", ns / 1e9L);
  }
  return buf;
}

CheckResult Evaluate(const Check& c, const TraceStats& stats) {
  std::optional<long double> value;
  bool is_duration = false;
  switch (c.kind) {
    case CheckKind::kSlice:
    case CheckKind::kFlow:
    case CheckKind::kChain: {
      const auto& m = c.kind == CheckKind::kSlice  ? stats.slices()
                      : c.kind == CheckKind::kFlow ? stats.flows()
                                                   : stats.chains();
      auto it = m.find(c.key);
      if (it != m.end())
        value = DurationStat(it->second, c.stat);
      else if (c.stat == "count" || c.stat == "open")
        value = 0;
      is_duration = c.stat != "count" && c.stat != "open";
      break;
    }
    case CheckKind::kCounter: {
      auto it = stats.counters().find(c.key);
      if (it != stats.counters().end()) {
        const CounterStats& k = it->second;
        if (c.stat == "count") value = k.count;
        if (c.stat == "min") value = k.min;
        if (c.stat == "max") value = k.max;
        if (c.stat == "last") value = k.last;
        if (c.stat == "mean") value = static_cast<long double>(k.sum) / k.count;
        if (c.stat == "twmean") value = stats.TimeWeightedMean(k);
        if (c.stat == "p50") value = k.Quantile(5000);
        if (c.stat == "p90") value = k.Quantile(9000);
        if (c.stat == "p99") value = k.Quantile(9900);
        if (c.stat == "p99.9") value = k.Quantile(9990);
      } else if (c.stat == "count") {
        value = 0;
      }
      break;
    }
    case CheckKind::kInstant: {
      auto it = stats.instants().find(c.key);
      value = it != stats.instants().end() ? it->second : 0;
      break;
    }
  }
  CheckResult r;
  if (!value) {
    r.line = "FAIL " + c.text + ": the trace has no " + std::string(KindName(c.kind)) + " '" + c.key + "'";
    return r;
  }
  r.pass = Compare(*value, c.op, c.threshold);
  r.line = std::string(r.pass ? "ok   " : "FAIL ") + c.text + ": " +
           (is_duration ? FormatDuration(*value) : FormatNumber(*value));
  return r;
}

}  // namespace mabutrace::stats
