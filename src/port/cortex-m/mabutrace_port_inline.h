// SPDX-License-Identifier: MIT
// Bare-metal Cortex-M port (Armv7-M: Cortex-M3/M4/M7), inline part (R-D3).
//
// Single core, no OS. Code runs either in Thread mode (the main loop) or in
// Handler mode (an exception or interrupt; handlers of different priority
// nest). The recording core (src/runtime/writer_single_core.cpp) keeps one
// writer context per mode instead of thread_local state:
//   context 0  Thread mode: the main loop, track "main"
//   context 1  Handler mode: every ISR, track "ISR" (all records have the
//              kInIsr bit; the exporters show them as the ISR track)
// Context 0 records without masking interrupts (nothing else writes its
// cursor); context 1's reservation runs with PRIMASK set (interrupts
// masked, a few dozen instructions); the words are written with interrupts
// enabled, and readers bring the chunks' commit words up to date
// (docs/ports.md §2). No RTOS: tasks would share context 0 (use the
// FreeRTOS port).
//
// Register addresses and bits are from the Armv7-M Architecture Reference
// Manual (DDI 0403E): IPSR B1.4.2, PRIMASK B1.4.3, SysTick B3.3, DWT C1.8,
// DEMCR C1.6.5.
#ifndef MABUTRACE_PORT_CORTEX_M_INLINE_H
#define MABUTRACE_PORT_CORTEX_M_INLINE_H

#include <stdint.h>

// No TLS on bare metal: the core indexes a static array of writer contexts.
#define MABUTRACE_PORT_WRITER_CONTEXTS 2
// Readers (flush/export) run in Thread mode on the one core, so a record
// word is never read while it is written: plain stores suffice, and 64-bit
// atomics (no LDREXD/STREXD on Armv7-M) come from atomic64.c under PRIMASK.
// Selects the recording path: src/runtime/writer_single_core.cpp.
#define MABUTRACE_PORT_SINGLE_CORE 1
// Runtime::names_lock masks interrupts instead of spinning: an ISR that
// records for the first time registers its track under it, and must never
// spin on a lock the interrupted main loop holds.
#define MABUTRACE_PORT_HAS_IRQ_LOCK 1

// The hot path's helpers must inline even at -Os (a call costs more
// instructions than most of them have).
#define MABUTRACE_PORT_INLINE inline __attribute__((always_inline))

