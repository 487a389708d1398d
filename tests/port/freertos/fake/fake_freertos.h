// SPDX-License-Identifier: MIT
// fake_freertos.h: the test side of the FAKE FreeRTOS / ESP-IDF
// (tests/port/freertos). Not an ESP-IDF header: it drives what a real system
// does by itself -- interrupts, the scheduler's context switches, the idle
// task's clean-up of deleted tasks, a task migrating between cores -- and
// records what the kernel would have refused (rule violations).
//
// Model (fake_freertos.cpp):
// - a thread runs "on" a simulated core (xPortGetCoreID()); a task created
//   with xTaskCreatePinnedToCore() is a pthread on its core; other threads
//   (the gtest thread, interrupt sources) are on core 0 unless SetThreadCore,
//   and run as a task named "main" (ESP-IDF's app_main task) of their own
//   if they ask for the current task;
// - masking interrupts on a core takes that core's recursive lock; several
//   task threads may run on one core at once (a superset of the
//   interleavings real preemption allows), but never inside a masked
//   section of that core;
// - an ISR (IsrScope) holds its core's lock while it runs (the core's
//   tasks wait) and xPortInIsrContext() is pdTRUE in it; a higher-priority
//   interrupt nests in it (NestedInterrupts: a signal the ISR thread blocks
//   while it has interrupts masked);
// - the kernel's trace hooks run in SwitchContext(), compiled in C with
//   mabutrace_freertos_hooks.h force-included, as ESP-IDF's build would.
#ifndef MABUTRACE_TESTS_FAKE_FREERTOS_H
#define MABUTRACE_TESTS_FAKE_FREERTOS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "esp_http_server.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"

namespace fake {

// ---- threads, cores, interrupts ----------------------------------------------
// The simulated core of the calling thread (not a task thread).
void SetThreadCore(int core);

// While alive, the calling thread is an interrupt handler on `core`: that
// core is masked (tasks of the core cannot enter a critical section) and
// xPortInIsrContext() returns pdTRUE. One IsrScope per core at a time (real
// interrupts nest last-in-first-out on their core).
class IsrScope {
 public:
  explicit IsrScope(int core);
  ~IsrScope();
  IsrScope(const IsrScope&) = delete;
  IsrScope& operator=(const IsrScope&) = delete;

 private:
  int saved_core_;
  UBaseType_t saved_level_;
};

// Higher-priority interrupts nesting in the calling thread's ISR: while
// alive, Raise() (from another thread) makes `handler(arg)` run on this
// thread wherever it is -- in ISR context, nested last-in-first-out as on a
// real core -- except while it has interrupts masked
// (portSET_INTERRUPT_MASK_FROM_ISR, critical sections), which defer it.
// (A POSIX signal: SIGUSR1, blocked while masked; and, deterministically,
// at the recorder's clock read, esp_timer_get_time(), when not masked.)
// Create it inside an IsrScope; stop raising before it is destroyed.
class NestedInterrupts {
 public:
  NestedInterrupts(void (*handler)(void*), void* arg);
  ~NestedInterrupts();
  NestedInterrupts(const NestedInterrupts&) = delete;
  NestedInterrupts& operator=(const NestedInterrupts&) = delete;
  void Raise() const;

