// SPDX-License-Identifier: MIT
// clock_map.h: ticks of a trace's clock to ns, the one conversion of the
// toolkit. The device exporters (src/runtime/trace_walker.cpp), the binary
// stream decoder and the raw-dump reader (host/stream/) all convert here.
//
// A trace's clock is described by its rate (clock_hz) and, where the
// platform has OS clocks (the host port), by ClockSync samples: the clock's
// ticks read together with CLOCK_MONOTONIC and CLOCK_BOOTTIME. One is taken
// at init (the stream header and the dump descriptor carry it), more at
// every export and stream flush. Times are then CLOCK_MONOTONIC ns, mapped
// linearly between consecutive samples (extrapolated past the last): the
// counter's rate is measured over the whole run, so an init-time estimate
// of clock_hz does not accumulate error, and a run of hours stays within
// what CLOCK_MONOTONIC itself was slewed between two samples. Without two
// samples (user clocks, MCU ports, a dump taken before any export) ticks
// are converted with clock_hz alone, exactly as before.
//
// The map is monotonic: each segment has a non-negative slope, and
// neighbouring segments meet at their shared sample (integer division
// gives exactly the sample's ns there).
//
// Plain data and pure functions: any thread, no heap, no exceptions;
// C++17, header only (compiled into the runtime and host tools).
#ifndef MABUTRACE_FORMAT_CLOCK_MAP_H
#define MABUTRACE_FORMAT_CLOCK_MAP_H

#include <stddef.h>
#include <stdint.h>

namespace mabutrace::format {

// One sample of a trace clock beside the OS clocks. All 0: none (the clock
// is related to no OS clock).
struct ClockSync {
  uint64_t ticks = 0;
  uint64_t monotonic_ns = 0;  // CLOCK_MONOTONIC at `ticks`
  uint64_t boottime_ns = 0;   // CLOCK_BOOTTIME at `ticks`
  bool valid() const { return monotonic_ns != 0; }
};

// The walk converts every record's tick: inlined there.
#if defined(__GNUC__)
#define MT_CLOCK_INLINE inline __attribute__((always_inline))
#else
#define MT_CLOCK_INLINE inline
#endif

#if defined(__SIZEOF_INT128__)
#define MABUTRACE_CLOCK_SAMPLES 1
// `ticks` on the line through a and b (b later than a), as CLOCK_MONOTONIC
// ns; with b unusable (not later), on the line through a with slope
// 1e9 / hz. Rounds toward earlier times on both sides of a (floor), so the
// map stays monotonic; saturates at 0 and UINT64_MAX.
//
// Any inputs are defined (decoders feed it samples read from untrusted
// bytes): |ticks - a.ticks| and the slope's numerator and denominator are
// each below 2^64, so their product plus a denominator fits an unsigned
// 128-bit integer.
inline uint64_t LineNs(const ClockSync& a, const ClockSync& b, uint64_t hz, uint64_t ticks) {
  using u128 = unsigned __int128;
  u128 num = 1000000000u;
  u128 den = hz ? hz : 1;
  if (b.valid() && b.ticks > a.ticks && b.monotonic_ns >= a.monotonic_ns) {
    num = b.monotonic_ns - a.monotonic_ns;
    den = b.ticks - a.ticks;
  }
  const u128 base = a.monotonic_ns;
  if (ticks >= a.ticks) {
    const uint64_t delta = ticks - a.ticks;
    if ((delta >> 32) == 0 && (num >> 32) == 0) {
      // The product fits 64 bits: the same quotient without a 128-bit
      // division (a library call on x86-64).
      const u128 ns = base + uint64_t(delta * uint64_t(num)) / uint64_t(den);
      return ns > u128(UINT64_MAX) ? UINT64_MAX : uint64_t(ns);
    }
    const u128 ns = base + u128(delta) * num / den;
    return ns > u128(UINT64_MAX) ? UINT64_MAX : uint64_t(ns);
  }
  const u128 back = (u128(a.ticks - ticks) * num + (den - 1)) / den;
  return back >= base ? 0 : uint64_t(base - back);
}

// `ticks` as CLOCK_MONOTONIC ns on the piecewise-linear map through
// samples s[0 .. n) (n >= 1, valid, ticks and ns increasing): between two
// samples on their line, before the second on the first segment's, past
// the last on the last segment's (with n == 1 the rate alone).
inline uint64_t SamplesNs(const ClockSync* s, size_t n, uint64_t hz, uint64_t ticks) {
  if (n == 1) return LineNs(s[0], ClockSync{}, hz, ticks);
  size_t lo = 1, hi = n - 1;  // the first i >= 1 with s[i].ticks >= ticks, else n - 1
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (s[mid].ticks >= ticks) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return LineNs(s[lo - 1], s[lo], hz, ticks);
}
#else
// 32-bit MCU builds: their ports take no samples, so only the rate is used.
#define MABUTRACE_CLOCK_SAMPLES 0
#endif

// A trace's clock: its rate, its origin (ticks at init: time 0 of the
// trace), and up to two samples: the init's and the latest. Converting a
// tick count gives ns since the origin.
struct ClockMap {
  uint64_t hz = 1000000000u;
  uint64_t origin = 0;
  ClockSync first;  // init's sample, or none
  ClockSync last;   // a later one, or none

