// SPDX-License-Identifier: MIT
// capture_metrics.h: a decoded capture's statistics messages -> window
// metrics (metrics.h), for `cptracer metrics CAPTURE` and the counters of
// `cptracer export` (export.h). One rule picks the clocks and the window:
//
//   ts_hz     options.ts_hz, else the stream's FREQ packet, else
//             options.clock_hz (Hz of the STM timestamps)
//   clock_hz  options.clock_hz, else ts_hz (Hz of the tracer clock)
//   window    options.window_cycles, else options.window_s at clock_hz
//             (WindowCycles, registers.h: rounded, at most 32 bits), else
//             estimated: the timestamp distance of the first two statistics
//             messages of one tracer, in tracer cycles. The estimate
//             includes the FIFO drain jitter; window_estimated says so.
//
// A window or clock of 0 means "unknown": no metrics can be computed then.
#ifndef MABUTRACE_HOST_CPTRACER_CAPTURE_METRICS_H
#define MABUTRACE_HOST_CPTRACER_CAPTURE_METRICS_H

#include <cstdint>
#include <string>
#include <vector>

#include "messages.h"
#include "metrics.h"

namespace mabutrace::cptracer {

struct TimingOptions {
  double clock_hz = 0;         // 0: ts_hz
  double ts_hz = 0;            // 0: the FREQ packet, else clock_hz
  uint64_t window_cycles = 0;  // 0: window_s, else estimated
  double window_s = 0;         // 0: estimated
};

struct Timing {
  double clock_hz = 0;
  double ts_hz = 0;
  uint64_t window_cycles = 0;
  bool window_estimated = false;
};

// The rule above. false + *error only when window_s does not fit the
// window register at clock_hz.
bool ResolveTiming(const std::vector<TracerMessage>& msgs, uint64_t stream_ts_freq_hz, const TimingOptions& options,
                   Timing* out, std::string* error);

// Tracer cycles between the first two statistics messages of the first
// tracer that has two with increasing timestamps; 0 when none has, or when
// a frequency is 0.
uint64_t EstimateWindowCycles(const std::vector<TracerMessage>& msgs, double clock_hz, double ts_hz);

// The metrics of statistics message `m` (its counters over the window).
Metrics StatisticsMetrics(const TracerMessage& m, const Timing& t);

// One statistics message's metrics; `window` counts that tracer's
// statistics messages from 0.
struct WindowMetrics {
  uint32_t tracer = 0;
  uint32_t window = 0;
  Metrics metrics;
};
// Every statistics message's, in stream order; empty when timing has no
// clock or no window.
std::vector<WindowMetrics> CaptureMetrics(const std::vector<TracerMessage>& msgs, const Timing& t);
// {"tracer":T,"window":W, then MetricsJson's keys}
std::string WindowMetricsJson(const WindowMetrics& w);
// "tracer T window W\n" then MetricsText.
std::string WindowMetricsText(const WindowMetrics& w);

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_CAPTURE_METRICS_H
