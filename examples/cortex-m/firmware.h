// SPDX-License-Identifier: MIT
/* firmware.h: board helpers shared by the example firmwares. */
#ifndef MABUTRACE_EXAMPLE_FIRMWARE_H
#define MABUTRACE_EXAMPLE_FIRMWARE_H

#include <stddef.h>
#include <stdint.h>

/* Ends the QEMU run: status 0 if ok, 1 otherwise (semihosting). */
void semihost_exit(int ok) __attribute__((noreturn));

/* CMSDK APB UART0 of the MPS2 boards (ARM DDI 0479C, CMSDK TRM 4.3):
 * DATA +0x0, STATE +0x4 (bit 0: TX buffer full), CTRL +0x8 (bit 0: TX
 * enable), BAUDDIV +0x10 (>= 16). */
#define UART0_BASE 0x40004000u
#define UART0_DATA (*(volatile uint32_t*)(UART0_BASE + 0x0u))
#define UART0_STATE (*(volatile uint32_t*)(UART0_BASE + 0x4u))
#define UART0_CTRL (*(volatile uint32_t*)(UART0_BASE + 0x8u))
#define UART0_BAUDDIV (*(volatile uint32_t*)(UART0_BASE + 0x10u))

static inline void uart0_init(void) {
  UART0_BAUDDIV = 16;
  UART0_CTRL = 1u; /* TX enable */
}

static inline void uart0_write(const uint8_t* data, size_t len) {
  while (len--) {
    while (UART0_STATE & 1u) {
    }
    UART0_DATA = *data++;
  }
}

/* UART1, same layout: the second -serial of QEMU. */
#define UART1_BASE 0x40005000u
#define UART1_DATA (*(volatile uint32_t*)(UART1_BASE + 0x0u))
#define UART1_STATE (*(volatile uint32_t*)(UART1_BASE + 0x4u))
#define UART1_CTRL (*(volatile uint32_t*)(UART1_BASE + 0x8u))
#define UART1_BAUDDIV (*(volatile uint32_t*)(UART1_BASE + 0x10u))

static inline void uart1_write(const void* data, size_t len) {
  const uint8_t* p = (const uint8_t*)data;
  UART1_BAUDDIV = 16;
  UART1_CTRL = 1u;
  while (len--) {
    while (UART1_STATE & 1u) {
    }
    UART1_DATA = *p++;
  }
}

/* Runs the PendSV handler now: ICSR.PENDSVSET (Armv7-M ARM B3.2.4), then
 * DSB + ISB so that it is taken before the next instruction. */
#define SCB_ICSR (*(volatile uint32_t*)0xE000ED04u)
static inline void pendsv_now(void) {
  SCB_ICSR = 1u << 28;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* 1 when the firmware is built with tracing (main.c's size test deletes
 * every line that mentions it, so main.c's own #if lines must not). */
#if defined(MABUTRACE_DISABLE)
#define FW_TRACED 0
#else
#define FW_TRACED 1
#endif

/* CMSDK APB timer 0 of the MPS2 boards (CMSDK TRM 3.4), interrupt 8:
 * CTRL +0x0 (bit 0 enable, bit 3 interrupt enable), VALUE +0x4, RELOAD
 * +0x8, INTCLEAR +0xC (write 1). Counts the 25 MHz peripheral clock down. */
#define TIMER0_BASE 0x40000000u
#define TIMER0_CTRL (*(volatile uint32_t*)(TIMER0_BASE + 0x0u))
#define TIMER0_VALUE (*(volatile uint32_t*)(TIMER0_BASE + 0x4u))
#define TIMER0_RELOAD (*(volatile uint32_t*)(TIMER0_BASE + 0x8u))
#define TIMER0_INTCLEAR (*(volatile uint32_t*)(TIMER0_BASE + 0xCu))
#define TIMER0_IRQ 8u
/* Timer 1, same layout: run free over all 32 bits as the trace clock. */
#define TIMER1_BASE 0x40001000u
#define TIMER1_CTRL (*(volatile uint32_t*)(TIMER1_BASE + 0x0u))
#define TIMER1_VALUE (*(volatile uint32_t*)(TIMER1_BASE + 0x4u))
#define TIMER1_RELOAD (*(volatile uint32_t*)(TIMER1_BASE + 0x8u))

/* Starts timer 1 counting down from 0xFFFFFFFF through every value, without
 * its interrupt, and makes it the trace clock: on QEMU, which has no
 * DWT_CYCCNT, this times through the same one-load fast path as the DWT
 * does on silicon (mabutrace_cortex_m_use_counter). */
static inline void timer1_start_free_running(void) {
  TIMER1_CTRL = 0;
  TIMER1_RELOAD = 0xFFFFFFFFu;
  TIMER1_VALUE = 0xFFFFFFFFu;
  TIMER1_CTRL = 1u; /* enable */
}

/* NVIC and system handler registers, Armv7-M ARM B3.4 and B3.2:
 * NVIC_ISER0 enables interrupts 0..31, NVIC_IPR bytes hold priorities,
 * SHPR3 bits 31:24 SysTick's priority, SHCSR bit 11 (SYSTICKACT) is set
 * while the SysTick handler is active (also when preempted). */
#define NVIC_ISER0 (*(volatile uint32_t*)0xE000E100u)
#define NVIC_IPR_BYTE(n) (*(volatile uint8_t*)(0xE000E400u + (n)))
#define SCB_SHPR3 (*(volatile uint32_t*)0xE000ED20u)
#define SCB_SHCSR (*(volatile uint32_t*)0xE000ED24u)
#define SHCSR_SYSTICKACT (1u << 11)

/* SysTick registers, Armv7-M ARM B3.3.2. */
#define SYST_CSR (*(volatile uint32_t*)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018u)

#endif
