// SPDX-License-Identifier: MIT
// itm_firmware.c: a tiny Cortex-M image for the ITM timeline test: a vector
// table whose SysTick (15) and IRQ0 (16) entries point at named handlers, and
// a function PC samples can land in. Built with arm-none-eabi-gcc, never run.
#include <stdint.h>

void Reset_Handler(void) {
  for (;;) {
  }
}
void SysTick_Handler(void) {}
void UART0_IRQHandler(void) {}
int busy_loop(int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += i * 3;
  return s;
}

__attribute__((section(".isr_vector"), used)) const uintptr_t __isr_vector[17] = {0x20001000u,
                                                                                  (uintptr_t)Reset_Handler,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  0,
                                                                                  (uintptr_t)SysTick_Handler,
                                                                                  (uintptr_t)UART0_IRQHandler};
