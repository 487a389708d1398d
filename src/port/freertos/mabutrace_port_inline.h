// SPDX-License-Identifier: MIT
// FreeRTOS / ESP-IDF port (R-D2), inline part.
//
// NOT BUILT OR RUN HERE: Espressif's toolchains are not available where this
// repository is tested. This port is a thin adapter over the recording core
// that the host suite and the Cortex-M QEMU tests exercise; see
// docs/ports.md §5 for what is and is not tested.
//
// Writer contexts (src/runtime/writer_contexts.cpp keeps one Writer each,
// no TLS; a caller past the last one records nothing, counted as dropped):
//   [0, kTaskContexts)            one per FreeRTOS task that records, taken at
//                                 its first record (FreeRTOS thread-local
//                                 storage pointer CONFIG_MABUTRACE_TLS_INDEX
//                                 remembers which, or a search by task
//                                 handle), given back when the task is
//                                 deleted (ESP-IDF TLSP deletion callbacks)
//   kIsrContext + core            every ISR on that core: track "ISR cpuN"
//   kSchedContext + core          the task-switch hooks (R-A11): track
//                                 "CPU N tasks", a slice per task run
// A task's context is written only by that task; an ISR context only by the
// nested ISRs of its core; so the reservation needs interrupts masked on the
// local core only (portSET_INTERRUPT_MASK_FROM_ISR works from tasks and
// ISRs), never a cross-core lock: writers on two cores do not contend
// (R-B3). The thread registry's names are shared by both cores: they take a
// portMUX spinlock with its ISR-safe form (IrqLock below).
#ifndef MABUTRACE_PORT_FREERTOS_INLINE_H
#define MABUTRACE_PORT_FREERTOS_INLINE_H

#include <stdint.h>

#include <atomic>

#include "esp_timer.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"
#include "sdkconfig.h"

#ifndef CONFIG_MABUTRACE_MAX_TASKS
#define CONFIG_MABUTRACE_MAX_TASKS 32
#endif
#ifndef CONFIG_MABUTRACE_TLS_INDEX
#define CONFIG_MABUTRACE_TLS_INDEX 1
#endif
// Without the component's Kconfig (Arduino-ESP32's prebuilt sdkconfig) task
// names are on, as CONFIG_MABUTRACE_TASK_NAME_AUTO's default.
#if defined(CONFIG_MABUTRACE_TASK_NAME_AUTO) || !defined(CONFIG_MABUTRACE_BUFFER_SIZE)
#define MABUTRACE_TASK_NAME_AUTO 1
#endif
// The task's context lives in a FreeRTOS thread-local storage pointer when
// the build has one to spare (ESP-IDF's pthread layer uses index 0); else
// (Arduino-ESP32 ships 1 pointer) it is looked up by task handle.
#if defined(CONFIG_FREERTOS_THREAD_LOCAL_STORAGE_POINTERS) && \
    CONFIG_FREERTOS_THREAD_LOCAL_STORAGE_POINTERS > CONFIG_MABUTRACE_TLS_INDEX
#define MABUTRACE_FREERTOS_USE_TLS 1
#endif
// The clock: esp_timer (µs, both cores) unless CONFIG_MABUTRACE_CLOCK_CPU_CYCLES
// on a single-core RISC-V chip (ESP32-C3, C6, H2): the CPU's cycle counter,
// 1/160 µs on a C3 at 160 MHz, read by esp_cpu_get_cycle_count() (ESP-IDF v5
// esp_cpu.h: the C3/C6/H2 performance counter CSR, mcycle where the core
// has Zicntr). Two cores' counters are not in step: not for the P4.
#if defined(__riscv) && defined(CONFIG_MABUTRACE_CLOCK_CPU_CYCLES)
#if portNUM_PROCESSORS != 1
#error "CONFIG_MABUTRACE_CLOCK_CPU_CYCLES: single-core RISC-V chips only (the cores' cycle counters differ)"
#endif
#define MABUTRACE_FREERTOS_CYCLE_CLOCK 1
#include "cycle_clock.h"
#include "esp_cpu.h"
#endif

// The recording path: per-context writers on several cores
// (src/runtime/writer_contexts.cpp).
#define MABUTRACE_PORT_WRITER_CONTEXTS (CONFIG_MABUTRACE_MAX_TASKS + 2 * portNUM_PROCESSORS)
#define MABUTRACE_PORT_HAS_IRQ_LOCK 1
// Two cores: record words are plain volatile stores (a 64-bit atomic is a
// library call on Xtensa/RISC-V ESP32s) ordered by the release store of the
// commit word; a reader's copy of a recycled chunk is caught by the chunk's
// sequence lock (ring_buffer.h).
#define MABUTRACE_PORT_PLAIN_WORDS 1
#define MABUTRACE_PORT_INLINE inline __attribute__((always_inline))

