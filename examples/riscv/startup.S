/* SPDX-License-Identifier: MIT */
/* startup.S: reset and trap entry of the QEMU `virt` firmwares (machine
 * mode, one hart; -bios none starts at _start with hart 0).
 *
 * trap_entry saves the caller-saved registers and mepc/mstatus on the
 * stack before it calls trap_handler(mcause), so that the C handler may set
 * mstatus.MIE again and let a second interrupt nest (the nested trap
 * overwrites mepc and mstatus); it restores them and returns with mret.
 * Frame: ra, t0-t6, a0-a7 (16 words), mepc, mstatus, 2 words of padding:
 * 80 bytes, the stack stays 16-byte aligned (RISC-V psABI). */
  .section .text.init, "ax"
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, _estack
  la t0, trap_entry
  csrw mtvec, t0 /* direct mode: every trap at trap_entry */
  la t0, _sbss
  la t1, _ebss
1:
  bgeu t0, t1, 2f
  sw zero, 0(t0)
  addi t0, t0, 4
  j 1b
2:
  call main
  call board_exit /* a0: main's status */
3:
  j 3b

  .text
  .balign 4
  .globl trap_entry
trap_entry:
  addi sp, sp, -80
  sw ra, 0(sp)
  sw t0, 4(sp)
  sw t1, 8(sp)
  sw t2, 12(sp)
  sw t3, 16(sp)
  sw t4, 20(sp)
  sw t5, 24(sp)
  sw t6, 28(sp)
  sw a0, 32(sp)
  sw a1, 36(sp)
  sw a2, 40(sp)
  sw a3, 44(sp)
  sw a4, 48(sp)
  sw a5, 52(sp)
  sw a6, 56(sp)
  sw a7, 60(sp)
  csrr t0, mepc
  sw t0, 64(sp)
  csrr t0, mstatus
  sw t0, 68(sp)
  csrr a0, mcause
  call trap_handler
  lw t0, 68(sp)
  csrw mstatus, t0 /* MIE back to 0 (as on entry), MPIE/MPP for mret */
  lw t0, 64(sp)
  csrw mepc, t0
  lw ra, 0(sp)
  lw t0, 4(sp)
  lw t1, 8(sp)
  lw t2, 12(sp)
  lw t3, 16(sp)
  lw t4, 20(sp)
  lw t5, 24(sp)
  lw t6, 28(sp)
  lw a0, 32(sp)
  lw a1, 36(sp)
  lw a2, 40(sp)
  lw a3, 44(sp)
  lw a4, 48(sp)
  lw a5, 52(sp)
  lw a6, 56(sp)
  lw a7, 60(sp)
  addi sp, sp, 80
  mret
