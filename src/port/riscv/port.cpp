// SPDX-License-Identifier: MIT
// Bare-metal RISC-V port: clock selection, track names, no heap.
// Inline part (context, MIE mask, clock reads): mabutrace_port_inline.h.
// Bare-metal RISC-V only (not ESP-IDF, which takes src/port/freertos): the
// Arduino IDE compiles every source under src/ for whatever board it
// targets (src/mabutrace_port_inline.h picks the port).
#if defined(__riscv) && !defined(ESP_PLATFORM) && !defined(ARDUINO_ARCH_ESP32) && !defined(__linux__) && \
    !defined(__ZEPHYR__)

#include <string.h>

#include "../../runtime/port.h"  // (relative: the Arduino IDE puts only src/ on the path)
#include "../../runtime/writer_single_core.h"
#include "mabutrace_riscv.h"

// (C linkage: declared in mabutrace_riscv.h.)
volatile uint32_t mabutrace_riscv_trap_depth = 0;

namespace mabutrace::port {

ClockState g_clock_state = {0, nullptr};

namespace {

// The settings, zero-initialized (.bss): 0 means the default.
constexpr uint32_t kDefaultCycleHz = 1000000000u;  // QEMU -icount shift=0: mcycle = virtual ns
struct Settings {
  uint32_t cycle_hz;
  const volatile uint32_t* mtime;  // mabutrace_riscv_use_mtime(), with mtime_hz != 0
  uint32_t mtime_hz;
};
Settings g_settings;

}  // namespace

// Picks the clock (once per init, before the first timestamp); its Hz.
uint64_t ClockHz() {
  const Settings& set = g_settings;
  const bool mtime = set.mtime_hz != 0;
  g_clock_state = ClockState{mtime ? kClockMtime : kClockCycle, set.mtime};
  return mtime ? set.mtime_hz : set.cycle_hz ? set.cycle_hz : kDefaultCycleHz;
}

// Track ids: 1 for the main loop, 2 for the ISR track (never 0).
uint32_t CurrentThreadId() { return InIsr() ? 2u : 1u; }

namespace {
// One copy of the name code for both (flash: docs/ports.md §4).
void CopyName(char* buf, size_t len, const char* name) {
  if (len == 0) return;
  strncpy(buf, name, len - 1);
  buf[len - 1] = '\0';
}
}  // namespace

void CurrentThreadName(char* buf, size_t len) { CopyName(buf, len, InIsr() ? "ISR" : "main"); }

uint32_t ProcessId() { return 1; }

void ProcessName(char* buf, size_t len) { CopyName(buf, len, "firmware"); }

// No heap: the firmware passes config.memory.
void* Allocate(size_t) { return nullptr; }
void Free(void*) {}
bool AtThreadExit(void (*)(void*), void*) { return false; }

}  // namespace mabutrace::port

using namespace mabutrace::port;

extern "C" {

void mabutrace_riscv_set_cycle_hz(uint32_t hz) {
  if (hz) g_settings.cycle_hz = hz;
}
void mabutrace_riscv_use_mtime(const volatile uint32_t* mtime, uint32_t hz) {
  g_settings.mtime = mtime;
  g_settings.mtime_hz = mtime ? hz : 0;
}
mabutrace_riscv_clock_t mabutrace_riscv_clock_source(void) { return mabutrace_riscv_clock_t(g_clock_state.source); }
void mabutrace_riscv_clock_poll(void) { mabutrace::PollClock(); }

}  // extern "C"

#endif  // bare-metal RISC-V
