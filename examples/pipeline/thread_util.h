// SPDX-License-Identifier: MIT
// thread_util.h: thread names and periodic wake-ups for the demo threads.
#ifndef PIPELINE_THREAD_UTIL_H
#define PIPELINE_THREAD_UTIL_H

#include <stdint.h>
#include <time.h>

// Names the calling thread for the OS (top, gdb) and for the trace, and
// remembers it for the counter log. `name` must be static (<= 15 chars).
void NameThisThread(const char* name);
// The name given to NameThisThread, or "?" .
const char* ThisThreadName();

// CLOCK_MONOTONIC now, ns (the demo's own clock, beside the trace's).
int64_t MonotonicNs();

// Sleeps for ns (relative; restarts after EINTR).
void SleepNs(int64_t ns);

// Wakes at absolute CLOCK_MONOTONIC deadlines start + k * period, so the
// rate does not drift with the time spent between waits. A thread that
// falls far behind (stopped, starved) skips the missed ticks instead of
// firing them all at once.
class Ticker {
 public:
  explicit Ticker(int64_t period_ns);
  // Waits for the next deadline; returns how many ticks were skipped.
  uint64_t Wait();

 private:
  int64_t period_ns_;
  struct timespec next_;
};

#endif  // PIPELINE_THREAD_UTIL_H
