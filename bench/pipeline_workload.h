// SPDX-License-Identifier: MIT
// pipeline_workload.h: the recorded input of the host benchmarks (the
// pipeline demo's mix): a producer thread and a worker thread, nested
// colored scopes, instants, counters and a flow per item from one to the
// other. The caller has initialized the runtime and set its output
// callback; this flushes as it goes, so nothing is lost.
#ifndef MABUTRACE_BENCH_PIPELINE_WORKLOAD_H
#define MABUTRACE_BENCH_PIPELINE_WORKLOAD_H

#include <atomic>
#include <cstdint>
#include <thread>

#include "mabutrace/mabutrace.h"

namespace mabutrace::bench {

inline void RecordPipelineWorkload(int items) {
  std::atomic<uint32_t> links[64] = {};
  std::atomic<int> produced{0}, consumed{0};
  std::thread worker([&] {
    mabutrace_set_thread_name("worker");
    for (int i = 0; i < items; ++i) {
      while (produced.load(std::memory_order_acquire) <= i) std::this_thread::yield();
      TRACE_SCOPE("process_item", COLOR_BLUE);
      TRACE_FLOW_IN(uint16_t(links[i % 64].load()));
      {
        TRACE_SCOPE("parse");
        TRACE_COUNTER("queue_depth", produced.load() - i);
      }
      { TRACE_SCOPE("compute", 0x8e24aa); }
      if (i % 16 == 0) TRACE_INSTANT("checkpoint", COLOR_GREEN);
      consumed.store(i + 1, std::memory_order_release);
    }
  });
  mabutrace_set_thread_name("producer");
  for (int i = 0; i < items; ++i) {
    // Never more than 60 items ahead: a link slot is not reused before the
    // worker took its link.
    while (i - consumed.load(std::memory_order_acquire) >= 60) std::this_thread::yield();
    {
      TRACE_SCOPE("produce", COLOR_ORANGE);
      uint16_t link = 0;
      TRACE_FLOW_OUT(&link, "sample");
      links[i % 64].store(link);
      TRACE_COUNTER("produced", i);
    }
    produced.store(i + 1, std::memory_order_release);
    if (i % 4096 == 0) mabutrace_flush_output();
  }
  worker.join();
  mabutrace_flush_output();
}

}  // namespace mabutrace::bench

#endif  // MABUTRACE_BENCH_PIPELINE_WORKLOAD_H
