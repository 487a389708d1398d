// SPDX-License-Identifier: MIT
// trace_stats_test.cpp: TraceStats after a Normalizer, exact on generated
// event sequences with known durations. Each test names the mutation of
// host/stats/trace_stats.cpp it was seen failing with.
#include <gtest/gtest.h>

#include "trace_model.h"
#include "trace_stats.h"

namespace {

using mabutrace::format::Track;
using mabutrace::model::Normalizer;
using mabutrace::stats::GroupBy;
using mabutrace::stats::Options;
using mabutrace::stats::TraceStats;

constexpr Track kA{1, 10}, kB{1, 11};

struct Fixture {
  TraceStats stats;
  Normalizer norm{stats};
  explicit Fixture(Options o = {}) : stats(o) {
    norm.OnThread(kA, "a");
    norm.OnThread(kB, "b");
  }
  void Slice(Track t, const char* name, uint64_t b, uint64_t e) {
    norm.OnBegin(t, name, b, 0, 0);
    norm.OnEnd(t, "", e, "");
  }
};

// Nesting: outer [0,100) holds inner [10,30) and [40,70) which holds
// leaf [50,55): self(outer) = 100-20-30 = 50, self(inner) = 20 + 30-5,
// self(leaf) = 5. Mutation: subtracting every descendant (adding dur to all
// open parents) gives self(outer) = 45; not adding children at all gives 100.
TEST(TraceStats, SelfTimeSubtractsDirectChildrenOnly) {
  Fixture f;
  f.norm.OnBegin(kA, "outer", 0, 0, 0);
  f.Slice(kA, "inner", 10, 30);
  f.norm.OnBegin(kA, "inner", 40, 0, 0);
  f.Slice(kA, "leaf", 50, 55);
  f.norm.OnEnd(kA, "", 70, "");
  f.norm.OnEnd(kA, "", 100, "");
  f.norm.Finish();
  const auto& s = f.stats.slices();
  EXPECT_EQ(s.at("outer").sketch.sum(), 100u);
  EXPECT_EQ(s.at("outer").self, 50u);
  EXPECT_EQ(s.at("inner").sketch.count(), 2u);
  EXPECT_EQ(s.at("inner").sketch.sum(), 50u);
  EXPECT_EQ(s.at("inner").self, 45u);
  EXPECT_EQ(s.at("leaf").self, 5u);
  // busy counts the top-level slice once, not its children again.
  EXPECT_EQ(f.stats.threads().at({1, 10}).busy, 100u);
}

// Overlaps across threads: slices of one name on two tracks overlap in
// time; each is its own instance, nothing nests across tracks. Mutation:
// one stack for all tracks makes A's "work" the parent of B's (self 300 - 250).
TEST(TraceStats, OverlapAcrossThreadsDoesNotNest) {
  Fixture f;
  f.norm.OnBegin(kA, "work", 0, 0, 0);
  f.norm.OnBegin(kB, "work", 20, 0, 0);
  f.norm.OnEnd(kB, "", 270, "");
  f.norm.OnEnd(kA, "", 300, "");
  f.norm.Finish();
  const auto& w = f.stats.slices().at("work");
  EXPECT_EQ(w.sketch.count(), 2u);
  EXPECT_EQ(w.sketch.min(), 250u);
  EXPECT_EQ(w.sketch.max(), 300u);
  EXPECT_EQ(w.self, 550u);
  EXPECT_EQ(f.stats.threads().at({1, 10}).busy, 300u);
  EXPECT_EQ(f.stats.threads().at({1, 11}).busy, 250u);
}

// Per-thread busy and longest idle gap: [0,10) [50,60) [200,210) on A ->
// busy 30, longest idle 140 from 60 to 200. Mutation: measuring the gap
// from the previous slice's begin gives 150.
TEST(TraceStats, BusyAndLongestIdleGap) {
  Fixture f;
  f.Slice(kA, "s", 0, 10);
  f.Slice(kA, "s", 50, 60);
  f.Slice(kA, "s", 200, 210);
  f.norm.Finish();
  const auto& t = f.stats.threads().at({1, 10});
  EXPECT_EQ(t.busy, 30u);
  EXPECT_EQ(t.top_level, 3u);
  EXPECT_EQ(t.longest_idle, 140u);
  EXPECT_EQ(t.idle_from, 60u);
  EXPECT_EQ(t.idle_to, 200u);
  EXPECT_EQ(t.name, "a");
}

// A slice open at the end closes at the trace's last time (the Normalizer)
// and is counted as open; an orphan end (its begin before the capture) is
// dropped by the Normalizer and counted in the metadata, not as a slice.
// Mutation: not counting flag open_at_end leaves open == 0.
TEST(TraceStats, OpenAtEndAndOrphanEnds) {
  Fixture f;
  f.norm.OnEnd(kA, "", 5, "");  // orphan
  f.norm.OnBegin(kA, "open", 100, 0, 0);
  f.norm.OnInstant(kB, "late", 400, 0, 0);
  f.norm.Finish();
  const auto& o = f.stats.slices().at("open");
  EXPECT_EQ(o.sketch.count(), 1u);
  EXPECT_EQ(o.sketch.max(), 300u);
  EXPECT_EQ(o.open_at_end, 1u);
  EXPECT_EQ(f.stats.slices().size(), 1u);
  bool orphan_seen = false;
  for (const auto& [k, v, number] : f.stats.metadata())
    if (k == "orphan_scope_ends") orphan_seen = v == "1" && number;
  EXPECT_TRUE(orphan_seen);
}

// Flows: latency out -> in per out-side name, with a bound end (id on the
// point) and a late one (id 0 point, then OnFlow); an end without a start is
// dropped by the Normalizer. Mutation: keying by the in side's name puts
// the samples under "recv".
TEST(TraceStats, FlowLatencyByOutName) {
  Fixture f;
  f.norm.OnFlowPoint(kA, true, 1, "send", 100, 0, 0, false);
  f.norm.OnFlowPoint(kA, true, 2, "send", 200, 0, 0, false);
  f.norm.OnFlowPoint(kB, false, 1, "recv", 150, 0, 0, false);
  f.norm.OnFlowPoint(kB, false, 0, "recv", 900, 0, 0, false);
  f.norm.OnFlowPoint(kB, false, 7, "recv", 950, 0, 0, false);  // no start: dropped
  f.norm.OnFlow(kB, false, 2, 900);
  f.norm.Finish();
  ASSERT_EQ(f.stats.flows().count("send"), 1u);
  EXPECT_EQ(f.stats.flows().count("recv"), 0u);
  const auto& s = f.stats.flows().at("send").sketch;
  EXPECT_EQ(s.count(), 2u);
  EXPECT_EQ(s.min(), 50u);
  EXPECT_EQ(s.max(), 700u);
  EXPECT_EQ(f.stats.flows().at("send").longest.front().ns, 200u);
}

// Counters: samples 4 @100, 8 @150, 2 @250, trace ends at 450 (an instant):
// twmean = (4*50 + 8*100 + 2*200) / 350 = 4; mean = 14/3. Mutation: ending
// the span at the last sample instead of the trace's end gives 6.667.
TEST(TraceStats, CounterTimeWeightedMean) {
  Fixture f;
  f.norm.OnCounter(kA, "q", 100, 4);
  f.norm.OnCounter(kA, "q", 150, 8);
  f.norm.OnCounter(kA, "q", 250, 2);
  f.norm.OnInstant(kB, "tick", 450, 0, 0);
  f.norm.Finish();
  const auto& c = f.stats.counters().at("q");
  EXPECT_EQ(c.count, 3u);
  EXPECT_EQ(c.min, 2);
  EXPECT_EQ(c.max, 8);
  EXPECT_EQ(c.last, 2);
  EXPECT_DOUBLE_EQ(c.mean(), 14.0 / 3);
  EXPECT_DOUBLE_EQ(f.stats.TimeWeightedMean(c), 4.0);
  EXPECT_EQ(f.stats.instants().at("tick"), 1u);
  EXPECT_EQ(c.Quantile(5000), 4);  // nearest rank of {2, 4, 8}
  EXPECT_EQ(c.Quantile(9900), 8);
  EXPECT_EQ(c.Quantile(0), 2);
}

// Counter quantiles: the samples -5..+4 (ten, each once) in shuffled order:
// the nearest-rank p10 is -5, p50 is -1 (5th of 10), p90 is 3, p100 is 4,
// across the two sketches (below 0, at or above 0). Mutation: taking ranks
// among the negative samples from the smallest magnitude gives p10 = -1.
TEST(TraceStats, CounterQuantilesAcrossZero) {
  Fixture f;
  const int64_t v[] = {3, -2, 0, 4, -5, 1, -1, -4, 2, -3};
  uint64_t ns = 10;
  for (int64_t x : v) f.norm.OnCounter(kA, "delta", ns += 10, x);
  f.norm.Finish();
  const auto& c = f.stats.counters().at("delta");
  EXPECT_EQ(c.Quantile(1000), -5);
  EXPECT_EQ(c.Quantile(2000), -4);
  EXPECT_EQ(c.Quantile(5000), -1);
  EXPECT_EQ(c.Quantile(6000), 0);
  EXPECT_EQ(c.Quantile(9000), 3);
  EXPECT_EQ(c.Quantile(10000), 4);
}

// --by thread and name,thread; --top keeps the N longest, longest first.
// Mutation: keeping the first N instead of the longest N loses the 90.
TEST(TraceStats, GroupingAndTopInstances) {
  Options o;
  o.by = GroupBy::kNameThread;
  o.top = 2;
  Fixture f(o);
  f.Slice(kA, "s", 0, 10);
  f.Slice(kA, "s", 20, 40);
  f.Slice(kA, "s", 50, 140);
  f.Slice(kB, "s", 0, 5);
  f.norm.Finish();
  const auto& a = f.stats.slices().at("s@a");
  ASSERT_EQ(a.longest.size(), 2u);
  EXPECT_EQ(a.longest[0].dur, 90u);
  EXPECT_EQ(a.longest[0].ns, 50u);
  EXPECT_EQ(a.longest[1].dur, 20u);
  EXPECT_EQ(f.stats.slices().at("s@b").sketch.count(), 1u);

  Options t;
  t.by = GroupBy::kThread;
  Fixture g(t);
  g.Slice(kA, "x", 0, 10);
  g.Slice(kA, "y", 10, 30);
  g.norm.Finish();
  EXPECT_EQ(g.stats.slices().at("a").sketch.sum(), 30u);
}

// Two processes (e.g. two merged inputs) each with a thread "main": keyed
// apart, the second by its pid and tid. Mutation: keying by the bare name
// (ThreadKey returning th.name) pools them into one key of 2 slices.
TEST(TraceStats, SameNamedThreadsOfTwoProcessesAreNotPooled) {
  Options o;
  o.by = GroupBy::kThread;
  TraceStats stats(o);
  Normalizer norm(stats);
  const Track p1{1, 7}, p2{2, 7};
  norm.OnThread(p1, "main");
  norm.OnThread(p2, "main");
  norm.OnBegin(p1, "x", 0, 0, 0);
  norm.OnEnd(p1, "", 10, "");
  norm.OnBegin(p2, "y", 5, 0, 0);
  norm.OnEnd(p2, "", 25, "");
  norm.Finish();
  EXPECT_EQ(stats.slices().at("main").sketch.sum(), 10u);
  EXPECT_EQ(stats.slices().at("main (pid 2 tid 7)").sketch.sum(), 20u);
}

}  // namespace

namespace {

TEST(TraceStats, FunctionInstructionsComeFromTheMetadataNotIntoIt) {
  mabutrace::stats::TraceStats s;
  s.OnMetadata("ete.function_instructions.main", int64_t(12));
  s.OnMetadata("ete.function_instructions_total.main", int64_t(55));
  s.OnMetadata("core.ete.function_instructions.f", std::string_view("14"));  // merged, a .json's text
  s.OnMetadata("core.ete.function_instructions_total.f", int64_t(38));
  s.OnMetadata("ete.function_slices", int64_t(11));
  s.OnMetadata("notete.function_instructions.x", int64_t(1));  // not the key: kept as metadata
  ASSERT_TRUE(s.Finish());
  ASSERT_EQ(s.functions().size(), 2u);
  EXPECT_EQ(s.functions().at("main").self, 12u);
  EXPECT_EQ(s.functions().at("main").total, 55u);
  EXPECT_EQ(s.functions().at("core.f").self, 14u);
  EXPECT_EQ(s.functions().at("core.f").total, 38u);
  ASSERT_EQ(s.metadata().size(), 2u);
  EXPECT_EQ(s.metadata()[0].key, "ete.function_slices");
}

}  // namespace
