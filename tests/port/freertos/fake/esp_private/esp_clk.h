// SPDX-License-Identifier: MIT
/*
 * esp_private/esp_clk.h of the FAKE ESP-IDF: esp_clk_cpu_freq() as
 * declared by ESP-IDF v5 (components/esp_hw_support/include/esp_private/
 * esp_clk.h): the CPU clock in Hz. Declared only (see esp_cpu.h here).
 */
#ifndef FAKE_ESP_CLK_H
#define FAKE_ESP_CLK_H

#ifdef __cplusplus
extern "C" {
#endif

int esp_clk_cpu_freq(void);

#ifdef __cplusplus
}
#endif

#endif /* FAKE_ESP_CLK_H */
