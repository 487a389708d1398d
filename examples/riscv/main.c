// SPDX-License-Identifier: MIT
/*
 * main.c: bare-metal RISC-V demo firmware for QEMU's riscv32 `virt`
 * machine, in C (TRACE_SCOPE ends through __attribute__((cleanup))).
 *
 * A main loop and two machine-mode interrupts:
 *   machine timer (CLINT mtimecmp, every MTIMER_PERIOD mtime ticks):
 *     scope "mtimer", counter "isr_ticks" = 1, 2, 3, ..., BURST instants
 *     "burst", and a flow out "tick" whose link id it queues for the main
 *     loop (flow ISR -> main). Half-way through the burst it raises the
 *     machine software interrupt (CLINT msip) and sets mstatus.MIE again,
 *     so that interrupt nests inside it while it records;
 *   machine software interrupt: counter "soft_ticks" = 1, 2, 3, ..., and an
 *     instant "preempted mtimer" when it interrupted the timer handler
 *     (always, here: nested writers of the ISR context);
 *   main loop, ITERATIONS times: scope "main_loop" > "compute" > "inner"
 *     (three levels), counter "value" = the next number of the LCG below,
 *     a flow in "tick handled" per queued link, an instant "checkpoint"
 *     every 16th iteration, and a flush of the binary stream to the UART
 *     every FLUSH_EVERY iterations.
 * At the end the interrupts stop, the last links are taken, the stream is
 * flushed and the run ends through the SiFive test device (status 0).
 *
 * The clock: mcycle (the port's default) in the rv32imac build, the
 * CLINT's mtime with -DFW_CLOCK_MTIME (the rv32imc build), so both paths
 * of the port are run. tests/port/qemu/check_qemu_trace.py (--board virt)
 * recomputes the counter values and checks the converted trace. Every line
 * that mentions tracing (TRACE_, TRC(, mabutrace, MABUTRACE) stands alone,
 * so tests/port/size can delete those lines to get the same firmware
 * "without any trace calls".
 */
#include <stdint.h>

#include "board.h"
#include "mabutrace/mabutrace.h"
#include "mabutrace_riscv.h"
#include "mcu_demo.h" /* the main loop and link queue every board shares */

#define MTIMER_PERIOD 200u /* mtime ticks (10 MHz): 20 us */

static volatile uint32_t g_ticks;
static volatile uint32_t g_soft_ticks;
static volatile uint32_t g_in_timer;
static uint64_t g_next_deadline;

static uint8_t g_trace_memory[128 * 1024] __attribute__((aligned(64))); /* mabutrace storage */

__attribute__((unused)) static void uart_output(const uint8_t* data, size_t len) { uart_write(data, len); }

static void timer_isr(void) {
  g_next_deadline += MTIMER_PERIOD; /* a fixed period, not "now + period" */
  mtimecmp_set(g_next_deadline);
  mabutrace_riscv_clock_poll();
  TRACE_SCOPE("mtimer", COLOR_RED);
  const uint32_t t = g_ticks + 1u;
  g_ticks = t;
  TRACE_COUNTER("isr_ticks", t);
  for (uint32_t k = 0; k < BURST; ++k) {
    if (k == BURST / 2u) {
      /* Let the software interrupt in: it preempts this handler here. */
      g_in_timer = 1u;
      CLINT_MSIP = 1u;
      irq_enable();
    }
    TRACE_INSTANT("burst");
  }
  irq_disable();
  g_in_timer = 0u;
  uint16_t link = 0;
  TRACE_FLOW_OUT(&link, "tick");
  mcu_demo_queue_link(link);
}

static void soft_isr(void) {
  CLINT_MSIP = 0u;
  const uint32_t t = g_soft_ticks + 1u;
  g_soft_ticks = t;
  TRACE_COUNTER("soft_ticks", t);
  const uint32_t nested = g_in_timer;
  if (nested) {
    TRACE_INSTANT("preempted mtimer");
  }
  (void)nested;
}

/* Called by startup.S trap_entry with mstatus.MIE clear; mepc and mstatus
 * are saved, so handlers may enable MIE to nest (timer_isr does). */
void trap_handler(uint32_t mcause) {
  mabutrace_riscv_trap_enter();
  if (mcause == MCAUSE_MTI) {
    timer_isr();
  } else if (mcause == MCAUSE_MSI) {
    soft_isr();
  } else {
    board_exit(2); /* an exception: fail the run */
  }
  mabutrace_riscv_trap_exit();
}

int main(void) {
  uart_init();
#if defined(FW_CLOCK_MTIME)
  mabutrace_riscv_use_mtime(&CLINT_MTIME_LO, MTIME_HZ);
#else
  mabutrace_riscv_set_cycle_hz(1000000000u); /* mcycle under -icount shift=0: virtual ns */
#endif
  mabutrace_config_t cfg;          /* mabutrace */
  mabutrace_config_default(&cfg);  /* mabutrace */
  cfg.buffer_size = 64 * 1024;     /* mabutrace */
  cfg.max_threads = 2;             /* mabutrace */
  cfg.max_depth = 8;               /* mabutrace */
  cfg.memory = g_trace_memory;     /* mabutrace */
  cfg.process_name = "riscv demo"; /* mabutrace */
  (void)cfg;                       /* mabutrace (unused with MABUTRACE_DISABLE) */
  if (mabutrace_memory_required(&cfg) > sizeof g_trace_memory) return 1;
  if (mabutrace_init_with_config(&cfg) != MABUTRACE_OK) return 1;
  if (mabutrace_set_output_callback(uart_output) != MABUTRACE_OK) return 1;

  g_next_deadline = mtime_read() + MTIMER_PERIOD;
  mtimecmp_set(g_next_deadline);
  mie_set(MIE_MTIE | MIE_MSIE);
  irq_enable();

  mcu_demo_main_loop();

  irq_disable();
  mie_clear(MIE_MTIE | MIE_MSIE);
  mcu_demo_drain_links();
  if (mabutrace_flush_output() != MABUTRACE_OK) return 1;
  return 0;
}
