// SPDX-License-Identifier: MIT
// capture_metrics.cpp: see capture_metrics.h.
#include "capture_metrics.h"

#include <cmath>
#include <map>

#include "registers.h"

namespace mabutrace::cptracer {

bool ResolveTiming(const std::vector<TracerMessage>& msgs, uint64_t stream_ts_freq_hz, const TimingOptions& o,
                   Timing* out, std::string* error) {
  Timing t;
  t.ts_hz = o.ts_hz > 0 ? o.ts_hz : stream_ts_freq_hz ? static_cast<double>(stream_ts_freq_hz) : o.clock_hz;
  t.clock_hz = o.clock_hz > 0 ? o.clock_hz : t.ts_hz;
  t.window_cycles = o.window_cycles;
  if (!t.window_cycles && o.window_s > 0 && t.clock_hz > 0 &&
      !WindowCycles(o.window_s, t.clock_hz, &t.window_cycles, error))
    return false;
  if (!t.window_cycles) {
    t.window_cycles = EstimateWindowCycles(msgs, t.clock_hz, t.ts_hz);
    t.window_estimated = t.window_cycles != 0;
  }
  *out = t;
  return true;
}

uint64_t EstimateWindowCycles(const std::vector<TracerMessage>& msgs, double clock_hz, double ts_hz) {
  if (!(clock_hz > 0) || !(ts_hz > 0)) return 0;
  std::map<uint32_t, uint64_t> first;  // per tracer
  for (const auto& m : msgs) {
    if (m.type != MsgType::kStatistics || !m.has_ts) continue;
    const auto [it, is_first] = first.try_emplace(m.tracer, m.timestamp);
    if (!is_first && m.timestamp > it->second)
      return static_cast<uint64_t>(std::llround(static_cast<double>(m.timestamp - it->second) * clock_hz / ts_hz));
  }
  return 0;
}

Metrics StatisticsMetrics(const TracerMessage& m, const Timing& t) {
  return ComputeMetrics({t.clock_hz, t.window_cycles, m.throughput0, m.throughput1, m.wait_cycles, m.grants});
}

std::vector<WindowMetrics> CaptureMetrics(const std::vector<TracerMessage>& msgs, const Timing& t) {
  std::vector<WindowMetrics> out;
  if (!(t.clock_hz > 0) || !t.window_cycles) return out;
  std::map<uint32_t, uint32_t> windows;  // per tracer
  for (const auto& m : msgs)
    if (m.type == MsgType::kStatistics) out.push_back({m.tracer, windows[m.tracer]++, StatisticsMetrics(m, t)});
  return out;
}

std::string WindowMetricsJson(const WindowMetrics& w) {
  const std::string metrics = MetricsJson(w.metrics);  // "{...}": continue it after our two keys
  return "{\"tracer\":" + std::to_string(w.tracer) + ",\"window\":" + std::to_string(w.window) + "," +
         metrics.substr(1);
}

std::string WindowMetricsText(const WindowMetrics& w) {
  return "tracer " + std::to_string(w.tracer) + " window " + std::to_string(w.window) + "\n" + MetricsText(w.metrics);
}

}  // namespace mabutrace::cptracer
