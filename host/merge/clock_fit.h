// SPDX-License-Identifier: MIT
// clock_fit.h: one clock as a linear function of another, fitted to pairs
// of readings taken at the same instants (`mabutrace merge`, docs/merge.md
// §Sync points).
//
// A pair is (x, y): the same instant read as x ns on the clock being placed
// and y ns on the clock it is placed on. FitClock finds y = y0 + slope ×
// (x − x0) by least squares (x0, y0: the means, which keeps the products
// small enough for long double to stay exact to well below 1 ns over days);
// one pair gives an offset only (slope 1). The residuals say how well the
// line fits: sync points read at slightly different instants on the two
// sides show up there, not in the line.
#ifndef MABUTRACE_HOST_MERGE_CLOCK_FIT_H
#define MABUTRACE_HOST_MERGE_CLOCK_FIT_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mabutrace::merge {

struct SyncPair {
  // Not clamped to 0: a sync point read before a trace's origin is at a
  // negative time of that trace (an ETE trace starting after the software
  // already synced).
  long double x = 0;  // ns on the clock being placed
  long double y = 0;  // ns on the clock it is placed on, at the same instant
};

// y = y0 + slope × (x − x0). The default is the identity.
struct ClockLine {
  long double x0 = 0, y0 = 0, slope = 1;
  // y for x, rounded to the nearest ns and kept in [0, UINT64_MAX].
  uint64_t Apply(uint64_t x) const;
  // y for x, unrounded and unclamped.
  long double At(long double x) const { return y0 + slope * (x - x0); }
  // y − x at x = 0 (ns) and the drift (slope − 1) in parts per million:
  // what the docs and the metadata report.
  long double offset_ns() const { return y0 - slope * x0; }
  long double drift_ppm() const { return (slope - 1) * 1e6L; }
};

struct ClockFit {
  ClockLine line;
  size_t points = 0;                // pairs used
  long double rms_residual_ns = 0;  // root mean square of y − line(x)
  long double max_residual_ns = 0;  // largest |y − line(x)|
};

// Least squares over `pairs` (one or more; several with the same x count
// as their mean y). Empty: the identity, points 0. All pairs at one x: an
// offset only.
ClockFit FitClock(const std::vector<SyncPair>& pairs);

// The line that maps the placed clock through `first` and then `second`.
ClockLine Compose(const ClockLine& first, const ClockLine& second);
// The inverse: x for y. `line.slope` must be > 0.
ClockLine Invert(const ClockLine& line);

}  // namespace mabutrace::merge

#endif  // MABUTRACE_HOST_MERGE_CLOCK_FIT_H
