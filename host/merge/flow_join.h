// SPDX-License-Identifier: MIT
// flow_join.h: `mabutrace merge --join-flows A:B` (docs/merge.md §Flows
// across inputs): an arrow from a TRACE_FLOW_OUT on sender A to the
// TRACE_FLOW_IN on receiver B that was given A's link (the 16-bit value
// FLOW_OUT wrote, carried from one device to the other in a message).
//
// B's stream cannot resolve such an end (no start of its own has that
// link), so it comes out of B's reader with its link (model::kUnresolvedLink
// | link). It joins the latest start of a sender with that link (LinkForFlow
// of the start's flow number) at or before the end on the merged timeline
// that no other end took: links cycle through 65,535 values, so the latest
// earlier one is the message's, unless it waited a whole link cycle.
// An end that finds none stays a point without arrow, counted.
//
// Memory: 24 bytes per flow start of each sender (a table per link).
#ifndef MABUTRACE_HOST_MERGE_FLOW_JOIN_H
#define MABUTRACE_HOST_MERGE_FLOW_JOIN_H

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "clock_fit.h"
#include "input_scan.h"

namespace mabutrace::merge {

// The id of input `index`'s flow `id` in the merged output: arrows of two
// inputs never share an id (the toolkit's ids are < 2^48).
inline uint64_t MergedFlowId(size_t index, uint64_t id) { return (uint64_t(index + 1) << 48) ^ id; }

class FlowJoin {
 public:
  // Sender `index`, placed on the merged timeline by `total`, with the
  // flow starts its first pass collected.
  void AddSender(size_t index, const ClockLine& total,
                 const std::unordered_map<uint16_t, std::vector<InputScan::FlowOut>>& outs);
  // The merged id of the start an end with `link` at merged time `ns`
  // joins (and marks it taken), or 0.
  uint64_t Take(uint16_t link, uint64_t ns);

 private:
  struct Start {
    uint64_t ns = 0;  // merged time
    uint64_t id = 0;  // merged id
    bool taken = false;
  };
  std::unordered_map<uint16_t, std::vector<Start>> starts_;  // per link, by time
};

}  // namespace mabutrace::merge

#endif  // MABUTRACE_HOST_MERGE_FLOW_JOIN_H
