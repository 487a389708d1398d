// SPDX-License-Identifier: MIT
/*
 * esp_timer.h of the FAKE ESP-IDF: esp_timer_get_time() as declared by
 * ESP-IDF v5 ("High Resolution Timer (ESP Timer)" API reference): µs since
 * boot, int64_t, callable from tasks and ISRs. The fake: CLOCK_MONOTONIC.
 */
#ifndef FAKE_ESP_TIMER_H
#define FAKE_ESP_TIMER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int64_t esp_timer_get_time(void);

#ifdef __cplusplus
}
#endif

#endif /* FAKE_ESP_TIMER_H */
