// SPDX-License-Identifier: MIT
// perfetto_fields.h: the perfetto.protos field numbers and enum values the
// protobuf writer uses (perfetto_writer.cpp). Source: perfetto_trace.proto
// in ../shared/reference/perfetto/ (snapshot ec5d16b), summarised in
// trace-formats.md Part 2; every one of them is in our subset of the
// schema, tests/format/perfetto_schema/perfetto_trace.proto.
#ifndef MABUTRACE_FORMAT_PERFETTO_FIELDS_H
#define MABUTRACE_FORMAT_PERFETTO_FIELDS_H

#include <stdint.h>

namespace mabutrace::pb {

constexpr uint32_t kTracePacket = 1;                                      // Trace.packet
constexpr uint32_t kClockSnapshot = 6, kTimestamp = 8, kSequenceId = 10,  // TracePacket
    kTrackEvent = 11, kInternedData = 12, kSequenceFlags = 13, kTimestampClockId = 58, kTracePacketDefaults = 59,
                   kTrackDescriptor = 60;
constexpr uint32_t kTpdTimestampClockId = 58, kTpdTrackEventDefaults = 11;  // TracePacketDefaults
constexpr uint32_t kTedTrackUuid = 11;                                      // TrackEventDefaults
constexpr uint32_t kCsClocks = 1;                                           // ClockSnapshot
constexpr uint32_t kClkId = 1, kClkTimestamp = 2, kClkIncremental = 3;      // ClockSnapshot.Clock
// Clock ids: BUILTIN_CLOCK_BOOTTIME (the trace's default clock), and the
// first sequence-scoped custom clock, which the Perfetto SDK uses for
// incremental (delta) timestamps (trace-formats.md §2.8).
constexpr uint32_t kClockMonotonic = 3, kClockBoottime = 6, kClockIncremental = 64;
constexpr uint32_t kTdUuid = 1, kTdName = 2, kTdProcess = 3, kTdThread = 4, kTdParent = 5,
                   kTdCounter = 8;                       // TrackDescriptor
constexpr uint32_t kPdPid = 1, kPdName = 6;              // ProcessDescriptor
constexpr uint32_t kThPid = 1, kThTid = 2, kThName = 5;  // ThreadDescriptor
constexpr uint32_t kCdUnit = 3;                          // CounterDescriptor
constexpr uint32_t kTeAnnotations = 4, kTeType = 9, kTeNameIid = 10, kTeTrack = 11, kTeName = 23, kTeCounterValue = 30,
                   kTeFlowIds = 47,
                   kTeTerminatingFlowIds = 48;  // TrackEvent
// TrackEvent fields other producers write that the reader reads (the
// toolkit's writer never does): flow_ids_old, terminating_flow_ids_old
// (varint), double_counter_value.
constexpr uint32_t kTeFlowIdsOld = 36, kTeTerminatingFlowIdsOld = 42, kTeDoubleCounterValue = 44;
constexpr uint32_t kIdEventNames = 2, kIdAnnotationNames = 3,  // InternedData
    kIdAnnotationStrings = 29;
constexpr uint32_t kIidIid = 1, kIidName = 2;  // EventName / DebugAnnotationName
constexpr uint32_t kInternedStringStr = 2;     // InternedString (iid is kIidIid)
constexpr uint32_t kDaNameIid = 1, kDaBool = 2, kDaUint = 3, kDaInt = 4, kDaString = 6, kDaName = 10,
                   kDaStringIid = 17;  // DebugAnnotation
// TrackEvent.Type
constexpr uint32_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounter = 4;
// TracePacket.SequenceFlags
constexpr uint32_t kIncrementalStateCleared = 1, kNeedsIncrementalState = 2;
// CounterDescriptor.Unit
constexpr uint32_t kUnitCount = 2;

}  // namespace mabutrace::pb

#endif  // MABUTRACE_FORMAT_PERFETTO_FIELDS_H
