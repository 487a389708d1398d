// SPDX-License-Identifier: MIT
// monitor.cpp: the health task of seed 000 §2.4: samples a few numbers
// every 100 ms onto counter tracks.
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "counter_log.h"
#include "pipeline.h"
#include "thread_util.h"

namespace {

constexpr int64_t kPeriodNs = 100000000;  // 100 ms

// Resident set size from /proc/self/statm (second field, in pages); -1 if
// unavailable. Plain read(2): no stdio buffer to allocate every 100 ms.
int64_t ResidentKib() {
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[128];
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0;
  if (sscanf(buf, "%llu %llu", &size, &resident) != 2) return -1;
  return int64_t(resident) * (sysconf(_SC_PAGESIZE) / 1024);
}

}  // namespace

void RunMonitor(Pipeline& p) {
  NameThisThread("monitor");
  Ticker tick(kPeriodNs);
  while (p.running.load(std::memory_order_relaxed)) {
    tick.Wait();
    RecordCounter("queue_length", int64_t(p.samples.size()));
    const int64_t rss = ResidentKib();
    if (rss >= 0) RecordCounter("process_rss_kib", rss);
    RecordCounter("dropped_samples", int64_t(p.dropped.load(std::memory_order_relaxed)));
  }
}
