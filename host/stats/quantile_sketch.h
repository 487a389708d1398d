// SPDX-License-Identifier: MIT
// quantile_sketch.h: quantiles of non-negative integer samples (ns, or any
// uint64) in bounded memory, for `mabutrace stats` (docs/stats.md §3).
//
// Up to `exact_bound` samples are kept and the quantiles are exact. The
// sample after that moves every kept sample into a log-linear histogram
// and the quantiles become approximate:
// - values below 2 * kSubBuckets (128) have a bucket each (exact);
// - above, each power-of-two octave [2^e, 2^(e+1)) is cut into
//   kSubBuckets (64) equal buckets of width 2^(e-6);
// - a quantile is the midpoint of the bucket holding its rank, clamped to
//   the [min, max] seen, so its relative error is at most
//   half a bucket / the bucket's low end = 2^(e-7) / 2^e = 1/128 (< 0.79 %).
// Memory: at most exact_bound * 8 bytes, then kBuckets (3776) counters
// (30 KiB), whatever the number of samples. count, sum, min and max stay
// exact throughout.
//
// Quantile definition (both modes): nearest rank. The q-quantile of n
// samples is the sample of 1-based rank max(1, ceil(q * n)) in ascending
// order; q is given in parts per 10000 (p99.9 = 9990) so that the rank is
// computed in integers.
#ifndef MABUTRACE_HOST_STATS_QUANTILE_SKETCH_H
#define MABUTRACE_HOST_STATS_QUANTILE_SKETCH_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mabutrace::stats {

class QuantileSketch {
 public:
  static constexpr uint32_t kSubBits = 6;
  static constexpr uint64_t kSubBuckets = uint64_t(1) << kSubBits;  // 64
  // Buckets up to the top octave of uint64 (msb 63 -> shift 57).
  static constexpr size_t kBuckets = size_t(64 - kSubBits) * kSubBuckets + kSubBuckets;  // 3776
  // The default bound of exact samples per key (512 KiB of samples).
  static constexpr size_t kDefaultExactBound = size_t(1) << 16;
  // The stated bound of the relative error once approximate.
  static constexpr double kMaxRelativeError = 1.0 / 128;

  explicit QuantileSketch(size_t exact_bound = kDefaultExactBound) : exact_bound_(exact_bound) {}

  void Add(uint64_t v);
  uint64_t count() const { return count_; }
  unsigned __int128 sum() const { return sum_; }
  uint64_t min() const { return min_; }  // 0 when empty
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? double(sum_) / double(count_) : 0.0; }
  bool exact() const { return buckets_.empty(); }
  // The nearest-rank quantile for `per10000` in [0, 10000]; 0 when empty.
  // Not const in spirit only: sorts the kept samples on first use.
  uint64_t Quantile(uint32_t per10000) const;

  // Counts of the samples in `bins` bins spaced evenly in log(value) from
  // min() to max() (one bin when they are equal): exact in exact mode, by
  // bucket midpoints once approximate. HistogramEdge(i) is bin i's low
  // edge (HistogramEdge(bins) = max()). For the HTML report's histograms.
  std::vector<uint64_t> Histogram(size_t bins) const;
  double HistogramEdge(size_t i, size_t bins) const;
  // The bucket of `v` and the bucket's [low, high] values (public for the
  // tests of the error bound).
  static size_t Bucket(uint64_t v);
  static uint64_t BucketLow(size_t b);
  static uint64_t BucketHigh(size_t b);

 private:
  void Promote();
  size_t HistogramBin(uint64_t v, size_t bins) const;

  size_t exact_bound_;
  uint64_t count_ = 0;
  unsigned __int128 sum_ = 0;
  uint64_t min_ = 0, max_ = 0;
  mutable std::vector<uint64_t> samples_;  // exact mode
  mutable bool sorted_ = true;
  std::vector<uint64_t> buckets_;  // approximate mode: a count per bucket
};

// The rank (1-based) of quantile per10000 among n samples: max(1, ceil(q n)).
uint64_t NearestRank(uint64_t n, uint32_t per10000);

}  // namespace mabutrace::stats

#endif  // MABUTRACE_HOST_STATS_QUANTILE_SKETCH_H
