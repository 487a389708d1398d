// SPDX-License-Identifier: MIT
/*
 * startup.c: vector table and reset handler for the MPS2 Cortex-M3/M4
 * boards under QEMU, plus semihosting exit. No vendor CMSIS needed.
 *
 * Vector table layout: Armv7-M ARM B1.5.2 (entry 0 the initial SP, entry 1
 * Reset, 2 NMI, 3 HardFault, ... 15 SysTick).
 */
#include <stdint.h>

#include "firmware.h"

extern uint32_t _estack, _sidata, _sdata, _edata, _sbss, _ebss;
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);

int main(void);
void Reset_Handler(void);
void SysTick_Handler(void);
void PendSV_Handler(void);

/* Anything unexpected (a fault) ends the run with a failure status, so a
 * test sees it instead of hanging until its timeout. */
static void Default_Handler(void) { semihost_exit(0); }

void Timer0_Handler(void);

/* 16 system exceptions + external interrupts 0..8 (timer 0 is 8). */
__attribute__((section(".vectors"), used)) static void (*const g_vectors[16 + 9])(void) = {
    (void (*)(void)) & _estack, /* 0: initial SP */
    Reset_Handler,              /* 1 */
    Default_Handler,            /* 2 NMI */
    Default_Handler,            /* 3 HardFault */
    Default_Handler,            /* 4 MemManage */
    Default_Handler,            /* 5 BusFault */
    Default_Handler,            /* 6 UsageFault */
    0,
    0,
    0,
    0,               /* 7..10 reserved */
    Default_Handler, /* 11 SVCall */
    Default_Handler, /* 12 DebugMonitor */
    0,               /* 13 reserved */
    PendSV_Handler,  /* 14 PendSV */
    SysTick_Handler, /* 15 SysTick */
    Default_Handler,
    Default_Handler,
    Default_Handler,
    Default_Handler, /* IRQ 0..3 */
    Default_Handler,
    Default_Handler,
    Default_Handler,
    Default_Handler, /* IRQ 4..7 */
    Timer0_Handler,  /* IRQ 8: CMSDK timer 0 */
};

void Reset_Handler(void) {
  uint32_t* src = &_sidata;
  for (uint32_t* dst = &_sdata; dst < &_edata;) *dst++ = *src++;
  for (uint32_t* dst = &_sbss; dst < &_ebss;) *dst++ = 0;
  for (void (**f)(void) = __init_array_start; f < __init_array_end; ++f) (*f)();
  semihost_exit(main() == 0);
}

/* Semihosting SYS_EXIT (operation 0x18, Arm "Semihosting for AArch32 and
 * AArch64" 6.5): r1 = ADP_Stopped_ApplicationExit (0x20026) makes QEMU exit
 * with status 0, any other reason (here ADP_Stopped_RunTimeErrorUnknown,
 * 0x20023) with status 1. Needs qemu -semihosting. */
void semihost_exit(int ok) {
  register uint32_t r0 __asm__("r0") = 0x18;
  register uint32_t r1 __asm__("r1") = ok ? 0x20026u : 0x20023u;
  __asm__ volatile("bkpt 0xab" : : "r"(r0), "r"(r1) : "memory");
  for (;;) {
  }
}

/* Default handlers for builds that do not define them (the bench). */
__attribute__((weak)) void SysTick_Handler(void) {}
__attribute__((weak)) void PendSV_Handler(void) {}
__attribute__((weak)) void Timer0_Handler(void) {}
