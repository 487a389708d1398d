// SPDX-License-Identifier: MIT
// due_stub.cpp: the stub Arduino Due core of Arduino.h, and main() as the
// Due core's cores/arduino/main.cpp has it (init, setup(), loop() ...),
// except that loop() runs MABUTRACE_TEST_LOOPS times and main() then checks
// what the library recorded. Runs on QEMU's mps2-an385 with
// examples/cortex-m/startup.c (vectors, semihosting exit: main() returning
// 0 = QEMU exit status 0). Messages go to the semihosting console; UART0
// carries only what the sketch writes to Serial (the binary trace stream).
#include <Arduino.h>
#include <mabutrace.h>
#include <mabutrace_cortex_m.h>

extern "C" {
#include "firmware.h"  // examples/cortex-m: UART0, SysTick registers, semihost_exit
}

#ifndef MABUTRACE_TEST_LOOPS
#define MABUTRACE_TEST_LOOPS 100
#endif

extern "C" {
uint32_t SystemCoreClock = 25000000u;  // MPS2 boards' processor clock

// ArduinoCore-sam hooks.c: weak hooks the sketch may replace.
static int no_hook(void) { return 0; }
int sysTickHook(void) __attribute__((weak, alias("no_hook")));
static void empty_yield(void) {}
void yield(void) __attribute__((weak, alias("empty_yield")));
}

static volatile uint32_t g_ms;

// ArduinoCore-sam cortex_handlers.c: the hook first, then the millisecond
// count. Like the Due core it never reads SYST_CSR (that would clear the
// COUNTFLAG the port's SysTick clock relies on).
extern "C" void SysTick_Handler(void) {
  if (sysTickHook()) return;
  g_ms = g_ms + 1u;
}

uint32_t millis(void) { return g_ms; }
void delay(uint32_t ms) {
  const uint32_t start = millis();
  while (millis() - start < ms) yield();
}

void pinMode(uint32_t, uint32_t) {}
void digitalWrite(uint32_t, uint32_t) {}

// A known 12-bit sequence, recomputed by arduino_build.py.
static uint32_t g_analog_reads;
uint32_t analogRead(uint32_t) {
  const uint32_t k = g_analog_reads++;
  return (k * 37u + 11u) % 4096u;
}

UARTClass Serial;
void UARTClass::begin(const uint32_t) { uart0_init(); }
size_t UARTClass::write(const uint8_t c) {
  uart0_write(&c, 1);
  return 1;
}
size_t UARTClass::write(const uint8_t* buffer, size_t size) {
  uart0_write(buffer, size);
  return size;
}

// Semihosting SYS_WRITE0 (operation 0x04): a NUL-terminated string to the
// debugger's console (QEMU: its standard output).
static void semihost_write(const char* s) {
  register uint32_t r0 __asm__("r0") = 0x04;
  register const char* r1 __asm__("r1") = s;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

static void write_u64(const char* label, uint64_t v) {
  char buf[48];
  char digits[21];
  int n = 0;
  do {
    digits[n++] = char('0' + v % 10u);
    v /= 10u;
  } while (v != 0);
  size_t i = 0;
  while (*label && i < sizeof buf - 24) buf[i++] = *label++;
  while (n > 0) buf[i++] = digits[--n];
  buf[i++] = '\n';
  buf[i] = '\0';
  semihost_write(buf);
}

static int fail(const char* what) {
  semihost_write("FAIL: ");
  semihost_write(what);
  semihost_write("\n");
  return 1;
}

int main(void) {
  // init(): the Due core runs SysTick at 1 kHz with its interrupt before
  // setup(), so the port finds SysTick running and keeps its period.
  SYST_RVR = SystemCoreClock / 1000u - 1u;
  SYST_CVR = 0;
  SYST_CSR = 7u;  // ENABLE | TICKINT | CLKSOURCE = processor clock
  setup();
  for (uint32_t i = 0; i < MABUTRACE_TEST_LOOPS; ++i) loop();

  if (!mabutrace_is_initialized()) return fail("setup() did not initialize mabutrace (memory too small?)");
  if (mabutrace_flush_output() != MABUTRACE_OK) return fail("mabutrace_flush_output() after the loops");
  mabutrace_stats_t st;
  if (mabutrace_get_stats(&st) != MABUTRACE_OK) return fail("mabutrace_get_stats()");
  write_u64("events_written ", st.events_written);
  write_u64("events_overwritten ", st.events_overwritten);
  write_u64("events_dropped ", st.events_dropped);
  write_u64("clock_source ", uint64_t(mabutrace_cortex_m_clock_source()));
  write_u64("millis ", millis());
  if (st.events_written == 0) return fail("no events recorded");
  if (st.events_dropped != 0 || st.events_overwritten != 0) return fail("events dropped or overwritten");
  // Under QEMU (no DWT_CYCCNT) the port times with the core's SysTick.
  if (mabutrace_cortex_m_clock_source() != MABUTRACE_CORTEX_M_CLOCK_SYSTICK) return fail("clock source is not SysTick");
  semihost_write("due_stub: ok\n");
  return 0;
}
