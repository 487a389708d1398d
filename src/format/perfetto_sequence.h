// perfetto_sequence.h: the packet sequences both Perfetto writers use
// (device: perfetto_exporter.cpp, host: host/export/perfetto_writer.cpp).
//
// Layout, as the Perfetto SDK writes it (trace-formats.md §2.6-2.8):
// - sequence 1 (kGlobalSequence) carries the track descriptors and the
//   final statistics, with absolute timestamps on the default clock;
// - each thread's events go on a sequence of their own. Its clearing packet
//   holds a ClockSnapshot that starts the sequence-scoped incremental clock
//   64 at 0 ns of the default clock, and TracePacketDefaults that make clock
//   64 and the thread's track the defaults. Later packets then carry only
//   the delta since the previous packet and no track uuid. A packet that
//   goes back in time names the default clock and an absolute time instead
//   (it does not disturb the delta chain). Interning is per sequence.
// This is what makes a .pftrace several times smaller than the JSON.
#ifndef MABUTRACE_FORMAT_PERFETTO_SEQUENCE_H
#define MABUTRACE_FORMAT_PERFETTO_SEQUENCE_H

#include <stdint.h>

#include "perfetto_fields.h"
#include "proto_out.h"

namespace mabutrace::pb {

constexpr uint32_t kGlobalSequence = 1;

// The clearing packet of a thread sequence `seq` whose events default to
// `track_uuid`; interns `annotation_names[1..n)` as debug annotation names
// with iids 1..n-1 (entry 0 is unused).
inline void WriteSequenceStart(ProtoOut& p, uint32_t seq, uint64_t track_uuid,
                               const char* const* annotation_names, uint32_t n) {
  p.U64(kSequenceId, seq);
  p.U64(kSequenceFlags, kIncrementalStateCleared);
  uint32_t cs = p.Begin(kClockSnapshot);
  uint32_t c = p.Begin(kCsClocks);
  p.U64(kClkId, kClockBoottime);
  p.U64(kClkTimestamp, 0);
  p.End(c);
  c = p.Begin(kCsClocks);
  p.U64(kClkId, kClockIncremental);
  p.U64(kClkTimestamp, 0);
  p.U64(kClkIncremental, 1);
  p.End(c);
  p.End(cs);
  uint32_t d = p.Begin(kTracePacketDefaults);
  p.U64(kTpdTimestampClockId, kClockIncremental);
  uint32_t ted = p.Begin(kTpdTrackEventDefaults);
  p.U64(kTedTrackUuid, track_uuid);
  p.End(ted);
  p.End(d);
  if (n > 1) {
    uint32_t id = p.Begin(kInternedData);
    for (uint32_t i = 1; i < n; ++i) {
      uint32_t e = p.Begin(kIdAnnotationNames);
      p.U64(kIidIid, i);
      p.String(kIidName, annotation_names[i]);
      p.End(e);
    }
    p.End(id);
  }
}

// Starts a packet at `ns` on thread sequence `seq`, whose clock last read
// *last_ns (updated). Every such packet depends on the sequence's state.
inline void WriteSequencePacketHead(ProtoOut& p, uint32_t seq, uint64_t* last_ns, uint64_t ns) {
  if (ns >= *last_ns) {
    p.U64(kTimestamp, ns - *last_ns);
    *last_ns = ns;
  } else {
    p.U64(kTimestamp, ns);
    p.U64(kTimestampClockId, kClockBoottime);
  }
  p.U64(kSequenceId, seq);
  p.U64(kSequenceFlags, kNeedsIncrementalState);
}

}  // namespace mabutrace::pb

#endif  // MABUTRACE_FORMAT_PERFETTO_SEQUENCE_H
