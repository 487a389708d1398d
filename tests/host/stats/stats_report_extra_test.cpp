// SPDX-License-Identifier: MIT
// stats_report_extra_test.cpp: the HTML report (self-contained, escaped, a
// chart per key), the sketch's histogram, the counter series' bound, and
// the baseline comparison. Each test names the mutation it was seen
// failing with.
#include <gtest/gtest.h>

#include <numeric>
#include <sstream>
#include <string>

#include "quantile_sketch.h"
#include "stats_baseline.h"
#include "stats_check.h"
#include "stats_report.h"
#include "trace_model.h"
#include "trace_stats.h"

namespace {

using mabutrace::format::Track;
using mabutrace::model::Normalizer;
using mabutrace::stats::BaselineOptions;
using mabutrace::stats::CompareToBaseline;
using mabutrace::stats::QuantileSketch;
using mabutrace::stats::TraceStats;

constexpr Track kA{1, 10};

size_t Occurrences(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// `n` slices of `name` lasting base, base + step, ... on track kA from time t.
void Slices(Normalizer& norm, const char* name, int n, uint64_t base, uint64_t step, uint64_t* t) {
  for (int i = 0; i < n; ++i) {
    norm.OnBegin(kA, name, *t, 0, 0);
    *t += base + step * uint64_t(i);
    norm.OnEnd(kA, "", *t, "");
    *t += 10;
  }
}

// Mutation: Esc() returning its input leaves "<b>" in the page.
TEST(HtmlReport, SelfContainedEscapedAChartPerKey) {
  TraceStats s;
  Normalizer norm(s);
  norm.OnThread(kA, "main");
  uint64_t t = 0;
  Slices(norm, "parse <b>&", 50, 100, 3, &t);
  Slices(norm, "render", 20, 1000, 50, &t);
  for (int i = 0; i < 30; ++i) norm.OnCounter(kA, "queue", t + uint64_t(i) * 7, i % 5);
  norm.OnFlowPoint(kA, true, 1, "msg", t + 300, 0, 0, false);
  norm.OnFlowPoint(kA, false, 1, "", t + 900, 0, 0, false);
  norm.Finish();
  const std::string page = mabutrace::stats::HtmlReport(s, "run \"42\".bin");
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  for (const char* banned : {"<script", "http://", "https://", "src=", "<link", "url("}) {
    EXPECT_EQ(page.find(banned), std::string::npos) << banned;
  }
  EXPECT_NE(page.find("parse &lt;b&gt;&amp;"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_NE(page.find("run &quot;42&quot;.bin"), std::string::npos);
  // Two slice histograms, one flow histogram, one counter plot.
  EXPECT_EQ(Occurrences(page, "aria-label=\"duration histogram\""), 3u);
  EXPECT_EQ(Occurrences(page, "aria-label=\"counter plot\""), 1u);
  EXPECT_EQ(Occurrences(page, "<svg"), Occurrences(page, "</svg>"));
}

// Mutation: HistogramBin ignoring min (lo = 0) puts every sample in the
// last bins; the counts still add up but the bins of 1 and 2 differ.
TEST(QuantileSketchHistogram, CountsAddUpInBothModes) {
  for (size_t bound : {size_t(1) << 16, size_t(8)}) {  // exact, then approximate after 8 samples
    QuantileSketch q(bound);
    for (uint64_t v = 1; v <= 1000; ++v) q.Add(v);
    const auto h = q.Histogram(10);
    ASSERT_EQ(h.size(), 10u);
    EXPECT_EQ(std::accumulate(h.begin(), h.end(), uint64_t(0)), 1000u) << "bound " << bound;
    // log spacing from 1 to 1000: bin 0 is [1, 2), the last [501, 1000].
    EXPECT_EQ(h[0], 1u) << "bound " << bound;
    EXPECT_GT(h[9], h[8]);
    EXPECT_DOUBLE_EQ(q.HistogramEdge(0, 10), 1.0);
    EXPECT_NEAR(q.HistogramEdge(10, 10), 1000.0, 1e-6);
  }
  QuantileSketch one;
  one.Add(5);
  one.Add(5);
  EXPECT_EQ(one.Histogram(4)[0], 2u);  // min == max: one bin
}

// Mutation: not halving the series when full grows it past the bound.
TEST(CounterSeries, StaysBoundedAndSpansTheTrace) {
  TraceStats s;
  Normalizer norm(s);
  for (int i = 0; i < 100000; ++i) norm.OnCounter(kA, "c", uint64_t(i), i);
  norm.Finish();
  const auto& c = s.counters().at("c");
  EXPECT_LE(c.series.size(), mabutrace::stats::CounterStats::kMaxSeries);
  EXPECT_GE(c.series.size(), mabutrace::stats::CounterStats::kMaxSeries / 2);
  EXPECT_EQ(c.series.front().first, 0u);
  EXPECT_GT(c.series.back().first, 99000u);
  for (const auto& [ns, v] : c.series) EXPECT_EQ(int64_t(ns), v);
}

TraceStats Trace(uint64_t base, int n, const char* extra = nullptr) {
  TraceStats s;
  Normalizer norm(s);
  uint64_t t = 0;
  Slices(norm, "work", n, base, 1, &t);
  if (extra) Slices(norm, extra, n, base, 1, &t);
  norm.Finish();
  return s;
}

// Mutation: change = (old - new) / old (the sign flipped) reports a
// speed-up as the regression and the slowdown as fine.
TEST(Baseline, FlagsASlowdownBeyondTheLimitOnly) {
  BaselineOptions o;  // 10 %, p50 and p99, at least 5 instances
  const TraceStats old = Trace(1000, 20);
  const auto same = CompareToBaseline(Trace(1000, 20), old, o);
  EXPECT_EQ(same.regressions, 0u);
  EXPECT_EQ(same.compared.size(), 2u);
  const auto slower = CompareToBaseline(Trace(1200, 20), old, o);  // +20 %
  EXPECT_EQ(slower.regressions, 2u);
  EXPECT_NE(mabutrace::stats::ComparisonLine(slower.compared[0], o).find("REGRESSION slice:work.p50"),
            std::string::npos);
  const auto faster = CompareToBaseline(Trace(800, 20), old, o);
  EXPECT_EQ(faster.regressions, 0u);
  o.max_regression = 0.25L;
  EXPECT_EQ(CompareToBaseline(Trace(1200, 20), old, o).regressions, 0u);
}

TEST(Baseline, NewGoneAndTooFewKeysAreListedNotFailed) {
  BaselineOptions o;
  const auto r = CompareToBaseline(Trace(5000, 20, "added"), Trace(1000, 20, "removed"), o);
  EXPECT_EQ(r.regressions, 2u);  // "work" got 5x slower
  EXPECT_EQ(r.only_new, std::vector<std::string>{"slice:added"});
  EXPECT_EQ(r.only_old, std::vector<std::string>{"slice:removed"});
  const auto few = CompareToBaseline(Trace(5000, 3), Trace(1000, 3), o);
  EXPECT_EQ(few.regressions, 0u);
  EXPECT_EQ(few.too_few, std::vector<std::string>{"slice:work"});
}

TEST(Baseline, ParsePercent) {
  using mabutrace::stats::ParsePercent;
  EXPECT_EQ(ParsePercent("10%"), 0.10L);
  EXPECT_EQ(ParsePercent("2.5"), 0.025L);
  EXPECT_EQ(ParsePercent("-1%"), std::nullopt);
  EXPECT_EQ(ParsePercent("ten"), std::nullopt);
  EXPECT_EQ(ParsePercent("%"), std::nullopt);
}

}  // namespace

namespace {

// ISR → worker → uploader: "sample" ends inside the worker's slice, which
// starts "upload"; that ends in the uploader's slice, which starts "ack".
// Chains: "sample → upload" and "sample → upload → ack", each once, timed
// from the first out to the last in. An arrow started in a later slice of
// the worker (not the one "sample" ended in) starts a chain of its own.
// Mutation: StartFlow not looking at the open slices (every arrow its own
// chain) leaves chains() empty; attaching the chain to the track instead of
// the slice makes "lone" continue it.
TEST(FlowChains, FollowArrowsThroughTheSlicesTheyEndIn) {
  constexpr Track kIsr{1, 1}, kWorker{1, 2}, kUp{1, 3};
  TraceStats s;
  Normalizer norm(s);
  norm.OnBegin(kIsr, "isr", 100, 0, 0);
  norm.OnFlowPoint(kIsr, true, 1, "sample", 110, 0, 0, true);
  norm.OnEnd(kIsr, "", 120, "");
  norm.OnBegin(kWorker, "work", 200, 0, 0);
  norm.OnFlowPoint(kWorker, false, 1, "", 210, 0, 0, true);
  norm.OnBegin(kWorker, "encode", 220, 0, 0);
  norm.OnFlowPoint(kWorker, true, 2, "upload", 230, 0, 0, true);  // inside a child of "work": still the chain
  norm.OnEnd(kWorker, "", 240, "");
  norm.OnEnd(kWorker, "", 250, "");
  norm.OnBegin(kWorker, "work", 300, 0, 0);
  norm.OnFlowPoint(kWorker, true, 3, "lone", 310, 0, 0, true);  // a later slice: no chain
  norm.OnEnd(kWorker, "", 320, "");
  norm.OnBegin(kUp, "up", 400, 0, 0);
  norm.OnFlowPoint(kUp, false, 2, "", 410, 0, 0, true);
  norm.OnFlowPoint(kUp, true, 4, "ack", 420, 0, 0, true);
  norm.OnFlowPoint(kUp, false, 3, "", 430, 0, 0, true);
  norm.OnEnd(kUp, "", 440, "");
  norm.OnBegin(kIsr, "isr", 500, 0, 0);
  norm.OnFlowPoint(kIsr, false, 4, "", 505, 0, 0, true);
  norm.OnEnd(kIsr, "", 510, "");
  norm.Finish();
  ASSERT_EQ(s.chains().size(), 2u);
  const auto& two = s.chains().at("sample → upload");
  EXPECT_EQ(two.sketch.count(), 1u);
  EXPECT_EQ(two.sketch.max(), 410u - 110u);
  const auto& three = s.chains().at("sample → upload → ack");
  EXPECT_EQ(three.sketch.max(), 505u - 110u);
  EXPECT_EQ(s.flows().at("lone").sketch.count(), 1u);
  // The gate reads them too.
  mabutrace::stats::CheckError err;
  auto c = mabutrace::stats::ParseCheck("chain:\"sample → upload → ack\".max <= 395ns", &err);
  ASSERT_TRUE(c) << err.message;
  EXPECT_TRUE(mabutrace::stats::Evaluate(*c, s).pass);
}

}  // namespace

namespace {

// Thousands of distinct instant names (a CP_Tracer export names each bus
// event by its address): the text lists the most frequent 25, then one
// line for the rest; JSON keeps every name.
TEST(StatsReport, TextListsTheMostFrequentInstantNamesAndCountsTheRest) {
  TraceStats s;
  s.OnThread(kA, "a");
  for (int i = 0; i < 30; ++i) {
    const std::string name = "event " + std::to_string(i);
    for (int k = 0; k <= i; ++k) s.OnInstant(kA, name, uint64_t(k), 0, 0);  // "event i" i + 1 times
  }
  ASSERT_TRUE(s.Finish());
  const std::string text = mabutrace::stats::TextReport(s);
  EXPECT_NE(text.find("event 29"), std::string::npos) << "the most frequent";
  EXPECT_NE(text.find("event 5 "), std::string::npos) << "the 25th";
  EXPECT_EQ(text.find("event 4 "), std::string::npos) << "the 26th is left out of the text";
  const size_t rest = text.find("(5 more names: --format json|csv)");
  ASSERT_NE(rest, std::string::npos) << text;
  const std::string line = text.substr(rest, text.find('\n', rest) - rest);
  EXPECT_EQ(line.substr(line.size() - 3), " 15") << line;  // 1 + 2 + 3 + 4 + 5
  EXPECT_NE(mabutrace::stats::JsonReport(s).find("\"event 0\""), std::string::npos);
}

// Names of several bytes per character (and the "µs" of durations) line up:
// every row of the slice table has its count column ending at the same
// terminal column. Mutation: Columns() counting bytes shifts the rows of
// the non-ASCII names.
TEST(StatsReport, TextColumnsLineUpWithMultibyteNames) {
  TraceStats s;
  s.OnThread(kA, "a");
  uint64_t t = 0;
  for (const char* name : {"plain", "r\xc3\xa9seau", "\xe8\xaf\xbb\xe5\x8f\x96", "\xf0\x9f\x9a\x80 go"}) {
    s.OnBegin(kA, name, t, 0, 0);
    t += 1500;  // 1.5 µs
    s.OnEnd(kA, "", t, "");
  }
  ASSERT_TRUE(s.Finish());
  const std::string text = mabutrace::stats::TextReport(s);
  // Terminal columns up to the end of each slice row's count ("  1").
  auto columns_to_count = [](const std::string& line) {
    const size_t at = line.find("  1  ");
    size_t n = 0;
    for (size_t i = 0; i < at + 3; ++i) n += (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80;
    const std::string wide[] = {"\xe8\xaf\xbb", "\xe5\x8f\x96", "\xf0\x9f\x9a\x80"};
    for (const std::string& w : wide) n += line.find(w) != std::string::npos && line.find(w) < at;
    return n;
  };
  std::vector<size_t> ends;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    for (const char* name : {"plain", "r\xc3\xa9seau", "\xe8\xaf\xbb", "\xf0\x9f\x9a\x80 go"})
      if (line.rfind(name, 0) == 0) ends.push_back(columns_to_count(line));
  }
  ASSERT_EQ(ends.size(), 4u) << text;
  for (size_t e : ends) EXPECT_EQ(e, ends[0]) << text;
}

}  // namespace
