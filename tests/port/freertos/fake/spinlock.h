// SPDX-License-Identifier: MIT
/*
 * spinlock.h of the FAKE ESP-IDF (esp_hw_support's spinlock.h in v5):
 * the type behind portMUX_TYPE. Names and values as ESP-IDF's header
 * (SPINLOCK_FREE, SPINLOCK_WAIT_FOREVER, SPINLOCK_NO_WAIT,
 * SPINLOCK_INITIALIZER with designated initializers), documented in the
 * ESP-IDF "FreeRTOS (IDF)" API guide, section "Critical Sections".
 * The fake's lock operations live in fake_freertos.cpp.
 */
#ifndef FAKE_SPINLOCK_H
#define FAKE_SPINLOCK_H

#include <stdint.h>

#define SPINLOCK_FREE 0xB33FFFFF
#define SPINLOCK_WAIT_FOREVER (-1)
#define SPINLOCK_NO_WAIT 0
#define SPINLOCK_INITIALIZER {.owner = SPINLOCK_FREE, .count = 0}

typedef struct {
  volatile uint32_t owner; /* SPINLOCK_FREE, or the owning core's tag */
  volatile uint32_t count; /* nesting on the owning core */
} spinlock_t;

#endif /* FAKE_SPINLOCK_H */
