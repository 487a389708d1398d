// SPDX-License-Identifier: MIT
// Bare-metal RISC-V port (RV32IMAC, RV32IMC: ESP32-C3/C6/H2 class cores
// without an RTOS), inline part. Machine mode only, one hart.
//
// As on the Cortex-M (src/port/cortex-m), the recording core
// (src/runtime/writer_single_core.cpp) keeps one writer context per mode:
//   context 0  the main loop, track "main"
//   context 1  every trap handler, track "ISR" (records flagged kInIsr)
// RISC-V has no register that says "a trap is being handled" (mcause keeps
// its value after mret), so the port counts trap nesting: the
// application's trap handler calls mabutrace_riscv_trap_enter() first and
// mabutrace_riscv_trap_exit() last, both with mstatus.MIE clear (as the
// hart leaves it on trap entry). A handler that re-enables MIE to let
// another interrupt nest must save mepc and mstatus first (the nested trap
// overwrites them); the depth counter then goes 1 -> 2 -> 1 (docs/ports.md,
// "RISC-V").
//
// Context 0 records without masking; context 1 reserves with mstatus.MIE
// cleared (csrrci), writes with it restored. CSR numbers and bits: RISC-V
// Privileged Architecture 20211203, §2.2 (mcycle 0xB00, mcycleh 0xB80),
// §3.1.6 (mstatus.MIE bit 3); Unprivileged 20191213 §10.1 (Zicntr: the
// hi-lo-hi read of a 64-bit counter on RV32).
#ifndef MABUTRACE_PORT_RISCV_INLINE_H
#define MABUTRACE_PORT_RISCV_INLINE_H

#include <stdint.h>

#include "mabutrace_riscv.h"

#define MABUTRACE_PORT_WRITER_CONTEXTS 2
// Readers (flush/export) run in the main loop on the one hart: plain stores
// suffice; 64-bit atomics (RV32 has no 64-bit AMO) and, on RV32IMC (no A),
// every read-modify-write atomic come from atomic.c under the MIE mask.
#define MABUTRACE_PORT_SINGLE_CORE 1
// names_lock masks interrupts: a trap handler registering its track must
// never spin on a lock the main loop holds.
#define MABUTRACE_PORT_HAS_IRQ_LOCK 1
// The fast clock is read by ReadFastCounter() (the cycle counter is a CSR,
// not a memory word): writer_single_core.cpp calls it instead of a load.
// Only mcycle takes the fast path: a second kind of fast counter would cost
// every record a compare and a branch (measured: 69 instead of 59
// instructions per TRACE_SCOPE, the target is 60); mtime is read through
// NowTicksInCritical() on the masked path.
#define MABUTRACE_PORT_FAST_COUNTER_READ 1
#define MABUTRACE_PORT_INLINE inline __attribute__((always_inline))

namespace mabutrace::port {

// ---- critical section: mstatus.MIE ------------------------------------------
// Returns MIE as it was (bit 3, or 0), so sections nest; csrs with 0 is a
// no-op. Costs 3 instructions (csrrci, andi, csrs).
MABUTRACE_PORT_INLINE uint32_t EnterCritical() {
  uint32_t mstatus;
  __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(mstatus) : : "memory");
  return mstatus & 8u;
}
MABUTRACE_PORT_INLINE void ExitCritical(uint32_t mie) { __asm__ volatile("csrs mstatus, %0" : : "r"(mie) : "memory"); }

// ---- context ----------------------------------------------------------------
// mabutrace_riscv_trap_depth: traps being handled (mabutrace_riscv.h).
MABUTRACE_PORT_INLINE bool InIsr() { return mabutrace_riscv_trap_depth != 0; }
MABUTRACE_PORT_INLINE uint32_t WriterContext() { return InIsr() ? 1u : 0u; }
MABUTRACE_PORT_INLINE bool ContextIsIsr(uint32_t context) { return context != 0; }
MABUTRACE_PORT_INLINE uint32_t CurrentCpu() { return 0; }
inline void CpuRelax() { __asm__ volatile("nop"); }

// ---- clock --------------------------------------------------------------------
// mcycle/mcycleh (default) or the CLINT's mtime: both 64 bits, nothing to
// extend in software.
struct ClockState {
  uint32_t source;                 // kClock* (mabutrace_riscv_clock_t)
  const volatile uint32_t* mtime;  // kClockMtime: its low word
};
constexpr uint32_t kClockCycle = 1, kClockMtime = 2;
// FastCounter()'s "counter" for mcycle: an odd address no 32-bit register
// has, never dereferenced (ReadFastCounter reads the CSR).
const volatile uint32_t* const kCycleCsr = reinterpret_cast<const volatile uint32_t*>(uintptr_t{1});
extern ClockState g_clock_state;

MABUTRACE_PORT_INLINE uint32_t ReadMcycle() {
  uint32_t lo;
  __asm__ volatile("csrr %0, mcycle" : "=r"(lo));
  return lo;
}

// 64-bit mcycle on RV32: hi, lo, hi again; a carry between the reads
// changes hi, then read again (Unprivileged spec §10.1).
MABUTRACE_PORT_INLINE uint64_t ReadMcycle64() {
  uint32_t hi, lo, hi2;
  do {
    __asm__ volatile("csrr %0, mcycleh\n\tcsrr %1, mcycle\n\tcsrr %2, mcycleh" : "=r"(hi), "=r"(lo), "=r"(hi2));
  } while (hi != hi2);
  return uint64_t(hi) << 32 | lo;
}

// The CLINT's mtime (SiFive CLINT / ACLINT MTIMER layout): two 32-bit
// words, read the same way (an MMIO load cannot read 64 bits on RV32).
MABUTRACE_PORT_INLINE uint64_t ReadMtime64(const volatile uint32_t* lo_word) {
  uint32_t hi, lo;
  do {
    hi = lo_word[1];
    lo = lo_word[0];
  } while (hi != lo_word[1]);
  return uint64_t(hi) << 32 | lo;
}

// The recorder's fast clock (writer_single_core.cpp): mcycle's low 32
// bits; nullptr (no fast path) for mtime.
MABUTRACE_PORT_INLINE const volatile uint32_t* FastCounter(uint32_t* invert) {
  *invert = 0;
  return g_clock_state.source == kClockCycle ? kCycleCsr : nullptr;
}
MABUTRACE_PORT_INLINE uint32_t ReadFastCounter(const volatile uint32_t*, uint32_t) { return ReadMcycle(); }

// Ticks now (interrupts masked or not: both reads retry on a carry).
MABUTRACE_PORT_INLINE uint64_t NowTicksInCritical() {
  const ClockState& s = g_clock_state;
  return s.source == kClockMtime ? ReadMtime64(s.mtime) : ReadMcycle64();
}

inline uint64_t NowTicks() {
  const uint32_t mie = EnterCritical();
  const uint64_t t = NowTicksInCritical();
  ExitCritical(mie);
  return t;
}

// names_lock: interrupts masked while held. Not recursive.
class IrqLock {
 public:
  void lock() { mie_ = EnterCritical(); }
  void unlock() { ExitCritical(mie_); }

 private:
  uint32_t mie_ = 0;
};

}  // namespace mabutrace::port

#endif  // MABUTRACE_PORT_RISCV_INLINE_H
