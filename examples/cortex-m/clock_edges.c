// SPDX-License-Identifier: MIT
/*
 * clock_edges.c: timestamps across long quiet gaps and counter wraps, for
 * tests/port/qemu/check_clock_edges.py. One case per build (CLOCK_CASE):
 *
 *   1  a config clock (1 GHz, set by hand): an instant in Thread mode and one
 *      from PendSV, then a gap of 2^32 + 5000 ticks, then the same again;
 *   2  CMSDK timer 1 as the counter clock, never polled: an instant, then
 *      2^29 counts skipped (the timer written), ten times, so the 32-bit
 *      counter wraps on the way (every record takes the 64-bit check);
 *   3  the same with mabutrace_cortex_m_clock_poll() after every skip (the
 *      fast path, 32-bit deltas kept exact by the polls).
 *
 * Each instant is named for the time it must have; the check compares.
 */
#include <stdint.h>

#include "firmware.h"
#include "mabutrace/mabutrace.h"
#include "mabutrace_cortex_m.h"

static uint8_t g_memory[48 * 1024] __attribute__((aligned(64)));
static void out(const uint8_t* data, size_t len) { uart0_write(data, len); }

static const char* volatile g_isr_name;
void PendSV_Handler(void) { TRACE_INSTANT(g_isr_name); }
static void instant_in_isr(const char* name) {
  g_isr_name = name;
  pendsv_now();
}

#if CLOCK_CASE == 1
static volatile uint64_t g_fake_ns = 1000;
static uint64_t fake_clock(void) { return g_fake_ns; }
#else
static const char* const kNames[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"};
#endif

int main(void) {
  uart0_init();
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 16 * 1024;
  cfg.max_threads = 2;
  cfg.max_depth = 8;
  cfg.memory = g_memory;
#if CLOCK_CASE == 1
  cfg.clock = fake_clock;
  cfg.clock_hz = 1000000000u;
#else
  timer1_start_free_running();
  mabutrace_cortex_m_use_counter(&TIMER1_VALUE, 1, 25000000u);
#endif
  if (mabutrace_memory_required(&cfg) > sizeof g_memory) return 1;
  if (mabutrace_init_with_config(&cfg) != MABUTRACE_OK) return 1;
  if (mabutrace_set_output_callback(out) != MABUTRACE_OK) return 1;

#if CLOCK_CASE == 1
  g_fake_ns = 2000;
  TRACE_INSTANT("main_t0");
  instant_in_isr("isr_t0");
  mabutrace_cortex_m_clock_poll();   /* polls change nothing for a config clock */
  g_fake_ns += (1ull << 32) + 5000u; /* 4.294972296 s of quiet */
  TRACE_INSTANT("main_t1");
  instant_in_isr("isr_t1");
#else
  for (int k = 0; k < 10; ++k) {
    TRACE_INSTANT(kNames[k]);
    if (k == 5) instant_in_isr("isr_k5");
    TIMER1_VALUE = TIMER1_VALUE - (1u << 29); /* 2^29 counts (21.47 s) pass */
#if CLOCK_CASE == 3
    mabutrace_cortex_m_clock_poll();
#endif
  }
#endif
  return mabutrace_flush_output() == MABUTRACE_OK ? 0 : 1;
}
