// SPDX-License-Identifier: MIT
// Bare-metal Cortex-M port (R-D3): clock selection, track names, no heap.
// Inline part (context, PRIMASK, clock read): mabutrace_port_inline.h.
// Armv7-M only: the Arduino IDE compiles every source under src/ for
// whatever board it targets.
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)

#include <string.h>

#include "../../runtime/port.h"  // (relative: the Arduino IDE puts only src/ on the path)
#include "../../runtime/ring_buffer.h"
#include "../../runtime/writer_single_core.h"
#include "mabutrace_cortex_m.h"

namespace mabutrace::port {

ClockState g_clock_state = {0, 0, 0, nullptr, 0};

namespace {

// The settings of mabutrace_cortex_m.h, in one place (one address to load),
// zero-initialized (.bss): 0 means the default.
constexpr uint32_t kDefaultCoreHz = 25000000u;  // MPS2 boards' processor clock
constexpr uint32_t kDefaultSystickRefHz = 1000000u;
struct Settings {
  uint32_t core_hz;
  uint32_t systick_ref_hz;
  bool prefer_systick;
  // mabutrace_cortex_m_use_counter(): the application's free-running timer.
  const volatile uint32_t* counter;
  uint32_t counter_invert;
  uint32_t counter_hz;
};
Settings g_settings;

// DEMCR (Armv7-M ARM C1.6.5): TRCENA, bit 24, powers the DWT and ITM.
volatile uint32_t& Demcr() { return *reinterpret_cast<volatile uint32_t*>(0xE000EDFCu); }
// DWT_CTRL (C1.8.7): CYCCNTENA bit 0; NOCYCCNT bit 25 reads 1 when there is
// no cycle counter.
volatile uint32_t& DwtCtrl() { return *reinterpret_cast<volatile uint32_t*>(0xE0001000u); }
constexpr uint32_t kTrcena = 1u << 24, kCyccntena = 1u << 0, kNoCyccnt = 1u << 25;
constexpr uint32_t kSystEnable = 1u << 0, kSystClkSource = 1u << 2;

// True when DWT_CYCCNT exists and advances. QEMU accepts the enables but
// CYCCNT stays 0, so the test is "it moved", not "the bit is there".
bool DwtCounts() {
  Demcr() |= kTrcena;
  if (DwtCtrl() & kNoCyccnt) return false;
  DwtCtrl() |= kCyccntena;
  const uint32_t a = DwtCyccnt();
  for (volatile int i = 0; i < 16; ++i) {
  }
  return DwtCyccnt() != a;
}

}  // namespace

// Picks the clock (once per init, before the first timestamp) and returns
// its rate in Hz.
uint64_t ClockHz() {
  const uint32_t primask = EnterCritical();
  const Settings& set = g_settings;
  const uint32_t core_hz = set.core_hz ? set.core_hz : kDefaultCoreHz;
  uint32_t source = kClockCounter, hz = set.counter_hz, invert = set.counter_invert;
  const volatile uint32_t* counter = set.counter;
  if (counter == nullptr && !set.prefer_systick && DwtCounts()) {
    source = kClockDwt, hz = core_hz, invert = 0, counter = &DwtCyccnt();
  }
  if (counter == nullptr) {
    if (!(SystCsr() & kSystEnable)) {
      // Nobody runs SysTick: run it free, without its interrupt.
      SystRvr() = 0xFFFFFFu;
      SystCvr() = 0;
      SystCsr() = kSystEnable | kSystClkSource;
    }
    const uint32_t stale = SystCsr();  // reading clears a stale COUNTFLAG
    source = kClockSysTick, hz = (stale & kSystClkSource) ? core_hz
                                 : set.systick_ref_hz     ? set.systick_ref_hz
                                                          : kDefaultSystickRefHz;
  }
  g_clock_state = ClockState{source, counter ? *counter ^ invert : 0u, 0, counter, invert};
  ExitCritical(primask);
  return hz;
}

// Track ids: 1 for the main loop, 2 for the ISR track (never 0).
uint32_t CurrentThreadId() { return InIsr() ? 2u : 1u; }

void CurrentThreadName(char* buf, size_t len) {
  if (len == 0) return;
  const char* name = InIsr() ? "ISR" : "main";
  strncpy(buf, name, len - 1);
  buf[len - 1] = '\0';
}

uint32_t ProcessId() { return 1; }

void ProcessName(char* buf, size_t len) {
  if (len == 0) return;
  strncpy(buf, "firmware", len - 1);
  buf[len - 1] = '\0';
}

// No heap: the firmware passes config.memory.
void* Allocate(size_t) { return nullptr; }
void Free(void*) {}
bool AtThreadExit(void (*)(void*), void*) { return false; }

}  // namespace mabutrace::port

using namespace mabutrace::port;

extern "C" {

void mabutrace_cortex_m_set_core_hz(uint32_t hz) {
  if (hz) g_settings.core_hz = hz;
}
void mabutrace_cortex_m_set_systick_ref_hz(uint32_t hz) {
  if (hz) g_settings.systick_ref_hz = hz;
}
mabutrace_cortex_m_clock_t mabutrace_cortex_m_clock_source(void) {
  return mabutrace_cortex_m_clock_t(g_clock_state.source);
}
void mabutrace_cortex_m_prefer_systick(int on) { g_settings.prefer_systick = on != 0; }
void mabutrace_cortex_m_use_counter(const volatile uint32_t* counter, int counts_down, uint32_t hz) {
  Settings& set = g_settings;
  set.counter = hz ? counter : nullptr;
  set.counter_invert = counts_down ? 0xFFFFFFFFu : 0u;
  set.counter_hz = hz;
}
void mabutrace_cortex_m_clock_poll(void) { mabutrace::PollClock(); }

}  // extern "C"

#endif  // Armv7-M
