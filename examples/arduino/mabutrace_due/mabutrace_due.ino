// SPDX-License-Identifier: MIT
// Arduino Due sketch (SAM3X8E, Cortex-M3, the bare-metal Cortex-M port):
// trace loop() and stream the trace over Serial (the programming port).
// Serial carries only the binary trace stream (no text), so capture it on
// the host with
//   mabutrace capture --serial /dev/ttyACM0 --baud 115200 -o due.json
// (or -o due.bin, then `mabutrace convert due.bin -o due.json`) and open
// due.json at https://ui.perfetto.dev. The stream must be read from its
// start (its header): start the capture, then press the Due's RESET.
// Built (with a stub Arduino core) and run under QEMU by tests/port/arduino;
// docs/ports.md §5.
#include <mabutrace.h>
#include <mabutrace_cortex_m.h>

// No heap on the bare-metal port: the trace lives in this array, half of
// the Due's 96 KiB of SRAM. mabutrace_memory_required() for the settings in
// setup() is about 41 KiB: 16 KiB of events, the rest bookkeeping and the
// export workspace (setup() checks it).
static uint8_t trace_memory[48 * 1024] __attribute__((aligned(64)));
static uint32_t iteration = 0;

// The output callback: the stream goes out on Serial (blocks while
// Serial's transmit buffer is full). Called from mabutrace_flush_output().
static void serial_out(const uint8_t* data, size_t len) { Serial.write(data, len); }

// The Due core calls sysTickHook() from its 1 ms SysTick interrupt. The
// port times with DWT_CYCCNT on the Due (SysTick where there is none, as
// under QEMU), and its clock must be read at least once per SysTick period
// (or 2^32 cycles): this keeps it exact however long loop() sleeps.
// Returning 0 lets the core's own SysTick handling (millis()) go on.
extern "C" int sysTickHook(void) {
  mabutrace_cortex_m_clock_poll();
  return 0;
}

void setup() {
  Serial.begin(115200);
  mabutrace_cortex_m_set_core_hz(SystemCoreClock);  // 84 MHz: ticks -> time
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 16 * 1024;
  cfg.max_threads = 2;  // tracks "main" (loop) and "ISR" (interrupts)
  cfg.max_depth = 8;
  cfg.memory = trace_memory;
  cfg.process_name = "Arduino Due";
  if (mabutrace_memory_required(&cfg) > sizeof trace_memory ||
      mabutrace_init_with_config(&cfg) != MABUTRACE_OK) {
    pinMode(LED_BUILTIN, OUTPUT);
    digitalWrite(LED_BUILTIN, HIGH);  // LED on: tracing is off
    return;
  }
  mabutrace_set_output_callback(serial_out);
}

void loop() {
  TRC();  // a scope named "loop" per iteration
  int value;
  {
    TRACE_SCOPE("read sensor", COLOR_GREEN);
    value = analogRead(A0);
  }
  TRACE_COUNTER("A0", value);
  if (++iteration % 50 == 0) TRACE_INSTANT("50 loops", COLOR_ORANGE);
  mabutrace_flush_output();  // what was recorded so far goes out on Serial
  delay(20);
}
