// SPDX-License-Identifier: MIT
// Host port (Linux; macOS where noted): threads, names, memory.
// Host only: the Arduino IDE and PlatformIO compile every source under src/
// for whatever board they target (src/mabutrace_port_inline.h picks the port).
#if (defined(__linux__) || defined(__APPLE__)) && !defined(ARDUINO) && !defined(ESP_PLATFORM)

#include "port.h"

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "mabutrace/mabutrace.h"

extern "C" char* program_invocation_short_name;  // glibc, set from argv[0]

namespace mabutrace::port {

uint64_t ClockHz() { return 1000000000u; }

// ---- clocks (mabutrace_port_inline.h) -------------------------------------
namespace {

// Written by SelectClock (init, under the lifecycle lock), read by
// SampleClocks (exports and flushes, which run inside a session).
std::atomic<bool> g_counter_chosen{false};
uint64_t g_counter_hz = 0;  // measured once per process, 0 until then

uint64_t BoottimeNs() {
#if defined(CLOCK_BOOTTIME)
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
#else
  return MonotonicNs();  // macOS: no suspend-aware monotonic clock here
#endif
}

#if defined(MABUTRACE_HOST_HAS_COUNTER)
// Whether the counter is one clock for all cores that never stops or
// changes rate. x86-64: CPUID 0x80000007 EDX bit 8 (invariant TSC); and, on
// Linux, the kernel must still list "tsc" as a clocksource (it drops it
// when it finds the TSCs of the cores out of step). AArch64: CNTVCT_EL0 is
// the architected system counter, common to all cores by definition.
bool CounterUsable() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  __cpuid(0x80000007u, a, b, c, d);
  if ((d & (1u << 8)) == 0) return false;
#if defined(__linux__)
  if (FILE* f = fopen("/sys/devices/system/clocksource/clocksource0/available_clocksource", "r")) {
    char buf[256] = {};
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (n > 0 && !strstr(buf, "tsc")) return false;
  }
#endif
  return true;
#else
  return true;
#endif
}

// The counter's ticks per second. AArch64: CNTFRQ_EL0. x86-64: CPUID leaf
// 0x15 (TSC/crystal ratio) when it gives the crystal, else measured against
// CLOCK_MONOTONIC over 5 ms. The export-time samples (SampleClocks) fix the
// rate over the whole run; this value serves sources without them.
uint64_t MeasureCounterHz() {
#if defined(__aarch64__)
  uint64_t f;
  __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
  if (f != 0) return f;
#else
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) >= 0x15u) {
    __cpuid(0x15u, a, b, c, d);
    if (a != 0 && b != 0 && c != 0) return uint64_t(c) * b / a;
  }
#endif
  uint64_t t0, m0, b0, t1, m1, b1;
  SampleClocks(&t0, &m0, &b0);
  do {
    SampleClocks(&t1, &m1, &b1);
  } while (m1 - m0 < 5000000u);
  const unsigned __int128 hz = (unsigned __int128)(t1 - t0) * 1000000000u / (m1 - m0);
  return hz == 0 ? 1 : uint64_t(hz);
}

// MABUTRACE_CLOCK=tsc|counter|cntvct (the counter) or monotonic.
uint32_t ClockFromEnvironment() {
  const char* v = getenv("MABUTRACE_CLOCK");
  if (!v) return MABUTRACE_CLOCK_AUTO;
  if (!strcmp(v, "tsc") || !strcmp(v, "counter") || !strcmp(v, "cntvct")) return MABUTRACE_CLOCK_COUNTER;
  if (!strcmp(v, "monotonic")) return MABUTRACE_CLOCK_MONOTONIC;
  return MABUTRACE_CLOCK_AUTO;
}

uint64_t MonotonicClock() { return MonotonicNs(); }
#endif

}  // namespace

uint32_t SelectClock(uint32_t requested, uint64_t (**fn)(void), uint64_t* hz) {
#if defined(MABUTRACE_HOST_HAS_COUNTER)
  if (requested == MABUTRACE_CLOCK_AUTO) requested = ClockFromEnvironment();
  if (requested != MABUTRACE_CLOCK_MONOTONIC && CounterUsable()) {
    g_counter_chosen.store(true, std::memory_order_release);
    if (g_counter_hz == 0) g_counter_hz = MeasureCounterHz();
    *fn = nullptr;
    *hz = g_counter_hz;
    return MABUTRACE_CLOCK_COUNTER;
  }
  g_counter_chosen.store(false, std::memory_order_release);
  *fn = &MonotonicClock;
#else
  (void)requested;
  *fn = nullptr;  // NowTicks() is CLOCK_MONOTONIC
#endif
  *hz = 1000000000u;
  return MABUTRACE_CLOCK_MONOTONIC;
}

bool SampleClocks(uint64_t* ticks, uint64_t* monotonic_ns, uint64_t* boottime_ns) {
  // BOOTTIME read on both sides of the pair, the counter on both sides of
  // CLOCK_MONOTONIC; of three tries the tightest is kept (an interrupt
  // inside one would widen it).
  uint64_t best = UINT64_MAX;
  const bool counter = g_counter_chosen.load(std::memory_order_acquire);
  for (int i = 0; i < 3; ++i) {
    const uint64_t b0 = BoottimeNs();
    const uint64_t t0 = counter ? NowTicks() : 0;
    const uint64_t m = MonotonicNs();
    const uint64_t t1 = counter ? NowTicks() : 0;
    const uint64_t b1 = BoottimeNs();
    if (b1 - b0 >= best) continue;
    best = b1 - b0;
    *ticks = counter ? t0 + (t1 - t0) / 2 : m;
    *monotonic_ns = m;
    // BOOTTIME never runs behind MONOTONIC (it adds the time asleep); the
    // midpoint estimate could, by a few ns.
    *boottime_ns = std::max(b0 + (b1 - b0) / 2, m);
  }
  return true;
}

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
