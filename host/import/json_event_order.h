// SPDX-License-Identifier: MIT
// json_event_order.h: the .json reader's events put in time order per track
// before the model sees them.
//
// The Trace Event Format does not ask a file to be in time order, and the
// common producers are not: a profiler that writes each "X" (complete)
// event when its function returns writes a caller after its callees, with
// an earlier "ts" (Python's cProfile exporters, VizTracer's, many
// hand-rolled ones). Chrome's viewer and Perfetto sort a JSON trace before
// they nest its slices; the model (model::Normalizer) takes each track's
// events in time order and draws one that comes late at the time before
// it. So this stage holds the reader's events:
//
//   hold    the first `hold_limit` events are held in file order. A track
//           whose "ts" goes back among them switches to sort; else, when
//           the limit is reached, the held events go on in file order and
//           the stage streams (memory: the limit, 64 bytes an event).
//   sort    every event is held to the end of the file, then sorted by
//           time (stable: equal times keep the file's order, except that
//           "X" events of one track starting together are put longest
//           first, so that they nest) and passed on; names (process_name,
//           thread_name) go first. Memory grows with the file: 64 bytes an
//           event, plus each distinct name once. Counted in `reordered`.
//   stream  events go on as they come; one earlier than an event before it
//           on its track is counted in `out_of_order` (the model draws it
//           at that earlier time).
//
// Events are the reader's, as format::EventSink calls, plus Complete (an
// "X": a begin and its duration; its end is passed on once the track's
// later events pass it, and an "X" that would outlast the "X" it starts in
// ends with it, counted in `x_clipped`). Arrow ends read as "s"/"f" (Flow)
// keep their place without an order check: the toolkit's writer puts them
// after the slice events they bind to, which may be later.
//
// Not thread-safe; one per read. Finish() passes on what is held and ends
// the "X" slices still open; it does not call out.Finish().
#ifndef MABUTRACE_HOST_IMPORT_JSON_EVENT_ORDER_H
#define MABUTRACE_HOST_IMPORT_JSON_EVENT_ORDER_H

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/trace_events.h"

namespace mabutrace::host {

// Arrow ends bound to a slice at its begin (flow v2: "bind_id" with
// "flow_in"/"flow_out"); 0: none.
struct BoundFlows {
  uint64_t in = 0, out = 0;
};

class JsonEventOrder {
 public:
  static constexpr size_t kHoldLimit = size_t(1) << 20;

  explicit JsonEventOrder(format::EventSink& out, size_t hold_limit = kHoldLimit)
      : out_(out), hold_limit_(hold_limit) {}

  void Process(uint32_t pid, std::string_view name);
  void Thread(format::Track t, std::string_view name);
  void Begin(format::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color, BoundFlows flows);
  void Complete(format::Track t, std::string_view name, uint64_t ns, uint64_t dur, uint32_t cpu, uint32_t color,
                BoundFlows flows);
  void End(format::Track t, std::string_view name, uint64_t ns, std::string_view flag);
  void Instant(format::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color);
  void Counter(format::Track t, std::string_view name, uint64_t ns, int64_t value);
  void FlowPoint(format::Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                 uint32_t color, bool alone);
  void Flow(format::Track t, bool start, uint64_t id, uint64_t ns);
  void Finish();

  uint64_t out_of_order() const { return out_of_order_; }  // streamed events drawn at an earlier time
  uint64_t reordered() const { return reordered_; }        // events found out of order and sorted
  uint64_t x_clipped() const { return x_clipped_; }        // "X" events cut to end with the "X" they start in

 private:
  enum class Mode { kHold, kSort, kStream };
  enum class Kind : uint8_t { kProcess, kThread, kBegin, kComplete, kEnd, kInstant, kCounter, kFlowPoint, kFlow };
  // One event held: 64 bytes. Names are indexes into names_.
  struct Held {
    uint64_t ns;
    uint64_t dur;  // kComplete
    uint64_t id;   // kFlow, kFlowPoint; kBegin/kComplete: flows.in; kCounter: the value
    uint64_t id2;  // kBegin/kComplete: flows.out
    format::Track t;
    uint32_t name;
    uint32_t flag;  // kEnd
    uint32_t cpu, color;
    Kind kind;
    bool start;  // kFlow, kFlowPoint
    bool alone;  // kFlowPoint
  };
  static bool IsName(Kind k) { return k == Kind::kProcess || k == Kind::kThread; }
  struct TrackState {
    uint64_t last_in = 0;          // the latest "ts" read on the track (file order)
    std::vector<uint64_t> x_ends;  // ends of the "X" slices open on it, innermost last
  };

  // Takes an event in file order: ordered events check the track's time.
  void Take(Held h, std::string_view name, std::string_view flag = {});
  void Apply(const Held& h, std::string_view name, std::string_view flag);
  void CloseX(format::Track t, TrackState& s, uint64_t ns);
  void SortHeld();
  uint32_t Intern(std::string_view s);
  void Release();

  struct TrackLess {
    bool operator()(const format::Track& a, const format::Track& b) const {
      return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid;
    }
  };

  format::EventSink& out_;
  const size_t hold_limit_;
  Mode mode_ = Mode::kHold;
  std::vector<Held> held_;
  std::deque<std::string> names_{std::string()};  // index 0: the empty name; stable: index_ points into it
  std::unordered_map<std::string_view, uint32_t> index_;
  std::map<format::Track, TrackState, TrackLess> tracks_;
  uint64_t out_of_order_ = 0, reordered_ = 0, x_clipped_ = 0;
};

}  // namespace mabutrace::host

#endif  // MABUTRACE_HOST_IMPORT_JSON_EVENT_ORDER_H
