// SPDX-License-Identifier: MIT
// The FreeRTOS adapter's RISC-V cycle clock (src/port/freertos/cycle_clock.h):
// the 32-bit counter extended to 64 bits, with long quiet gaps resolved by
// the tick count. A simulated ESP32-C3: 160 MHz, 1 kHz ticks; the counter
// and the tick count are derived from one true cycle count, the tick count
// lagging it by up to a tick as FreeRTOS's does.
#include "cycle_clock.h"

#include <gtest/gtest.h>

namespace {

using mabutrace::port::AdvanceCycleClock;
using mabutrace::port::CycleClock;
using mabutrace::port::StartCycleClock;

constexpr uint32_t kHz = 160000000u, kTickHz = 1000u, kPerTick = kHz / kTickHz;

struct Cpu {
  uint64_t cycles;  // true cycles since boot
  uint32_t counter() const { return uint32_t(cycles); }
  uint32_t tick() const { return uint32_t(cycles / kPerTick); }
};

TEST(CycleClock, CountsAcrossCounterWrapsWhenReadOften) {
  Cpu cpu{0xFFFF0000u};  // starts just before a wrap
  CycleClock s;
  StartCycleClock(s, kHz, kTickHz, cpu.counter(), cpu.tick());
  const uint64_t start = cpu.cycles;
  for (int i = 0; i < 1000; ++i) {
    cpu.cycles += 12345679u * 7u;  // ~0.54 s steps: many wraps over the loop
    ASSERT_EQ(AdvanceCycleClock(s, cpu.counter(), cpu.tick()), cpu.cycles - start) << "read " << i;
  }
}

TEST(CycleClock, QuietGapsLongerThanTheCounterTakeTheirWrapsFromTheTicks) {
  Cpu cpu{123456789u};
  CycleClock s;
  StartCycleClock(s, kHz, kTickHz, cpu.counter(), cpu.tick());
  const uint64_t start = cpu.cycles;
  // 2^31 cycles (13.4 s, the threshold) up to 100 wraps (44 min), and odd
  // amounts between, each followed by a short step.
  const uint64_t gaps[] = {uint64_t{1} << 31,
                           (uint64_t{1} << 32) - 1,
                           uint64_t{1} << 32,
                           (uint64_t{1} << 32) + 1,
                           3 * (uint64_t{1} << 32) + 999,
                           100 * (uint64_t{1} << 32) + 77777,
                           (uint64_t{5} << 31) + kPerTick / 2};
  for (uint64_t gap : gaps) {
    cpu.cycles += gap;
    ASSERT_EQ(AdvanceCycleClock(s, cpu.counter(), cpu.tick()), cpu.cycles - start) << "gap " << gap;
    cpu.cycles += 1000;
    ASSERT_EQ(AdvanceCycleClock(s, cpu.counter(), cpu.tick()), cpu.cycles - start) << "after gap " << gap;
  }
}

TEST(CycleClock, ShortGapsNeedNoTicks) {
  // Below 2^31 cycles the tick count is not consulted: a stopped tick (the
  // scheduler not started yet) does not matter.
  Cpu cpu{0xFFFFFF00u};
  CycleClock s;
  StartCycleClock(s, kHz, kTickHz, cpu.counter(), 0);
  cpu.cycles += (uint64_t{1} << 31) - 1;
  EXPECT_EQ(AdvanceCycleClock(s, cpu.counter(), 0), (uint64_t{1} << 31) - 1);
}

}  // namespace
