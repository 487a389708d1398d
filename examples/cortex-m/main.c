// SPDX-License-Identifier: MIT
/*
 * main.c: bare-metal Cortex-M demo firmware (R-D3), in C to exercise the C
 * API (TRACE_SCOPE ends through __attribute__((cleanup))).
 *
 * A main loop and a SysTick interrupt:
 *   SysTick (every SYSTICK_PERIOD processor clocks): scope "SysTick",
 *     counter "isr_ticks" = 1, 2, 3, ..., BURST instants "burst", and a
 *     flow out "tick" whose link id it queues for the main loop (flow
 *     ISR -> main);
 *   main loop, ITERATIONS times: scope "main_loop" > "compute" > "inner"
 *     (three levels), counter "value" = the next number of the LCG below
 *     (negative values included: int32 exact), a flow in "tick handled" per
 *     queued link, an instant "checkpoint" every 16th iteration, and a
 *     flush of the binary stream to UART0 every FLUSH_EVERY iterations;
 *   timer 0 (every TIMER_PERIOD clocks, a higher priority than SysTick, so
 *     it also interrupts the SysTick handler while that one records: nested
 *     writers of the ISR context): counter "timer_ticks" = 1, 2, 3, ..., and
 *     an instant "preempted SysTick" when it did.
 * At the end SysTick stops, the last links are taken, the trace memory is
 * sent out on UART1 as a debugger's RAM dump would have it, the stream is
 * flushed and the run ends through semihosting (status 0).
 *
 * tests/port/qemu/check_qemu_trace.py recomputes the counter values and
 * checks the converted trace. Every line that mentions tracing (TRACE_,
 * TRC(, mabutrace, MABUTRACE) stands alone, so tests/port/size can delete
 * those lines to get the same firmware "without any trace calls".
 */
#include <stdint.h>

#include "firmware.h"
#include "mabutrace/mabutrace.h"
#include "mabutrace_cortex_m.h"
#include "mcu_demo.h" /* the main loop and link queue every board shares */

#define SYSTICK_PERIOD 500u /* processor clocks between SysTick interrupts */
#define TIMER_PERIOD 37u    /* peripheral clocks; prime, so it drifts over SysTick */

static volatile uint32_t g_ticks;
static volatile uint32_t g_timer_ticks;

static uint8_t g_trace_memory[128 * 1024] __attribute__((aligned(64))); /* mabutrace storage */

__attribute__((unused)) static void uart_output(const uint8_t* data, size_t len) { uart0_write(data, len); }

void SysTick_Handler(void) {
  mabutrace_cortex_m_clock_poll();
  TRACE_SCOPE("SysTick", COLOR_RED);
  const uint32_t t = g_ticks + 1u;
  g_ticks = t;
  TRACE_COUNTER("isr_ticks", t);
  for (uint32_t k = 0; k < BURST; ++k) {
    TRACE_INSTANT("burst");
  }
  uint16_t link = 0;
  TRACE_FLOW_OUT(&link, "tick");
  mcu_demo_queue_link(link);
}

void Timer0_Handler(void) {
  TIMER0_INTCLEAR = 1u;
  const uint32_t t = g_timer_ticks + 1u;
  g_timer_ticks = t;
  TRACE_COUNTER("timer_ticks", t);
  const uint32_t nested = SCB_SHCSR & SHCSR_SYSTICKACT;
  if (nested) {
    TRACE_INSTANT("preempted SysTick");
  }
  (void)nested;
}

/* Sends the trace memory out on UART1 as a debugger would dump it (R-C3):
 * the check converts it with --elf and compares it with the stream. */
static void dump_trace_memory(void) {
#if FW_TRACED
  uart1_write(mabutrace_dump_region.base, mabutrace_dump_region.bytes); /* mabutrace */
#endif
}

int main(void) {
  uart0_init();
  /* SysTick runs before init (without its interrupt) so that the port takes
   * it as the clock with this period. */
  SYST_RVR = SYSTICK_PERIOD - 1u;
  SYST_CVR = 0;
  SYST_CSR = 5u; /* ENABLE | CLKSOURCE = processor clock */

  mabutrace_cortex_m_set_core_hz(25000000u);
#if defined(__ARM_ARCH_7EM__)
  /* Both clocks get tested: the Cortex-M4 build times with timer 1 (the
   * counter fast path, as DWT_CYCCNT on silicon), the Cortex-M3 build with
   * SysTick. */
  timer1_start_free_running();
  mabutrace_cortex_m_use_counter(&TIMER1_VALUE, 1, 25000000u);
#endif
  mabutrace_config_t cfg;             /* mabutrace */
  mabutrace_config_default(&cfg);     /* mabutrace */
  cfg.buffer_size = 64 * 1024;        /* mabutrace */
  cfg.max_threads = 2;                /* mabutrace */
  cfg.max_depth = 8;                  /* mabutrace */
  cfg.memory = g_trace_memory;        /* mabutrace */
  cfg.process_name = "cortex-m demo"; /* mabutrace */
  (void)cfg;                          /* mabutrace (unused with MABUTRACE_DISABLE) */
  if (mabutrace_memory_required(&cfg) > sizeof g_trace_memory) return 1;
  if (mabutrace_init_with_config(&cfg) != MABUTRACE_OK) return 1;
  if (mabutrace_set_output_callback(uart_output) != MABUTRACE_OK) return 1;

  SCB_SHPR3 = (SCB_SHPR3 & 0x00FFFFFFu) | (0xC0u << 24); /* SysTick: low priority */
  NVIC_IPR_BYTE(TIMER0_IRQ) = 0x40u;                     /* timer 0: higher */
  TIMER0_RELOAD = TIMER_PERIOD - 1u;
  TIMER0_VALUE = TIMER_PERIOD - 1u;
  TIMER0_CTRL = 9u; /* enable | interrupt enable */
  NVIC_ISER0 = 1u << TIMER0_IRQ;
  SYST_CSR = 7u; /* and TICKINT: the interrupt starts now */

  mcu_demo_main_loop();

  SYST_CSR = 5u;   /* no more interrupts */
  TIMER0_CTRL = 0; /* (SysTick keeps counting: it is the clock) */
  mcu_demo_drain_links();
  dump_trace_memory(); /* before the last flush: its newest records are not synced yet */
  if (mabutrace_flush_output() != MABUTRACE_OK) return 1;
  return 0;
}
