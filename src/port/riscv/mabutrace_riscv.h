// SPDX-License-Identifier: MIT
/*
 * mabutrace_riscv.h: the bare-metal RISC-V port's API (C and C++).
 *
 * The trap handler: call mabutrace_riscv_trap_enter() before any trace call
 * of a trap and mabutrace_riscv_trap_exit() after the last one, both with
 * mstatus.MIE clear (as the hart enters the trap). Records between them go
 * to the "ISR" track. A handler that lets interrupts nest (sets MIE again)
 * must have saved mepc and mstatus before, and clear MIE again before it
 * calls mabutrace_riscv_trap_exit() and restores them.
 *
 * Clock settings: call before mabutrace_init_with_config(). The port has no
 * heap: pass config.memory (mabutrace_memory_required(&config) bytes,
 * 64-byte aligned). Details: docs/ports.md, "RISC-V".
 */
#ifndef MABUTRACE_RISCV_H
#define MABUTRACE_RISCV_H

#include <stdint.h>

#if defined(CONFIG_MABUTRACE_DISABLE) && CONFIG_MABUTRACE_DISABLE && !defined(MABUTRACE_DISABLE)
#define MABUTRACE_DISABLE 1
#endif

#if defined(MABUTRACE_DISABLE)
/* Removed like the macros of mabutrace.h: no code, no library reference. */
#define mabutrace_riscv_trap_enter() ((void)0)
#define mabutrace_riscv_trap_exit() ((void)0)
#define mabutrace_riscv_set_cycle_hz(hz) ((void)0)
#define mabutrace_riscv_use_mtime(mtime, hz) ((void)0)
#define mabutrace_riscv_clock_source() (0)
#define mabutrace_riscv_clock_poll() ((void)0)
#else

#ifdef __cplusplus
extern "C" {
#endif

/* Traps being handled now (0: the main loop). Written only by the two
 * functions below, with MIE clear. */
extern volatile uint32_t mabutrace_riscv_trap_depth;

static inline void mabutrace_riscv_trap_enter(void) { mabutrace_riscv_trap_depth = mabutrace_riscv_trap_depth + 1u; }
static inline void mabutrace_riscv_trap_exit(void) { mabutrace_riscv_trap_depth = mabutrace_riscv_trap_depth - 1u; }

/* Timestamp sources. */
typedef enum mabutrace_riscv_clock {
  MABUTRACE_RISCV_CLOCK_NONE = 0,  /* not chosen yet (before init) */
  MABUTRACE_RISCV_CLOCK_CYCLE = 1, /* mcycle/mcycleh (default) */
  MABUTRACE_RISCV_CLOCK_MTIME = 2, /* the CLINT's mtime (mabutrace_riscv_use_mtime) */
} mabutrace_riscv_clock_t;

/* Rate of mcycle in Hz (default 1,000,000,000: QEMU with -icount shift=0,
 * where mcycle counts virtual nanoseconds; on silicon the core clock). */
void mabutrace_riscv_set_cycle_hz(uint32_t hz);
/* Times with the CLINT's 64-bit mtime (mtime: the address of its low word,
 * e.g. 0x0200BFF8 on QEMU virt and SiFive parts), counting hz per second
 * (10,000,000 on QEMU virt). Same on every hart and unaffected by core
 * clock changes, but every record then takes the masked path (a 64-bit
 * hi-lo-hi read over the bus; mcycle's fast path is one CSR read). hz 0 or
 * mtime NULL: back to mcycle. */
void mabutrace_riscv_use_mtime(const volatile uint32_t* mtime, uint32_t hz);
mabutrace_riscv_clock_t mabutrace_riscv_clock_source(void);
/* Keeps timestamps exact and turns the fast recording path on: call it from
 * a periodic interrupt, at least once per 2^31 clock counts (2.1 s of
 * mcycle at 1 GHz, 214 s of a 10 MHz mtime). Sends a context whose time
 * base is over 2^31 counts old to the slow path; the first call after init
 * enables the main loop's fast path (docs/ports.md §4). */
void mabutrace_riscv_clock_poll(void);

#ifdef __cplusplus
}
#endif

#endif /* MABUTRACE_DISABLE */

#endif /* MABUTRACE_RISCV_H */
