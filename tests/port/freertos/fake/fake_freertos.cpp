// SPDX-License-Identifier: MIT
// fake_freertos.cpp: a host implementation of the FreeRTOS / ESP-IDF API
// declared by the fake headers beside it (see fake_freertos.h for the
// model). Written from the API documentation (freertos.org API reference,
// ESP-IDF "FreeRTOS (IDF)", "ESP Timer", "Heap Memory Allocation" and "HTTP
// Server" references); no kernel code. Deliberately small and strict: what
// a real kernel would refuse is recorded as a violation, misuse of the fake
// itself aborts.
#include "fake_freertos.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "esp_heap_caps.h"
#include "esp_timer.h"

// The TCB: what FreeRTOS keeps per task that the adapter can observe.
struct tskTaskControlBlock {
  char name[configMAX_TASK_NAME_LEN] = {};
  int core = 0;  // affinity; tskNO_AFFINITY runs on core 0 (see SetMigrating)
  UBaseType_t priority = tskIDLE_PRIORITY;
  bool is_virtual = false;  // no thread: runs where SwitchContext puts it
  bool is_idle = false;
  void* tls[configNUM_THREAD_LOCAL_STORAGE_POINTERS] = {};
#if configTHREAD_LOCAL_STORAGE_DELETE_CALLBACKS
  TlsDeleteCallbackFunction_t del[configNUM_THREAD_LOCAL_STORAGE_POINTERS] = {};
#endif
  TaskFunction_t fn = nullptr;
  void* arg = nullptr;
  pthread_t thread{};
  bool has_thread = false;
  std::mutex m;  // suspended / killed
  std::condition_variable cv;
  bool suspended = false;
  bool killed = false;
  std::atomic<int> delays{0}, yields{0};  // vTaskDelay / portYIELD calls
};
using Tcb = tskTaskControlBlock;

extern "C" void fake_vTaskSwitchContext(TaskHandle_t next);  // fake_sched.c
extern "C" void fake_trace_task_delete(TaskHandle_t task);   // fake_sched.c

namespace {

[[noreturn]] void Fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fake FreeRTOS: fatal: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  abort();
}

std::mutex g_state;  // everything below except the per-core locks
std::set<Tcb*> g_live;
std::vector<Tcb*> g_terminating[portNUM_PROCESSORS];
Tcb* g_idle[portNUM_PROCESSORS] = {};
std::atomic<Tcb*> g_current[portNUM_PROCESSORS] = {};  // set by SwitchContext
std::atomic<bool> g_switching[portNUM_PROCESSORS] = {};  // a SwitchContext runs
std::atomic<int64_t> g_last_switch_us[portNUM_PROCESSORS] = {};  // when one last began
std::vector<std::string> g_violations;
fake::AllocRequest g_last_alloc;

void Violation(const std::string& what) {
  fprintf(stderr, "fake FreeRTOS: violation: %s\n", what.c_str());
  std::lock_guard<std::mutex> lock(g_state);
  g_violations.push_back(what);
}

// A core: masking its interrupts takes its lock (recursive per thread).
struct CoreLock {
  std::mutex m;
  std::atomic<const void*> owner{nullptr};
  unsigned depth = 0;  // written only by the owner
};
CoreLock g_cores[portNUM_PROCESSORS];
// IDF's spinlock owner values are core tags.
constexpr uint32_t kCoreTag[2] = {0xCDCD, 0xABAB};
static_assert(portNUM_PROCESSORS <= 2, "two core tags");

thread_local char t_token;     // its address identifies the thread
thread_local int t_core = 0;   // the simulated core the thread runs on
thread_local int t_isr = 0;    // interrupt nesting
thread_local Tcb* t_current = nullptr;
thread_local bool t_migrating = false;
thread_local uint32_t t_migration_rng = 0x9E3779B9u;
thread_local bool t_idle = false;
thread_local std::unique_ptr<Tcb> t_adopted;  // see xTaskGetCurrentTaskHandle

int64_t MonotonicUs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

bool MaskedByMe() { return g_cores[t_core].owner.load(std::memory_order_relaxed) == &t_token; }

// Nested interrupts (fake::NestedInterrupts): SIGUSR1 runs the thread's
// nested handler wherever the thread is, unless it has interrupts masked.
thread_local void (*t_nested_fn)(void*) = nullptr;
thread_local void* t_nested_arg = nullptr;
thread_local std::atomic<bool> t_nested_pending{false};  // raised, not yet run
thread_local int t_masks = 0;  // interrupt masks in effect (not IsrScope's core lock)

sigset_t NestedSignalSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  return set;
}

void OnNestedInterrupt(int) {
  if (!t_nested_fn || !t_nested_pending.exchange(false)) return;
  // The handler runs at its own priority: it cannot nest in itself (the
  // signal stays blocked until it returns, whatever it masks and unmasks).
  const int saved_masks = t_masks;
  t_masks = 1;
  ++t_isr;
  t_nested_fn(t_nested_arg);
  --t_isr;
  t_masks = saved_masks;
}

