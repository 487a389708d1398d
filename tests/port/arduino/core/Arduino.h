// SPDX-License-Identifier: MIT
// Arduino.h: a stub of the Arduino Due core (ArduinoCore-sam) for
// tests/port/arduino, just what examples/arduino/mabutrace_due uses, with
// the same names and types. It runs on QEMU's mps2-an385 (Cortex-M3):
// Serial writes to the CMSDK UART0, SysTick interrupts every millisecond
// as the Due core's does, analogRead() returns a known sequence.
#ifndef MABUTRACE_TEST_ARDUINO_H
#define MABUTRACE_TEST_ARDUINO_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
extern uint32_t SystemCoreClock;  // CMSIS (Due: 84 MHz; here the MPS2's 25 MHz)
void yield(void);
void setup(void);
void loop(void);
}

#define HIGH 0x1
#define LOW 0x0
#define INPUT 0x0
#define OUTPUT 0x1
#define LED_BUILTIN 13u
static const uint8_t A0 = 54;

void pinMode(uint32_t pin, uint32_t mode);
void digitalWrite(uint32_t pin, uint32_t value);
uint32_t analogRead(uint32_t pin);
uint32_t millis(void);
void delay(uint32_t ms);

class UARTClass {
 public:
  void begin(const uint32_t baud);
  size_t write(const uint8_t c);
  size_t write(const uint8_t* buffer, size_t size);
};
extern UARTClass Serial;

#endif  // MABUTRACE_TEST_ARDUINO_H
