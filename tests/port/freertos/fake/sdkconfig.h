// SPDX-License-Identifier: MIT
/*
 * sdkconfig.h of the FAKE ESP-IDF (tests/port/freertos): the values an
 * ESP-IDF v5 project's `idf.py menuconfig` would generate for a dual-core
 * ESP32 with the mabutrace component (Kconfig at the repository root).
 * sdkconfig.h defines a bool option as 1 when it is y and leaves it
 * undefined when it is n (ESP-IDF Build System guide, "Configuration
 * system"), which this file imitates.
 *
 * Three builds share it:
 *   default               2 thread-local storage pointers, deletion
 *                         callbacks on: the adapter keeps each task's
 *                         context in TLS pointer 1 (what docs/ports.md §5
 *                         asks for);
 *   FAKE_SDKCONFIG_NO_TLS 1 pointer, ESP-IDF's default: the adapter finds
 *                         a task's context by task handle;
 *   FAKE_SDKCONFIG_ESP32C3 a single-core ESP32-C3 (rv32imc compile test,
 *                         tests/port/freertos/riscv).
 */
#ifndef FAKE_SDKCONFIG_H
#define FAKE_SDKCONFIG_H

#if defined(FAKE_SDKCONFIG_ESP32C3)
/* The rv32imc compile test (tests/port/freertos/riscv): a single-core
 * ESP32-C3 with the cycle-counter clock. */
#define CONFIG_IDF_TARGET "esp32c3"
#define CONFIG_IDF_TARGET_ESP32C3 1
#define CONFIG_IDF_TARGET_ARCH_RISCV 1
#define CONFIG_FREERTOS_UNICORE 1
#define CONFIG_MABUTRACE_CLOCK_CPU_CYCLES 1
#else
#define CONFIG_IDF_TARGET "esp32"
#define CONFIG_IDF_TARGET_ESP32 1
#endif
#define CONFIG_FREERTOS_HZ 1000
#define CONFIG_FREERTOS_MAX_TASK_NAME_LEN 16
/* portENTER_CRITICAL() from an ISR aborts (as the IDF compliance check). */
#define CONFIG_FREERTOS_CHECK_PORT_CRITICAL_COMPLIANCE 1
#define CONFIG_FREERTOS_TLSP_DELETION_CALLBACKS 1
#if defined(FAKE_SDKCONFIG_NO_TLS)
#define CONFIG_FREERTOS_THREAD_LOCAL_STORAGE_POINTERS 1
#else
#define CONFIG_FREERTOS_THREAD_LOCAL_STORAGE_POINTERS 2
#endif
/* CONFIG_FREERTOS_UNICORE is n: two cores. */

#define CONFIG_HTTPD_MAX_REQ_HDR_LEN 512
#define CONFIG_HTTPD_MAX_URI_LEN 512

/* The mabutrace component (Kconfig). MAX_TASKS is small so that the tests
 * can run out of task contexts. */
#define CONFIG_MABUTRACE_BUFFER_SIZE 65536
#define CONFIG_MABUTRACE_HTTP_PORT 80
#define CONFIG_MABUTRACE_TASK_NAME_AUTO 1
#define CONFIG_MABUTRACE_MAX_TASKS 6
#define CONFIG_MABUTRACE_TLS_INDEX 1

#endif /* FAKE_SDKCONFIG_H */