// An instruction at which a raised nested interrupt is taken at once if
// interrupts are not masked (besides the signal's own, asynchronous,
// delivery): esp_timer_get_time(), which the recorder calls inside its
// reservation critical section. Makes "masked or not there" deterministic.
void InterruptPoint() {
  if (!t_nested_fn || t_masks != 0 || !t_nested_pending.load(std::memory_order_relaxed)) return;
  const sigset_t set = NestedSignalSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  OnNestedInterrupt(SIGUSR1);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

// The calling core's lock (recursive): what keeps other code of the core
// out while this thread has the core "masked" (or runs an ISR on it).
UBaseType_t LockCore() {
  CoreLock& c = g_cores[t_core];
  if (c.owner.load(std::memory_order_relaxed) == &t_token) return c.depth++;
  c.m.lock();
  c.owner.store(&t_token, std::memory_order_relaxed);
  c.depth = 1;
  return 0;
}

void UnlockCore(UBaseType_t prev_level) {
  CoreLock& c = g_cores[t_core];
  if (c.owner.load(std::memory_order_relaxed) != &t_token) {
    Fatal("interrupt mask of core %d cleared by a thread that did not set it", t_core);
  }
  if (prev_level != c.depth - 1) {
    Fatal("interrupt mask of core %d cleared out of order (level %u, depth %u)", t_core,
          unsigned(prev_level), c.depth);
  }
  if (--c.depth == 0) {
    c.owner.store(nullptr, std::memory_order_relaxed);
    c.m.unlock();
  }
}

// Interrupts masked on the calling core: the core's lock, and no nested
// interrupt on this thread (blocked first, unblocked last).
UBaseType_t Mask() {
  if (t_masks++ == 0 && t_nested_fn) {
    const sigset_t set = NestedSignalSet();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
  }
  return LockCore();
}

void Unmask(UBaseType_t prev_level) {
  UnlockCore(prev_level);
  if (--t_masks == 0 && t_nested_fn) {
    const sigset_t set = NestedSignalSet();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  }
}

Tcb* IdleTcb(int core) {
  std::lock_guard<std::mutex> lock(g_state);
  if (!g_idle[core]) {
    Tcb* t = new Tcb;
    snprintf(t->name, sizeof t->name, "IDLE%d", core);
    t->core = core;
    t->is_virtual = true;
    t->is_idle = true;
    g_idle[core] = t;
  }
  return g_idle[core];
}

// ESP-IDF's prvDeleteTLS(): each set deletion callback, in index order,
// with the index and the pointer's value.
void RunTlsCallbacks(Tcb* t) {
#if configTHREAD_LOCAL_STORAGE_DELETE_CALLBACKS
  for (int x = 0; x < configNUM_THREAD_LOCAL_STORAGE_POINTERS; ++x) {
    if (t->del[x]) t->del[x](x, t->tls[x]);
  }
#else
  (void)t;
#endif
}

// TCB memory as a heap hands it out: the last TCB freed is the next one
// allocated (LIFO), so a task created after a deletion gets the deleted
// task's TCB address and memory, as ESP-IDF's heap typically does. Guarded
// by g_state. Never destroyed: the memory stays reachable for the leak
// checker after static destruction.
std::vector<void*>& FreeTcbs() {
  static auto* list = new std::vector<void*>;
  return *list;
}

Tcb* NewTcb() {
  void* mem = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_state);
    if (!FreeTcbs().empty()) {
      mem = FreeTcbs().back();
      FreeTcbs().pop_back();
    }
  }
  if (!mem) mem = ::operator new(sizeof(Tcb));
  return new (mem) Tcb;
}

// vTaskDelete's traceTASK_DELETE(pxTCB), in the kernel's critical section
// as in FreeRTOS (so a hook that blocks there is a violation).
void TraceDelete(Tcb* t) {
  static portMUX_TYPE kernel_lock = portMUX_INITIALIZER_UNLOCKED;
  portENTER_CRITICAL(&kernel_lock);
  fake_trace_task_delete(t);
  portEXIT_CRITICAL(&kernel_lock);
}

// prvDeleteTCB: the thread (parked or finished) is joined, the TCB freed.
void FreeTcb(Tcb* t) {
  if (t->has_thread) {
    {
      std::lock_guard<std::mutex> lock(t->m);
      t->killed = true;
    }
    t->cv.notify_all();
    pthread_join(t->thread, nullptr);
  }
  t->~Tcb();
  std::lock_guard<std::mutex> lock(g_state);
  g_live.erase(t);
  FreeTcbs().push_back(t);
}

void* TaskMain(void* p) {
  Tcb* t = static_cast<Tcb*>(p);
  t_current = t;
  t_core = t->core;
  t->fn(t->arg);
  Fatal("task \"%s\" returned from its function (a FreeRTOS task must delete itself)", t->name);
}

bool ValidIndex(BaseType_t i) { return i >= 0 && i < configNUM_THREAD_LOCAL_STORAGE_POINTERS; }

// ---- esp_http_server ----
struct Server {
  httpd_config_t cfg;
  std::vector<httpd_uri_t> routes;
  httpd_err_handler_func_t err_handlers[HTTPD_ERR_CODE_MAX] = {};
  std::set<int> sessions;  // server ends of the open connections
  std::set<int> closing;   // httpd_sess_trigger_close was called on them
};
Server* g_http = nullptr;
int g_http_starts = 0, g_http_stops = 0;

struct ReqState {
  fake::HttpResponse* resp;
  int fd = -1;  // the session's socket (server end)
  uint16_t max_headers = 0;
  std::vector<std::pair<std::string, std::string>> extra;  // httpd_resp_set_hdr, in order
  bool headers_out = false;
};

