// SPDX-License-Identifier: MIT
// call_graph.S: the A64 program the ETE generator test traces (issue 21).
// Known call graph: _start -> main; main calls f twice (a loop), f calls g
// twice, g loops (x0 times), main calls h through BLR, h makes an SVC
// whose handler (el1_sync, at VBAR_EL1 + 0x200) returns with ERET.
// The labels *_br / *_site are plain (NOTYPE) symbols the run script
// (call_graph.run) names; only the %function symbols name slices.
        .text
        .balign 4
        .global _start
        .type _start, %function
_start:
        adr     x0, vectors
        msr     vbar_el1, x0
        bl      main
start_done:
        b       start_done
        .size   _start, . - _start

        .type   main, %function
main:
        stp     x29, x30, [sp, #-16]!
        mov     x19, #2
main_loop:
        bl      f
        subs    x19, x19, #1
main_loop_br:
        b.ne    main_loop
        adr     x1, h
main_call_h:
        blr     x1
        ldp     x29, x30, [sp], #16
        ret
        .size   main, . - main

        .type   f, %function
f:
        stp     x29, x30, [sp, #-16]!
        mov     x0, #3
        bl      g
        mov     x0, #1
        bl      g
        ldp     x29, x30, [sp], #16
        ret
        .size   f, . - f

        .type   g, %function
g:
        mov     x2, x0
g_loop:
        subs    x2, x2, #1
g_loop_br:
        b.ne    g_loop
        ret
        .size   g, . - g

        .type   h, %function
h:
        mov     x8, #64
        svc     #0
h_svc_return:
        ret
        .size   h, . - h

        .section .text.vectors, "ax"
        .balign 2048
vectors:
        .skip   0x200
        .type   el1_sync, %function
el1_sync:
        mov     x0, #0
        eret
        .size   el1_sync, . - el1_sync