  // ns since the origin for `ticks` (0 before it).
  uint64_t NsSinceOrigin(uint64_t ticks) const { return NsSince(ticks, OriginOnMap()); }

  // What NsSinceOrigin subtracts: the origin's place on the map (0 without
  // samples). A caller converting many ticks with one map works it out once
  // and calls NsSince.
  uint64_t OriginOnMap() const {
#if MABUTRACE_CLOCK_SAMPLES
    if (first.valid()) {
      const ClockSync s[2] = {first, last};
      return SamplesNs(s, SampleCount(), hz, origin);
    }
#endif
    return 0;
  }
  // NsSinceOrigin(ticks), given origin_on_map == OriginOnMap().
  uint64_t NsSince(uint64_t ticks, uint64_t origin_on_map) const {
    if (ticks <= origin) return 0;
    if (!MABUTRACE_CLOCK_SAMPLES || !first.valid()) {
      // No OS clock: the rate alone (split so that t * 1e9 cannot overflow).
      const uint64_t t = ticks - origin;
      if (hz == 1000000000u) return t;
      return t / hz * 1000000000u + t % hz * 1000000000u / hz;
    }
#if MABUTRACE_CLOCK_SAMPLES
    const ClockSync s[2] = {first, last};
    const uint64_t at = SamplesNs(s, SampleCount(), hz, ticks);
    return at > origin_on_map ? at - origin_on_map : 0;
#else
    (void)origin_on_map;
    return 0;  // (not reached: no samples)
#endif
  }
  // CLOCK_MONOTONIC / CLOCK_BOOTTIME ns at the origin (0 without samples).
  uint64_t MonotonicAtOrigin() const {
#if MABUTRACE_CLOCK_SAMPLES
    if (first.valid()) return LineNs(first, last, hz, origin);
#endif
    return 0;
  }
  uint64_t BoottimeAtOrigin() const {
    return first.valid() ? MonotonicAtOrigin() + (first.boottime_ns - first.monotonic_ns) : 0;
  }

 private:
  size_t SampleCount() const { return last.valid() && last.ticks > first.ticks ? 2 : 1; }
};

// ClockMap::NsSinceOrigin for a run of ticks (a walk over a buffer),
// exactly, without a 128-bit division per call: the quotient and remainder
// of the previous tick's product are carried to the next, so a tick close
// after the one before (under 2^32 ticks later, and the step's product
// under 2^64, which holds for steps under 2^64 / the slope's numerator:
// over 10^6 ticks for a run of hours) costs a multiply by the
// denominator's reciprocal. Other ticks take a 128-bit division or the
// map's own path. One per walk; the map must outlive it. Not thread-safe.
class ClockCursor {
 public:
  explicit ClockCursor(const ClockMap& m) : map_(m), zero_(m.OriginOnMap()) {
#if MABUTRACE_CLOCK_SAMPLES
    if (!m.first.valid()) return;
    // The line SamplesNs takes for every tick at or after first.ticks with
    // at most two samples (LineNs's choice of slope).
    const bool two = m.last.valid() && m.last.ticks > m.first.ticks;
    num_ = 1000000000u;
    den_ = m.hz ? m.hz : 1;
    if (two && m.last.monotonic_ns >= m.first.monotonic_ns) {
      num_ = m.last.monotonic_ns - m.first.monotonic_ns;
      den_ = m.last.ticks - m.first.ticks;
    }
    line_ = true;
    inv_ = ~uint64_t(0) / den_;
    first_ns_ = m.first.monotonic_ns;
#endif
  }

