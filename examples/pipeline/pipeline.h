// SPDX-License-Identifier: MIT
// pipeline.h: what the demo's threads share, and their entry points.
//
//   timer_isr --Sample (flow "sample_ready")--> worker
//   worker    --Batch  (flow "forward")-------> uploader
//   monitor   reads queue length, RSS and drops every 100 ms
//
// The link fields travel with the data, as in seed 000's queue_msg_t: that
// is how the consumer finds the producer's arrow.
#ifndef PIPELINE_PIPELINE_H
#define PIPELINE_PIPELINE_H

#include <stdint.h>

#include <atomic>
#include <vector>

#include "bounded_queue.h"

struct Sample {
  uint32_t seq = 0;    // 1, 2, ... in timer order
  int32_t raw = 0;     // 12-bit ADC code
  uint16_t link = 0;   // flow link from TRACE_FLOW_OUT
  int64_t out_ns = 0;  // CLOCK_MONOTONIC right after TRACE_FLOW_OUT
};

constexpr int kBatchSize = 10;

struct Batch {
  uint32_t first_seq = 0;
  int32_t millivolts[kBatchSize] = {};
  uint16_t link = 0;
};

constexpr size_t kSampleQueueCapacity = 16;
constexpr size_t kBatchQueueCapacity = 8;

struct Pipeline {
  BoundedQueue<Sample> samples{kSampleQueueCapacity};
  BoundedQueue<Batch> batches{kBatchQueueCapacity};
  std::atomic<bool> running{true};  // false: the timer and monitor stop

  // Written by one thread each, read by the monitor and the final summary.
  std::atomic<uint64_t> produced{0};
  std::atomic<uint64_t> dropped{0};
  std::atomic<uint64_t> processed{0};
  std::atomic<uint64_t> uploaded{0};
  // sample_ready's latency as the demo measures it itself (CLOCK_MONOTONIC
  // beside TRACE_FLOW_OUT and TRACE_FLOW_IN), one per processed sample:
  // written by the worker only, read after it stopped, to check the
  // trace's flow latency against (`mabutrace stats`, issue 19).
  std::vector<int64_t> sample_latency_ns;
};

// Each runs until its input is closed (worker, uploader) or running turns
// false (timer, monitor).
void RunTimerIsr(Pipeline& p);
void RunWorker(Pipeline& p);
void RunUploader(Pipeline& p);
void RunMonitor(Pipeline& p);

#endif  // PIPELINE_PIPELINE_H
