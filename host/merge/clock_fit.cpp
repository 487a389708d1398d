// SPDX-License-Identifier: MIT
#include "clock_fit.h"

#include <cmath>
#include <limits>

namespace mabutrace::merge {

uint64_t ClockLine::Apply(uint64_t x) const {
  const long double y = y0 + slope * (static_cast<long double>(x) - x0);
  if (!(y > 0)) return 0;  // also NaN
  if (y >= 18446744073709551615.0L) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(std::floor(y + 0.5L));
}

ClockFit FitClock(const std::vector<SyncPair>& pairs) {
  ClockFit fit;
  fit.points = pairs.size();
  if (pairs.empty()) return fit;
  const long double n = static_cast<long double>(pairs.size());
  long double mx = 0, my = 0;
  for (const SyncPair& p : pairs) {
    mx += p.x;
    my += p.y;
  }
  mx /= n;
  my /= n;
  long double sxx = 0, sxy = 0;
  for (const SyncPair& p : pairs) {
    const long double dx = p.x - mx;
    const long double dy = p.y - my;
    sxx += dx * dx;
    sxy += dx * dy;
  }
  fit.line.x0 = mx;
  fit.line.y0 = my;
  fit.line.slope = sxx > 0 ? sxy / sxx : 1;
  if (!(fit.line.slope > 0)) fit.line.slope = 1;  // a clock that runs backwards: offset only
  long double sum2 = 0;
  for (const SyncPair& p : pairs) {
    const long double fitted = fit.line.y0 + fit.line.slope * (p.x - mx);
    const long double r = p.y - fitted;
    sum2 += r * r;
    if (std::fabs(r) > fit.max_residual_ns) fit.max_residual_ns = std::fabs(r);
  }
  fit.rms_residual_ns = std::sqrt(sum2 / n);
  return fit;
}

ClockLine Compose(const ClockLine& first, const ClockLine& second) {
  // second(first(x)) = second.y0 + s2 × (first.y0 + s1 × (x − first.x0) − second.x0)
  ClockLine c;
  c.x0 = first.x0;
  c.y0 = second.y0 + second.slope * (first.y0 - second.x0);
  c.slope = first.slope * second.slope;
  return c;
}

ClockLine Invert(const ClockLine& line) {
  ClockLine inv;
  inv.x0 = line.y0;
  inv.y0 = line.x0;
  inv.slope = 1 / line.slope;
  return inv;
}

}  // namespace mabutrace::merge
