// SPDX-License-Identifier: MIT
/*
 * ESP-IDF example (seed 000 §3.1): trace two tasks and serve the trace.
 * Network bring-up is the project's own (e.g. protocol_examples_common's
 * example_connect()); mabutrace only needs an IP stack for the server.
 * Not built here (no Espressif toolchain): docs/ports.md §5.
 */
#include "freertos/FreeRTOS.h"
#include "freertos/queue.h"
#include "freertos/task.h"
#include "mabutrace.h"

static QueueHandle_t s_queue;

typedef struct {
  int value;
  uint16_t link; /* flow id from TRACE_FLOW_OUT */
} sample_t;

static int read_sensor(void) {
  TRC(); /* scope named "read_sensor" */
  vTaskDelay(pdMS_TO_TICKS(5));
  return (int)(xTaskGetTickCount() % 100);
}

static void sensor_task(void* arg) {
  (void)arg;
  for (;;) {
    TRACE_SCOPE("sensor cycle", COLOR_BLUE);
    sample_t s = {read_sensor(), 0};
    TRACE_COUNTER("sensor value", s.value);
    TRACE_FLOW_OUT(&s.link, "sample");
    xQueueSend(s_queue, &s, portMAX_DELAY);
    vTaskDelay(pdMS_TO_TICKS(100));
  }
}

static void publish_task(void* arg) {
  (void)arg;
  sample_t s;
  for (;;) {
    if (xQueueReceive(s_queue, &s, portMAX_DELAY) != pdTRUE) continue;
    TRACE_SCOPE("publish");
    TRACE_FLOW_IN(s.link, "sample");
    TRACE_COUNTER("queue length", uxQueueMessagesWaiting(s_queue));
    vTaskDelay(pdMS_TO_TICKS(10));
  }
}

void app_main(void) {
  /* 1. First: allocates the buffer (CONFIG_MABUTRACE_BUFFER_SIZE). */
  mabutrace_init();
  /* 2. Bring up Wi-Fi/Ethernet here (project specific), then serve. */
  mabutrace_start_server(CONFIG_MABUTRACE_HTTP_PORT);
  /* 3. The application. */
  s_queue = xQueueCreate(8, sizeof(sample_t));
  xTaskCreate(sensor_task, "sensor", 4096, NULL, 5, NULL);
  xTaskCreate(publish_task, "publish", 4096, NULL, 5, NULL);
}
