// SPDX-License-Identifier: MIT
// merge_plan.h: where each input of `mabutrace merge` lands on the merged
// timeline (docs/merge.md §Clocks), decided from the first pass alone.
//
// The first input is the reference: the merged trace's time is its time
// (and its OS clock, when it has one). Every input's times go through
//   1. its flags:  t' = t × 1e9 / clock_hz + offset_ns   (the flag space),
//   2. its placement on the reference's flag space, the first that applies:
//      a. sync points: a line fitted (clock_fit.h) to pairs of readings of
//         the same instant in this input and an input already placed,
//         found through a shared domain D in one of two ways:
//           - this input's clock IS D (--clock-domain NAME=D: e.g. an ETE
//             trace on "cntvct") and the other recorded clock_sync:D points
//             (its time, the D reading) — or the other way round;
//           - both recorded clock_sync:D points with equal values (the
//             k-th edge of a shared GPIO, a message id).
//         Inputs are placed outward from the reference, each from the
//         placed input it shares the most pairs with.
//      b. the OS clock: both this input and the reference carry their time
//         0 on CLOCK_MONOTONIC (a runtime trace of the host port) and no
//         flag was given for this input: the difference of the two
//         (the same machine assumed; the metadata says so);
//      c. nothing: the flag space as it is.
// Errors (the caller prints them, nothing is written): a domain named with
// --sync that pairs no two inputs.
#ifndef MABUTRACE_HOST_MERGE_MERGE_PLAN_H
#define MABUTRACE_HOST_MERGE_MERGE_PLAN_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clock_fit.h"
#include "input_scan.h"

namespace mabutrace::merge {

struct InputSpec {
  std::string name;                  // its process name prefix and metadata prefix
  std::optional<double> clock_hz;    // its times are ticks at this rate (ns = t × 1e9 / hz)
  std::optional<int64_t> offset_ns;  // added after clock_hz
  std::string clock_domain;          // the sync domain its own clock is ("" = none)
};

enum class Placement { kReference, kSyncPoints, kOsClock, kFlagsOnly };

struct InputPlan {
  Placement placement = Placement::kFlagsOnly;
  ClockLine flags;        // input time → flag space
  ClockLine to_ref;       // flag space → merged time
  ClockLine total;        // input time → merged time (Compose(flags, to_ref))
  ClockFit fit;           // kSyncPoints: the fit and its residuals
  std::string domain;     // kSyncPoints: the domain it was found through
  size_t via = 0;         // kSyncPoints: the input it was fitted against
  uint32_t clock_id = 0;  // its Perfetto clock id (>= 128, docs/merge.md)
  std::string how;        // one line for the metadata and stderr
};

struct MergePlan {
  std::vector<InputPlan> inputs;  // as the specs
  // Added to every merged time so that no input's first event lands before
  // 0 (an input placed earlier than the reference's start).
  uint64_t shift_ns = 0;
};

// `scans[i]` is the first pass of `specs[i]`; `sync_domains`: the domains
// the user asked for (empty: every domain found). nullopt after *error.
std::optional<MergePlan> PlanMerge(const std::vector<InputSpec>& specs, const std::vector<InputScan>& scans,
                                   const std::vector<std::string>& sync_domains, std::string* error);

// The Perfetto clock id of input `name`: FNV-1a of "mabutrace.merge/NAME"
// with the low 7 bits cleared, as perfetto_trace.proto suggests for global
// clock ids (>= 128); `taken` ids are skipped by adding 128.
uint32_t InputClockId(const std::string& name, const std::vector<uint32_t>& taken);

}  // namespace mabutrace::merge

#endif  // MABUTRACE_HOST_MERGE_MERGE_PLAN_H