ReqState* State(httpd_req_t* r) { return r ? static_cast<ReqState*>(r->aux) : nullptr; }

// httpd_txrx.c's httpd_sock_err(): errno of a failed send as HTTPD_SOCK_ERR_*.
int SockErr(int err) {
  switch (err) {
    case EAGAIN:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
    case EINTR: return HTTPD_SOCK_ERR_TIMEOUT;
    case EINVAL:
    case EBADF:
    case EFAULT:
    case ENOTSOCK: return HTTPD_SOCK_ERR_INVALID;
    default: return HTTPD_SOCK_ERR_FAIL;
  }
}

// httpd_default_send(): one send() on the session's socket, whose
// SO_SNDTIMEO bounds the wait (send_wait_timeout, or what the handler set).
int SendOnce(ReqState* s, const char* buf, size_t len) {
  const ssize_t n = ::send(s->fd, buf, len, MSG_NOSIGNAL);
  return n < 0 ? SockErr(errno) : int(n);
}

// httpd_txrx.c's httpd_send_all(): all of `bytes`, or false.
bool SendAllBytes(ReqState* s, const std::string& bytes) {
  for (size_t sent = 0; sent < bytes.size();) {
    const int n = SendOnce(s, bytes.data() + sent, bytes.size() - sent);
    if (n <= 0) return false;
    sent += size_t(n);
  }
  return true;
}

// The head httpd_txrx.c sends before the first body byte: its status line
// and Content-Type, `framing` ("Content-Length: N" or "Transfer-Encoding:
// chunked"), then the fields of httpd_resp_set_hdr in the order they came.
std::string WireHead(ReqState* s, const std::string& framing) {
  std::string w = "HTTP/1.1 " + s->resp->status + "\r\nContent-Type: " + s->resp->type + "\r\n" + framing + "\r\n";
  for (const auto& h : s->extra) w += h.first + ": " + h.second + "\r\n";
  w += "\r\n";
  return w;
}

}  // namespace

// ---- portmacro.h ----------------------------------------------------------------

