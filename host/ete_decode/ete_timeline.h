// SPDX-License-Identifier: MIT
// ete_timeline.h: decoded ETE elements -> host trace model (R-F6).
//
// One track per trace source (a core): pid 1 "ETE <snapshot>", tid =
// source index + 1 named after the source and its core (no process when
// there is no track: another exporter may have the whole sink). Every executed
// range (INSTR_RANGE / I_RANGE_NOPATH) becomes a slice named by its start
// address ("0x69538"), with the address-not-accessible, exception,
// exception-return, trace-on and no-sync elements as instants.
//
// Time (said in the metadata key "ete.time_base"):
//   "timestamp"     the trace's TIMESTAMP elements (in timestamp ticks,
//                   written as ns, relative to the first timestamp);
//   "cycle_count"   no timestamps: the sum of CYCLE_COUNT elements;
//   "element_order" neither: one ns per executed range.
// Between two time references each range takes one ns so slices never
// overlap and time never goes backwards; a reference that lies behind the
// cursor is clamped (counted in "ete.clamped_times").
//
// Real time (issue 21): with TimelineOptions::timestamp_hz, timestamps are
// converted to ns (ns = first ns + (ts - first ts) * 1e9 / hz) and the
// metadata keeps the absolute first timestamp ("ete.timestamp_origin", in
// ticks) and its ns on the timeline ("ete.timestamp_origin_ns"), so that a
// merge can relate the trace to CNTVCT sync points. With
// TimelineOptions::functions, executed ranges become function slices
// (function_slices.h) instead of one slice per range.
//
// The base is chosen before writing (ChooseTimeBase over a first decode
// pass, or a caller's knowledge): writers need time-ordered input.
#ifndef MABUTRACE_HOST_ETE_DECODE_ETE_TIMELINE_H
#define MABUTRACE_HOST_ETE_DECODE_ETE_TIMELINE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ete_element.h"
#include "trace_model.h"

namespace mabutrace::ete_decode {

enum class TimeBase : uint8_t { kTimestamp, kCycleCount, kElementOrder };
const char* TimeBaseName(TimeBase base);

// Counts what a first pass saw, to choose the time base.
struct TimeSources {
  uint64_t timestamps = 0;    // TIMESTAMP elements with a known (non-zero) value
  uint64_t cycle_counts = 0;  // CYCLE_COUNT elements
  void Add(const EteElement& e) {
    if (e.type == ElemType::kTimestamp && e.timestamp) ++timestamps;
    if (e.type == ElemType::kCycleCount) ++cycle_counts;
  }
  TimeBase Choose() const {
    return timestamps ? TimeBase::kTimestamp : cycle_counts ? TimeBase::kCycleCount : TimeBase::kElementOrder;
  }
};

class FunctionSlices;

struct TimelineOptions {
  double timestamp_hz = 0;              // 0: timestamp ticks written as ns
  std::string timestamp_hz_source;      // for "ete.time_unit": "--ts-hz", "snapshot cpu_0.ini CNTFRQ_EL0"
  FunctionSlices* functions = nullptr;  // not owned; nullptr: a slice per range
};

class TimelineBuilder {
 public:
  // `sink` must outlive the builder. track_names: one per source.
  TimelineBuilder(model::EventSink* sink, std::string process_name, std::vector<std::string> track_names, TimeBase base,
                  TimelineOptions options = {});
  TimelineBuilder(const TimelineBuilder&) = delete;
  TimelineBuilder& operator=(const TimelineBuilder&) = delete;

  void OnElement(size_t source, const EteElement& e);
  // Writes the metadata and calls sink->Finish().
  bool Finish();

  uint64_t slices() const { return slices_; }
  // The timestamp that time 0 of the timeline counts from, as the metadata
  // says it ("ete.timestamp_origin" / "_ns": the first track with a
  // timestamp): false when the base is not timestamps or none came yet.
  bool TimestampOrigin(uint64_t* ticks, uint64_t* ns) const;

 private:
  struct TrackState {
    uint64_t cursor = 0;  // next free ns
    bool ts_seen = false;
    uint64_t ts_origin = 0;     // first timestamp (ticks)
    uint64_t ts_origin_ns = 0;  // the cursor when it came
  };
  void Advance(TrackState& t, uint64_t to);

  model::EventSink* sink_;
  TimeBase base_;
  TimelineOptions options_;
  std::vector<TrackState> tracks_;
  std::string name_;  // scratch
  uint64_t slices_ = 0, instants_ = 0, clamped_ = 0;
};

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_ETE_TIMELINE_H
