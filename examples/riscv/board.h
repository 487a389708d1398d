// SPDX-License-Identifier: MIT
/* board.h: QEMU riscv32 `virt` machine helpers shared by the example
 * firmwares (addresses: QEMU hw/riscv/virt.c memmap; register layouts as
 * cited per block). */
#ifndef MABUTRACE_EXAMPLE_RISCV_BOARD_H
#define MABUTRACE_EXAMPLE_RISCV_BOARD_H

#include <stddef.h>
#include <stdint.h>

/* Ends the QEMU run through the SiFive test device at 0x100000: status 0 ->
 * 0x5555 (QEMU exits 0), else (status << 16) | 0x3333 (QEMU exits with
 * status). Defined in board.c, called by startup.S after main. */
void board_exit(int status) __attribute__((noreturn));

/* NS16550A UART at 0x10000000 (byte registers): THR +0 (write), IER +1,
 * LCR +3, LSR +5 (bit 5: THR empty). */
#define UART_BASE 0x10000000u
#define UART_REG(off) (*(volatile uint8_t*)(UART_BASE + (off)))
static inline void uart_init(void) {
  UART_REG(1) = 0;    /* no UART interrupts */
  UART_REG(3) = 0x03; /* 8N1 */
}
static inline void uart_write(const uint8_t* data, size_t len) {
  while (len--) {
    while (!(UART_REG(5) & 0x20u)) {
    }
    UART_REG(0) = *data++;
  }
}

/* CLINT at 0x02000000 (SiFive CLINT / RISC-V ACLINT layout): msip of hart
 * 0 at +0x0 (bit 0 raises the machine software interrupt), mtimecmp of
 * hart 0 at +0x4000, mtime at +0xBFF8, both 64-bit; mtime counts 10 MHz on
 * QEMU virt (RISCV_ACLINT_DEFAULT_TIMEBASE_FREQ). */
#define CLINT_MSIP (*(volatile uint32_t*)0x02000000u)
#define CLINT_MTIMECMP_LO (*(volatile uint32_t*)0x02004000u)
#define CLINT_MTIMECMP_HI (*(volatile uint32_t*)0x02004004u)
#define CLINT_MTIME_LO (*(volatile uint32_t*)0x0200BFF8u)
#define CLINT_MTIME_HI (*(volatile uint32_t*)0x0200BFFCu)
#define MTIME_HZ 10000000u

/* Sets mtimecmp without a spurious interrupt in between (high word first
 * to all ones: Privileged spec §3.2.1's RV32 sequence). */
static inline void mtimecmp_set(uint64_t t) {
  CLINT_MTIMECMP_HI = 0xFFFFFFFFu;
  CLINT_MTIMECMP_LO = (uint32_t)t;
  CLINT_MTIMECMP_HI = (uint32_t)(t >> 32);
}
static inline uint64_t mtime_read(void) {
  uint32_t hi, lo;
  do {
    hi = CLINT_MTIME_HI;
    lo = CLINT_MTIME_LO;
  } while (hi != CLINT_MTIME_HI);
  return (uint64_t)hi << 32 | lo;
}

/* mcause (Privileged spec §3.1.15): MSB = interrupt; 7 machine timer,
 * 3 machine software. mie (§3.1.9): MTIE bit 7, MSIE bit 3; mstatus.MIE
 * bit 3. */
#define MCAUSE_MTI 0x80000007u
#define MCAUSE_MSI 0x80000003u
#define MIE_MTIE (1u << 7)
#define MIE_MSIE (1u << 3)
static inline void irq_enable(void) { __asm__ volatile("csrsi mstatus, 8" ::: "memory"); }
static inline void irq_disable(void) { __asm__ volatile("csrci mstatus, 8" ::: "memory"); }
static inline void mie_set(uint32_t bits) { __asm__ volatile("csrs mie, %0" ::"r"(bits) : "memory"); }
static inline void mie_clear(uint32_t bits) { __asm__ volatile("csrc mie, %0" ::"r"(bits) : "memory"); }

/* 1 when the firmware is built with tracing (main.c's size test deletes
 * every line that mentions it, so main.c's own #if lines must not). */
#if defined(MABUTRACE_DISABLE)
#define FW_TRACED 0
#else
#define FW_TRACED 1
#endif

#endif
