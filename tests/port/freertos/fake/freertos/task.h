// SPDX-License-Identifier: MIT
/*
 * task.h of the FAKE ESP-IDF: the task API the mabutrace adapter and its
 * tests use, declared as ESP-IDF v5 declares it (FreeRTOS kernel "Task
 * Creation", "Task Control", "Task Utilities" and "Thread Local Storage
 * Pointers" references on freertos.org; the ESP-IDF additions
 * xTaskCreatePinnedToCore() and the TLSP deletion callback from the ESP-IDF
 * "FreeRTOS (IDF)" / "FreeRTOS Additions" guides).
 *
 * Host semantics (fake_freertos.cpp): a task is a pthread with a TCB that
 * holds its name, core, thread-local storage pointers and their deletion
 * callbacks. vTaskDelete() runs the callbacks like ESP-IDF's prvDeleteTLS():
 * at once, in the deleting task, for a task that is not running (here: one
 * blocked in vTaskSuspend(NULL)); for a task deleting itself, later, in the
 * idle task of its core (the test calls fake::RunIdle()).
 */
#ifndef FAKE_TASK_H
#define FAKE_TASK_H

#include "freertos/FreeRTOS.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tskTaskControlBlock; /* defined by the fake kernel */
typedef struct tskTaskControlBlock* TaskHandle_t;

#define tskIDLE_PRIORITY ((UBaseType_t)0U)

/* Ticks since the scheduler started, from an ISR or a task ("Task
 * Utilities"). Declared only: the adapter's RISC-V cycle clock
 * (CONFIG_MABUTRACE_CLOCK_CPU_CYCLES) calls it, and only the rv32imc
 * compile test (tests/port/freertos/riscv) builds that branch. */
TickType_t xTaskGetTickCountFromISR(void);
#define tskNO_AFFINITY ((BaseType_t)0x7FFFFFFF)

/* Creates a task pinned to xCoreID (0, 1 or tskNO_AFFINITY). pdPASS. */
BaseType_t xTaskCreatePinnedToCore(TaskFunction_t pxTaskCode, const char* const pcName, const uint32_t usStackDepth,
                                   void* const pvParameters, UBaseType_t uxPriority, TaskHandle_t* const pxCreatedTask,
                                   const BaseType_t xCoreID);
static inline BaseType_t xTaskCreate(TaskFunction_t pxTaskCode, const char* const pcName, const uint32_t usStackDepth,
                                     void* const pvParameters, UBaseType_t uxPriority,
                                     TaskHandle_t* const pxCreatedTask) {
  return xTaskCreatePinnedToCore(pxTaskCode, pcName, usStackDepth, pvParameters, uxPriority, pxCreatedTask,
                                 tskNO_AFFINITY);
}
/* NULL: the calling task (does not return). */
void vTaskDelete(TaskHandle_t xTaskToDelete);
/* Blocks the calling task for xTicksToDelay ticks. Must not be called from
 * an ISR, with interrupts masked or from the idle task (the fake aborts). */
void vTaskDelay(const TickType_t xTicksToDelay);
/* NULL: suspends the calling task until another task deletes it (the fake
 * supports no vTaskResume). */
void vTaskSuspend(TaskHandle_t xTaskToSuspend);
/* NULL: the calling task's priority (idle tasks: tskIDLE_PRIORITY). */
UBaseType_t uxTaskPriorityGet(const TaskHandle_t xTask);
/* Lets other ready tasks of the same priority run (portYIELD); not from an
 * ISR or a critical section. */
void vPortYield(void);
#define portYIELD() vPortYield()
#define taskYIELD() portYIELD()

TaskHandle_t xTaskGetCurrentTaskHandle(void);
/* NULL: the calling task. The name array is the TCB's own. */
char* pcTaskGetName(TaskHandle_t xTaskToQuery);

void* pvTaskGetThreadLocalStoragePointer(TaskHandle_t xTaskToQuery, BaseType_t xIndex);
void vTaskSetThreadLocalStoragePointer(TaskHandle_t xTaskToSet, BaseType_t xIndex, void* pvValue);
#if configTHREAD_LOCAL_STORAGE_DELETE_CALLBACKS
typedef void (*TlsDeleteCallbackFunction_t)(int, void*);
void vTaskSetThreadLocalStoragePointerAndDelCallback(TaskHandle_t xTaskToSet, BaseType_t xIndex, void* pvValue,
                                                     TlsDeleteCallbackFunction_t pvDelCallback);
#endif

#ifdef __cplusplus
}
#endif

#endif /* FAKE_TASK_H */