  MT_CLOCK_INLINE uint64_t NsSinceOrigin(uint64_t ticks) {
#if MABUTRACE_CLOCK_SAMPLES
    // The common step: a tick at or after the previous one (which passed
    // Other's checks, so this one would too), under 2^32 ticks later, whose
    // product with the slope's numerator, plus the remainder carried
    // (r_ < den_), stays under 2^64.
    if (carried_ && ticks >= ticks_ && ticks - ticks_ < (uint64_t(1) << 32)) {
      const unsigned __int128 sum = (unsigned __int128)(ticks - ticks_) * num_ + r_;
      if (sum >> 64 == 0) {
        uint64_t r = 0;
        q_ += DivideByDen(uint64_t(sum), &r);
        r_ = r;
        ticks_ = ticks;
        return Ns();
      }
    }
    return Other(ticks);
#else
    return map_.NsSince(ticks, zero_);
#endif
  }

#if MABUTRACE_CLOCK_SAMPLES
  // x / den_ (and *rem = x % den_) by a multiply with inv_ instead of a
  // division, which takes tens of cycles. inv_ = floor((2^64 - 1) / den_)
  // is 2^64 / den_ less at most 1, so x * inv_ / 2^64 falls short of
  // x / den_ by less than x / 2^64 < 1: the quotient taken is the exact
  // one or one less, and one compare of the remainder corrects it.
  uint64_t DivideByDen(uint64_t x, uint64_t* rem) const {
    uint64_t q = uint64_t((unsigned __int128)x * inv_ >> 64);
    uint64_t r = x - q * den_;
    if (r >= den_) {
      ++q;
      r -= den_;
    }
    *rem = r;
    return q;
  }
#endif

 private:
#if MABUTRACE_CLOCK_SAMPLES
  // Every tick NsSinceOrigin's common step does not take: before the line
  // (the map's own path), a jump, or a product past 2^64 (128-bit
  // divisions, exact for any step).
  uint64_t Other(uint64_t ticks) {
    if (!line_ || ticks <= map_.origin || ticks < map_.first.ticks) return map_.NsSince(ticks, zero_);
    using u128 = unsigned __int128;
    if (carried_ && ticks >= ticks_ && ticks - ticks_ < (uint64_t(1) << 32)) {
      // r_ < den_ and the step's product is below 2^96: the sum fits.
      const u128 sum = u128(r_) + u128(ticks - ticks_) * num_;
      q_ += sum / den_;
      r_ = uint64_t(sum % den_);
    } else {
      const u128 x = u128(ticks - map_.first.ticks) * num_;
      q_ = x / den_;
      r_ = uint64_t(x % den_);
    }
    ticks_ = ticks;
    carried_ = true;
    return Ns();
  }
  // The carried tick's ns since the origin (LineNs's, saturated).
  uint64_t Ns() const {
    const unsigned __int128 ns = (unsigned __int128)first_ns_ + q_;
    const uint64_t at = ns > (unsigned __int128)UINT64_MAX ? UINT64_MAX : uint64_t(ns);
    return at > zero_ ? at - zero_ : 0;
  }
#endif

  const ClockMap& map_;
  const uint64_t zero_;
#if MABUTRACE_CLOCK_SAMPLES
  uint64_t num_ = 0, den_ = 1;   // the line's slope, ns per tick
  uint64_t inv_ = ~uint64_t(0);  // floor((2^64 - 1) / den_): DivideByDen
  uint64_t first_ns_ = 0;        // map_.first.monotonic_ns
  bool line_ = false;            // the carried path applies (a sample: the line is known)
  bool carried_ = false;         // ticks_, q_, r_ hold a previous tick's product
  uint64_t ticks_ = 0;
  unsigned __int128 q_ = 0;  // (ticks_ - first.ticks) * num_ / den_
  uint64_t r_ = 0;           // ... and its remainder
#endif
};

}  // namespace mabutrace::format

#endif  // MABUTRACE_FORMAT_CLOCK_MAP_H