 private:
  pthread_t thread_;
  std::atomic<bool>* pending_;
};

// The calling task migrates: an xPortGetCoreID() it makes outside a masked
// section returns its core and then, one time in two, moves it to the
// other core (as if it had been preempted right after reading it and
// resumed on the other core while the first one was still switching
// context: it waits up to ~2 ms for a SwitchContext there). Off by default.
void SetMigrating(bool on);

// ---- the scheduler ----------------------------------------------------------------
// A task without a thread (priority 1), for the scheduler simulation: it
// runs on the thread that switches to it (SwitchContext).
TaskHandle_t CreateVirtualTask(const char* name, int core);

// As vTaskSwitchContext() on `core`, run by the calling thread: with that
// core masked (and in ISR context when `from_isr`: a switch at the end of
// the tick interrupt), calls traceTASK_SWITCHED_OUT(), makes `next` the
// core's current task (and the calling thread's), calls
// traceTASK_SWITCHED_IN(). The calling thread then runs as `next`.
void SwitchContext(int core, TaskHandle_t next, bool from_isr);

// The idle task of `core`: frees the tasks of that core that deleted
// themselves -- joins their threads, runs their TLS deletion callbacks (in
// the calling thread, which acts as the idle task meanwhile), frees their
// TCBs. Returns how many.
int RunIdle(int core);
TaskHandle_t IdleTask(int core);

// Blocks until `task` is blocked in vTaskSuspend(NULL).
void WaitSuspended(TaskHandle_t task);
// Blocks until `task` has deleted itself (it waits for the idle task).
void WaitSelfDeleted(TaskHandle_t task);

// vTaskDelay() / portYIELD() calls the task made so far.
int DelayCount(TaskHandle_t task);
int YieldCount(TaskHandle_t task);

// Tasks created and not yet freed (idle tasks not counted).
int LiveTasks();

// ---- rule checks ----------------------------------------------------------------
// What a real kernel would have refused (asserted, crashed or deadlocked
// on): vTaskDelay() from an ISR, with interrupts masked or from the idle
// task; portYIELD() from an ISR or with interrupts masked;
// portENTER_CRITICAL() from an ISR. Each is recorded with a description;
// the tests check the list is empty.
std::vector<std::string> Violations();
void ClearViolations();

// ---- memory -----------------------------------------------------------------------
struct AllocRequest {
  size_t alignment = 0;
  size_t size = 0;
  uint32_t caps = 0;
};
AllocRequest LastAlloc();

// ---- esp_http_server ---------------------------------------------------------------
struct HttpResponse {
  bool handled = false;            // a registered handler or error handler ran
  esp_err_t handler_result = ESP_OK;  // ESP_OK keeps the connection open
  // What the httpd_resp_* calls set (nothing of what httpd_send sent):
  std::string status = "200 OK";   // httpd's default
  std::string type = "text/html";  // httpd's default
  std::map<std::string, std::string> headers;
  std::string body;
  bool chunked = false;   // sent with httpd_resp_send_chunk
  bool complete = false;  // whole response, or the terminating chunk sent
  int chunks = 0;         // non-empty chunks
  // The session is closed after the handler: it failed, or it called
  // httpd_sess_trigger_close on its socket.
  bool session_closed = false;
  std::string wire;  // every byte the client read, as esp_http_server sent it
};
bool HttpRunning();
httpd_config_t HttpConfig();      // of the running server
int HttpStarts();                 // httpd_start calls that succeeded
int HttpStops();                  // httpd_stop calls
std::vector<std::string> HttpRoutes();  // "GET <uri>" for each handler
std::vector<httpd_err_code_t> HttpErrorHandlers();  // codes with a handler
// The client of one request: reads its end `fd` of the connection (a
// stream socket) at its own pace on its own thread, appending what it read
// to *wire, and returns once it is done; shutdown(fd, SHUT_RDWR) is a
// client that goes away (the server's next send fails). The fake closes fd.
using HttpClient = std::function<void(int fd, std::string* wire)>;
// Reads until the server ends the exchange (EOF).
void ReadAll(int fd, std::string* wire);
// A request that esp_http_server parsed: `method` (http_parser's number) of
// the request-target `uri`, dispatched as httpd_uri.c dispatches it, on a
// connection of its own that `client` reads. The fake serves one request
// per connection and then closes its end (session_closed says whether
// esp_http_server would have).
HttpResponse HttpRequest(int method, const char* uri, const HttpClient& client = ReadAll);
HttpResponse HttpGet(const char* uri, const HttpClient& client = ReadAll);  // HttpRequest(HTTP_GET, ...)
// A request esp_http_server's parser refused with `error` (a URI or header
// section too long, a timeout, ...): its error handler, or the default answer.
HttpResponse HttpRefuse(httpd_err_code_t error);

}  // namespace fake

#endif  // MABUTRACE_TESTS_FAKE_FREERTOS_H
