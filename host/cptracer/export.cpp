// SPDX-License-Identifier: MIT
// export.cpp: see export.h.
#include "export.h"

#include "transaction_links.h"

#include <cmath>
#include <cstdio>
#include <set>

namespace mabutrace::cptracer {
namespace {
constexpr uint32_t kMastersPid = 1;
constexpr uint32_t kTracerPidBase = 1000;
constexpr uint32_t kTracerTid = 1;
constexpr uint32_t kTransactionsTid = 2;
}  // namespace

bool ExportTimeline(const std::vector<TracerMessage>& msgs, uint64_t stream_ts_freq_hz, const TimingOptions& options,
                    model::EventSink* out, ExportSummary* summary, std::string* error,
                    const ExportOptions& export_options) {
  ExportSummary s;
  if (!ResolveTiming(msgs, stream_ts_freq_hz, options, &s.timing, error)) return false;
  if (!(s.timing.ts_hz > 0)) {
    if (!export_options.ticks_without_freq) {
      *error = "no timestamp frequency: the capture has no FREQ packet; give --ts-hz or --clock-hz";
      return false;
    }
    s.timing.ts_hz = 1e9;
    s.ticks_as_ns = true;
  }
  const Timing& t = s.timing;
  model::Normalizer norm(*out);
  if (s.ticks_as_ns) norm.OnMetadata("cptracer.clock", "ticks: no timestamp frequency");
  auto ns_of = [&](uint64_t ts) { return static_cast<uint64_t>(static_cast<double>(ts) * 1e9 / t.ts_hz); };
  std::vector<uint64_t> times(msgs.size());
  uint64_t last_ts = 0;
  for (size_t i = 0; i < msgs.size(); ++i) {
    if (msgs[i].has_ts) last_ts = msgs[i].timestamp;
    times[i] = ns_of(last_ts);
  }
  const TransactionLinks links = LinkTransactions(msgs, times, export_options.link_window_ns);
  s.transaction_links = links.links;
  s.transaction_links_ambiguous = links.ambiguous;
  std::set<uint32_t> tracers, masters, link_tracks;
  char name[160];
  for (size_t i = 0; i < msgs.size(); ++i) {
    const TracerMessage& m = msgs[i];
    const uint64_t ns = times[i];
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
        if (t.window_cycles == 0 || !(t.clock_hz > 0)) break;
        const Metrics x = StatisticsMetrics(m, t);
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
      case MsgType::kEventB:
      case MsgType::kEventC:
      case MsgType::kEventE: {
        ++s.events;
        if (masters.empty()) norm.OnProcess(kMastersPid, "Bus masters");
        const model::Track mt{kMastersPid, m.mid + 1};
        if (masters.insert(m.mid).second) {
          std::snprintf(name, sizeof name, "master 0x%02x", m.mid);
          norm.OnThread(mt, name);
        }
        const char letter = m.type == MsgType::kEventB ? 'B' : m.type == MsgType::kEventC ? 'C' : 'E';
        std::snprintf(name, sizeof name, "%c %s tracer %u addr 0x%03x xid %u%s", letter, m.write ? "write" : "read",
                      m.tracer, m.address, m.xid, m.overflow ? " OVERFLOW" : "");
        norm.OnInstant(mt, name, ns, 0, 0);
        const bool from = links.from[i] != TransactionLinks::kNone;
        if (from || links.continued[i]) {
          announce_tracer();
          const model::Track lt{tpid, kTransactionsTid};
          if (link_tracks.insert(m.tracer).second) norm.OnThread(lt, "transactions");
          std::snprintf(name, sizeof name, "%c %s master 0x%02x addr 0x%03x xid %u", letter, m.write ? "write" : "read",
                        m.mid, m.address, m.xid);
          // Arrow ids: the message index of the sighting the arrow leaves, + 1.
          if (from) norm.OnFlowPoint(lt, false, links.from[i] + 1, name, ns, 0, 0, false);
          if (links.continued[i]) norm.OnFlowPoint(lt, true, i + 1, name, ns, 0, 0, false);
        }
        break;
      }
      case MsgType::kUnknown: ++s.unknown; break;
    }
  }
  norm.OnMetadata("cptracer.clock_hz", static_cast<int64_t>(t.clock_hz));
  norm.OnMetadata("cptracer.ts_hz", static_cast<int64_t>(t.ts_hz));
  norm.OnMetadata("cptracer.window_cycles", static_cast<int64_t>(t.window_cycles));
  norm.OnMetadata("cptracer.window", t.window_estimated ? "estimated from timestamps" : "given");
  norm.OnMetadata("cptracer.unknown_messages", static_cast<int64_t>(s.unknown));
  if (!export_options.capture_problems.empty()) {
    norm.OnMetadata("cptracer.capture_problems", static_cast<int64_t>(export_options.capture_problems.size()));
    norm.OnMetadata("cptracer.capture_error", export_options.capture_problems.front());
  }
  if (export_options.link_window_ns) {
    norm.OnMetadata("cptracer.link_window_ns", static_cast<int64_t>(export_options.link_window_ns));
    norm.OnMetadata("cptracer.transaction_links", static_cast<int64_t>(s.transaction_links));
    norm.OnMetadata("cptracer.transaction_links_ambiguous", static_cast<int64_t>(s.transaction_links_ambiguous));
  }
  if (summary) *summary = s;
  if (!norm.Finish()) {
    *error = "writing the output failed";
    return false;
  }
  return true;
}

std::string ExportSummaryText(const ExportSummary& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%llu statistics, %llu event, %llu status, %llu unknown messages; window %llu cycles%s at "
                "%.0f Hz",
                static_cast<unsigned long long>(s.statistics), static_cast<unsigned long long>(s.events),
                static_cast<unsigned long long>(s.status), static_cast<unsigned long long>(s.unknown),
                static_cast<unsigned long long>(s.timing.window_cycles),
                s.timing.window_estimated ? " (estimated)" : "", s.timing.clock_hz);
  return buf;
}

}  // namespace mabutrace::cptracer
