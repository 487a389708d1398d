// SPDX-License-Identifier: MIT
/*
 * mcu_demo.h: the part of the bare-metal demo firmwares (examples/cortex-m,
 * examples/riscv) that is the same on every board, in one place, because
 * tests/port/qemu/check_qemu_trace.py recomputes it:
 *   - the link queue from the timer interrupt to the main loop: the ISR
 *     calls mcu_demo_queue_link() with its flow's link id;
 *   - the main loop, ITERATIONS times: scope "main_loop" > "compute" >
 *     "inner" (three levels), counter "value" = the next number of the LCG
 *     below (negative values included: int32 exact), a flow in "tick
 *     handled" per queued link, an instant "checkpoint" every 16th
 *     iteration, and a flush of the binary stream every FLUSH_EVERY
 *     iterations (mcu_demo_main_loop());
 *   - mcu_demo_drain_links() for the links left when the interrupts stop.
 * Included by the one main.c of a firmware (its statics are that
 * firmware's). Every line that mentions tracing stands alone, as in the
 * main.c files: tests/port/size strips this header with them.
 */
#ifndef MABUTRACE_EXAMPLES_MCU_DEMO_H
#define MABUTRACE_EXAMPLES_MCU_DEMO_H

#include <stdint.h>

#include "mabutrace/mabutrace.h"

#define ITERATIONS 200u
#define FLUSH_EVERY 10u
#define LINK_QUEUE 64u /* power of two */
#define BURST 8u       /* instants per timer interrupt: a long handler, many nestings */

static volatile uint16_t g_links[LINK_QUEUE];
static volatile uint32_t g_link_head; /* written by the ISR only */
static uint32_t g_link_tail;          /* main loop only */
static uint32_t g_lcg = 12345u;
static volatile uint32_t g_sink; /* keeps the busy work */

/* ISR side: queues `link` for the main loop (dropped when the queue is full). */
static inline void mcu_demo_queue_link(uint16_t link) {
  const uint32_t head = g_link_head;
  if (head - g_link_tail < LINK_QUEUE) {
    g_links[head % LINK_QUEUE] = link;
    g_link_head = head + 1u;
  }
}

/* Numerical Recipes' 32-bit LCG, read as int32 (about half are negative). */
static int32_t next_value(void) {
  g_lcg = g_lcg * 1664525u + 1013904223u;
  return (int32_t)g_lcg;
}

static void compute(uint32_t i) {
  TRC();
  const int32_t v = next_value();
  {
    TRACE_SCOPE("inner", COLOR_BLUE);
    uint32_t acc = 0;
    for (uint32_t j = 0; j < 50u + (i % 7u) * 20u; ++j) acc += j * j;
    g_sink = acc;
  }
  TRACE_COUNTER("value", v);
  (void)v;
}

static void mcu_demo_drain_links(void) {
  while (g_link_tail != g_link_head) {
    const uint16_t link = g_links[g_link_tail % LINK_QUEUE];
    g_link_tail++;
    TRACE_FLOW_IN(link, "tick handled");
    (void)link;
  }
}

static void mcu_demo_main_loop(void) {
  for (uint32_t i = 0; i < ITERATIONS; ++i) {
    TRACE_SCOPE("main_loop");
    compute(i);
    mcu_demo_drain_links();
    if (i % 16u == 0) {
      TRACE_INSTANT("checkpoint", COLOR_GREEN);
    }
    if ((i + 1u) % FLUSH_EVERY == 0) {
      (void)mabutrace_flush_output();
    }
  }
}

#endif /* MABUTRACE_EXAMPLES_MCU_DEMO_H */