extern "C" {

BaseType_t xPortInIsrContext(void) { return t_isr > 0 ? pdTRUE : pdFALSE; }

UBaseType_t xPortSetInterruptMaskFromISR(void) { return Mask(); }

void vPortClearInterruptMaskFromISR(UBaseType_t prev_level) { Unmask(prev_level); }

BaseType_t xPortGetCoreID(void) {
  const int core = t_core;
  if (t_migrating && !MaskedByMe()) {
    // Preempted right after reading the core, resumed on the other core
    // (one time in two; xorshift32, seeded per thread).
    uint32_t x = t_migration_rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    t_migration_rng = x;
    if (x & 1) {
      t_core = core ^ 1;
      // It was switched out by a context switch of `core`: resume while
      // one runs there, if that core switches at all (one began in the
      // last ms; wait up to 1 ms).
      const int64_t since = MonotonicUs() - g_last_switch_us[core].load();
      if (since < 1000) {
        const int64_t until = MonotonicUs() + 1000;
        while (!g_switching[core].load() && MonotonicUs() < until) sched_yield();
      }
    }
  }
  return core;
}

BaseType_t xPortEnterCriticalTimeout(portMUX_TYPE* mux, BaseType_t timeout) {
  Mask();
  const uint32_t tag = kCoreTag[t_core];
  uint32_t* owner = const_cast<uint32_t*>(&mux->owner);
  for (;;) {
    uint32_t expected = SPINLOCK_FREE;
    if (__atomic_compare_exchange_n(owner, &expected, tag, false, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED)) {
      break;
    }
    // Held by this core: the holder is this thread (the core is masked).
    if (expected == tag) break;
    if (timeout == SPINLOCK_NO_WAIT) {
      Unmask(g_cores[t_core].depth - 1);
      return pdFAIL;
    }
    sched_yield();
  }
  uint32_t* count = const_cast<uint32_t*>(&mux->count);
  *count = *count + 1;
  return pdPASS;
}

void vPortExitCritical(portMUX_TYPE* mux) {
  const uint32_t tag = kCoreTag[t_core];
  uint32_t* owner = const_cast<uint32_t*>(&mux->owner);
  if (__atomic_load_n(owner, __ATOMIC_RELAXED) != tag) {
    Fatal("portEXIT_CRITICAL on core %d of a spinlock it does not hold", t_core);
  }
  uint32_t* count = const_cast<uint32_t*>(&mux->count);
  *count = *count - 1;
  if (*count == 0) __atomic_store_n(owner, SPINLOCK_FREE, __ATOMIC_RELEASE);
  Unmask(g_cores[t_core].depth - 1);
}

BaseType_t xPortEnterCriticalTimeoutCompliance(portMUX_TYPE* mux, BaseType_t timeout) {
  if (t_isr) Violation("portENTER_CRITICAL() in an ISR (IDF compliance check aborts)");
  return xPortEnterCriticalTimeout(mux, timeout);
}

void vPortExitCriticalCompliance(portMUX_TYPE* mux) {
  if (t_isr) Violation("portEXIT_CRITICAL() in an ISR (IDF compliance check aborts)");
  vPortExitCritical(mux);
}

// ---- task.h -------------------------------------------------------------------

BaseType_t xTaskCreatePinnedToCore(TaskFunction_t pxTaskCode, const char* const pcName,
                                   const uint32_t usStackDepth, void* const pvParameters,
                                   UBaseType_t uxPriority, TaskHandle_t* const pxCreatedTask,
                                   const BaseType_t xCoreID) {
  (void)usStackDepth;
  if (xCoreID != tskNO_AFFINITY && (xCoreID < 0 || xCoreID >= portNUM_PROCESSORS)) return pdFAIL;
  Tcb* t = NewTcb();
  snprintf(t->name, sizeof t->name, "%s", pcName ? pcName : "");
  t->core = xCoreID == tskNO_AFFINITY ? 0 : int(xCoreID);
  t->priority = uxPriority;
  t->fn = pxTaskCode;
  t->arg = pvParameters;
  t->has_thread = true;
  {
    std::lock_guard<std::mutex> lock(g_state);
    g_live.insert(t);
  }
  if (pxCreatedTask) *pxCreatedTask = t;
  if (pthread_create(&t->thread, nullptr, TaskMain, t) != 0) Fatal("pthread_create failed");
  return pdPASS;
}

void vTaskDelete(TaskHandle_t xTaskToDelete) {
  Tcb* self = t_current;
  Tcb* t = xTaskToDelete ? xTaskToDelete : self;
  if (!t) {
    Violation("vTaskDelete(NULL) from a thread that is no task");
    return;
  }
  if (t->is_idle) Fatal("vTaskDelete of an idle task");
  TraceDelete(t);
  if (t == self && !t->is_virtual) {
    // Deleting itself: the idle task of its core frees it (RunIdle).
    if (t_isr || MaskedByMe()) Violation("vTaskDelete(NULL) from an ISR or a critical section");
    {
      std::lock_guard<std::mutex> lock(g_state);
      g_terminating[t->core].push_back(t);
    }
    pthread_exit(nullptr);
  }
  if (t->is_virtual) {
    bool running = false;
    for (int c = 0; c < portNUM_PROCESSORS; ++c) running |= g_current[c].load() == t;
    if (running) {  // as a running task: the idle task frees it
      std::lock_guard<std::mutex> lock(g_state);
      g_terminating[t->core].push_back(t);
      return;
    }
    RunTlsCallbacks(t);  // in the deleting task, as prvDeleteTLS
    FreeTcb(t);
    return;
  }
  // Another task with a thread: it must be blocked (vTaskSuspend(NULL)),
  // which makes it a task that is not running: freed at once, its deletion
  // callbacks run here, in the deleting task.
  fake::WaitSuspended(t);
  RunTlsCallbacks(t);
  FreeTcb(t);
}

void vTaskDelay(const TickType_t xTicksToDelay) {
  if (t_current) ++t_current->delays;
  if (t_isr) {
    Violation("vTaskDelay() in an ISR");
  } else if (MaskedByMe()) {
    Violation("vTaskDelay() with interrupts masked (critical section)");
  } else if (t_idle) {
    Violation("vTaskDelay() in the idle task (it must never block)");
  }
  if (xTicksToDelay == 0) {
    sched_yield();
    return;
  }
  const uint64_t us = uint64_t(xTicksToDelay) * 1000000u / configTICK_RATE_HZ;
  struct timespec ts = {time_t(us / 1000000u), long(us % 1000000u) * 1000};
  nanosleep(&ts, nullptr);
}

void vTaskSuspend(TaskHandle_t xTaskToSuspend) {
  Tcb* t = xTaskToSuspend ? xTaskToSuspend : t_current;
  if (!t || t != t_current || t->is_virtual) Fatal("the fake supports only vTaskSuspend(NULL) in a task");
  if (t_isr || MaskedByMe()) Violation("vTaskSuspend() from an ISR or a critical section");
  std::unique_lock<std::mutex> lock(t->m);
  t->suspended = true;
  t->cv.notify_all();
  t->cv.wait(lock, [t] { return t->killed; });
  lock.unlock();
  pthread_exit(nullptr);
}

UBaseType_t uxTaskPriorityGet(const TaskHandle_t xTask) {
  Tcb* t = xTask ? xTask : xTaskGetCurrentTaskHandle();
  return t ? t->priority : tskIDLE_PRIORITY;
}

void vPortYield(void) {
  if (t_current) ++t_current->yields;
  if (t_isr) {
    Violation("portYIELD() in an ISR (portYIELD_FROM_ISR is the ISR form)");
  } else if (MaskedByMe()) {
    Violation("portYIELD() with interrupts masked (critical section)");
  }
  sched_yield();
}

TaskHandle_t xTaskGetCurrentTaskHandle(void) {
  if (t_isr) {  // the task the interrupt interrupted
    Tcb* c = g_current[t_core].load();
    return c ? c : IdleTcb(t_core);
  }
  if (!t_current) {
    // A thread that is no task (the gtest thread, a helper): it runs as
    // ESP-IDF's "main" task (app_main's, priority 1) of its own.
    t_adopted.reset(new Tcb);
    snprintf(t_adopted->name, sizeof t_adopted->name, "main");
    t_adopted->core = t_core;
    t_adopted->priority = 1;
    t_adopted->is_virtual = true;
    t_current = t_adopted.get();
  }
  return t_current;
}

char* pcTaskGetName(TaskHandle_t xTaskToQuery) {
  Tcb* t = xTaskToQuery ? xTaskToQuery : xTaskGetCurrentTaskHandle();
  return t ? t->name : nullptr;
}

void* pvTaskGetThreadLocalStoragePointer(TaskHandle_t xTaskToQuery, BaseType_t xIndex) {
  Tcb* t = xTaskToQuery ? xTaskToQuery : xTaskGetCurrentTaskHandle();
  if (!t || !ValidIndex(xIndex)) return nullptr;
  return t->tls[xIndex];
}

void vTaskSetThreadLocalStoragePointer(TaskHandle_t xTaskToSet, BaseType_t xIndex, void* pvValue) {
  Tcb* t = xTaskToSet ? xTaskToSet : xTaskGetCurrentTaskHandle();
  if (!t || !ValidIndex(xIndex)) return;
  t->tls[xIndex] = pvValue;
}

#if configTHREAD_LOCAL_STORAGE_DELETE_CALLBACKS
void vTaskSetThreadLocalStoragePointerAndDelCallback(TaskHandle_t xTaskToSet, BaseType_t xIndex,
                                                     void* pvValue,
                                                     TlsDeleteCallbackFunction_t pvDelCallback) {
  Tcb* t = xTaskToSet ? xTaskToSet : xTaskGetCurrentTaskHandle();
  if (!t || !ValidIndex(xIndex)) return;
  t->tls[xIndex] = pvValue;
  t->del[xIndex] = pvDelCallback;
}
#endif

// fake_sched.c: pxCurrentTCB[core] = next, on the switching thread.
void fake_kernel_set_current(TaskHandle_t next) {
  t_current = next;
  t_idle = next && next->is_idle;
  g_current[t_core].store(next);
}

// ---- esp_timer.h, esp_heap_caps.h ----------------------------------------------

int64_t esp_timer_get_time(void) {
  InterruptPoint();
  return MonotonicUs();
}

void* heap_caps_aligned_alloc(size_t alignment, size_t size, uint32_t caps) {
  {
    std::lock_guard<std::mutex> lock(g_state);
    g_last_alloc = fake::AllocRequest{alignment, size, caps};
  }
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
  const size_t rounded = (size + alignment - 1) / alignment * alignment;
  return aligned_alloc(alignment, rounded ? rounded : alignment);
}

void heap_caps_free(void* ptr) { free(ptr); }

// ---- esp_http_server.h -------------------------------------------------------------

esp_err_t httpd_start(httpd_handle_t* handle, const httpd_config_t* config) {
  if (!handle || !config) return ESP_ERR_INVALID_ARG;
  std::lock_guard<std::mutex> lock(g_state);
  if (g_http) {
    // Same port: the listening socket cannot bind. The fake runs one server.
    if (g_http->cfg.server_port == config->server_port) return ESP_ERR_HTTPD_TASK;
    Fatal("the fake runs one HTTP server at a time");
  }
  g_http = new Server{*config, {}, {}, {}, {}};
  ++g_http_starts;
  *handle = g_http;
  return ESP_OK;
}

esp_err_t httpd_stop(httpd_handle_t handle) {
  if (!handle) return ESP_ERR_INVALID_ARG;
  std::lock_guard<std::mutex> lock(g_state);
  if (handle != g_http) Fatal("httpd_stop of an unknown handle");
  delete g_http;
  g_http = nullptr;
  ++g_http_stops;
  return ESP_OK;
}

esp_err_t httpd_register_uri_handler(httpd_handle_t handle, const httpd_uri_t* uri_handler) {
  if (!handle || !uri_handler || !uri_handler->uri) return ESP_ERR_INVALID_ARG;
  std::lock_guard<std::mutex> lock(g_state);
  if (handle != g_http) Fatal("httpd_register_uri_handler on an unknown handle");
  for (const httpd_uri_t& r : g_http->routes) {
    if (strcmp(r.uri, uri_handler->uri) == 0 && r.method == uri_handler->method) {
      return ESP_ERR_HTTPD_HANDLER_EXISTS;
    }
  }
  if (g_http->routes.size() >= g_http->cfg.max_uri_handlers) return ESP_ERR_HTTPD_HANDLERS_FULL;
  g_http->routes.push_back(*uri_handler);
  return ESP_OK;
}

esp_err_t httpd_resp_set_status(httpd_req_t* r, const char* status) {
  ReqState* s = State(r);
  if (!s || !status) return ESP_ERR_INVALID_ARG;
  if (s->headers_out) Violation("httpd_resp_set_status after the headers were sent");
  s->resp->status = status;
  return ESP_OK;
}

esp_err_t httpd_resp_set_type(httpd_req_t* r, const char* type) {
  ReqState* s = State(r);
  if (!s || !type) return ESP_ERR_INVALID_ARG;
  if (s->headers_out) Violation("httpd_resp_set_type after the headers were sent");
  s->resp->type = type;
  return ESP_OK;
}

esp_err_t httpd_resp_set_hdr(httpd_req_t* r, const char* field, const char* value) {
  ReqState* s = State(r);
  if (!s || !field || !value) return ESP_ERR_INVALID_ARG;
  if (s->headers_out) Violation("httpd_resp_set_hdr after the headers were sent");
  if (s->extra.size() >= s->max_headers) return ESP_ERR_HTTPD_BASE + 5;  // ESP_ERR_HTTPD_RESP_HDR
  s->extra.emplace_back(field, value);
  s->resp->headers[field] = value;
  return ESP_OK;
}

esp_err_t httpd_resp_send(httpd_req_t* r, const char* buf, ssize_t buf_len) {
  ReqState* s = State(r);
  if (!s) return ESP_ERR_INVALID_ARG;
  if (s->headers_out) Violation("httpd_resp_send after a response was started");
  const size_t n = buf_len == HTTPD_RESP_USE_STRLEN ? (buf ? strlen(buf) : 0) : size_t(buf_len);
  s->headers_out = true;
  s->resp->body.assign(buf ? buf : "", buf ? n : 0);
  // No body bytes without buf: the head of a HEAD answer.
  if (!SendAllBytes(s, WireHead(s, "Content-Length: " + std::to_string(n)) + s->resp->body)) {
    return ESP_ERR_HTTPD_RESP_SEND;
  }
  s->resp->complete = true;
  return ESP_OK;
}

esp_err_t httpd_resp_send_chunk(httpd_req_t* r, const char* buf, ssize_t buf_len) {
  ReqState* s = State(r);
  if (!s) return ESP_ERR_INVALID_ARG;
  if (s->resp->complete) Violation("httpd_resp_send_chunk after the response was complete");
  if (s->headers_out && !s->resp->chunked) Violation("httpd_resp_send_chunk after httpd_resp_send");
  std::string out;
  if (!s->headers_out) out = WireHead(s, "Transfer-Encoding: chunked");
  s->headers_out = true;
  s->resp->chunked = true;
  const size_t n = buf_len == HTTPD_RESP_USE_STRLEN ? (buf ? strlen(buf) : 0) : size_t(buf_len);
  if (!buf || n == 0) {  // the terminating chunk
    if (!SendAllBytes(s, out + "0\r\n\r\n")) return ESP_ERR_HTTPD_RESP_SEND;
    s->resp->complete = true;
    return ESP_OK;
  }
  char size_line[20];
  snprintf(size_line, sizeof size_line, "%zx\r\n", n);
  if (!SendAllBytes(s, out + size_line + std::string(buf, n) + "\r\n")) return ESP_ERR_HTTPD_RESP_SEND;
  s->resp->body.append(buf, n);
  ++s->resp->chunks;
  return ESP_OK;
}

esp_err_t httpd_register_err_handler(httpd_handle_t handle, httpd_err_code_t error,
                                     httpd_err_handler_func_t handler_fn) {
  if (!handle || error < 0 || error >= HTTPD_ERR_CODE_MAX) return ESP_ERR_INVALID_ARG;
  std::lock_guard<std::mutex> lock(g_state);
  if (handle != g_http) Fatal("httpd_register_err_handler on an unknown handle");
  g_http->err_handlers[error] = handler_fn;
  return ESP_OK;
}

// httpd_txrx.c's statuses and messages.
esp_err_t httpd_resp_send_err(httpd_req_t* req, httpd_err_code_t error, const char* msg) {
  static const struct {
    httpd_err_code_t error;
    const char* status;
    const char* msg;
  } kErrors[] = {
      {HTTPD_501_METHOD_NOT_IMPLEMENTED, "501 Method Not Implemented", "Server does not support this method"},
      {HTTPD_505_VERSION_NOT_SUPPORTED, "505 Version Not Supported", "HTTP version not supported by server"},
      {HTTPD_400_BAD_REQUEST, "400 Bad Request", "Bad request syntax"},
      {HTTPD_404_NOT_FOUND, "404 Not Found", "Nothing matches the given URI"},
      {HTTPD_405_METHOD_NOT_ALLOWED, "405 Method Not Allowed", "Specified method is invalid for this resource"},
      {HTTPD_408_REQ_TIMEOUT, "408 Request Timeout", "Server closed this connection"},
      {HTTPD_414_URI_TOO_LONG, "414 URI Too Long", "URI is too long"},
      {HTTPD_431_REQ_HDR_FIELDS_TOO_LARGE, "431 Request Header Fields Too Large", "Header fields are too long"},
  };
  const char* status = "500 Internal Server Error";
  const char* text = "Server has encountered an unexpected error";
  for (const auto& e : kErrors) {
    if (e.error == error) {
      status = e.status;
      text = e.msg;
    }
  }
  httpd_resp_set_status(req, status);
  httpd_resp_set_type(req, HTTPD_TYPE_TEXT);
  return httpd_resp_send(req, msg ? msg : text, HTTPD_RESP_USE_STRLEN);
}

int httpd_send(httpd_req_t* r, const char* buf, size_t buf_len) {
  ReqState* s = State(r);
  if (!s || !buf) return HTTPD_SOCK_ERR_INVALID;
  s->headers_out = true;
  return SendOnce(s, buf, buf_len);
}

int httpd_req_to_sockfd(httpd_req_t* r) {
  ReqState* s = State(r);
  return s ? s->fd : -1;
}

esp_err_t httpd_sess_trigger_close(httpd_handle_t handle, int sockfd) {
  if (!handle) return ESP_ERR_INVALID_ARG;
  std::lock_guard<std::mutex> lock(g_state);
  if (handle != g_http) Fatal("httpd_sess_trigger_close on an unknown handle");
  if (!g_http->sessions.count(sockfd)) return ESP_ERR_NOT_FOUND;
  g_http->closing.insert(sockfd);
  return ESP_OK;
}

}  // extern "C"

