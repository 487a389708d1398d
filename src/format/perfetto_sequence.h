// SPDX-License-Identifier: MIT
// perfetto_sequence.h: the state the Perfetto writer (perfetto_writer.h)
// keeps per thread track: its uuid, its packet sequence, the sequence's
// incremental clock and what was interned on it. Plain data, kept by the
// writer's tables (a device keeps it in its export workspace, beside the
// walker's per-thread state; a host in a map).
#ifndef MABUTRACE_FORMAT_PERFETTO_SEQUENCE_H
#define MABUTRACE_FORMAT_PERFETTO_SEQUENCE_H

#include <stdint.h>

namespace mabutrace::format {

// Event-name iids a sequence has interned, direct-mapped by iid: a
// collision only re-sends a name (same iid, same text).
constexpr uint32_t kSentIids = 32;

// A thread track and its packet sequence. Zero-initialised by the tables;
// the writer fills it when it first describes the track.
struct PerfettoSequence {
  uint64_t uuid;         // 0: not described yet
  uint64_t last_ns;      // the sequence's incremental clock
  uint64_t sent_colors;  // bit i: color string iid i + 1 interned on it
  uint32_t sequence_id;
  uint16_t sent_iids[kSentIids];
};

}  // namespace mabutrace::format

#endif  // MABUTRACE_FORMAT_PERFETTO_SEQUENCE_H
