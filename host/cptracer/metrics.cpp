// SPDX-License-Identifier: MIT
// metrics.cpp: see metrics.h.
#include "metrics.h"

#include <cmath>

#include "json_text.h"

namespace mabutrace::cptracer {

using exporter::JsonNumber;

std::string Validate(const WindowCounters& c) {
  if (!(c.clock_hz > 0) || !std::isfinite(c.clock_hz)) return "the tracer clock must be > 0 Hz";
  if (c.window_cycles == 0) return "the window must be > 0 cycles";
  return "";
}

Metrics ComputeMetrics(const WindowCounters& c) {
  Metrics m;
  const double w = static_cast<double>(c.window_cycles);
  const double f = c.clock_hz;
  m.window_s = w / f;
  // x / (W/f) computed as x*f/W: exact for the integer-valued test vectors.
  m.bandwidth_bytes_per_s = static_cast<double>(c.throughput0) * f / w;
  m.bandwidth1_bytes_per_s = static_cast<double>(c.throughput1) * f / w;
  m.transactions_per_s = static_cast<double>(c.grants) * f / w;
  m.contention_percent = static_cast<double>(c.wait_cycles) * 100.0 / w;
  m.has_grants = c.grants > 0;
  if (m.has_grants) {
    const double g = static_cast<double>(c.grants);
    m.avg_access_bytes = static_cast<double>(c.throughput0) / g;
    m.min_avg_latency_cycles = static_cast<double>(c.wait_cycles) / g;
    m.min_avg_latency_ns = static_cast<double>(c.wait_cycles) * 1e9 / (g * f);
  }
  return m;
}

std::string MetricsJson(const Metrics& m) {
  auto opt = [&](double v) { return m.has_grants ? JsonNumber(v) : std::string("null"); };
  return "{\"bandwidth_bytes_per_s\":" + JsonNumber(m.bandwidth_bytes_per_s) +
         ",\"bandwidth1_bytes_per_s\":" + JsonNumber(m.bandwidth1_bytes_per_s) +
         ",\"avg_access_bytes\":" + opt(m.avg_access_bytes) +
         ",\"transactions_per_s\":" + JsonNumber(m.transactions_per_s) +
         ",\"contention_percent\":" + JsonNumber(m.contention_percent) +
         ",\"min_avg_latency_cycles\":" + opt(m.min_avg_latency_cycles) +
         ",\"min_avg_latency_ns\":" + opt(m.min_avg_latency_ns) + ",\"window_s\":" + JsonNumber(m.window_s) + "}";
}

std::string MetricsText(const Metrics& m) {
  std::string s;
  s += "window:                 " + JsonNumber(m.window_s) + " s\n";
  s += "bandwidth (counter 0):  " + JsonNumber(m.bandwidth_bytes_per_s) + " B/s (" +
       JsonNumber(m.bandwidth_bytes_per_s / (1024.0 * 1024.0)) + " MiB/s)\n";
  s += "bandwidth (counter 1):  " + JsonNumber(m.bandwidth1_bytes_per_s) + " B/s\n";
  s += "transaction rate:       " + JsonNumber(m.transactions_per_s) + " /s\n";
  s += "contention:             " + JsonNumber(m.contention_percent) + " %\n";
  if (m.has_grants) {
    s += "average access size:    " + JsonNumber(m.avg_access_bytes) + " B\n";
    s += "min. average latency:   " + JsonNumber(m.min_avg_latency_cycles) +
         " cycles = " + JsonNumber(m.min_avg_latency_ns) + " ns (lower bound)\n";
  } else {
    s += "average access size:    - (no grants)\nmin. average latency:   - (no grants)\n";
  }
  return s;
}

}  // namespace mabutrace::cptracer
