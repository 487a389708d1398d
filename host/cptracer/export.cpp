// export.cpp: see export.h.
#include "export.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "metrics.h"

namespace mabutrace::cptracer {
namespace {
constexpr uint32_t kMastersPid = 1;
constexpr uint32_t kTracerPidBase = 1000;
constexpr uint32_t kTracerTid = 1;
}  // namespace

bool ExportTimeline(const std::vector<TracerMessage>& msgs, uint64_t stream_ts_freq_hz,
                    const ExportOptions& options, model::EventSink* out, ExportSummary* summary,
                    std::string* error) {
  ExportSummary s;
  s.ts_hz = options.ts_hz > 0 ? options.ts_hz
            : stream_ts_freq_hz ? static_cast<double>(stream_ts_freq_hz)
                                : options.clock_hz;
  s.clock_hz = options.clock_hz > 0 ? options.clock_hz : s.ts_hz;
  if (!(s.ts_hz > 0)) {
    *error = "no timestamp frequency: the capture has no FREQ packet; give --ts-hz or --clock-hz";
    return false;
  }
  s.window_cycles = options.window_cycles;
  if (s.window_cycles == 0) {
    // Estimate from the first two statistics messages of one tracer.
    std::map<uint32_t, uint64_t> first;
    for (const auto& m : msgs) {
      if (m.type != MsgType::kStatistics || !m.has_ts) continue;
      auto it = first.find(m.tracer);
      if (it == first.end()) {
        first[m.tracer] = m.timestamp;
      } else if (m.timestamp > it->second) {
        s.window_cycles = static_cast<uint64_t>(
            std::llround(static_cast<double>(m.timestamp - it->second) * s.clock_hz / s.ts_hz));
        s.window_estimated = true;
        break;
      }
    }
  }
  model::Normalizer norm(*out);
  auto ns_of = [&](uint64_t ts) { return static_cast<uint64_t>(static_cast<double>(ts) * 1e9 / s.ts_hz); };
  std::set<uint32_t> tracers, masters;
  uint64_t last_ts = 0;
  char name[160];
  for (const auto& m : msgs) {
    if (m.has_ts) last_ts = m.timestamp;
    const uint64_t ns = ns_of(m.has_ts ? m.timestamp : last_ts);
    const uint32_t tpid = kTracerPidBase + m.tracer;
    const model::Track ttrack{tpid, kTracerTid};
    auto announce_tracer = [&] {
      if (!tracers.insert(m.tracer).second) return;
      std::snprintf(name, sizeof name, "CP_Tracer %u", m.tracer);
      norm.OnProcess(tpid, name);
      norm.OnThread(ttrack, "messages");
    };
    switch (m.type) {
      case MsgType::kStatistics: {
        ++s.statistics;
        announce_tracer();
        if (s.window_cycles == 0 || !(s.clock_hz > 0)) break;
        WindowCounters c{s.clock_hz, s.window_cycles, m.throughput0, m.throughput1, m.wait_cycles, m.grants};
        const Metrics x = ComputeMetrics(c);
        norm.OnCounter(ttrack, "bandwidth_bytes_per_s", ns, std::llround(x.bandwidth_bytes_per_s));
        norm.OnCounter(ttrack, "bandwidth1_bytes_per_s", ns, std::llround(x.bandwidth1_bytes_per_s));
        norm.OnCounter(ttrack, "transactions_per_s", ns, std::llround(x.transactions_per_s));
        norm.OnCounter(ttrack, "contention_milli_percent", ns, std::llround(x.contention_percent * 1000));
        if (x.has_grants) norm.OnCounter(ttrack, "min_avg_latency_ns", ns, std::llround(x.min_avg_latency_ns));
        break;
      }
      case MsgType::kStatus:
        ++s.status;
        announce_tracer();
        std::snprintf(name, sizeof name, "status G%u 0x%06x", m.group, m.access_status);
        norm.OnInstant(ttrack, name, ns, 0, 0);
        break;
      case MsgType::kEventB: case MsgType::kEventC: case MsgType::kEventE: {
        ++s.events;
        if (masters.empty()) norm.OnProcess(kMastersPid, "Bus masters");
        const model::Track mt{kMastersPid, m.mid + 1};
        if (masters.insert(m.mid).second) {
          std::snprintf(name, sizeof name, "master 0x%02x", m.mid);
          norm.OnThread(mt, name);
        }
        const char letter = m.type == MsgType::kEventB ? 'B' : m.type == MsgType::kEventC ? 'C' : 'E';
        std::snprintf(name, sizeof name, "%c %s tracer %u addr 0x%03x xid %u%s", letter,
                      m.write ? "write" : "read", m.tracer, m.address, m.xid, m.overflow ? " OVERFLOW" : "");
        norm.OnInstant(mt, name, ns, 0, 0);
        break;
      }
      case MsgType::kUnknown:
        ++s.unknown;
        break;
    }
  }
  norm.OnMetadata("cptracer.clock_hz", static_cast<int64_t>(s.clock_hz));
  norm.OnMetadata("cptracer.ts_hz", static_cast<int64_t>(s.ts_hz));
  norm.OnMetadata("cptracer.window_cycles", static_cast<int64_t>(s.window_cycles));
  norm.OnMetadata("cptracer.window", s.window_estimated ? "estimated from timestamps" : "given");
  norm.OnMetadata("cptracer.unknown_messages", static_cast<int64_t>(s.unknown));
  if (summary) *summary = s;
  if (!norm.Finish()) {
    *error = "writing the output failed";
    return false;
  }
  return true;
}

}  // namespace mabutrace::cptracer
