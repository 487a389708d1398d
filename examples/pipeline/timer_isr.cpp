// SPDX-License-Identifier: MIT
// timer_isr.cpp: a 1 kHz loop standing in for a hardware timer interrupt
// (seed 000 §2.3): sample the ADC, start a flow, post to the queue without
// blocking; when the queue is full the sample is lost and the trace says so.
#include <math.h>

#include "counter_log.h"
#include "mabutrace/mabutrace.h"
#include "pipeline.h"
#include "prng.h"
#include "thread_util.h"

namespace {

constexpr int64_t kPeriodNs = 1000000;  // 1 kHz

// A 12-bit ADC watching a 50 Hz mains-like signal with some noise.
class SimulatedAdc {
 public:
  int32_t Read() {
    const double t = double(n_++) / 1000.0;
    const double v = 2048.0 + 1200.0 * sin(2.0 * M_PI * 50.0 * t);
    return int32_t(v) + noise_.Between(-40, 40);
  }

 private:
  uint64_t n_ = 0;
  Prng noise_{0xADC0FFEEu};
};

}  // namespace

void RunTimerIsr(Pipeline& p) {
  NameThisThread("timer_isr");
  SimulatedAdc adc;
  Ticker tick(kPeriodNs);
  uint32_t seq = 0;
  uint64_t dropped = 0;
  while (p.running.load(std::memory_order_relaxed)) {
    if (tick.Wait() > 0) TRACE_INSTANT("timer_overrun", COLOR_DARK_RED);
    TRACE_SCOPE("timer_isr", COLOR_ORANGE);
    Sample s;
    s.seq = ++seq;
    s.raw = adc.Read();
    TRACE_FLOW_OUT(&s.link, "sample_ready");
    s.out_ns = MonotonicNs();
    p.produced.fetch_add(1, std::memory_order_relaxed);
    if (!p.samples.try_push(s)) {
      TRACE_INSTANT("queue_full", COLOR_DARK_RED);
      p.dropped.store(++dropped, std::memory_order_relaxed);
      RecordCounter("dropped_samples", int64_t(dropped));
    }
  }
}
