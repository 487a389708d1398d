// SPDX-License-Identifier: MIT
#include "clock_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace mabutrace::merge {
namespace {

// y = 1.7e6 + x × (1 − 150e-6), over ten hours of x.
std::vector<SyncPair> Line(size_t n, long double offset, long double slope, uint64_t span) {
  std::vector<SyncPair> p;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t x = 1'000'000'000 + span / n * i + (i * i % 13) * 1'000;
    p.push_back({static_cast<long double>(x), std::roundl(offset + slope * x)});
  }
  return p;
}

TEST(ClockFit, RecoversOffsetAndDriftOverHoursToANanosecond) {
  const long double slope = 1 - 150e-6L;
  const auto pairs = Line(500, 1.7e6L, slope, 36'000'000'000'000ull);
  const ClockFit f = FitClock(pairs);
  EXPECT_EQ(f.points, 500u);
  EXPECT_NEAR(double(f.line.drift_ppm()), -150.0, 1e-6);
  EXPECT_NEAR(double(f.line.offset_ns()), 1.7e6, 1.0);
  EXPECT_LE(f.max_residual_ns, 1.0L);  // the pairs' own rounding to ns
  for (const SyncPair& p : pairs) EXPECT_NEAR(double(f.line.At(p.x)), double(p.y), 1.0);
}

TEST(ClockFit, OnePairIsAnOffsetOnly) {
  const ClockFit f = FitClock({{1000, 5000}});
  EXPECT_EQ(f.line.slope, 1);
  EXPECT_EQ(f.line.Apply(1000), 5000u);
  EXPECT_EQ(f.line.Apply(0), 4000u);
  EXPECT_EQ(f.points, 1u);
}

TEST(ClockFit, ResidualsShowPointsReadApart) {
  // Every other pair read 100 ns late on y: the line goes between.
  std::vector<SyncPair> p;
  for (uint64_t i = 0; i < 100; ++i)
    p.push_back({static_cast<long double>(i * 1'000'000), static_cast<long double>(i * 1'000'000 + (i % 2 ? 100 : 0))});
  const ClockFit f = FitClock(p);
  EXPECT_NEAR(double(f.rms_residual_ns), 50.0, 1.0) << double(f.rms_residual_ns);
  EXPECT_NEAR(double(f.max_residual_ns), 50.0, 5.0) << double(f.max_residual_ns);
}

TEST(ClockFit, EmptyIsIdentityAndNothingGoesBelowZero) {
  const ClockFit f = FitClock({});
  EXPECT_EQ(f.points, 0u);
  EXPECT_EQ(f.line.Apply(12345), 12345u);
  ClockLine back;
  back.y0 = -100;
  EXPECT_EQ(back.Apply(50), 0u);
  EXPECT_EQ(back.Apply(150), 50u);
}

TEST(ClockFit, ComposeAndInvertAreExact) {
  ClockLine a;
  a.x0 = 10, a.y0 = 1000, a.slope = 2;
  ClockLine b;
  b.x0 = 0, b.y0 = -7, b.slope = 0.5L;
  const ClockLine ab = Compose(a, b);
  for (uint64_t x : {10ull, 11ull, 1000ull, 123456789ull}) {
    EXPECT_EQ(ab.Apply(x), b.Apply(a.Apply(x)));
    EXPECT_EQ(Invert(a).Apply(a.Apply(x)), x);
  }
}

}  // namespace
}  // namespace mabutrace::merge
