// SPDX-License-Identifier: MIT
/*
 * bench.c: instructions executed per TRACE_SCOPE (begin + end) on the
 * Cortex-M, counted by QEMU (tests/port/size/count_instructions.py).
 *
 * bench_mark() is called between measured regions; run under
 *   qemu-system-arm -M mps2-an386 -semihosting -icount shift=0 -singlestep
 *                   -d exec,nochain -D exec.log -kernel fw_bench_Os.elf
 * every executed instruction is one "Trace" line in exec.log (one
 * instruction per translation block, no chaining), so the lines between two
 * calls of bench_mark() are the instructions of what ran between them.
 * Regions, in order: BENCH_REPS x { one empty C block } (the loop's own
 * cost), then BENCH_REPS x { TRACE_SCOPE("bench") }, in Thread mode; then
 * the same two run by the PendSV handler (Handler mode, the ISR context);
 * each region is a mark per repetition. The first scope of each context
 * takes the slow path (it binds the context and takes a chunk) and is
 * warmed up before.
 */
#include <stdint.h>

#include "firmware.h"
#include "mabutrace/mabutrace.h"
#include "mabutrace_cortex_m.h"

#define BENCH_REPS 8

static uint8_t g_trace_memory[64 * 1024] __attribute__((aligned(64)));

/* noipa + distinct bodies: the compiler must neither inline nor fold them
 * into one function (identical code folding would make the marks ambiguous). */
__attribute__((noipa)) void bench_mark(void) { __asm__ volatile("nop\n\tnop" ::: "memory"); }

__attribute__((noipa)) static void empty_block(void) { __asm__ volatile("" ::: "memory"); }

__attribute__((noipa)) static void one_scope(void) {
  TRACE_SCOPE("bench");
  __asm__ volatile("" ::: "memory");
}

/* Handler mode: the PendSV handler runs `fn`. */
static void (*volatile g_handler_body)(void);
void PendSV_Handler(void) { g_handler_body(); }
static void in_handler(void (*fn)(void)) {
  g_handler_body = fn;
  pendsv_now();
}

int main(void) {
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 16 * 1024;
  cfg.max_threads = 2;
  cfg.max_depth = 8;
  cfg.memory = g_trace_memory;
  if (mabutrace_memory_required(&cfg) > sizeof g_trace_memory) return 1;
#if !defined(BENCH_SYSTICK)
  /* The counter clock: the path DWT_CYCCNT takes on silicon (QEMU has no
   * CYCCNT). BENCH_SYSTICK measures the SysTick fallback instead. */
  timer1_start_free_running();
  mabutrace_cortex_m_use_counter(&TIMER1_VALUE, 1, 25000000u);
#endif
  if (mabutrace_init_with_config(&cfg) != MABUTRACE_OK) return 1;
  mabutrace_cortex_m_clock_poll(); /* what the SysTick handler does: enables the fast path */
  one_scope();                     /* warm-up: binds the context, takes the first chunk */

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
