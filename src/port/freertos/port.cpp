// SPDX-License-Identifier: MIT
// FreeRTOS / ESP-IDF port (R-D2): task contexts, task names, memory, and
// the task-switch hooks (R-A11). Inline part: mabutrace_port_inline.h.
// Not built here (no Espressif toolchain): see docs/ports.md §5.
// ESP-IDF / Arduino-ESP32 only: the Arduino IDE and PlatformIO compile every
// source under src/ for whatever board they target (src/mabutrace_port_inline.h
// picks the port).
#if defined(ESP_PLATFORM) || defined(ARDUINO_ARCH_ESP32)

#include <stdio.h>
#include <string.h>

#include "../../runtime/port.h"  // relative: Arduino builds have only src/ on the path
#include "esp_heap_caps.h"
#if defined(MABUTRACE_FREERTOS_CYCLE_CLOCK)
#include "esp_private/esp_clk.h"
#endif
#include "mabutrace_freertos.h"

namespace mabutrace::port {

std::atomic<bool> g_in_switch_hook[portNUM_PROCESSORS] = {};

namespace {

// Which task contexts are taken, and the core's exit hook per context.
portMUX_TYPE g_contexts_mux = portMUX_INITIALIZER_UNLOCKED;
bool g_context_used[kTaskContexts] = {};
// Owner, for the search without TLS. Atomic (relaxed: plain word loads and
// stores): the search reads every entry without the mux while another task
// may be taking a context under it (a data race otherwise; ThreadSanitizer
// found it in tests/port/freertos).
std::atomic<TaskHandle_t> g_context_task[kTaskContexts] = {};
void (*g_exit_fn[kTaskContexts])(void*) = {};
void* g_exit_arg[kTaskContexts] = {};
// Tasks that had the context before (bumped when a deleted task's context
// is freed): part of the track id, so that the next task of the context
// gets a track of its own (CurrentThreadId).
uint32_t g_context_gen[kTaskContexts] = {};

// The core releases the task's chunk and registry slot, then the context
// is free for another task, which gets a track of its own (the generation).
// In a task (the deleting one, the idle task, or the next task to take a
// context), never in a critical section: the core's hook takes locks.
[[maybe_unused]] void ReleaseContext(uint32_t ctx) {
  if (g_exit_fn[ctx]) g_exit_fn[ctx](g_exit_arg[ctx]);
  portENTER_CRITICAL(&g_contexts_mux);
  g_exit_fn[ctx] = nullptr;
  g_context_task[ctx].store(nullptr, std::memory_order_relaxed);
  ++g_context_gen[ctx];
  g_context_used[ctx] = false;
  portEXIT_CRITICAL(&g_contexts_mux);
}

#if defined(MABUTRACE_FREERTOS_USE_TLS) && CONFIG_FREERTOS_TLSP_DELETION_CALLBACKS
// Runs when a task that recorded is deleted (in the deleting or the idle
// task).
void OnTaskDeleted(int, void* value) {
  const uint32_t ctx = uint32_t(uintptr_t(value) - 1);
  if (ctx < kTaskContexts) ReleaseContext(ctx);
}
#endif

#if !defined(MABUTRACE_FREERTOS_USE_TLS)
// Without TLS a context is found by task handle, and a task created after a
// deletion often gets the deleted task's TCB address: it would take over the
// deleted task's context, track and name. So traceTASK_DELETE
// (mabutrace_freertos_task_deleted) marks the deleted task's context with
// this handle, which no task has; it cannot release the context itself
// (it runs in the kernel's critical section, and the core's exit hook takes
// locks), so the next task that takes a context releases it first.
char g_deleted_marker, g_releasing_marker;
TaskHandle_t MarkerHandle(char& marker) { return reinterpret_cast<TaskHandle_t>(&marker); }

void ReleaseDeletedContexts() {
  for (uint32_t i = 0; i < kTaskContexts; ++i) {
    TaskHandle_t deleted = MarkerHandle(g_deleted_marker);
    // One task releases each (the marker changes once).
    if (g_context_task[i].compare_exchange_strong(deleted, MarkerHandle(g_releasing_marker),
                                                  std::memory_order_relaxed)) {
      ReleaseContext(i);
    }
  }
}
#endif

}  // namespace

uint32_t TaskContext() {
  const TaskHandle_t self = xTaskGetCurrentTaskHandle();
#if !defined(MABUTRACE_FREERTOS_USE_TLS)
  // No TLS pointer to spare: find this task's context (written once per
  // task under the mux below; a task only ever looks for itself).
  for (uint32_t i = 0; i < kTaskContexts; ++i) {
    if (g_context_task[i].load(std::memory_order_relaxed) == self) return i;
  }
  ReleaseDeletedContexts();
#endif
  uint32_t ctx = kNoContext;
  portENTER_CRITICAL(&g_contexts_mux);
  for (uint32_t i = 0; i < kTaskContexts; ++i) {
    if (!g_context_used[i]) {
      g_context_used[i] = true;
      g_context_task[i].store(self, std::memory_order_relaxed);
      ctx = i;
      break;
    }
  }
  portEXIT_CRITICAL(&g_contexts_mux);
  if (ctx == kNoContext) return ctx;  // more recording tasks than contexts
#if defined(MABUTRACE_FREERTOS_USE_TLS)
  void* value = reinterpret_cast<void*>(uintptr_t(ctx) + 1);
#if CONFIG_FREERTOS_TLSP_DELETION_CALLBACKS
  vTaskSetThreadLocalStoragePointerAndDelCallback(nullptr, CONFIG_MABUTRACE_TLS_INDEX, value, OnTaskDeleted);
#else
  // Without deletion callbacks a deleted task keeps its context.
  vTaskSetThreadLocalStoragePointer(nullptr, CONFIG_MABUTRACE_TLS_INDEX, value);
#endif
#endif
  return ctx;
}

#if defined(MABUTRACE_FREERTOS_CYCLE_CLOCK)
CycleClock g_cycle_clock;

// The CPU's cycles (esp_clk_cpu_freq(): ESP-IDF v5 esp_private/esp_clk.h);
// the extension starts at the counter's value now. Assumes the CPU clock
// stays at this frequency while tracing (no dynamic frequency scaling).
uint64_t ClockHz() {
  const uint32_t hz = uint32_t(esp_clk_cpu_freq());
  const UBaseType_t irq = portSET_INTERRUPT_MASK_FROM_ISR();
  StartCycleClock(g_cycle_clock, hz, configTICK_RATE_HZ, uint32_t(esp_cpu_get_cycle_count()),
                  uint32_t(xTaskGetTickCountFromISR()));
  portCLEAR_INTERRUPT_MASK_FROM_ISR(irq);
  return hz;
}
#else
// esp_timer_get_time() counts µs.
uint64_t ClockHz() { return 1000000u; }
#endif

// A small registry id, never 0, stable for the task (seed 000 §4.2 used
// TCB address bits, which collide: SPEC §10): context + 1, plus the
// contexts' count times the tasks that had the context before. Without the
// second part a task that takes a deleted task's context would get the
// deleted task's track id, and the exports would merge both tasks into one
// track under one name while the old task's events are still in the buffer
// (tests/port/freertos contexts_test.cpp, DeletedTaskContextIsReleasedAndReused).
// (tid - 1) % MABUTRACE_PORT_WRITER_CONTEXTS is still the context.
uint32_t CurrentThreadId() {
  const uint32_t ctx = WriterContext();
  const uint32_t gen = ctx < kTaskContexts ? g_context_gen[ctx] : 0u;
  const uint32_t tid = ctx + 1 + gen * uint32_t(MABUTRACE_PORT_WRITER_CONTEXTS);
  return tid != 0 ? tid : ctx + 1;  // (after 2^32 / contexts deletions)
}

void CurrentThreadName(char* buf, size_t len) {
  if (len == 0) return;
  const uint32_t ctx = WriterContext();
  if (ctx >= kSchedContext && ctx < kNoContext) {
    snprintf(buf, len, "CPU %u tasks", unsigned(ctx - kSchedContext));
  } else if (ctx >= kIsrContext && ctx < kNoContext) {
    snprintf(buf, len, "ISR cpu%u", unsigned(ctx - kIsrContext));
  } else {
#if defined(MABUTRACE_TASK_NAME_AUTO)
    const char* name = pcTaskGetName(nullptr);
    snprintf(buf, len, "%s", name ? name : "task");
#else
    snprintf(buf, len, "task %u", unsigned(ctx));
#endif
  }
}

uint32_t ProcessId() { return 1; }

void ProcessName(char* buf, size_t len) {
  if (len == 0) return;
#ifdef CONFIG_IDF_TARGET
  snprintf(buf, len, "%s", CONFIG_IDF_TARGET);
#else
  snprintf(buf, len, "freertos");
#endif
}

// The one allocation of init, from internal RAM, 64-byte aligned.
void* Allocate(size_t bytes) { return heap_caps_aligned_alloc(64, bytes, MALLOC_CAP_8BIT | MALLOC_CAP_INTERNAL); }
void Free(void* p) { heap_caps_free(p); }

bool AtThreadExit(void (*fn)(void*), void* arg) {
  const uint32_t ctx = WriterContext();
  if (ctx >= kTaskContexts) return false;  // ISR and scheduler contexts live on
  g_exit_arg[ctx] = arg;
  g_exit_fn[ctx] = fn;
#if defined(MABUTRACE_FREERTOS_USE_TLS) && CONFIG_FREERTOS_TLSP_DELETION_CALLBACKS
  return true;
#else
  return false;
#endif
}

}  // namespace mabutrace::port

