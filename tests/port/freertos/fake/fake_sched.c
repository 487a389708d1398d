// SPDX-License-Identifier: MIT
/*
 * fake_sched.c: the fake kernel's context switch, in C like FreeRTOS's
 * tasks.c, and compiled the way docs/ports.md §5 tells an ESP-IDF project
 * to build every translation unit: with mabutrace_freertos_hooks.h
 * force-included (-include), so that traceTASK_SWITCHED_OUT/IN below are
 * mabutrace's hooks and not FreeRTOS.h's empty defaults.
 */
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"

#if !defined(MABUTRACE_FREERTOS_HOOKS_H)
#error "build this file with -include mabutrace_freertos_hooks.h"
#endif

void fake_kernel_set_current(TaskHandle_t next); /* fake_freertos.cpp */

/* vTaskSwitchContext() without the choice of task: the caller names it. */
void fake_vTaskSwitchContext(TaskHandle_t next) {
  traceTASK_SWITCHED_OUT();
  fake_kernel_set_current(next);
  traceTASK_SWITCHED_IN();
}

/* vTaskDelete()'s trace hook, with the task to delete (FreeRTOS calls it in
 * the kernel's critical section, before the TCB is freed). */
void fake_trace_task_delete(TaskHandle_t task) {
  (void)task;
  traceTASK_DELETE(task);
}
