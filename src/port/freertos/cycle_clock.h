// SPDX-License-Identifier: MIT
// cycle_clock.h: the 64-bit extension of a 32-bit CPU cycle counter that
// the FreeRTOS adapter's RISC-V clock (CONFIG_MABUTRACE_CLOCK_CPU_CYCLES,
// mabutrace_port_inline.h) uses; plain arithmetic, no ESP-IDF call, so the
// host tests it (tests/port/freertos/cycle_clock_test.cpp).
//
// Between two reads the counter's difference mod 2^32 is the elapsed
// cycles as long as fewer than 2^32 passed. A read 2^31 cycles or more
// after the previous one (13 s at 160 MHz: a quiet trace) takes the number
// of wraps from the scheduler's tick count instead: ticks x cycles per tick
// is the elapsed time to within about a tick, far below 2^31 cycles, so the
// whole number of 2^32 periods that brings the counter's difference
// nearest that estimate is exact. Caller: interrupts masked on the one core.
#ifndef MABUTRACE_PORT_FREERTOS_CYCLE_CLOCK_H
#define MABUTRACE_PORT_FREERTOS_CYCLE_CLOCK_H

#include <stdint.h>

namespace mabutrace::port {

struct CycleClock {
  uint64_t total;            // cycles since StartCycleClock()
  uint32_t last;             // the counter at the previous read
  uint32_t last_tick;        // the tick count then
  uint32_t cycles_per_tick;  // CPU Hz / tick Hz
  uint32_t check_ticks;      // ticks in 2^31 cycles: from here wraps come from the ticks
};

inline void StartCycleClock(CycleClock& s, uint32_t cpu_hz, uint32_t tick_hz, uint32_t counter, uint32_t tick) {
  s.total = 0;
  s.last = counter;
  s.last_tick = tick;
  s.cycles_per_tick = tick_hz ? cpu_hz / tick_hz : 0u;
  s.check_ticks = uint32_t((uint64_t{1} << 31) / (s.cycles_per_tick ? s.cycles_per_tick : 1u));
}

// Cycles since StartCycleClock() at counter value `counter`, tick `tick`.
inline uint64_t AdvanceCycleClock(CycleClock& s, uint32_t counter, uint32_t tick) {
  uint64_t elapsed = uint32_t(counter - s.last);
  const uint32_t dt = uint32_t(tick - s.last_tick);
  if (dt >= s.check_ticks) {
    const uint64_t approx = uint64_t(dt) * s.cycles_per_tick;
    if (approx > elapsed) elapsed += ((approx - elapsed + (uint64_t{1} << 31)) >> 32) << 32;
  }
  s.last = counter;
  s.last_tick = tick;
  s.total += elapsed;
  return s.total;
}

}  // namespace mabutrace::port

#endif  // MABUTRACE_PORT_FREERTOS_CYCLE_CLOCK_H
