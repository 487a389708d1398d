// SPDX-License-Identifier: MIT
/*
 * mabutrace_freertos_hooks.h: FreeRTOS trace hooks for task scheduling
 * (R-A11). Not built here (no Espressif toolchain): docs/ports.md §5.
 *
 * Vanilla FreeRTOS: add at the END of FreeRTOSConfig.h
 *     #include "mabutrace_freertos_hooks.h"
 * ESP-IDF (its FreeRTOSConfig.h belongs to the freertos component): put it in
 * front of every translation unit from the project's CMakeLists.txt, after
 * project():
 *     idf_build_set_property(COMPILE_OPTIONS "-include;mabutrace_freertos_hooks.h" APPEND)
 * (the mabutrace component's include directory must be on the path, which
 * REQUIRES mabutrace gives).
 *
 * traceTASK_DELETE tells the port that a task's TCB is about to be freed:
 * a task created later at the same address (the heap reuses it) then gets
 * a track and a name of its own, also without a spare TLS pointer. Without
 * this header a task that reuses a deleted task's TCB may be merged into
 * the deleted task's track (docs/ports.md §5).
 *
 * The macros only call three functions: this header includes nothing from
 * FreeRTOS, so it may be read before FreeRTOS.h. If traceTASK_SWITCHED_IN/OUT
 * are already defined (SEGGER SystemView, ...), they are left alone and a
 * warning says so.
 */
#ifndef MABUTRACE_FREERTOS_HOOKS_H
#define MABUTRACE_FREERTOS_HOOKS_H

#if !defined(MABUTRACE_DISABLE) && !(defined(CONFIG_MABUTRACE_DISABLE) && CONFIG_MABUTRACE_DISABLE) && \
    !defined(__ASSEMBLER__)

#ifdef __cplusplus
extern "C" {
#endif
void mabutrace_freertos_task_switched_out(void);
void mabutrace_freertos_task_switched_in(void);
void mabutrace_freertos_task_deleted(void* task);
#ifdef __cplusplus
}
#endif

#if defined(traceTASK_SWITCHED_IN) || defined(traceTASK_SWITCHED_OUT)
#warning "traceTASK_SWITCHED_IN/OUT already defined: mabutrace task-switch tracks disabled"
#else
#define traceTASK_SWITCHED_OUT() mabutrace_freertos_task_switched_out()
#define traceTASK_SWITCHED_IN() mabutrace_freertos_task_switched_in()
#endif

#if defined(traceTASK_DELETE)
#warning "traceTASK_DELETE already defined: tasks reusing a deleted task's TCB may share its track"
#else
#define traceTASK_DELETE(pxTaskToDelete) mabutrace_freertos_task_deleted((void*)(pxTaskToDelete))
#endif

#endif
#endif /* MABUTRACE_FREERTOS_HOOKS_H */
