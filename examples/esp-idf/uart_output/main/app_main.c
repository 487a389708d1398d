// SPDX-License-Identifier: MIT
/*
 * ESP-IDF example (seed 000 §3.4): stream the trace over UART2 with
 * mabutrace_set_output_callback(). The same firmware shape runs under QEMU
 * on a Cortex-M (examples/cortex-m/main.c, tested by ctest -L qemu).
 * Not built here (no Espressif toolchain): docs/ports.md §5.
 *
 * The stream is pushed by mabutrace_flush_output() from a task (never an
 * ISR); the callback may block on the UART driver.
 */
#include "driver/uart.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"
#include "mabutrace.h"

#define TRACE_UART UART_NUM_2

static void uart_output_callback(const uint8_t* data, size_t len) {
  uart_write_bytes(TRACE_UART, (const char*)data, len);
}

static void work_task(void* arg) {
  (void)arg;
  for (int i = 0;; ++i) {
    TRACE_SCOPE("work");
    TRACE_COUNTER("iteration", i);
    vTaskDelay(pdMS_TO_TICKS(10));
  }
}

static void flush_task(void* arg) {
  (void)arg;
  for (;;) {
    vTaskDelay(pdMS_TO_TICKS(200));
    mabutrace_flush_output(); /* what was recorded since the last flush */
  }
}

void app_main(void) {
  const uart_config_t uart_config = {
      .baud_rate = 2000000,
      .data_bits = UART_DATA_8_BITS,
      .parity = UART_PARITY_DISABLE,
      .stop_bits = UART_STOP_BITS_1,
      .flow_ctrl = UART_HW_FLOWCTRL_DISABLE,
  };
  uart_param_config(TRACE_UART, &uart_config);
  uart_driver_install(TRACE_UART, 2048, 0, 0, NULL, 0);

  mabutrace_init();
  mabutrace_set_output_callback(uart_output_callback);
  xTaskCreate(work_task, "work", 4096, NULL, 5, NULL);
  xTaskCreate(flush_task, "trace flush", 4096, NULL, 3, NULL);
}
