// SPDX-License-Identifier: MIT
// trace_model.h: the streaming host trace model (R-E1).
//
// Every decoder feeds an EventSink and every writer implements one, so a
// decoder and a writer are joined without holding the trace in memory.
// The events, their units and the sink are the format layer's
// (format/trace_events.h): the same vocabulary the device export uses, so
// the device's writers (format/chrome_json_writer.h, perfetto_writer.h)
// serve the host unchanged.
//
// Writers may assume the rules of format/trace_rules.h. Inputs that do not
// guarantee them (a stream captured mid-scope, a decoder's timeline) go
// through Normalizer first, which enforces them.
#ifndef MABUTRACE_HOST_MODEL_TRACE_MODEL_H
#define MABUTRACE_HOST_MODEL_TRACE_MODEL_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "format/trace_events.h"

namespace mabutrace::model {

using Track = format::Track;
using EventSink = format::EventSink;

// Enforces format/trace_rules.h on any input, then forwards to `out`:
// - an end with no open begin on its track is dropped (orphan_scope_ends);
// - an end takes the name of its begin and lands >= begin + 1 ns;
// - names are cut as every writer cuts them (format::kMaxNameBytes, at a
//   character), so the model holds what any written file would;
// - a track's times never go backwards (clamped up; an input time before
//   an earlier input time of its track is counted: clock_went_backwards,
//   the same rule as the device's walker);
// - a flow end whose start was not passed on is dropped
//   (flow_ends_without_start);
// - a flow point knows whether a slice encloses it (the caller's
//   `enclosed` is ignored); outside every slice it takes 1 ns of its track;
// - metadata is held until Finish(), which closes open slices at the last
//   time seen (flag open_at_end), then passes the metadata on, then the
//   repair counts (format::stat keys).
// Threads not announced with OnThread are announced on first use.
// An arrow end whose link no start of its own trace took, passed on (only
// when asked: StreamToModel's keep_unresolved_links, for `mabutrace merge
// --join-flows`) as OnFlow(t, false, kUnresolvedLink | link, ns): the
// 16-bit link (the value TRACE_FLOW_OUT wrote, which may have travelled to
// this device from another) in the low bits. Never a real flow id: the
// toolkit's ids are < 2^48.
constexpr uint64_t kUnresolvedLink = uint64_t(1) << 62;

class Normalizer final : public EventSink {
 public:
  explicit Normalizer(EventSink& out) : out_(out) {}

  void OnClock(uint64_t monotonic_ns, uint64_t boottime_ns) override { out_.OnClock(monotonic_ns, boottime_ns); }
  void OnClockSnapshot(uint32_t clock_id, uint64_t trace_ns, uint64_t clock_ns) override {
    out_.OnClockSnapshot(clock_id, trace_ns, clock_ns);
  }
  void OnProcess(uint32_t pid, std::string_view name) override;
  void OnThread(Track t, std::string_view name) override;
  void OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnEnd(Track t, std::string_view name, uint64_t ns, std::string_view flag) override;
  void OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) override;
  void OnFlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color,
                   bool enclosed) override;
  void OnFlow(Track t, bool start, uint64_t id, uint64_t ns) override;
  void OnMetadata(std::string_view key, int64_t value) override;
  void OnMetadata(std::string_view key, std::string_view value) override;
  bool Finish() override;
  // An arrow end the producer could not resolve to its start: counted as
  // one dropped by the Normalizer.
  void FlowEndWithoutStart() { ++flow_ends_dropped_; }
  // Such an end passed on with its link (kUnresolvedLink), not counted.
  void UnresolvedLinkEnd(Track t, uint16_t link, uint64_t ns);

  uint64_t orphan_ends() const { return orphan_ends_; }
  uint64_t open_closed() const { return open_closed_; }
  uint64_t flow_ends_dropped() const { return flow_ends_dropped_; }
  uint64_t clock_went_backwards() const { return clock_went_backwards_; }
  // Non-empty process or thread names that came after their track was
  // announced (by its first event or an earlier name): the first name
  // stands, these are not shown.
  uint64_t names_late() const { return names_late_; }

 private:
  struct ThreadState {
    Track track;
    std::vector<std::string> stack;  // open slice names
    std::vector<uint64_t> begins;    // their begin times
    uint64_t last = 0;               // newest time written
  };
  ThreadState& State(Track t);
  uint64_t Clamp(ThreadState& s, uint64_t ns);
  // Notes an input time of the track: counts one before an earlier one.
  // Whether arrow end `id` may be written: a start is always; an end only
  // after its start (else counted).
  bool ArrowEnd(bool start, uint64_t id);

  EventSink& out_;
  std::unordered_set<uint32_t> processes_;
  std::map<std::pair<uint32_t, uint32_t>, ThreadState> threads_;
  std::unordered_set<uint64_t> flow_starts_;
  struct Meta {
    std::string key;
    bool is_string;
    int64_t number;
    std::string text;
  };
  std::vector<Meta> meta_;
  uint64_t max_ns_ = 0;
  uint64_t orphan_ends_ = 0, open_closed_ = 0, flow_ends_dropped_ = 0, clock_went_backwards_ = 0, names_late_ = 0;
};

}  // namespace mabutrace::model

#endif  // MABUTRACE_HOST_MODEL_TRACE_MODEL_H
