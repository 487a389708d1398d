// SPDX-License-Identifier: MIT
// quantile_sketch_test.cpp: exact nearest-rank quantiles up to the bound,
// then the histogram within the stated relative error of the exact ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "quantile_sketch.h"

namespace {

using mabutrace::stats::NearestRank;
using mabutrace::stats::QuantileSketch;

// `sorted`: ascending.
uint64_t Exact(const std::vector<uint64_t>& sorted, uint32_t per10000) {
  return sorted[NearestRank(sorted.size(), per10000) - 1];
}

// Nearest rank on 1..1000: p50 = 500, p99.9 = 999, p0 = 1. Mutation:
// floor instead of ceil in NearestRank gives p99.9 of 1..1001 = 999 (not 1000).
TEST(QuantileSketch, ExactNearestRank) {
  QuantileSketch q;
  std::vector<uint64_t> all;
  for (uint64_t v = 1000; v >= 1; --v) q.Add(v), all.push_back(v);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(q.Quantile(9000), Exact(all, 9000));
  EXPECT_TRUE(q.exact());
  EXPECT_EQ(q.Quantile(5000), 500u);
  EXPECT_EQ(q.Quantile(9990), 999u);
  EXPECT_EQ(q.Quantile(0), 1u);
  EXPECT_EQ(q.Quantile(10000), 1000u);
  q.Add(1001);
  EXPECT_EQ(q.Quantile(9990), 1000u);  // ceil(0.999 * 1001) = 1000
  EXPECT_EQ(q.sum(), 1001u * 1002 / 2);
}

// Every bucket's [low, high] tiles the values and is at most 1/64 of its
// low end wide. Mutation: shift = msb - kSubBits + 1 leaves gaps.
TEST(QuantileSketch, BucketsTileTheValues) {
  for (size_t b = 1; b < QuantileSketch::kBuckets; ++b) {
    ASSERT_EQ(QuantileSketch::BucketLow(b), QuantileSketch::BucketHigh(b - 1) + 1) << b;
    ASSERT_EQ(QuantileSketch::Bucket(QuantileSketch::BucketLow(b)), b);
    ASSERT_EQ(QuantileSketch::Bucket(QuantileSketch::BucketHigh(b)), b);
  }
  EXPECT_EQ(QuantileSketch::BucketHigh(QuantileSketch::kBuckets - 1), UINT64_MAX);
}

// Past the bound, each quantile is within 1/128 of the exact one, on
// log-normal-ish latencies over six decades. Mutation: reporting the
// bucket's high end instead of its midpoint exceeds 1/128 (up to 1/64).
TEST(QuantileSketch, HistogramWithinStatedError) {
  std::mt19937_64 rng(19);
  std::lognormal_distribution<double> dist(10.0, 2.5);
  QuantileSketch q(1000);
  std::vector<uint64_t> all;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t v = uint64_t(dist(rng));
    q.Add(v);
    all.push_back(v);
  }
  ASSERT_FALSE(q.exact());
  EXPECT_EQ(q.count(), all.size());
  EXPECT_EQ(q.min(), *std::min_element(all.begin(), all.end()));
  EXPECT_EQ(q.max(), *std::max_element(all.begin(), all.end()));
  std::sort(all.begin(), all.end());
  double worst = 0;
  for (uint32_t per = 0; per <= 10000; per += 10) {
    const double exact = double(Exact(all, per));
    const double got = double(q.Quantile(per));
    const double err = exact == 0 ? got : std::abs(got - exact) / exact;
    worst = std::max(worst, err);
    ASSERT_LE(err, QuantileSketch::kMaxRelativeError) << "per10000 " << per << " exact " << exact << " got " << got;
  }
  EXPECT_GT(worst, 0.0);  // the histogram really was used
}

}  // namespace