// ---- task-switch hooks (R-A11, mabutrace_freertos_hooks.h) ----------------
// The scheduler calls them on the core that switches, with that core's
// interrupts masked. Each core's "CPU N tasks" track gets one slice per
// task run, named after the task. A slice's name is a pointer read at
// export (R-A7), and a task's own name lives in its TCB, which is freed
// and reused when the task is deleted: so each task's name is copied into
// g_task_names when it first runs, and the slices point there.
using namespace mabutrace::port;

namespace {
mabutrace_scope_t g_running[portNUM_PROCESSORS];

// Copies of task names, one per task that ran, kept for the whole run (an
// exported slice may name a task deleted long ago). An entry whose task
// was deleted (task = nullptr) is taken again only by a task of the same
// name, so that no exported slice changes its name. A name of
// kTaskNameBytes or more is cut to kTaskNameBytes - 2 bytes and "~"
// (ESP-IDF's configMAX_TASK_NAME_LEN is 16: its names always fit). When
// the table is full, a task's slices are named kTaskNamesFull.
constexpr uint32_t kTaskNames = 64;
constexpr size_t kTaskNameBytes = 16;
constexpr char kTaskNamesFull[] = "(task names full)";
struct TaskName {
  std::atomic<TaskHandle_t> task;
  char name[kTaskNameBytes];
};
TaskName g_task_names[kTaskNames];
std::atomic<uint32_t> g_task_names_used{0};  // entries [0, used) are written
portMUX_TYPE g_task_names_mux = portMUX_INITIALIZER_UNLOCKED;

void CopyTaskName(char (&out)[kTaskNameBytes], const char* name) {
  if (!name) name = "";
  const size_t n = strnlen(name, kTaskNameBytes);
  if (n < kTaskNameBytes) {
    memcpy(out, name, n + 1);
    return;
  }
  memcpy(out, name, kTaskNameBytes - 2);
  out[kTaskNameBytes - 2] = '~';  // the mark of a cut name
  out[kTaskNameBytes - 1] = '\0';
}

// Under g_task_names_mux: a deleted task's entry with this name, or a new
// one; nullptr when the table is full.
TaskName* TakeTaskName(const char (&name)[kTaskNameBytes]) {
  const uint32_t used = g_task_names_used.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < used; ++i) {
    TaskName& e = g_task_names[i];
    if (!e.task.load(std::memory_order_relaxed) && strcmp(e.name, name) == 0) return &e;
  }
  if (used == kTaskNames) return nullptr;
  TaskName& e = g_task_names[used];
  memcpy(e.name, name, kTaskNameBytes);
  g_task_names_used.store(used + 1, std::memory_order_release);
  return &e;
}

