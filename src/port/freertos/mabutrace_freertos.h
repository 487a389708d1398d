// SPDX-License-Identifier: MIT
/*
 * mabutrace_freertos.h: FreeRTOS / ESP-IDF port API (C and C++).
 * Not built here (no Espressif toolchain): docs/ports.md §5.
 */
#ifndef MABUTRACE_FREERTOS_H
#define MABUTRACE_FREERTOS_H

#include "mabutrace/mabutrace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called by the scheduler through mabutrace_freertos_hooks.h
 * (traceTASK_SWITCHED_OUT / traceTASK_SWITCHED_IN, R-A11): a slice per task
 * run on the core's "CPU N tasks" track. Not for application code. */
void mabutrace_freertos_task_switched_out(void);
void mabutrace_freertos_task_switched_in(void);
/* traceTASK_DELETE: `task` (its TCB) is about to be freed. Runs in the
 * kernel's critical section: takes no lock, never blocks. */
void mabutrace_freertos_task_deleted(void* task);

#ifdef __cplusplus
}
#endif

#endif /* MABUTRACE_FREERTOS_H */
