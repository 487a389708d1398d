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

#if defined(MABUTRACE_FREERTOS_USE_TLS) && CONFIG_FREERTOS_TLSP_DELETION_CALLBACKS
// Runs when a task that recorded is deleted (in the deleting or the idle
// task): the core releases the task's chunk and registry slot, then the
// context is free for another task.
void OnTaskDeleted(int, void* value) {
  const uint32_t ctx = uint32_t(uintptr_t(value) - 1);
  if (ctx >= kTaskContexts) return;
  if (g_exit_fn[ctx]) g_exit_fn[ctx](g_exit_arg[ctx]);
  portENTER_CRITICAL(&g_contexts_mux);
  g_exit_fn[ctx] = nullptr;
  g_context_task[ctx].store(nullptr, std::memory_order_relaxed);
  ++g_context_gen[ctx];
  g_context_used[ctx] = false;
  portEXIT_CRITICAL(&g_contexts_mux);
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

// esp_timer_get_time() counts µs.
uint64_t ClockHz() { return 1000000u; }

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
// task run, named after the task (the name pointer is the task's own name
// array: it must outlive the export, i.e. do not export after deleting a
// task that ran in the exported window, R-A7).
using namespace mabutrace::port;

namespace {
mabutrace_scope_t g_running[portNUM_PROCESSORS];
}

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
  g_running[core] = mabutrace_scope_begin(pcTaskGetName(xTaskGetCurrentTaskHandle()), 0);
  g_in_switch_hook[core].store(false, std::memory_order_relaxed);
}

}  // extern "C"

#endif  // ESP_PLATFORM || ARDUINO_ARCH_ESP32
