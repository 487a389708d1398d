// SPDX-License-Identifier: MIT
/*
 * portmacro.h of the FAKE ESP-IDF: the Xtensa port's porting interface as
 * ESP-IDF v5 declares it (components/freertos/FreeRTOS-Kernel/portable/
 * xtensa/include/freertos/portmacro.h; the API is described in the ESP-IDF
 * "FreeRTOS (IDF)" guide, sections "Critical Sections" and "Interrupts").
 * Same names, types and macro spellings; implemented on the host by
 * fake_freertos.cpp:
 *   - a core is a recursive lock: "masking interrupts on core N"
 *     (portSET_INTERRUPT_MASK_FROM_ISR, portENTER_CRITICAL) takes core N's
 *     lock, so code of one simulated core is serialized where a real core
 *     would be, and code on different cores runs in parallel;
 *   - portMUX_TYPE is a real spinlock taken after the core lock;
 *   - xPortGetCoreID() / xPortInIsrContext() return per-thread values the
 *     test sets (fake_freertos.h).
 * The real xPortGetCoreID() and the mask functions are static inline; here
 * they are out of line (they read the fake's thread state), with the same
 * signatures.
 */
#ifndef FAKE_PORTMACRO_H
#define FAKE_PORTMACRO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "sdkconfig.h"
#include "spinlock.h"

#ifdef __cplusplus
extern "C" {
#endif

#define portCHAR int8_t
#define portSTACK_TYPE uint8_t
#define portBASE_TYPE int

typedef portSTACK_TYPE StackType_t;
typedef portBASE_TYPE BaseType_t;
typedef unsigned portBASE_TYPE UBaseType_t;
typedef uint32_t TickType_t;
#define portMAX_DELAY (TickType_t)0xffffffffUL
#define portTICK_PERIOD_MS ((TickType_t)1000 / configTICK_RATE_HZ)

/* ---- Interrupts ---- */
/* pdTRUE in an ISR of the calling core (the fake: fake::IsrScope). */
BaseType_t xPortInIsrContext(void);
/* Raises the calling core's interrupt level ("masks" it); returns the
 * previous level for vPortClearInterruptMaskFromISR. Nests. */
UBaseType_t xPortSetInterruptMaskFromISR(void);
void vPortClearInterruptMaskFromISR(UBaseType_t prev_level);
#define portSET_INTERRUPT_MASK_FROM_ISR() xPortSetInterruptMaskFromISR()
#define portCLEAR_INTERRUPT_MASK_FROM_ISR(prev_level) vPortClearInterruptMaskFromISR(prev_level)

/* ---- Spinlocks and critical sections ---- */
typedef spinlock_t portMUX_TYPE;
#define portMUX_INITIALIZER_UNLOCKED SPINLOCK_INITIALIZER
#define portMUX_FREE_VAL SPINLOCK_FREE
#define portMUX_NO_TIMEOUT SPINLOCK_WAIT_FOREVER
#define portMUX_TRY_LOCK SPINLOCK_NO_WAIT

/* Masks the calling core, then takes the spinlock (nests on one core). */
BaseType_t xPortEnterCriticalTimeout(portMUX_TYPE* mux, BaseType_t timeout);
void vPortExitCritical(portMUX_TYPE* mux);
/* The compliance versions abort when called from an ISR. */
BaseType_t xPortEnterCriticalTimeoutCompliance(portMUX_TYPE* mux, BaseType_t timeout);
void vPortExitCriticalCompliance(portMUX_TYPE* mux);

static inline void vPortEnterCritical(portMUX_TYPE* mux) {
  xPortEnterCriticalTimeout(mux, portMUX_NO_TIMEOUT);
}
static inline void vPortEnterCriticalCompliance(portMUX_TYPE* mux) {
  xPortEnterCriticalTimeoutCompliance(mux, portMUX_NO_TIMEOUT);
}
#ifdef CONFIG_FREERTOS_CHECK_PORT_CRITICAL_COMPLIANCE
#define portENTER_CRITICAL(mux) vPortEnterCriticalCompliance(mux)
#define portEXIT_CRITICAL(mux) vPortExitCriticalCompliance(mux)
#else
#define portENTER_CRITICAL(mux) vPortEnterCritical(mux)
#define portEXIT_CRITICAL(mux) vPortExitCritical(mux)
#endif
#define portENTER_CRITICAL_ISR(mux) vPortEnterCritical(mux)
#define portEXIT_CRITICAL_ISR(mux) vPortExitCritical(mux)
#define portENTER_CRITICAL_SAFE(mux) vPortEnterCriticalSafe(mux)
#define portEXIT_CRITICAL_SAFE(mux) vPortExitCriticalSafe(mux)

/* The _SAFE forms pick the ISR or the task form (as ESP-IDF's). */
static inline void vPortEnterCriticalSafe(portMUX_TYPE* mux) {
  if (xPortInIsrContext()) {
    portENTER_CRITICAL_ISR(mux);
  } else {
    portENTER_CRITICAL(mux);
  }
}
static inline void vPortExitCriticalSafe(portMUX_TYPE* mux) {
  if (xPortInIsrContext()) {
    portEXIT_CRITICAL_ISR(mux);
  } else {
    portEXIT_CRITICAL(mux);
  }
}

/* ---- System ---- */
/* The calling core (the fake: the thread's simulated core). */
BaseType_t xPortGetCoreID(void);

#ifdef __cplusplus
}
#endif

#endif /* FAKE_PORTMACRO_H */
