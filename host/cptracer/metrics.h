// SPDX-License-Identifier: MIT
// metrics.h: CP_Tracer sliding-window metrics (R-I2).
//
// Inputs are one statistics message's counters and the window: W window
// cycles of the tracer clock f (Hz), so the window lasts T = W / f seconds.
// Formulas (names from TI's UCLib page, V; formulas D, facts §5.2):
//   bandwidth_bytes_per_s   = throughput0 / T            (B/s)
//   bandwidth1_bytes_per_s  = throughput1 / T            (B/s)
//   avg_access_bytes        = throughput0 / grants       (B)
//   transactions_per_s      = grants / T                 (1/s)
//   contention_percent      = wait / W x 100             (%, can exceed 100
//                             if the counter adds per pending request, U)
//   min_avg_latency_cycles  = wait / grants              (tracer cycles; a
//                             lower bound: overlapping waits count once, U)
//   min_avg_latency_ns      = min_avg_latency_cycles / f x 1e9
// Seed 002 §4.1 worked example (W = 1,000,000, f = 200 MHz, 655,360 B, 160
// grants, 12,800 wait cycles) -> 131,072,000 B/s, 4,096 B, 32,000 /s,
// 1.28 %, 80 cycles = 400 ns (tests/host/cptracer).
// Guards: grants = 0 -> avg_access_bytes and the latencies are absent
// (has_grants false); f or W = 0 is an error (Validate).
#ifndef MABUTRACE_HOST_CPTRACER_METRICS_H
#define MABUTRACE_HOST_CPTRACER_METRICS_H

#include <cstdint>
#include <string>

namespace mabutrace::cptracer {

struct WindowCounters {
  double clock_hz = 0;         // tracer clock (L2 tracers: CPU/3, facts §1.3)
  uint64_t window_cycles = 0;  // sliding time window register value
  uint64_t throughput0 = 0;    // bytes (U: counter unit assumed bytes)
  uint64_t throughput1 = 0;
  uint64_t wait_cycles = 0;
  uint64_t grants = 0;
};

struct Metrics {
  double window_s = 0;
  double bandwidth_bytes_per_s = 0;
  double bandwidth1_bytes_per_s = 0;
  double transactions_per_s = 0;
  double contention_percent = 0;
  bool has_grants = false;
  double avg_access_bytes = 0;
  double min_avg_latency_cycles = 0;
  double min_avg_latency_ns = 0;
};

// "" when usable, else why not.
std::string Validate(const WindowCounters& c);
Metrics ComputeMetrics(const WindowCounters& c);
// One JSON object with the keys of the CLI (`mabutrace cptracer metrics
// --format json`): bandwidth_bytes_per_s, bandwidth1_bytes_per_s,
// avg_access_bytes, transactions_per_s, contention_percent,
// min_avg_latency_cycles, min_avg_latency_ns, window_s (integral values
// print as integers; absent values as null).
std::string MetricsJson(const Metrics& m);
std::string MetricsText(const Metrics& m);

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_METRICS_H
