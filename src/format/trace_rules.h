// SPDX-License-Identifier: MIT
// trace_rules.h: the rules a producer enforces before events reach a writer
// (trace_events.h), written once for the device's walker
// (src/runtime/trace_walker.cpp) and the host's Normalizer
// (host/model/normalizer.cpp). Each keeps its own per-track state (fixed
// arrays on a device, maps on a host); the decisions are these functions.
//
// 1. Slices nest per track: an end closes the innermost open slice, takes
//    its name, and lands at least 1 ns after its begin (EndTime): Perfetto
//    sorts an end before a begin of the same time, which would orphan it
//    (trace-formats.md §1.3).
// 2. Times never go backwards on a track: a producer clamps them up.
// 3. An end with no open slice is dropped (stat::kOrphanScopeEnds); slices
//    open when the trace ends close at its last time with
//    flag::kOpenAtEnd (stat::kOpenScopesClosed).
// 4. A flow point binds to the innermost open slice; with none open it
//    takes 1 ns of its track (FlowPoint), where Chrome JSON, whose v1 flows
//    bind to a slice and never to nothing (§1.5), draws a carrier slice.
// 5. A flow end is written only after its start; one whose start is gone
//    is still drawn as its point, without an arrow
//    (stat::kFlowEndsWithoutStart).
#ifndef MABUTRACE_FORMAT_TRACE_RULES_H
#define MABUTRACE_FORMAT_TRACE_RULES_H

#include <stdint.h>

#include "trace_events.h"
#include "trace_vocabulary.h"

namespace mabutrace::format {

// When an end at `ns` of a slice begun at `begin_ns` lands (rule 1).
inline uint64_t EndTime(uint64_t begin_ns, uint64_t ns) { return ns > begin_ns ? ns : begin_ns + 1; }

// Writes a flow point as recorded (TRACE_FLOW_OUT / TRACE_FLOW_IN) to
// `out` (EventSink::OnFlowPoint; rule 4): `enclosed` says a slice is open
// on `t`. Returns the last time the point takes on `t`: ns, or ns + 1 for
// a point outside every slice.
inline uint64_t FlowPoint(EventSink& out, Track t, bool start, uint64_t id, std::string_view name, uint64_t ns,
                          uint32_t cpu, uint32_t color, bool enclosed) {
  out.OnFlowPoint(t, start, id, name, ns, cpu, color, enclosed);
  return enclosed ? ns : ns + 1;
}

}  // namespace mabutrace::format

#endif  // MABUTRACE_FORMAT_TRACE_RULES_H
