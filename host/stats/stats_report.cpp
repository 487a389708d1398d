// SPDX-License-Identifier: MIT
// stats_report.cpp: see stats_report.h.
#include "stats_report.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "json_text.h"
#include "report_order.h"
#include "stats_check.h"

namespace mabutrace::stats {

namespace {

using ordered_json = nlohmann::ordered_json;

constexpr std::pair<const char*, uint32_t> kQuantiles[] = {
    {"p50", 5000}, {"p90", 9000}, {"p99", 9900}, {"p99.9", 9990}};

std::string Dur(long double ns) { return FormatDuration(ns); }

// Terminal columns of UTF-8 text (names are made valid UTF-8 on the way
// in; "µs" is two bytes): one per code point, two for the East Asian wide
// and emoji blocks, so the columns line up in a terminal.
size_t Columns(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte
    uint32_t cp = b;
    if (b >= 0xE0 && i + 2 < s.size())
      cp = (b & 0x0F) << 12 | (static_cast<unsigned char>(s[i + 1]) & 0x3F) << 6 |
           (static_cast<unsigned char>(s[i + 2]) & 0x3F);
    if (b >= 0xF0 && i + 3 < s.size()) cp = (b & 0x07) << 18 | (static_cast<unsigned char>(s[i + 1]) & 0x3F) << 12;
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6) || cp >= 0x1F000;
    n += wide ? 2 : 1;
  }
  return n;
}

std::string Pad(std::string s, size_t w) {
  const size_t c = Columns(s);
  if (c < w) s.insert(0, w - c, ' ');
  return s;
}

std::string Row(const std::vector<std::string>& cells, const std::vector<size_t>& widths) {
  std::string line = cells[0];
  const size_t c = Columns(line);
  if (c < widths[0]) line.append(widths[0] - c, ' ');
  for (size_t i = 1; i < cells.size(); ++i) line += "  " + Pad(cells[i], widths[i]);
  return line + "\n";
}

std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], Columns(r[i]));
  std::string out;
  for (const auto& r : rows) out += Row(r, w);
  return out;
}

std::string Longest(const DurationStats& d) {
  std::string s;
  for (const Instance& i : d.longest) s += (s.empty() ? "" : " ") + Dur(i.dur) + "@" + std::to_string(i.ns);
  return s;
}

void DurationSection(std::string& out, const char* title, const std::map<std::string, DurationStats, std::less<>>& m,
                     bool slices) {
  if (m.empty()) return;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {title, "count", "total"};
  if (slices) head.push_back("self");
  for (const char* h : {"mean", "min", "p50", "p90", "p99", "p99.9", "max", "longest (dur@begin ns)"})
    head.push_back(h);
  rows.push_back(head);
  for (auto e : Sorted(m, !slices)) {
    const QuantileSketch& q = e->second.sketch;
    std::vector<std::string> r = {e->first, std::to_string(q.count()), Dur(static_cast<long double>(q.sum()))};
    if (slices) r.push_back(Dur(e->second.self));
    r.push_back(Dur(q.mean()));
    r.push_back(Dur(q.min()));
    for (const auto& [name, per] : kQuantiles) r.push_back((q.exact() ? "" : "~") + Dur(q.Quantile(per)));
    r.push_back(Dur(q.max()));
    r.push_back(Longest(e->second));
    rows.push_back(r);
  }
  out += Table(rows) + "\n";
}

std::string Num(double v) { return exporter::JsonNumber(v); }

// Functions, most instructions first (ties by name).
std::vector<std::pair<std::string, const FunctionInstructions*>> FunctionsByInstructions(const TraceStats& s) {
  std::vector<std::pair<std::string, const FunctionInstructions*>> v;
  for (const auto& [k, f] : s.functions()) v.emplace_back(k, &f);
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second->self > b.second->self; });
  return v;
}

// The slice statistics of function `key`, or nullptr: only with slices
// grouped by name and for a key without an input prefix. In a merged trace
// ("INPUT.name") slices of the same name from other inputs (a software
// scope, another core's trace) would be mixed in: no time is given there.
const DurationStats* SliceOf(const TraceStats& s, const std::string& key) {
  if (s.options().by != GroupBy::kName || s.function_inputs()) return nullptr;
  auto it = s.slices().find(key);
  return it == s.slices().end() ? nullptr : &it->second;
}

}  // namespace