// The copy of `task`'s name, made at its first run. A task is switched in
// on one core at a time, so only other tasks race with its first run.
const char* TaskTrackName(TaskHandle_t task) {
  const uint32_t used = g_task_names_used.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < used; ++i) {
    if (g_task_names[i].task.load(std::memory_order_relaxed) == task) return g_task_names[i].name;
  }
  char name[kTaskNameBytes];
  CopyTaskName(name, pcTaskGetName(task));
  portENTER_CRITICAL_SAFE(&g_task_names_mux);
  TaskName* e = TakeTaskName(name);
  if (e) e->task.store(task, std::memory_order_relaxed);
  portEXIT_CRITICAL_SAFE(&g_task_names_mux);
  return e ? e->name : kTaskNamesFull;
}

// traceTASK_DELETE: the entry keeps its name for the slices in the buffer.
void ForgetTaskName(TaskHandle_t task) {
  const uint32_t used = g_task_names_used.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < used; ++i) {
    TaskHandle_t expected = task;
    g_task_names[i].task.compare_exchange_strong(expected, nullptr, std::memory_order_relaxed);
  }
}
}  // namespace

extern "C" {

void mabutrace_freertos_task_switched_out(void) {
  const uint32_t core = CurrentCpu();
  g_in_switch_hook[core].store(true, std::memory_order_relaxed);
  mabutrace_scope_end(&g_running[core]);
  g_running[core].session = 0;
  g_in_switch_hook[core].store(false, std::memory_order_relaxed);
}

void mabutrace_freertos_task_switched_in(void) {
  const uint32_t core = CurrentCpu();
  g_in_switch_hook[core].store(true, std::memory_order_relaxed);
  g_running[core] = mabutrace_scope_begin(TaskTrackName(xTaskGetCurrentTaskHandle()), 0);
  g_in_switch_hook[core].store(false, std::memory_order_relaxed);
}

void mabutrace_freertos_task_deleted(void* task) {
  const TaskHandle_t deleted = static_cast<TaskHandle_t>(task);
  if (!deleted) return;
  ForgetTaskName(deleted);
#if !defined(MABUTRACE_FREERTOS_USE_TLS)
  for (uint32_t i = 0; i < kTaskContexts; ++i) {
    TaskHandle_t expected = deleted;
    g_context_task[i].compare_exchange_strong(expected, MarkerHandle(g_deleted_marker), std::memory_order_relaxed);
  }
#endif
}

}  // extern "C"

#endif  // ESP_PLATFORM || ARDUINO_ARCH_ESP32