// ---- fake.h -------------------------------------------------------------------------

namespace fake {

void SetThreadCore(int core) {
  if (core < 0 || core >= portNUM_PROCESSORS) Fatal("no core %d", core);
  if (MaskedByMe()) Fatal("SetThreadCore with interrupts masked");
  t_core = core;
}

IsrScope::IsrScope(int core) : saved_core_(t_core) {
  if (core < 0 || core >= portNUM_PROCESSORS) Fatal("no core %d", core);
  if (MaskedByMe()) Fatal("IsrScope inside a masked section of the same thread");
  t_core = core;
  saved_level_ = LockCore();  // the core runs the ISR: its tasks are held off
  ++t_isr;
}

IsrScope::~IsrScope() {
  --t_isr;
  UnlockCore(saved_level_);
  t_core = saved_core_;
}

void SetMigrating(bool on) { t_migrating = on; }

NestedInterrupts::NestedInterrupts(void (*handler)(void*), void* arg)
    : thread_(pthread_self()), pending_(&t_nested_pending) {
  if (t_isr == 0) Fatal("NestedInterrupts outside an ISR");
  if (t_masks != 0) Fatal("NestedInterrupts with interrupts masked");
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = OnNestedInterrupt;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, nullptr);
  });
  t_nested_pending = false;
  t_nested_arg = arg;
  t_nested_fn = handler;
}

