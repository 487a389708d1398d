// SPDX-License-Identifier: MIT
// trace_events.h: the events every trace the toolkit writes is made of,
// and the interface that carries them from a producer to a writer.
//
// Producers: the device's trace walker (src/runtime/trace_walker.h, from
// the ring buffer), and on a host every decoder through the Normalizer
// (host/model/trace_model.h: binary streams, RAM dumps, ETE, CP_Tracer).
// Writers: Chrome JSON (chrome_json_writer.h) and Perfetto protobuf
// (perfetto_writer.h), here, shared by both sides; the host adds a text
// listing. So a trace reads the same whether a device exported it or a
// host converted its stream.
//
// Units and ids: times are ns since the trace origin (uint64); a Track is a
// thread (pid, tid); counters live on their thread's process and are keyed
// by name; a flow id (never 0) joins the two points of one arrow. Colors
// are MABUTRACE_COLOR_SET | 0xRRGGBB when set, else 0.
//
// What a writer may assume (the producer's rules, trace_rules.h): per
// track, slices nest (an end closes the innermost open slice and comes
// after its begin), times never go backwards in call order except for an
// arrow end written late (OnFlow), and an arrow end comes after its start. Metadata
// comes after the last event (writers of object-form JSON need it last),
// then Finish().
//
// string_views are valid only during the call; nothing here allocates.
// C++17, no exceptions: the device build uses it as it is.
#ifndef MABUTRACE_FORMAT_TRACE_EVENTS_H
#define MABUTRACE_FORMAT_TRACE_EVENTS_H

// The writers and the device exports need C++17 (std::string_view). A
// build in an older mode (the Arduino Due core's platform.txt passes
// -std=gnu++11) gets the recording core and the binary stream only: the
// sources that test MABUTRACE_FORMAT_WRITERS compile to nothing there
// (docs/ports.md §5).
#if __cplusplus >= 201703L
#define MABUTRACE_FORMAT_WRITERS 1
#else
#define MABUTRACE_FORMAT_WRITERS 0
#endif

#if MABUTRACE_FORMAT_WRITERS
#include <stdint.h>

#include <string_view>

namespace mabutrace::format {

struct Track {
  uint32_t pid = 0;
  uint32_t tid = 0;
  bool operator==(const Track& o) const { return pid == o.pid && tid == o.tid; }
  bool operator!=(const Track& o) const { return !(*this == o); }
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Before anything else, when the trace's clock is related to the OS
  // clocks (format/clock_map.h): CLOCK_MONOTONIC and CLOCK_BOOTTIME ns at
  // the trace's time 0 (the event times are ns on CLOCK_MONOTONIC's
  // timeline since then). Not called otherwise. Writers that have no use
  // for it ignore it.
  virtual void OnClock(uint64_t monotonic_ns_at_zero, uint64_t boottime_ns_at_zero) {
    (void)monotonic_ns_at_zero;
    (void)boottime_ns_at_zero;
  }
  // After OnClock (when called) and before the metadata: at the trace's
  // time `trace_ns`, the clock `clock_id` read `clock_ns` (ns). The clock
  // is one of the trace's inputs, as `mabutrace merge` placed it on the
  // trace's timeline (docs/merge.md §Clock ids): two or more readings of
  // one clock give its rate as well as its offset. clock_id >= 128 (the
  // Perfetto ClockSnapshot ids above the builtin and sequence-scoped ones).
  // Writers without a clock model ignore it.
  virtual void OnClockSnapshot(uint32_t clock_id, uint64_t trace_ns, uint64_t clock_ns) {
    (void)clock_id;
    (void)trace_ns;
    (void)clock_ns;
  }
  // Before any event of the process / thread. An empty name: the writer's
  // default ("thread <tid>"; a process keeps the viewer's own).
  virtual void OnProcess(uint32_t pid, std::string_view name) = 0;
  virtual void OnThread(Track t, std::string_view name) = 0;
  virtual void OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) = 0;
  // `name` is the begin's. `flag` is empty for a recorded end, else why the
  // end was made up (trace_vocabulary.h, flag::).
  virtual void OnEnd(Track t, std::string_view name, uint64_t ns, std::string_view flag) = 0;
  virtual void OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) = 0;
  virtual void OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) = 0;
  // A flow point as recorded (TRACE_FLOW_OUT / TRACE_FLOW_IN): the start or
  // end of arrow `id`, or with `id` 0 the point alone (its arrow end may
  // follow through OnFlow). `name` may be empty. `enclosed`: a slice is open
  // on `t`. A point outside every slice takes 1 ns of its track
  // (trace_rules.h FlowPoint), which a writer may use: Chrome JSON draws a
  // carrier slice there, Perfetto an instant.
  virtual void OnFlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                           uint32_t color, bool enclosed) = 0;
  // An arrow end alone: the end of arrow `id`, whose point was written
  // earlier with id 0, bound to what encloses that point at `ns`.
  virtual void OnFlow(Track t, bool start, uint64_t id, uint64_t ns) = 0;
  // A key/value of the trace's metadata (trace_vocabulary.h, stat::).
  virtual void OnMetadata(std::string_view key, int64_t value) = 0;
  virtual void OnMetadata(std::string_view key, std::string_view value) = 0;
  // The trace ended: write trailers and flush. False if writing failed.
  virtual bool Finish() = 0;
};

}  // namespace mabutrace::format

#endif  // MABUTRACE_FORMAT_WRITERS
#endif  // MABUTRACE_FORMAT_TRACE_EVENTS_H
