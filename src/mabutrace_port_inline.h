// SPDX-License-Identifier: MIT
// mabutrace_port_inline.h under src/: picks the port for builds that put
// no port directory on the include path, i.e. the Arduino IDE (1.5 library
// format: only src/ is on the include path) and PlatformIO.
//
// src/runtime/port.h says #include "mabutrace_port_inline.h". That finds,
// in order: src/runtime/ (has none), then the include path. CMake and
// ESP-IDF builds put the port's directory there (src/port/host,
// src/port/cortex-m, src/port/riscv, src/port/freertos) and not src/, so they get that
// port's header and never this file. A build with only src/ gets this
// file, which chooses by predefined macros and includes the port's header
// by a path relative to this file. (A build with both src/ and a port
// directory gets whichever comes first; this file picks the same port for
// the targets below.)
//
// The conditions match the guards at the top of the port sources, so
// compiling every file under src/ for a board compiles only its port.
#ifndef MABUTRACE_PORT_SELECT_H
#define MABUTRACE_PORT_SELECT_H

#if defined(ESP_PLATFORM) || defined(ARDUINO_ARCH_ESP32)
// ESP-IDF, Arduino-ESP32 (FreeRTOS).
#include "port/freertos/mabutrace_port_inline.h"
#elif (defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)) && !defined(__linux__) && !defined(__ZEPHYR__) && \
    !defined(__MBED__) && !defined(ARDUINO_ARCH_MBED)
// Bare-metal Armv7-M (Cortex-M3/M4/M7), e.g. Arduino Due. Not under an
// RTOS: the port's writer contexts are "Thread mode" and "Handler mode".
#include "port/cortex-m/mabutrace_port_inline.h"
#elif defined(__riscv) && !defined(__linux__) && !defined(__ZEPHYR__)
// Bare-metal RISC-V (RV32IMAC/RV32IMC, machine mode, one hart): writer
// contexts "main loop" and "trap handler".
#include "port/riscv/mabutrace_port_inline.h"
#elif (defined(__linux__) || defined(__APPLE__)) && !defined(ARDUINO)
// Host (Linux, macOS).
#include "port/host/mabutrace_port_inline.h"
#else
#error \
    "mabutrace: no port for this target. Ports: ESP32 (ESP-IDF, Arduino-ESP32), bare-metal Cortex-M3/M4/M7 (e.g. Arduino Due), bare-metal RISC-V, Linux/macOS hosts (docs/ports.md)."
#endif

#endif  // MABUTRACE_PORT_SELECT_H