namespace mabutrace::port {

// ---- registers (volatile MMIO) ----------------------------------------------
// SysTick, Armv7-M ARM B3.3.2: SYST_CSR (ENABLE bit 0, TICKINT bit 1,
// CLKSOURCE bit 2: 1 = processor clock, COUNTFLAG bit 16: set when the
// counter went 1 -> 0, cleared by reading SYST_CSR), SYST_RVR (24-bit reload),
// SYST_CVR (24-bit current value, counts down).
MABUTRACE_PORT_INLINE volatile uint32_t& SystCsr() { return *reinterpret_cast<volatile uint32_t*>(0xE000E010u); }
MABUTRACE_PORT_INLINE volatile uint32_t& SystRvr() { return *reinterpret_cast<volatile uint32_t*>(0xE000E014u); }
MABUTRACE_PORT_INLINE volatile uint32_t& SystCvr() { return *reinterpret_cast<volatile uint32_t*>(0xE000E018u); }
constexpr uint32_t kSystCountFlag = 1u << 16;
// DWT_CYCCNT, Armv7-M ARM C1.8.8: 32-bit count of processor clock cycles
// while DWT_CTRL.CYCCNTENA (bit 0) and DEMCR.TRCENA (bit 24) are set.
MABUTRACE_PORT_INLINE volatile uint32_t& DwtCyccnt() { return *reinterpret_cast<volatile uint32_t*>(0xE0001004u); }

// ---- critical section: PRIMASK (Armv7-M ARM B1.4.3, B5.2.1 CPS) -----------
// EnterCritical() sets PRIMASK (execution priority 0: every configurable
// interrupt is held pending) and returns the previous PRIMASK, so critical
// sections nest. NMI and HardFault still preempt it: their handlers must
// not record. Costs 3 instructions (MRS, CPSID, and MSR on exit).
MABUTRACE_PORT_INLINE uint32_t EnterCritical() {
  uint32_t primask;
  __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
  return primask;
}
MABUTRACE_PORT_INLINE void ExitCritical(uint32_t primask) {
  __asm__ volatile("msr primask, %0" : : "r"(primask) : "memory");
}

// ---- context --------------------------------------------------------------
// IPSR (Armv7-M ARM B1.4.2) holds the number of the exception being
// handled, 0 in Thread mode.
// (MRS of IPSR alone reads the other xPSR bits as zero.)
MABUTRACE_PORT_INLINE uint32_t Ipsr() {
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  return ipsr;
}
MABUTRACE_PORT_INLINE bool InIsr() { return Ipsr() != 0; }
// Writer context of the caller: 0 Thread mode, 1 Handler mode.
MABUTRACE_PORT_INLINE uint32_t WriterContext() { return InIsr() ? 1u : 0u; }
// Records of a context are flagged kInIsr when that context is an ISR's.
MABUTRACE_PORT_INLINE bool ContextIsIsr(uint32_t context) { return context != 0; }
MABUTRACE_PORT_INLINE uint32_t CurrentCpu() { return 0; }
// Nothing to yield to on one core without an OS.
inline void CpuRelax() { __asm__ volatile("nop"); }

// ---- clock ------------------------------------------------------------------
// Extends a 32-bit DWT_CYCCNT or the 24-bit SysTick down-counter to 64-bit
// ticks. Written only with interrupts masked.
struct ClockState {
  uint32_t source;                   // kClock*, chosen by ClockHz()
  uint32_t last;                     // counter: last value read
  uint64_t high;                     // counter: bits 32..63; SysTick: ticks of whole periods
  const volatile uint32_t* counter;  // DWT_CYCCNT or the application's timer; nullptr: SysTick
  uint32_t invert;                   // 0xFFFFFFFF for a down-counter
};
constexpr uint32_t kClockDwt = 1, kClockSysTick = 2, kClockCounter = 3;
extern ClockState g_clock_state;

// The recorder's fast clock (writer_single_core.cpp EmitFast): the 32-bit
// counter it may read directly (value ^ *invert), or nullptr for SysTick.
MABUTRACE_PORT_INLINE const volatile uint32_t* FastCounter(uint32_t* invert) {
  *invert = g_clock_state.invert;
  return g_clock_state.counter;
}

// Ticks now, with interrupts already masked (the recording hot path calls it
// inside its reservation, so records of a context are in time order).
// Counter (DWT_CYCCNT or the application's timer): exact while read here
// at least once per 2^32 counts. SysTick: exact while read at least once
// per SysTick period, and while no one else reads SYST_CSR (that clears
// COUNTFLAG). The recorder's fast path reads the counter without coming
// here, so call mabutrace_cortex_m_clock_poll() from the SysTick handler
// (it also keeps the recorder's 32-bit deltas exact: PollClock).
MABUTRACE_PORT_INLINE uint64_t NowTicksInCritical() {
  ClockState& s = g_clock_state;
  if (s.counter != nullptr) {
    const uint32_t c = *s.counter ^ s.invert;
    if (c < s.last) s.high += uint64_t{1} << 32;
    s.last = c;
    return s.high | c;
  }
  // A period is RVR + 1 counts: RVR, RVR-1, ..., 1, 0. COUNTFLAG is set on
  // the step 1 -> 0 (B3.3.1), not on the reload 0 -> RVR, so the period
  // starts at 0: ticks into it are 0 for CVR 0, else RVR + 1 - CVR. (Taking
  // CVR 0 as the old period's last count, RVR - CVR, put every read of the
  // one count at 0 a whole period ahead once COUNTFLAG had been counted:
  // the SysTick handler runs right then, and its scopes began after they
  // ended. tests/port/qemu check_qemu_trace.py, mps2-an385.)
  const uint32_t period = (SystRvr() & 0xFFFFFFu) + 1u;
  uint32_t cvr = SystCvr();
  if (SystCsr() & kSystCountFlag) {
    // Wrapped since the last read (maybe just after the read above): count
    // the period and take the value after the wrap.
    s.high += period;
    cvr = SystCvr();
  }
  cvr &= 0xFFFFFFu;
  return s.high + (cvr ? period - cvr : 0u);
}

inline uint64_t NowTicks() {
  const uint32_t primask = EnterCritical();
  const uint64_t t = NowTicksInCritical();
  ExitCritical(primask);
  return t;
}

// names_lock: interrupts masked while held (a few dozen instructions: a
// 32-byte name copy). Not recursive.
class IrqLock {
 public:
  void lock() { primask_ = EnterCritical(); }
  void unlock() { ExitCritical(primask_); }

 private:
  uint32_t primask_ = 0;
};

}  // namespace mabutrace::port

#endif  // MABUTRACE_PORT_CORTEX_M_INLINE_H
