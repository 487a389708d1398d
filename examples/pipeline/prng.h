// SPDX-License-Identifier: MIT
// prng.h: a tiny deterministic generator (xorshift32), so every run makes
// the same choices (noise, hiccups, link outages) in the same order.
#ifndef PIPELINE_PRNG_H
#define PIPELINE_PRNG_H

#include <stdint.h>

class Prng {
 public:
  explicit Prng(uint32_t seed) : s_(seed ? seed : 1) {}
  uint32_t Next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 17;
    s_ ^= s_ << 5;
    return s_;
  }
  // Uniform in [lo, hi] (hi - lo small: the modulo bias does not matter).
  int32_t Between(int32_t lo, int32_t hi) { return lo + int32_t(Next() % uint32_t(hi - lo + 1)); }

 private:
  uint32_t s_;
};

#endif  // PIPELINE_PRNG_H
