// SPDX-License-Identifier: MIT
/*
 * mabutrace_cortex_m.h: settings of the bare-metal Cortex-M port (C and C++).
 *
 * Call these before mabutrace_init_with_config(). The port has no heap:
 * pass config.memory (mabutrace_memory_required(&config) bytes, 64-byte
 * aligned, e.g. a static array); mabutrace_init() without memory returns
 * MABUTRACE_ERR_NO_MEMORY. Details: docs/ports.md.
 */
#ifndef MABUTRACE_CORTEX_M_H
#define MABUTRACE_CORTEX_M_H

#include <stdint.h>

#if defined(CONFIG_MABUTRACE_DISABLE) && CONFIG_MABUTRACE_DISABLE && !defined(MABUTRACE_DISABLE)
#define MABUTRACE_DISABLE 1
#endif

#if defined(MABUTRACE_DISABLE)
/* Removed like the macros of mabutrace.h: no code, no library reference. */
#define mabutrace_cortex_m_set_core_hz(hz) ((void)0)
#define mabutrace_cortex_m_set_systick_ref_hz(hz) ((void)0)
#define mabutrace_cortex_m_clock_source() (0)
#define mabutrace_cortex_m_prefer_systick(on) ((void)0)
#define mabutrace_cortex_m_clock_poll() ((void)0)
#define mabutrace_cortex_m_use_counter(counter, counts_down, hz) ((void)0)
#else

#ifdef __cplusplus
extern "C" {
#endif

/* Frequency of the processor clock in Hz (default 25,000,000: the MPS2
 * boards). The timestamp rate when DWT_CYCCNT or SysTick with CLKSOURCE=1
 * (processor clock) is the clock. */
void mabutrace_cortex_m_set_core_hz(uint32_t hz);
/* Frequency of SysTick's external reference clock in Hz, used when
 * SYST_CSR.CLKSOURCE = 0 (default 1,000,000). */
void mabutrace_cortex_m_set_systick_ref_hz(uint32_t hz);

/* Which timestamp source init picked: the counter given to
 * mabutrace_cortex_m_use_counter(), else DWT_CYCCNT when it counts (real
 * silicon with the DWT), else SysTick (QEMU does not emulate CYCCNT). If
 * SysTick is not running, init starts it free-running (reload 0xFFFFFF,
 * processor clock, no interrupt). */
typedef enum mabutrace_cortex_m_clock {
  MABUTRACE_CORTEX_M_CLOCK_NONE = 0, /* not chosen yet (before init) */
  MABUTRACE_CORTEX_M_CLOCK_DWT = 1,
  MABUTRACE_CORTEX_M_CLOCK_SYSTICK = 2,
  MABUTRACE_CORTEX_M_CLOCK_COUNTER = 3 /* mabutrace_cortex_m_use_counter() */
} mabutrace_cortex_m_clock_t;
mabutrace_cortex_m_clock_t mabutrace_cortex_m_clock_source(void);
/* Forces SysTick even where DWT_CYCCNT counts (call before init). */
void mabutrace_cortex_m_prefer_systick(int on);

/* Times with the application's free-running 32-bit timer instead: a
 * register that runs through all 2^32 values at hz counts per second,
 * counting up or down (counts_down != 0). For cores without DWT_CYCCNT
 * (parts whose DWT has no cycle counter, and QEMU) that have such a timer;
 * as fast as DWT (one load).
 * Call before init; hz 0 goes back to DWT/SysTick. */
void mabutrace_cortex_m_use_counter(const volatile uint32_t* counter, int counts_down, uint32_t hz);
/* Keeps timestamps exact and turns the fast recording path on. Call it from
 * the SysTick handler (or at least once per SysTick period, and once per
 * 2^31 clock counts: 12.8 s of DWT at 168 MHz). It extends the clock (no
 * SysTick period or 2^32 counter wrap goes unseen) and sends any context
 * whose last time base is over 2^31 counts old to the recorder's slow path,
 * which writes a new one. The first call after init enables Thread mode's
 * fast path with a counter clock (32-bit deltas, which rely on the polls);
 * without polls every record checks its delta in 64 bits, about 2.5 times
 * the instructions (docs/ports.md §4). Does nothing before init. */
void mabutrace_cortex_m_clock_poll(void);

#ifdef __cplusplus
}
#endif

#endif /* MABUTRACE_DISABLE */

#endif /* MABUTRACE_CORTEX_M_H */
