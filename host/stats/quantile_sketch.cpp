// SPDX-License-Identifier: MIT
// quantile_sketch.cpp: see quantile_sketch.h.
#include "quantile_sketch.h"

#include <cmath>

#include <algorithm>

namespace mabutrace::stats {

uint64_t NearestRank(uint64_t n, uint32_t per10000) {
  if (per10000 > 10000) per10000 = 10000;
  const unsigned __int128 r = (static_cast<unsigned __int128>(n) * per10000 + 9999) / 10000;
  return r == 0 ? 1 : uint64_t(r);
}

size_t QuantileSketch::Bucket(uint64_t v) {
  if (v < 2 * kSubBuckets) return size_t(v);
  const uint32_t msb = 63 - uint32_t(__builtin_clzll(v));
  const uint32_t shift = msb - kSubBits;  // >= 1
  return size_t(shift) * kSubBuckets + size_t(v >> shift);
}

uint64_t QuantileSketch::BucketLow(size_t b) {
  if (b < 2 * kSubBuckets) return b;
  const size_t shift = b / kSubBuckets - 1;
  const uint64_t top = kSubBuckets + b % kSubBuckets;  // in [64, 128)
  return top << shift;
}

uint64_t QuantileSketch::BucketHigh(size_t b) {
  if (b < 2 * kSubBuckets) return b;
  const size_t shift = b / kSubBuckets - 1;
  return BucketLow(b) + ((uint64_t(1) << shift) - 1);
}

void QuantileSketch::Add(uint64_t v) {
  if (count_ == 0 || v < min_) min_ = v;
  if (count_ == 0 || v > max_) max_ = v;
  ++count_;
  sum_ += v;
  if (!buckets_.empty()) {
    ++buckets_[Bucket(v)];
    return;
  }
  if (!samples_.empty() && v < samples_.back()) sorted_ = false;
  samples_.push_back(v);
  if (samples_.size() > exact_bound_) Promote();
}

void QuantileSketch::Promote() {
  buckets_.assign(kBuckets, 0);
  for (uint64_t s : samples_) ++buckets_[Bucket(s)];
  std::vector<uint64_t>().swap(samples_);  // give the memory back
  sorted_ = true;
}

uint64_t QuantileSketch::Quantile(uint32_t per10000) const {
  if (count_ == 0) return 0;
  const uint64_t rank = NearestRank(count_, per10000);
  if (buckets_.empty()) {
    if (!sorted_) {
      std::sort(samples_.begin(), samples_.end());
      sorted_ = true;
    }
    return samples_[rank - 1];
  }
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen < rank) continue;
    const uint64_t low = BucketLow(b), high = BucketHigh(b);
    const uint64_t mid = low + (high - low) / 2;
    return std::clamp(mid, min_, max_);
  }
  return max_;  // not reached: the counts add up to count_
}

std::vector<uint64_t> QuantileSketch::Histogram(size_t bins) const {
  std::vector<uint64_t> h(bins, 0);
  if (count_ == 0 || bins == 0) return h;
  const auto add = [&](uint64_t v, uint64_t n) { h[HistogramBin(v, bins)] += n; };
  if (buckets_.empty()) {
    for (uint64_t v : samples_) add(v, 1);
  } else {
    for (size_t b = 0; b < buckets_.size(); ++b) {
      if (!buckets_[b]) continue;
      const uint64_t low = BucketLow(b), high = BucketHigh(b);
      add(std::clamp(low + (high - low) / 2, min_, max_), buckets_[b]);
    }
  }
  return h;
}

double QuantileSketch::HistogramEdge(size_t i, size_t bins) const {
  const double lo = std::log(double(std::max<uint64_t>(min_, 1))), hi = std::log(double(std::max<uint64_t>(max_, 1)));
  return std::exp(lo + (hi - lo) * double(i) / double(bins));
}

size_t QuantileSketch::HistogramBin(uint64_t v, size_t bins) const {
  const double lo = std::log(double(std::max<uint64_t>(min_, 1))), hi = std::log(double(std::max<uint64_t>(max_, 1)));
  if (hi <= lo) return 0;
  const double x = (std::log(double(std::max<uint64_t>(v, 1))) - lo) / (hi - lo) * double(bins);
  return std::min(bins - 1, size_t(std::max(0.0, x)));
}

}  // namespace mabutrace::stats