NestedInterrupts::~NestedInterrupts() {
  const sigset_t set = NestedSignalSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  t_nested_fn = nullptr;
  t_nested_arg = nullptr;
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void NestedInterrupts::Raise() const {
  pending_->store(true);
  pthread_kill(thread_, SIGUSR1);
}

TaskHandle_t CreateVirtualTask(const char* name, int core) {
  if (core < 0 || core >= portNUM_PROCESSORS) Fatal("no core %d", core);
  Tcb* t = NewTcb();
  snprintf(t->name, sizeof t->name, "%s", name);
  t->core = core;
  t->priority = 1;
  t->is_virtual = true;
  std::lock_guard<std::mutex> lock(g_state);
  g_live.insert(t);
  return t;
}

void SwitchContext(int core, TaskHandle_t next, bool from_isr) {
  if (core < 0 || core >= portNUM_PROCESSORS) Fatal("no core %d", core);
  if (MaskedByMe()) Fatal("SwitchContext with interrupts masked");
  t_core = core;
  const UBaseType_t level = Mask();  // the kernel switches with interrupts masked
  if (from_isr) ++t_isr;
  g_last_switch_us[core].store(MonotonicUs());
  g_switching[core].store(true);
  fake_vTaskSwitchContext(next);
  g_switching[core].store(false);
  if (from_isr) --t_isr;
  Unmask(level);
}

int RunIdle(int core) {
  if (core < 0 || core >= portNUM_PROCESSORS) Fatal("no core %d", core);
  std::vector<Tcb*> list;
  {
    std::lock_guard<std::mutex> lock(g_state);
    list.swap(g_terminating[core]);
  }
  Tcb* const saved_current = t_current;
  const int saved_core = t_core;
  const bool saved_idle = t_idle;
  t_current = IdleTcb(core);
  t_core = core;
  t_idle = true;
  for (Tcb* t : list) {
    if (t->has_thread) {  // it ran to pthread_exit in vTaskDelete(NULL)
      pthread_join(t->thread, nullptr);
      t->has_thread = false;
    }
    RunTlsCallbacks(t);
    FreeTcb(t);
  }
  t_current = saved_current;
  t_core = saved_core;
  t_idle = saved_idle;
  return int(list.size());
}

TaskHandle_t IdleTask(int core) { return IdleTcb(core); }

void WaitSuspended(TaskHandle_t task) {
  std::unique_lock<std::mutex> lock(task->m);
  if (!task->cv.wait_for(lock, std::chrono::seconds(10), [task] { return task->suspended; })) {
    Fatal("task \"%s\" did not block in vTaskSuspend(NULL) within 10 s", task->name);
  }
}

void WaitSelfDeleted(TaskHandle_t task) {
  for (int ms = 0; ms < 10000; ++ms) {
    {
      std::lock_guard<std::mutex> lock(g_state);
      for (const std::vector<Tcb*>& list : g_terminating) {
        for (const Tcb* t : list) {
          if (t == task) return;
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  Fatal("task \"%s\" did not delete itself within 10 s", task->name);
}

int DelayCount(TaskHandle_t task) { return task->delays.load(); }
int YieldCount(TaskHandle_t task) { return task->yields.load(); }

int LiveTasks() {
  std::lock_guard<std::mutex> lock(g_state);
  return int(g_live.size());
}

std::vector<std::string> Violations() {
  std::lock_guard<std::mutex> lock(g_state);
  return g_violations;
}

void ClearViolations() {
  std::lock_guard<std::mutex> lock(g_state);
  g_violations.clear();
}

AllocRequest LastAlloc() {
  std::lock_guard<std::mutex> lock(g_state);
  return g_last_alloc;
}

bool HttpRunning() {
  std::lock_guard<std::mutex> lock(g_state);
  return g_http != nullptr;
}

httpd_config_t HttpConfig() {
  std::lock_guard<std::mutex> lock(g_state);
  if (!g_http) Fatal("HttpConfig: no server");
  return g_http->cfg;
}

int HttpStarts() {
  std::lock_guard<std::mutex> lock(g_state);
  return g_http_starts;
}

int HttpStops() {
  std::lock_guard<std::mutex> lock(g_state);
  return g_http_stops;
}

std::vector<std::string> HttpRoutes() {
  std::lock_guard<std::mutex> lock(g_state);
  std::vector<std::string> out;
  if (g_http) {
    for (const httpd_uri_t& r : g_http->routes) {
      const char* method = r.method == HTTP_GET ? "GET " : r.method == HTTP_HEAD ? "HEAD " : "? ";
      out.push_back(method + std::string(r.uri));
    }
  }
  return out;
}

std::vector<httpd_err_code_t> HttpErrorHandlers() {
  std::lock_guard<std::mutex> lock(g_state);
  std::vector<httpd_err_code_t> out;
  if (g_http) {
    for (int e = 0; e < HTTPD_ERR_CODE_MAX; ++e) {
      if (g_http->err_handlers[e]) out.push_back(httpd_err_code_t(e));
    }
  }
  return out;
}

namespace {

// One request on the running server: `route` found by the dispatcher, or
// none and `error` (httpd_uri.c, httpd_req_handle_err), on a new
// connection: a stream socket pair whose server end is set up as
// httpd_accept_conn() sets up an accepted socket (send_wait_timeout as
// SO_SNDTIMEO) with lwIP's default send buffer, and whose client end
// `client` reads on its own thread while the handler runs.
HttpResponse Dispatch(int method, const char* uri, const httpd_uri_t* route, httpd_err_code_t error,
                      const HttpClient& client) {
  HttpResponse resp;
  httpd_err_handler_func_t err_handler = nullptr;
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) Fatal("socketpair: %s", strerror(errno));
  ReqState state{&resp, fds[0], 0, {}, false};
  httpd_req_t req{};
  {
    std::lock_guard<std::mutex> lock(g_state);
    if (!g_http) Fatal("HttpRequest: no server");
    state.max_headers = g_http->cfg.max_resp_headers;
    err_handler = g_http->err_handlers[error];
    req.handle = g_http;
    timeval wait{};
    wait.tv_sec = g_http->cfg.send_wait_timeout;
    setsockopt(fds[0], SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait);
    // CONFIG_LWIP_TCP_SND_BUF_DEFAULT: what lwIP queues for a slow reader.
    const int sndbuf = 5760;
    setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    g_http->sessions.insert(fds[0]);
  }
  std::string wire;
  std::thread reader([&] { client(fds[1], &wire); });
  snprintf(const_cast<char*>(req.uri), sizeof req.uri, "%s", uri);
  req.method = method;
  req.aux = &state;
  if (route) {
    req.user_ctx = route->user_ctx;
    resp.handled = true;
    resp.handler_result = route->handler(&req);
  } else if (err_handler) {
    resp.handled = true;
    resp.handler_result = err_handler(&req, error);
    if (error == HTTPD_500_INTERNAL_SERVER_ERROR) resp.handler_result = ESP_FAIL;
  } else {
    httpd_resp_send_err(&req, error, nullptr);
    resp.handler_result = ESP_FAIL;
  }
  {
    std::lock_guard<std::mutex> lock(g_state);
    if (g_http) {
      resp.session_closed = resp.handler_result != ESP_OK || g_http->closing.count(fds[0]) != 0;
      g_http->sessions.erase(fds[0]);
      g_http->closing.erase(fds[0]);
    }
  }
  // The exchange ends here also for a session kept open (the fake serves
  // one request per connection): the client reads to the end.
  close(fds[0]);
  reader.join();
  close(fds[1]);
  resp.wire = std::move(wire);
  return resp;
}

}  // namespace

void ReadAll(int fd, std::string* wire) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      wire->append(buf, size_t(n));
    } else if (n == 0 || errno != EINTR) {
      return;
    }
  }
}

HttpResponse HttpRequest(int method, const char* uri, const HttpClient& client) {
  // The handler search of httpd_uri.c, on the path (the target up to '?').
  const size_t path_len = strcspn(uri, "?");
  httpd_uri_t route{};
  httpd_err_code_t error = HTTPD_404_NOT_FOUND;
  {
    std::lock_guard<std::mutex> lock(g_state);
    if (!g_http) Fatal("HttpRequest: no server");
    for (const httpd_uri_t& r : g_http->routes) {
      const bool match = g_http->cfg.uri_match_fn
                             ? g_http->cfg.uri_match_fn(r.uri, uri, path_len)
                             : strlen(r.uri) == path_len && strncmp(r.uri, uri, path_len) == 0;
      if (!match) continue;
      if (r.method == method) {
        route = r;
        break;
      }
      error = HTTPD_405_METHOD_NOT_ALLOWED;
    }
  }
  return Dispatch(method, uri, route.handler ? &route : nullptr, error, client);
}

HttpResponse HttpGet(const char* uri, const HttpClient& client) { return HttpRequest(HTTP_GET, uri, client); }

HttpResponse HttpRefuse(httpd_err_code_t error) { return Dispatch(HTTP_GET, "", nullptr, error, ReadAll); }

}  // namespace fake