namespace mabutrace::port {

constexpr uint32_t kTaskContexts = CONFIG_MABUTRACE_MAX_TASKS;
constexpr uint32_t kIsrContext = kTaskContexts;
constexpr uint32_t kSchedContext = kTaskContexts + portNUM_PROCESSORS;
constexpr uint32_t kNoContext = MABUTRACE_PORT_WRITER_CONTEXTS;

// Set by the task-switch hooks while they record (per core; the scheduler
// runs them with interrupts masked on that core). Atomic (relaxed: plain
// byte loads and stores): a task on the other core may read it, see
// InSwitchHook().
extern std::atomic<bool> g_in_switch_hook[portNUM_PROCESSORS];
// The calling task's context, taking one at its first record (port.cpp);
// kNoContext when all kTaskContexts are in use. Without a TLS pointer it
// searches the contexts by task handle (up to kTaskContexts compares).
uint32_t TaskContext();

MABUTRACE_PORT_INLINE uint32_t CurrentCpu() { return uint32_t(xPortGetCoreID()); }
// xPortInIsrContext(): ESP-IDF's FreeRTOS ports for Xtensa and RISC-V both
// keep a per-core ISR nesting count that their interrupt entry and exit
// maintain (the RISC-V port's vectors.S / portasm.S), so one hook serves
// every ESP32: unlike bare-metal RISC-V (src/port/riscv), the application's
// handlers call nothing.
MABUTRACE_PORT_INLINE bool InIsr() { return xPortInIsrContext() != 0; }

// True in the task-switch hooks of the calling core. The flag alone is not
// enough: a task without core affinity can read its core, be switched out
// there, resume on the other core and read the flag while the first core
// runs its hooks again; it would then write into that core's scheduler
// context together with the hook (tests/port/freertos hooks_test.cpp,
// MigratingTaskNeverWritesIntoTheSchedulerContext). So a set flag is read
// again with the local core masked: then nothing else runs on that core and
// its flag is set only if the caller is the hook. Costs nothing when the
// flag is clear. *core becomes the core read under the mask.
MABUTRACE_PORT_INLINE bool InSwitchHook(uint32_t* core) {
  if (!g_in_switch_hook[*core].load(std::memory_order_relaxed)) return false;
  const UBaseType_t irq = portSET_INTERRUPT_MASK_FROM_ISR();
  *core = CurrentCpu();
  const bool hook = g_in_switch_hook[*core].load(std::memory_order_relaxed);
  portCLEAR_INTERRUPT_MASK_FROM_ISR(irq);
  return hook;
}

MABUTRACE_PORT_INLINE uint32_t WriterContext() {
  uint32_t core = CurrentCpu();
  if (InSwitchHook(&core)) return kSchedContext + core;
  if (InIsr()) return kIsrContext + core;
#if defined(MABUTRACE_FREERTOS_USE_TLS)
  void* p = pvTaskGetThreadLocalStoragePointer(nullptr, CONFIG_MABUTRACE_TLS_INDEX);
  return p ? uint32_t(uintptr_t(p) - 1) : TaskContext();
#else
  return TaskContext();
#endif
}
MABUTRACE_PORT_INLINE bool ContextIsIsr(uint32_t context) { return context >= kIsrContext && context < kSchedContext; }

// Local interrupt mask (Xtensa: PS.INTLEVEL raised to the kernel's level;
// RISC-V: the equivalent threshold), usable from tasks and ISRs.
MABUTRACE_PORT_INLINE uint32_t EnterCritical() { return uint32_t(portSET_INTERRUPT_MASK_FROM_ISR()); }
MABUTRACE_PORT_INLINE void ExitCritical(uint32_t state) { portCLEAR_INTERRUPT_MASK_FROM_ISR(UBaseType_t(state)); }

#if defined(MABUTRACE_FREERTOS_CYCLE_CLOCK)
// The 32-bit cycle counter extended to 64 bits (cycle_clock.h; port.cpp
// ClockHz() starts it), with interrupts masked on the one core.
extern CycleClock g_cycle_clock;

MABUTRACE_PORT_INLINE uint64_t NowTicksInCritical() {
  return AdvanceCycleClock(g_cycle_clock, uint32_t(esp_cpu_get_cycle_count()), uint32_t(xTaskGetTickCountFromISR()));
}
MABUTRACE_PORT_INLINE uint64_t NowTicks() {
  const UBaseType_t irq = portSET_INTERRUPT_MASK_FROM_ISR();
  const uint64_t t = NowTicksInCritical();
  portCLEAR_INTERRUPT_MASK_FROM_ISR(irq);
  return t;
}
#else
// esp_timer_get_time(): µs since boot from the shared system timer, the same
// on both cores (each core's CCOUNT cycle counter is not) and callable from
// ISRs. 64 bits: no wrap.
MABUTRACE_PORT_INLINE uint64_t NowTicks() { return uint64_t(esp_timer_get_time()); }
MABUTRACE_PORT_INLINE uint64_t NowTicksInCritical() { return NowTicks(); }
#endif

// Spinning on export/lifecycle locks happens only in tasks: let lower
// priority tasks run (one tick) instead of busy-waiting at our priority.
// Except in the idle task, which must never block: the TLSP deletion
// callback of a task that deleted itself runs there (port.cpp
// OnTaskDeleted -> the core's thread-exit hook, which takes the lifecycle
// lock; an export waiting for another holds it). At the idle priority a
// yield is enough: every other task has that priority or preempts.
// (tests/port/freertos contexts_test.cpp, DeletionCallbackNeverBlocksTheIdleTask)
inline void CpuRelax() {
  if (InIsr()) return;
  if (uxTaskPriorityGet(nullptr) == tskIDLE_PRIORITY) {
    taskYIELD();
  } else {
    vTaskDelay(1);
  }
}

// Runtime::names_lock: a portMUX spinlock (both cores), ISR-safe form.
class IrqLock {
 public:
  void lock() { portENTER_CRITICAL_SAFE(&mux_); }
  void unlock() { portEXIT_CRITICAL_SAFE(&mux_); }

 private:
  portMUX_TYPE mux_ = portMUX_INITIALIZER_UNLOCKED;
};

}  // namespace mabutrace::port

#endif  // MABUTRACE_PORT_FREERTOS_INLINE_H
