// SPDX-License-Identifier: MIT
/*
 * bench.c: instructions executed per TRACE_SCOPE (begin + end) on RV32,
 * counted by QEMU (tests/port/size/count_instructions.py --board virt).
 *
 * bench_mark() is called between measured regions; run under
 *   qemu-system-riscv32 -M virt -bios none -icount shift=0 -singlestep
 *                       -d exec,nochain -D exec.log -kernel fw_bench_Os.elf
 * every executed instruction is one "Trace" line in exec.log, so the lines
 * between two calls of bench_mark() are the instructions of what ran
 * between them. Regions, in order: BENCH_REPS x { one empty C block } (the
 * harness), then BENCH_REPS x { TRACE_SCOPE("bench") }, in the main loop;
 * then the same two run by the machine software interrupt's handler (the
 * ISR context: trap entry, trap_handler with mabutrace_riscv_trap_enter /
 * exit, mret are the harness there). The first scope of each context takes
 * the slow path (it binds the context and takes a chunk) and is warmed up
 * before. The clock is mcycle (the port's default; -DBENCH_MTIME: mtime).
 */
#include <stdint.h>

#include "board.h"
#include "mabutrace/mabutrace.h"
#include "mabutrace_riscv.h"

#define BENCH_REPS 8

static uint8_t g_trace_memory[64 * 1024] __attribute__((aligned(64)));

/* noipa + distinct bodies: neither inlined nor folded into one function. */
__attribute__((noipa)) void bench_mark(void) { __asm__ volatile("nop\n\tnop" ::: "memory"); }

__attribute__((noipa)) static void empty_block(void) { __asm__ volatile("" ::: "memory"); }

__attribute__((noipa)) static void one_scope(void) {
  TRACE_SCOPE("bench");
  __asm__ volatile("" ::: "memory");
}

static void (*volatile g_handler_body)(void);

void trap_handler(uint32_t mcause) {
  mabutrace_riscv_trap_enter();
  if (mcause != MCAUSE_MSI) board_exit(2);
  CLINT_MSIP = 0u;
  g_handler_body();
  mabutrace_riscv_trap_exit();
}

/* The software interrupt is taken right after the msip store (MIE and MSIE
 * set); the loop waits for the handler's clear. */
static void in_handler(void (*fn)(void)) {
  g_handler_body = fn;
  CLINT_MSIP = 1u;
  while (CLINT_MSIP != 0u) {
  }
}

int main(void) {
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 16 * 1024;
  cfg.max_threads = 2;
  cfg.max_depth = 8;
  cfg.memory = g_trace_memory;
  if (mabutrace_memory_required(&cfg) > sizeof g_trace_memory) return 1;
#if defined(BENCH_MTIME)
  /* The CLINT's mtime instead: every record takes the masked path. */
  mabutrace_riscv_use_mtime(&CLINT_MTIME_LO, MTIME_HZ);
#endif
  if (mabutrace_init_with_config(&cfg) != MABUTRACE_OK) return 1;
  mabutrace_riscv_clock_poll(); /* what a periodic interrupt does: enables the fast path */
  one_scope();                  /* warm-up: binds the context, takes the first chunk */
  mie_set(MIE_MSIE);
  irq_enable();

  bench_mark();
  for (int i = 0; i < BENCH_REPS; ++i) {
    empty_block();
    bench_mark();
  }
  for (int i = 0; i < BENCH_REPS; ++i) {
    one_scope();
    bench_mark();
  }
  in_handler(one_scope); /* warm-up of the ISR context */
  for (int i = 0; i < BENCH_REPS; ++i) {
    in_handler(empty_block);
    bench_mark();
  }
  for (int i = 0; i < BENCH_REPS; ++i) {
    in_handler(one_scope);
    bench_mark();
  }
  return 0;
}
