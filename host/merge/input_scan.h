// SPDX-License-Identifier: MIT
// input_scan.h: the first pass of `mabutrace merge` over one input: its
// sync points, its span of time and its clock, everything the merge needs
// to place the input before a byte of output is written (docs/merge.md).
//
// A sync point is a counter sample named "clock_sync:DOMAIN"
// (TRACE_CLOCK_SYNC, include/mabutrace/mabutrace.h): at the input's time
// `ns`, DOMAIN read `value` (the sample's 64 bits).
//
// Memory: per domain at most kMaxSyncPointsPerDomain points. Past that a
// domain keeps the points whose value hashes to 0 modulo a stride that
// doubles each time the table fills: the same values on every input, so
// points paired by value still pair, and the kept points stay spread over
// the whole trace.
#ifndef MABUTRACE_HOST_MERGE_INPUT_SCAN_H
#define MABUTRACE_HOST_MERGE_INPUT_SCAN_H

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "clock_fit.h"
#include "format/trace_events.h"
#include "mabutrace/mabutrace.h"  // MABUTRACE_CLOCK_SYNC_PREFIX

namespace mabutrace::merge {

constexpr std::string_view kClockSyncPrefix = MABUTRACE_CLOCK_SYNC_PREFIX;
constexpr size_t kMaxSyncPointsPerDomain = 1u << 16;

// The domain of a sync point's counter name, or "" when it is not one.
std::string_view SyncDomain(std::string_view counter_name);

struct SyncPoint {
  uint64_t ns = 0;     // the input's time
  uint64_t value = 0;  // what the domain read
};

struct SyncSeries {
  std::vector<SyncPoint> points;  // in input order
  uint64_t seen = 0;              // all of them, kept or not
  uint64_t stride = 1;            // a point is kept when Hash(value) % stride == 0
};

struct InputScan {
  std::map<std::string, SyncSeries, std::less<>> sync;  // by domain
  bool has_clock = false;                               // EventSink::OnClock came
  uint64_t monotonic_at_zero = 0, boottime_at_zero = 0;
  uint64_t first_ns = std::numeric_limits<uint64_t>::max();  // of any event
  uint64_t last_ns = 0;
  uint64_t events = 0;
  std::set<uint32_t> pids;  // of its processes
  // The input's own clock: a reading of it → the input's time (ns). What a
  // `--clock-domain NAME=D` pairs the other inputs' sync values through.
  // The identity unless the input states its clock: an ETE export's
  // ete.timestamp_origin (ticks, text), ete.timestamp_origin_ns and
  // ete.timestamp_hz (0: ticks as ns) give ns = origin_ns + (v − origin) ×
  // 1e9 / hz (docs/ete-decode.md).
  ClockLine own_clock;
  bool own_clock_stated = false;
  // Non-empty when the input says its times are not a clock's readings
  // (an ETE export whose ete.time_base is not "timestamp": element order or
  // cycle counts): such an input cannot be placed by --clock-domain.
  std::string not_a_clock;
  // --join-flows: a sender's arrow starts by the link TRACE_FLOW_OUT gave
  // them (format::LinkForFlow of the flow number), in input order; 16 bytes
  // each, kept only for senders. A receiver's ends that kept their link
  // (model::kUnresolvedLink) are counted.
  struct FlowOut {
    uint64_t ns = 0;  // the input's time
    uint64_t id = 0;  // its flow id in the input
  };
  std::unordered_map<uint16_t, std::vector<FlowOut>> flow_outs;
  uint64_t link_ends = 0;
};

// Fills an InputScan from the events of one (normalized) input.
class ScanSink final : public format::EventSink {
 public:
  // collect_flow_outs: fill scan.flow_outs (the input is a --join-flows sender).
  explicit ScanSink(InputScan& scan, bool collect_flow_outs = false) : scan_(scan), collect_(collect_flow_outs) {}
  void OnClock(uint64_t monotonic_ns, uint64_t boottime_ns) override;
  void OnProcess(uint32_t pid, std::string_view) override { scan_.pids.insert(pid); }
  void OnThread(format::Track t, std::string_view) override { scan_.pids.insert(t.pid); }
  void OnBegin(format::Track, std::string_view, uint64_t ns, uint32_t, uint32_t) override { Saw(ns); }
  void OnEnd(format::Track, std::string_view, uint64_t ns, std::string_view) override { Saw(ns); }
  void OnInstant(format::Track, std::string_view, uint64_t ns, uint32_t, uint32_t) override { Saw(ns); }
  void OnCounter(format::Track t, std::string_view name, uint64_t ns, int64_t value) override;
  void OnFlowPoint(format::Track, bool start, uint64_t id, std::string_view, uint64_t ns, uint32_t, uint32_t,
                   bool) override;
  void OnFlow(format::Track, bool start, uint64_t id, uint64_t ns) override;
  void OnMetadata(std::string_view key, int64_t value) override;
  void OnMetadata(std::string_view key, std::string_view value) override;
  bool Finish() override;

 private:
  void Saw(uint64_t ns);
  InputScan& scan_;
  bool collect_ = false;
  std::optional<uint64_t> origin_, origin_ns_;
  int64_t hz_ = 0;
};

// The hash that picks which points a full domain keeps (a 64-bit mix).
uint64_t SyncHash(uint64_t value);

}  // namespace mabutrace::merge

#endif  // MABUTRACE_HOST_MERGE_INPUT_SCAN_H
