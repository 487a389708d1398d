// SPDX-License-Identifier: MIT
/*
 * esp_cpu.h of the FAKE ESP-IDF: esp_cpu_get_cycle_count() as declared by
 * ESP-IDF v5 (components/esp_hw_support/include/esp_cpu.h): the calling
 * CPU's 32-bit cycle counter (Xtensa CCOUNT; RISC-V chips' performance
 * counter or mcycle). Declared only: the rv32imc compile test
 * (riscv/check_riscv_build.py) links against ESP-IDF's symbols as
 * undefined references; the host tests never take the cycle clock.
 */
#ifndef FAKE_ESP_CPU_H
#define FAKE_ESP_CPU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t esp_cpu_cycle_count_t;
esp_cpu_cycle_count_t esp_cpu_get_cycle_count(void);

#ifdef __cplusplus
}
#endif

#endif /* FAKE_ESP_CPU_H */
