// SPDX-License-Identifier: MIT
// worker.cpp: the processing task of seed 000. Each sample's slice is named
// after its function (TRC) and is where the timer's arrow lands; every
// kBatchSize samples a batch goes on to the uploader with a second arrow.
//
// About every 2 s the worker stalls 20-40 ms (a simulated flash commit of
// the calibration). At 1 kHz into a 16-slot queue that always overflows the
// queue: the trace then shows queue_full instants on the timer thread lined
// up with the long slice here, which is what the demo is meant to find.
#include "mabutrace/mabutrace.h"
#include "pipeline.h"
#include "prng.h"
#include "thread_util.h"

namespace {

struct WorkerState {
  int32_t filtered_q8 = 2048 << 8;  // IIR state, Q24.8
  Prng prng{0x5EED0001u};
  uint32_t until_stall = 0;  // samples until the next flash commit
  Batch batch;
  int in_batch = 0;
};

// 12-bit code -> millivolts of a 3.3 V reference.
int32_t CodeToMillivolts(int32_t code) { return code * 3300 / 4095; }

void flash_commit(WorkerState& w) {
  TRC();
  SleepNs(int64_t(w.prng.Between(20, 40)) * 1000000);
}

int32_t process_sample(Pipeline& p, WorkerState& w, const Sample& s) {
  TRC();
  TRACE_FLOW_IN(s.link);
  p.sample_latency_ns.push_back(MonotonicNs() - s.out_ns);
  int32_t code;
  {
    TRACE_SCOPE("adc_read", COLOR_GREEN);
    code = s.raw < 0 ? 0 : (s.raw > 4095 ? 4095 : s.raw);  // clamp to 12 bits
  }
  {
    // One-pole low-pass, alpha = 1/8: y += (x - y) / 8 in fixed point.
    TRACE_SCOPE("filter", COLOR_YELLOW);
    w.filtered_q8 += ((code << 8) - w.filtered_q8) / 8;
  }
  int32_t mv;
  {
    TRACE_SCOPE("calibrate", COLOR_CYAN);
    mv = CodeToMillivolts(w.filtered_q8 >> 8) * 1007 / 1000 - 3;  // gain, offset
  }
  if (w.until_stall == 0) {
    flash_commit(w);
    w.until_stall = uint32_t(w.prng.Between(1500, 2500));
  }
  --w.until_stall;
  return mv;
}

void forward_batch(Pipeline& p, Batch& b) {
  TRC();
  b.link = 0;
  TRACE_FLOW_OUT(&b.link, "forward");
  p.batches.push(b);
}

}  // namespace

void RunWorker(Pipeline& p) {
  NameThisThread("worker");
  WorkerState w;
  p.sample_latency_ns.reserve(1 << 16);
  // The first stall comes early, so a short run (the tests: 4 s) has one.
  w.until_stall = uint32_t(w.prng.Between(500, 1000));
  while (const std::optional<Sample> s = p.samples.pop()) {
    const int32_t mv = process_sample(p, w, *s);
    p.processed.fetch_add(1, std::memory_order_relaxed);
    if (w.in_batch == 0) w.batch.first_seq = s->seq;
    w.batch.millivolts[w.in_batch++] = mv;
    if (w.in_batch == kBatchSize) {
      forward_batch(p, w.batch);
      w.in_batch = 0;
    }
  }
}
