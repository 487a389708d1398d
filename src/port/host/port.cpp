// Host port (Linux; macOS where noted): threads, names, memory.
// Host only: the Arduino IDE and PlatformIO compile every source under src/
// for whatever board they target (src/mabutrace_port_inline.h picks the port).
#if (defined(__linux__) || defined(__APPLE__)) && !defined(ARDUINO) && !defined(ESP_PLATFORM)

#include "port.h"

#include <pthread.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <atomic>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

extern "C" char* program_invocation_short_name;  // glibc, set from argv[0]

namespace mabutrace::port {

uint64_t ClockHz() { return 1000000000u; }

uint32_t CurrentThreadId() {
#if defined(__linux__)
  return uint32_t(syscall(SYS_gettid));
#else
  uint64_t id = 0;
  pthread_threadid_np(nullptr, &id);  // macOS
  return uint32_t(id);
#endif
}

void CurrentThreadName(char* buf, size_t len) {
  if (len == 0) return;
  buf[0] = '\0';
  if (pthread_getname_np(pthread_self(), buf, len) != 0) buf[0] = '\0';
}

uint32_t ProcessId() { return uint32_t(getpid()); }

void ProcessName(char* buf, size_t len) {
  if (len == 0) return;
#if defined(__GLIBC__)
  const char* name = program_invocation_short_name;
#else
  const char* name = getprogname();
#endif
  strncpy(buf, name ? name : "process", len - 1);
  buf[len - 1] = '\0';
}

void* Allocate(size_t bytes) {
  void* p = nullptr;
  return posix_memalign(&p, 64, bytes) == 0 ? p : nullptr;
}

void Free(void* p) { free(p); }

namespace {
pthread_key_t g_exit_key;
pthread_once_t g_exit_once = PTHREAD_ONCE_INIT;
// Written by each thread's first Attach, read by any thread at exit.
std::atomic<void (*)(void*)> g_exit_fn{nullptr};

void RunExitHook(void* arg) {
  if (auto fn = g_exit_fn.load(std::memory_order_acquire); fn && arg) fn(arg);
}
void MakeExitKey() { pthread_key_create(&g_exit_key, RunExitHook); }
}  // namespace

bool AtThreadExit(void (*fn)(void*), void* arg) {
  pthread_once(&g_exit_once, MakeExitKey);
  g_exit_fn.store(fn, std::memory_order_release);  // one hook for the whole runtime
  return pthread_setspecific(g_exit_key, arg) == 0;
}

}  // namespace mabutrace::port

#endif  // host
