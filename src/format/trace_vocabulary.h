// SPDX-License-Identifier: MIT
// trace_vocabulary.h: the names every writer and producer of the toolkit
// uses for the same things, in one place: why an end was made up, the
// statistics keys of a trace's metadata, and the fixed names in the files.
// A key that means the same on a device export and a host conversion is
// spelt the same in both (tests/format/export_equality_test.cpp checks it).
#ifndef MABUTRACE_FORMAT_TRACE_VOCABULARY_H
#define MABUTRACE_FORMAT_TRACE_VOCABULARY_H

#include <stddef.h>

#include "utf8.h"

namespace mabutrace::format {

// EventSink::OnEnd's flag: why a producer closed a slice itself. Written
// as an args/debug-annotation key with the value true.
namespace flag {
constexpr char kOpenAtEnd[] = "open_at_end";       // still open when the trace ended
constexpr char kTruncated[] = "truncated";         // the thread's records have a gap here
constexpr char kThreadExited[] = "thread_exited";  // its thread's slot went to another thread
}  // namespace flag

// Metadata keys (EventSink::OnMetadata).
namespace stat {
// The recorder's own counters (mabutrace_stats_t, SPEC R-A12), as of the
// export or of the stream's last flush.
constexpr char kClockHz[] = "clock_hz";
// string: "tsc", "cntvct" (the CPU counter), "CLOCK_MONOTONIC", "user" or
// "port" (an MCU port's own clock)
constexpr char kClock[] = "clock";
// Where the clock is related to the OS clocks (format/clock_map.h): the
// trace's time 0 on CLOCK_MONOTONIC and on CLOCK_BOOTTIME, in ns.
constexpr char kClockMonotonicAtOrigin[] = "clock_monotonic_ns_at_origin";
constexpr char kClockBoottimeAtOrigin[] = "clock_boottime_ns_at_origin";
constexpr char kEventsWritten[] = "events_written";
constexpr char kEventsOverwritten[] = "events_overwritten";
constexpr char kEventsDropped[] = "events_dropped";
constexpr char kBytesInUse[] = "bytes_in_use";
constexpr char kBufferSize[] = "buffer_size";
constexpr char kChunkSize[] = "chunk_size";
constexpr char kThreads[] = "threads";
// Repairs made by whoever enforced trace_rules.h (the device's walker or
// the host's Normalizer): the same input gives the same counts on both.
constexpr char kOrphanScopeEnds[] = "orphan_scope_ends";             // ends whose begin was gone
constexpr char kOpenScopesClosed[] = "open_scopes_closed";           // closed at the end (flag kOpenAtEnd, ...)
constexpr char kFlowEndsWithoutStart[] = "flow_ends_without_start";  // drawn as a point, no arrow
// Records whose time is before an earlier record's of the same thread
// (the clock is not one global monotonic clock: e.g. a per-core cycle
// counter, and the thread moved to another core); drawn at that earlier
// time instead. A scope that migrated this way has a made-up duration.
constexpr char kClockWentBackwards[] = "clock_went_backwards";
// Flow ends whose link id fits two flow starts both present (the link was
// held while 65,535 other flows started, so the id came round again): no
// arrow rather than one from an unrelated slice; drawn as a point.
constexpr char kFlowEndsAmbiguous[] = "flow_ends_ambiguous";
// The device export's reader of the ring buffer (src/runtime/trace_walker.h).
constexpr char kExportedRecords[] = "exported_records";
constexpr char kScopesTooDeep[] = "scopes_too_deep";
constexpr char kFlowStartsLostDuringExport[] = "flow_starts_lost_during_export";
constexpr char kFlowEndsUnconfirmed[] = "flow_ends_unconfirmed";
constexpr char kChunksLostDuringExport[] = "chunks_lost_during_export";
constexpr char kCorruptChunks[] = "corrupt_chunks";
// Responses of the built-in HTTP server cut short (its 5 s budget ran out,
// or the client went away) since init (src/http/http_service.h).
constexpr char kHttpResponsesCut[] = "http_responses_cut";
// The host's reader of a binary stream (host/stream/stream_to_model.h).
constexpr char kStreamVersion[] = "stream_version";
constexpr char kStreamEvents[] = "stream_events";
constexpr char kLostRecords[] = "lost_records";        // overwritten before they were sent
constexpr char kDroppedRecords[] = "dropped_records";  // never recorded: buffer full
constexpr char kDamagedRecords[] = "damaged_records";
constexpr char kStreamError[] = "stream_error";  // string
// The writers: what they had to leave out.
constexpr char kPacketsDropped[] = "packets_dropped";             // larger than a packet
constexpr char kEventsAfterMetadata[] = "events_after_metadata";  // broke the sink's order
}  // namespace stat

// Fixed names in the files.
constexpr char kProducer[] = "mabutrace";
constexpr int kFormatVersion = 1;          // of the metadata object / annotations
constexpr char kCategory[] = "mabutrace";  // Chrome JSON "cat" of every slice and instant
constexpr char kFlowName[] = "flow";       // Chrome JSON: the name of an arrow's s/f events
constexpr char kFlowCategory[] = "mabutrace.flow";
constexpr char kFlowOutName[] = "flow_out";  // an unnamed flow point (its carrier slice
constexpr char kFlowInName[] = "flow_in";    // in JSON, its instant in Perfetto)
// Chrome JSON: the arg (true) of a flow point whose arrow end is written
// later, apart from it (an end resolved at the end of a stream).
constexpr char kArrowLater[] = "arrow_later";
constexpr char kMetadataEvent[] = "mabutrace metadata";  // Perfetto: the instant holding the metadata
constexpr char kThreadNamePrefix[] = "thread ";          // + tid, for a thread without a name
constexpr char kNullName[] = "(null)";                   // a NULL name pointer

// Bytes of a name kept in any format (cut at a character: utf8.h
// Utf8Prefix), so that names read the same in every file and a device's
// protobuf packet buffer always holds one.
constexpr size_t kMaxNameBytes = 1024;

// Bytes of the name s[0 .. n) a writer keeps. Made valid, a name takes at
// most 3 bytes per byte (U+FFFD), so most need no cut and no second pass.
inline size_t KeptNameBytes(const char* s, size_t n) {
  return n * 3 <= kMaxNameBytes ? n : Utf8Prefix(s, n, kMaxNameBytes);
}

}  // namespace mabutrace::format

#endif  // MABUTRACE_FORMAT_TRACE_VOCABULARY_H
