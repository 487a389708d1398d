// SPDX-License-Identifier: MIT
#include "merge_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "input_scan.h"

namespace mabutrace::merge {
namespace {

format::Track T{1, 1};

// A scan with sync points (ns, value) in `domain`, through ScanSink as the
// CLI fills it.
// Specs named `names`, nothing else set (no clock flags, no domain).
std::vector<InputSpec> Specs(std::initializer_list<const char*> names) {
  std::vector<InputSpec> out;
  for (const char* n : names) {
    InputSpec spec;
    spec.name = n;
    out.push_back(spec);
  }
  return out;
}

InputScan Scan(const std::string& domain, const std::vector<std::pair<uint64_t, uint64_t>>& points) {
  InputScan s;
  ScanSink sink(s);
  const std::string name = std::string(kClockSyncPrefix) + domain;
  for (auto [ns, v] : points) sink.OnCounter(T, name, ns, int64_t(v));
  return s;
}

TEST(InputScan, SyncCountersAreSyncPointsOthersAreNot) {
  InputScan s;
  ScanSink sink(s);
  sink.OnCounter(T, "clock_sync:gps", 10, 99);
  sink.OnCounter(T, "queue_length", 20, 3);
  sink.OnCounter(T, "clock_sync:", 30, 1);  // no domain
  ASSERT_EQ(s.sync.size(), 1u);
  EXPECT_EQ(s.sync.at("gps").points.size(), 1u);
  EXPECT_EQ(s.first_ns, 10u);
  EXPECT_EQ(s.last_ns, 30u);
  EXPECT_EQ(SyncDomain("clock_sync:cntvct"), "cntvct");
  EXPECT_EQ(SyncDomain("clock_sync"), "");
}

TEST(InputScan, AFullDomainKeepsTheSameValuesOnEverySide) {
  InputScan a, b;
  ScanSink sa(a), sb(b);
  const uint64_t n = 3 * kMaxSyncPointsPerDomain;
  for (uint64_t k = 0; k < n; ++k) {
    sa.OnCounter(T, "clock_sync:edge", k * 10, int64_t(k));
    if (k % 3) sb.OnCounter(T, "clock_sync:edge", k * 10 + 5, int64_t(k));  // b missed some edges
  }
  const SyncSeries& x = a.sync.at("edge");
  EXPECT_EQ(x.seen, n);
  EXPECT_LT(x.points.size(), kMaxSyncPointsPerDomain);
  EXPECT_GT(x.points.size(), kMaxSyncPointsPerDomain / 4);
  // Every point b kept, a kept too (same values, same stride or finer).
  const SyncSeries& y = b.sync.at("edge");
  EXPECT_GE(y.stride, 1u);
  std::set<uint64_t> kept;
  for (const SyncPoint& q : x.points) kept.insert(q.value);
  size_t common = 0;
  for (const SyncPoint& p : y.points) common += kept.count(p.value);
  EXPECT_GT(common, y.points.size() / 3);
}

TEST(MergePlan, EqualValuesPairAndTheFitPlacesTheDriftingInput) {
  std::vector<std::pair<uint64_t, uint64_t>> a, b;
  for (uint64_t k = 0; k < 20; ++k) {
    const uint64_t t = 1'000'000 + k * 1'000'000;
    a.push_back({t, k});
    b.push_back({uint64_t(std::llround(1.7e6 + t * (1 + 150e-6))), k});
  }
  std::string err;
  const auto plan = PlanMerge(Specs({"A", "B"}), {Scan("edge", a), Scan("edge", b)}, {}, &err);
  ASSERT_TRUE(plan) << err;
  const InputPlan& p = plan->inputs[1];
  EXPECT_EQ(p.placement, Placement::kSyncPoints);
  EXPECT_EQ(p.fit.points, 20u);
  EXPECT_EQ(p.domain, "edge");
  for (size_t k = 0; k < 20; ++k) EXPECT_NEAR(double(p.total.Apply(b[k].first)), double(a[k].first), 1.0);
}

TEST(MergePlan, AValueSeenTwiceOnOneSidePairsWithNothing) {
  std::string err;
  const auto plan = PlanMerge(
      Specs({"A", "B"}), {Scan("id", {{100, 7}, {200, 8}, {300, 8}}), Scan("id", {{1100, 7}, {1200, 8}})}, {}, &err);
  ASSERT_TRUE(plan) << err;
  EXPECT_EQ(plan->inputs[1].fit.points, 1u);  // only 7
  EXPECT_EQ(plan->inputs[1].total.Apply(1100), 100u);
}

TEST(MergePlan, AReadingOfTheOtherInputsClockPairsAndChains) {
  // A reads C's clock (domain "cntvct", C's own clock, ticks at 25 MHz):
  // at A's 1 ms, C read 1000 ticks (40 µs), and so on: C = A − 960 µs.
  // B pairs with C by equal values: B is placed through C.
  std::vector<std::pair<uint64_t, uint64_t>> ac;
  for (uint64_t k = 1; k <= 10; ++k) ac.push_back({k * 1'000'000, 1000 + (k - 1) * 25'000});
  std::vector<InputSpec> specs = Specs({"A", "B", "C"});
  specs[2].clock_domain = "cntvct";
  specs[2].clock_hz = 25e6;
  InputScan c = Scan("edge", {{400'000, 1}, {800'000, 2}});  // C's flag-space ns of its edges
  InputScan b = Scan("edge", {{5'000, 1}, {405'000, 2}});
  std::string err;
  // c's sync point times are in C's own units (ticks): 10'000 ticks = 400 µs.
  c = Scan("edge", {{10'000, 1}, {20'000, 2}});
  const auto plan = PlanMerge(specs, {Scan("cntvct", ac), b, c}, {}, &err);
  ASSERT_TRUE(plan) << err;
  const InputPlan& pc = plan->inputs[2];
  ASSERT_EQ(pc.placement, Placement::kSyncPoints);
  EXPECT_EQ(pc.via, 0u);
  EXPECT_EQ(pc.domain, "cntvct");
  // C tick 1000 (40 µs) was A's 1 ms.
  EXPECT_EQ(pc.total.Apply(1000), 1'000'000u);
  const InputPlan& pb = plan->inputs[1];
  ASSERT_EQ(pb.placement, Placement::kSyncPoints);
  EXPECT_EQ(pb.via, 2u);
  // B's first edge (5 µs) is C's tick 10'000 (400 µs) = A's 1.36 ms.
  EXPECT_EQ(pb.total.Apply(5'000), 1'360'000u);
}

TEST(MergePlan, AnInputThatStatesItsClockPairsThroughIt) {
  // E is an ETE export: its times are ns from its first timestamp
  // (origin 0x10000000 ticks at its 500 ns, 100 MHz: ns = 500 + (v −
  // origin) × 10), as ScanSink reads them from the metadata. A read
  // CNTVCT = origin − 150'000 + k × 100'000 at its k ms: the first reading
  // is before E's trace begins (a negative E time), and still counts.
  std::vector<std::pair<uint64_t, uint64_t>> ae;
  for (uint64_t k = 1; k <= 5; ++k) ae.push_back({k * 1'000'000, 0x10000000 - 150'000 + k * 100'000});
  std::vector<InputSpec> specs = Specs({"A", "E"});
  specs[1].clock_domain = "cntvct";
  InputScan e;
  e.own_clock_stated = true;
  e.own_clock.x0 = 0x10000000;
  e.own_clock.y0 = 500;
  e.own_clock.slope = 10;
  std::string err;
  const auto plan = PlanMerge(specs, {Scan("cntvct", ae), e}, {}, &err);
  ASSERT_TRUE(plan) << err;
  const InputPlan& pe = plan->inputs[1];
  ASSERT_EQ(pe.placement, Placement::kSyncPoints);
  EXPECT_EQ(pe.fit.points, 5u);
  EXPECT_LT(pe.fit.max_residual_ns, 1);
  // E's origin (its 500 ns) is CNTVCT 0x10000000, which A read at 1.5 ms.
  EXPECT_EQ(pe.total.Apply(500), 1'500'000u);
  EXPECT_EQ(pe.total.Apply(500 + 100'000), 1'600'000u);
}

TEST(MergePlan, AClockDomainNeedsTimesThatAreAClocksAndAnOddDriftIsSaid) {
  std::vector<std::pair<uint64_t, uint64_t>> ae;
  for (uint64_t k = 1; k <= 5; ++k) ae.push_back({k * 1'000'000, k * 100'000});  // 100 MHz ticks
  std::vector<InputSpec> specs = Specs({"A", "E"});
  specs[1].clock_domain = "cntvct";
  InputScan e;
  e.not_a_clock = "ete.time_base = element_order";
  std::string err;
  EXPECT_FALSE(PlanMerge(specs, {Scan("cntvct", ae), e}, {}, &err));
  EXPECT_NE(err.find("E: --clock-domain cntvct: its times are not a clock's (ete.time_base = element_order)"),
            std::string::npos)
      << err;
  // Ticks taken as ns (no --clock-hz): placed, and the 9e6 ppm said.
  e.not_a_clock.clear();
  const auto plan = PlanMerge(specs, {Scan("cntvct", ae), e}, {}, &err);
  ASSERT_TRUE(plan) << err;
  EXPECT_NE(plan->inputs[1].how.find("WARNING: a drift over 1000 ppm"), std::string::npos) << plan->inputs[1].how;
}

TEST(MergePlan, OsClockThenFlagsThenNothing) {
  InputScan a, b, c;
  a.has_clock = b.has_clock = c.has_clock = true;
  a.monotonic_at_zero = 10'000'000;
  b.monotonic_at_zero = 12'500'000;
  c.monotonic_at_zero = 99;
  std::vector<InputSpec> specs = Specs({"A", "B", "C"});
  specs[2].offset_ns = -500;
  for (InputScan* s : {&a, &b, &c}) s->events = 1, s->first_ns = 1000;
  std::string err;
  const auto plan = PlanMerge(specs, {a, b, c}, {}, &err);
  ASSERT_TRUE(plan) << err;
  EXPECT_EQ(plan->inputs[1].placement, Placement::kOsClock);
  EXPECT_EQ(plan->inputs[1].total.Apply(0), 2'500'000u);
  EXPECT_EQ(plan->inputs[2].placement, Placement::kFlagsOnly);  // a flag wins over the OS clock
  EXPECT_EQ(plan->inputs[2].total.Apply(1000), 500u);
  EXPECT_EQ(plan->shift_ns, 0u);
}

TEST(MergePlan, AnInputBeforeTheReferenceShiftsEverything) {
  InputScan a, b;
  a.events = b.events = 1;
  a.first_ns = 0;
  b.first_ns = 100;
  std::vector<InputSpec> specs = Specs({"A", "B"});
  specs[1].offset_ns = -1000;
  std::string err;
  const auto plan = PlanMerge(specs, {a, b}, {}, &err);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->shift_ns, 900u);
  EXPECT_EQ(plan->inputs[1].total.Apply(100), 0u);
  EXPECT_EQ(plan->inputs[0].total.Apply(0), 900u);
}

TEST(MergePlan, ANamedDomainThatPairsNothingIsAnError) {
  std::string err;
  EXPECT_FALSE(PlanMerge(Specs({"A", "B"}), {Scan("edge", {{1, 1}}), Scan("edge", {{1, 2}})}, {"edge"}, &err));
  EXPECT_NE(err.find("'edge': no two inputs pair"), std::string::npos) << err;
  EXPECT_FALSE(PlanMerge(Specs({"A", "B"}), {Scan("edge", {{1, 1}}), Scan("edge", {{1, 1}})}, {"gps"}, &err));
  EXPECT_NE(err.find("'gps': no input has points"), std::string::npos) << err;
}

TEST(MergePlan, ClockIdsAreDistinctAndAbove127) {
  std::vector<uint32_t> taken;
  for (const char* n : {"A", "B", "cpu0", "cpu1", "A"}) {
    const uint32_t id = InputClockId(n, taken);
    EXPECT_GE(id, 128u);
    EXPECT_EQ(id % 128, 0u);
    for (uint32_t t : taken) EXPECT_NE(t, id);
    taken.push_back(id);
  }
}

}  // namespace
}  // namespace mabutrace::merge
