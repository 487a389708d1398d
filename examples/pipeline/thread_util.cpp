// SPDX-License-Identifier: MIT
#include "thread_util.h"

#include <errno.h>
#include <pthread.h>

#include "mabutrace/mabutrace.h"

namespace {
thread_local const char* t_name = "?";

constexpr int64_t kNsPerSec = 1000000000;
// More than this many periods late: resynchronise rather than burst.
constexpr int64_t kMaxCatchUpTicks = 50;

int64_t ToNs(const timespec& t) { return int64_t(t.tv_sec) * kNsPerSec + t.tv_nsec; }
timespec FromNs(int64_t ns) { return timespec{time_t(ns / kNsPerSec), long(ns % kNsPerSec)}; }
int64_t NowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return ToNs(t);
}
}  // namespace

int64_t MonotonicNs() { return NowNs(); }

void NameThisThread(const char* name) {
  t_name = name;
  pthread_setname_np(pthread_self(), name);
  // Explicit, so the trace shows this name even if the OS one differs.
  mabutrace_set_thread_name(name);
}

const char* ThisThreadName() { return t_name; }

void SleepNs(int64_t ns) {
  timespec left = FromNs(ns);
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

Ticker::Ticker(int64_t period_ns) : period_ns_(period_ns), next_(FromNs(NowNs())) {}

uint64_t Ticker::Wait() {
  int64_t next = ToNs(next_) + period_ns_;
  uint64_t skipped = 0;
  const int64_t now = NowNs();
  if (now - next > kMaxCatchUpTicks * period_ns_) {
    skipped = uint64_t((now - next) / period_ns_);
    next += int64_t(skipped) * period_ns_;
  }
  next_ = FromNs(next);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next_, nullptr) == EINTR) {
  }
  return skipped;
}