std::string TextReport(const TraceStats& s) {
  std::string out;
  DurationSection(out, "slice", s.slices(), true);
  DurationSection(out, "flow (out -> in)", s.flows(), false);
  DurationSection(out, "chain (first out -> last in)", s.chains(), false);
  if (!s.counters().empty()) {
    std::vector<std::vector<std::string>> rows = {
        {"counter", "count", "min", "p50", "p90", "p99", "max", "mean", "last", "twmean"}};
    for (const auto& [k, c] : s.counters())
      rows.push_back({k, std::to_string(c.count), std::to_string(c.min), std::to_string(c.Quantile(5000)),
                      std::to_string(c.Quantile(9000)), std::to_string(c.Quantile(9900)), std::to_string(c.max),
                      Num(c.mean()), std::to_string(c.last), Num(s.TimeWeightedMean(c))});
    out += Table(rows) + "\n";
  }
  if (!s.instants().empty()) {
    // Most frequent first; a trace with thousands of distinct instant names
    // (a bus master's events, each named by its address) lists the first
    // kMaxInstantRows in text and says what it left out (json/csv: all).
    constexpr size_t kMaxInstantRows = 25;
    std::vector<std::pair<std::string_view, uint64_t>> byCount(s.instants().begin(), s.instants().end());
    std::stable_sort(byCount.begin(), byCount.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<std::vector<std::string>> rows = {{"instant", "count"}};
    uint64_t rest = 0;
    for (size_t i = 0; i < byCount.size(); ++i) {
      if (i < kMaxInstantRows)
        rows.push_back({std::string(byCount[i].first), std::to_string(byCount[i].second)});
      else
        rest += byCount[i].second;
    }
    if (byCount.size() > kMaxInstantRows)
      rows.push_back({"(" + std::to_string(byCount.size() - kMaxInstantRows) + " more names: --format json|csv)",
                      std::to_string(rest)});
    out += Table(rows) + "\n";
  }
  if (!s.functions().empty()) {
    std::vector<std::vector<std::string>> rows = {
        {"function", "instructions", "incl. callees", "self time", "total time", "calls"}};
    for (const auto& [k, f] : FunctionsByInstructions(s)) {
      const DurationStats* d = SliceOf(s, k);
      rows.push_back({k, std::to_string(f->self), std::to_string(f->total), d ? Dur(d->self) : "",
                      d ? Dur(static_cast<long double>(d->sketch.sum())) : "",
                      d ? std::to_string(d->sketch.count()) : ""});
    }
    out += Table(rows) + "\n";
  }
  if (!s.threads().empty()) {
    // Several processes (a merged trace: one per input): say whose thread.
    bool several = false;
    for (const auto& [k, t] : s.threads()) several = several || k.first != s.threads().begin()->first.first;
    std::vector<std::vector<std::string>> rows = {{"thread", "tid", "slices", "busy", "longest idle", "idle from ns"}};
    if (several) rows[0].insert(rows[0].begin(), "process");
    for (const auto& [k, t] : s.threads()) {
      rows.push_back({t.name, std::to_string(t.track.tid), std::to_string(t.top_level), Dur(t.busy),
                      Dur(t.longest_idle), t.longest_idle ? std::to_string(t.idle_from) : ""});
      if (several) rows.back().insert(rows.back().begin(), t.process.empty() ? std::to_string(k.first) : t.process);
    }
    out += Table(rows) + "\n";
  }
  std::string notes;
  for (const auto& [k, v, number] : s.metadata())
    if ((k == "orphan_scope_ends" || k == "open_scopes_closed" || k == "flow_ends_without_start" ||
         k == "lost_records" || k == "dropped_records" || k == "damaged_records") &&
        v != "0")
      notes += "  " + k + ": " + v + "\n";
  if (!notes.empty()) out += "trace repairs and losses:\n" + notes;
  out += "quantiles: nearest rank; exact up to " + std::to_string(s.options().exact_bound) +
         " samples per key, then ~ marks a histogram value within 1/128 (0.79 %)\n";
  return out;
}

namespace {

ordered_json DurationJson(const std::string& key, const DurationStats& d, bool slices) {
  const QuantileSketch& q = d.sketch;
  ordered_json j;
  j["key"] = key;
  j["count"] = q.count();
  j["total"] = static_cast<uint64_t>(q.sum());
  if (slices) {
    j["self"] = d.self;
    j["open_at_end"] = d.open_at_end;
  }
  j["mean"] = q.mean();
  j["min"] = q.min();
  for (const auto& [name, per] : kQuantiles) j[name] = q.Quantile(per);
  j["max"] = q.max();
  j["exact"] = q.exact();
  ordered_json longest = ordered_json::array();
  for (const Instance& i : d.longest) longest.push_back({{"ts", i.ns}, {"dur", i.dur}, {"thread", i.thread}});
  j["longest"] = longest;
  return j;
}

}  // namespace

std::string JsonReport(const TraceStats& s) {
  ordered_json doc;
  doc["slices"] = ordered_json::array();
  for (auto e : Sorted(s.slices(), false)) doc["slices"].push_back(DurationJson(e->first, e->second, true));
  doc["flows"] = ordered_json::array();
  for (auto e : Sorted(s.flows(), true)) doc["flows"].push_back(DurationJson(e->first, e->second, false));
  doc["chains"] = ordered_json::array();
  for (auto e : Sorted(s.chains(), true)) doc["chains"].push_back(DurationJson(e->first, e->second, false));
  doc["counters"] = ordered_json::array();
  for (const auto& [k, c] : s.counters())
    doc["counters"].push_back({{"key", k},
                               {"count", c.count},
                               {"min", c.min},
                               {"p50", c.Quantile(5000)},
                               {"p90", c.Quantile(9000)},
                               {"p99", c.Quantile(9900)},
                               {"p99.9", c.Quantile(9990)},
                               {"max", c.max},
                               {"mean", c.mean()},
                               {"last", c.last},
                               {"twmean", s.TimeWeightedMean(c)}});
  doc["instants"] = ordered_json::array();
  for (const auto& [k, n] : s.instants()) doc["instants"].push_back({{"key", k}, {"count", n}});
  doc["functions"] = ordered_json::array();
  for (const auto& [k, f] : FunctionsByInstructions(s)) {
    ordered_json j = {{"key", k}, {"instructions", f->self}, {"instructions_total", f->total}};
    if (const DurationStats* d = SliceOf(s, k)) {
      j["self"] = d->self;
      j["total"] = static_cast<uint64_t>(d->sketch.sum());
      j["calls"] = d->sketch.count();
    }
    doc["functions"].push_back(j);
  }
  doc["threads"] = ordered_json::array();
  for (const auto& [k, t] : s.threads())
    doc["threads"].push_back({{"name", t.name},
                              {"process", t.process},
                              {"pid", t.track.pid},
                              {"tid", t.track.tid},
                              {"slices", t.top_level},
                              {"busy", t.busy},
                              {"longest_idle", t.longest_idle},
                              {"idle_from", t.idle_from},
                              {"idle_to", t.idle_to}});
  ordered_json meta = ordered_json::object();
  for (const auto& [k, v, number] : s.metadata()) {
    if (number)
      meta[k] = std::stoll(v);
    else
      meta[k] = v;
  }
  doc["metadata"] = meta;
  doc["end_ns"] = s.end_ns();
  doc["quantiles"] = {{"rank", "nearest"},
                      {"exact_bound", s.options().exact_bound},
                      {"max_relative_error", QuantileSketch::kMaxRelativeError}};
  return exporter::JsonText(doc) + "\n";
}

namespace {

std::string CsvField(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string CsvReport(const TraceStats& s) {
  std::string out =
      "kind,key,count,total,self,mean,min,p50,p90,p99,p99.9,max,last,twmean,busy,longest_idle,exact,instructions,"
      "instructions_total\n";
  constexpr size_t kColumns = 19;
  auto row = [&out](std::vector<std::string> cells) {
    cells.resize(kColumns);  // the instruction columns: function rows only
    for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  };
  auto durations = [&](const char* kind, const auto& m, bool slices) {
    for (auto e : Sorted(m, !slices)) {
      const QuantileSketch& q = e->second.sketch;
      std::vector<std::string> r = {kind,
                                    CsvField(e->first),
                                    std::to_string(q.count()),
                                    std::to_string(static_cast<uint64_t>(q.sum())),
                                    slices ? std::to_string(e->second.self) : "",
                                    Num(q.mean()),
                                    std::to_string(q.min())};
      for (const auto& [name, per] : kQuantiles) r.push_back(std::to_string(q.Quantile(per)));
      r.push_back(std::to_string(q.max()));
      for (int i = 0; i < 4; ++i) r.push_back("");
      r.push_back(q.exact() ? "1" : "0");
      row(r);
    }
  };
  durations("slice", s.slices(), true);
  durations("flow", s.flows(), false);
  durations("chain", s.chains(), false);
  for (const auto& [k, c] : s.counters())
    row({"counter", CsvField(k), std::to_string(c.count), "", "", Num(c.mean()), std::to_string(c.min),
         std::to_string(c.Quantile(5000)), std::to_string(c.Quantile(9000)), std::to_string(c.Quantile(9900)),
         std::to_string(c.Quantile(9990)), std::to_string(c.max), std::to_string(c.last), Num(s.TimeWeightedMean(c)),
         "", "", c.at_or_above_zero.exact() && c.below_zero.exact() ? "1" : "0"});
  for (const auto& [k, n] : s.instants())
    row({"instant", CsvField(k), std::to_string(n), "", "", "", "", "", "", "", "", "", "", "", "", "", "1"});
  for (const auto& [k, f] : FunctionsByInstructions(s)) {  // count = calls, total/self = its slices' time
    const DurationStats* d = SliceOf(s, k);
    std::vector<std::string> r(kColumns);
    r[0] = "function";
    r[1] = CsvField(k);
    if (d) {
      r[2] = std::to_string(d->sketch.count());
      r[3] = std::to_string(static_cast<uint64_t>(d->sketch.sum()));
      r[4] = std::to_string(d->self);
    }
    r[16] = "1";
    r[17] = std::to_string(f->self);
    r[18] = std::to_string(f->total);
    row(r);
  }
  for (const auto& [k, t] : s.threads())
    row({"thread", CsvField(t.name + " (" + std::to_string(t.track.tid) + ")"), std::to_string(t.top_level), "", "", "",
         "", "", "", "", "", "", "", "", std::to_string(t.busy), std::to_string(t.longest_idle), "1"});
  return out;
}

}  // namespace mabutrace::stats
