// SPDX-License-Identifier: MIT
/*
 * FreeRTOS.h of the FAKE ESP-IDF (tests/port/freertos): what ESP-IDF v5's
 * freertos/FreeRTOS.h gives the mabutrace adapter -- the configuration
 * (FreeRTOSConfig.h from sdkconfig.h), the port types and macros
 * (portmacro.h), projdefs (pdTRUE, pdMS_TO_TICKS) and the default empty
 * trace hooks. Names and signatures from the FreeRTOS kernel reference
 * (freertos.org "API Reference") and the ESP-IDF "FreeRTOS (IDF)" API
 * guide; no kernel code. A host implementation: fake_freertos.cpp.
 */
#ifndef FAKE_FREERTOS_H
#define FAKE_FREERTOS_H

#include <stddef.h>
#include <stdint.h>

#include "sdkconfig.h"
#include "freertos/FreeRTOSConfig.h"
#include "freertos/portmacro.h"

/* projdefs.h */
typedef void (*TaskFunction_t)(void*);
#define pdFALSE ((BaseType_t)0)
#define pdTRUE ((BaseType_t)1)
#define pdPASS (pdTRUE)
#define pdFAIL (pdFALSE)
#define pdMS_TO_TICKS(xTimeInMs) \
  ((TickType_t)(((TickType_t)(xTimeInMs) * (TickType_t)configTICK_RATE_HZ) / (TickType_t)1000U))

/* Trace hooks the kernel calls; empty unless defined before this header
 * (FreeRTOSConfig.h or a forced include, like mabutrace_freertos_hooks.h). */
#ifndef traceTASK_SWITCHED_IN
#define traceTASK_SWITCHED_IN()
#endif
#ifndef traceTASK_SWITCHED_OUT
#define traceTASK_SWITCHED_OUT()
#endif
#ifndef traceTASK_DELETE
#define traceTASK_DELETE(pxTaskToDelete)
#endif

#endif /* FAKE_FREERTOS_H */
