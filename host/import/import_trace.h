// SPDX-License-Identifier: MIT
// import_trace.h: a .json or .pftrace the toolkit wrote, told from its first
// bytes and read into the trace model through the Normalizer, for every
// host tool that takes a trace as input (`convert`, `stats`).
#ifndef MABUTRACE_HOST_IMPORT_IMPORT_TRACE_H
#define MABUTRACE_HOST_IMPORT_IMPORT_TRACE_H

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "format/trace_events.h"
#include "stream_decoder.h"  // host::Status

namespace mabutrace::host {

enum class ImportKind { kNone, kChromeJson, kPerfetto };

// From the first bytes of a file (8 or more; fewer only if the file is that
// short): Chrome JSON when the first non-blank byte (after a UTF-8 byte
// order mark) is '{' or '['; Perfetto
// when it opens with a Trace.packet field (0x0A, a length) whose first
// field is one a TracePacket of the toolkit's writer starts with. kNone
// otherwise (a binary stream, a raw dump: the caller's).
ImportKind SniffImport(std::string_view head);

struct ImportResult {
  Status fatal;                // ok, or what ended the read (its byte offset)
  std::vector<Status> errors;  // damaged parts skipped (the first 100), offsets in the file
  uint64_t damaged = 0;        // all of them, and events kept without their name
  uint64_t out_of_order = 0;   // .json events earlier than one before them on their track, drawn then
  uint64_t x_clipped = 0;      // .json "X" events cut to end with the "X" they start in
  uint64_t skipped = 0;        // .json events not passed on: phases the model has no place for, or no sense
  // What of another producer's file the model cannot hold as it was, each
  // a metadata key with its non-zero count (import_reordered, import_ids_remapped,
  // import_counters_rounded, import_utf8_repaired, import_args_ignored,
  // import_names_late;
  // import_fields_ignored, import_flows_dropped, import_counters_rounded,
  // import_async_tracks), in the metadata's order.
  std::vector<std::pair<const char*, uint64_t>> adapted;
  bool sink_ok = true;  // out.Finish()'s answer
};

// Reads the rest of `in`, after `head` (the bytes already read from it),
// as `kind` into a model::Normalizer and then `out`, and finishes `out`.
// What the reader skipped is counted in the metadata: import_skipped
// (events or packets that were damaged or not understood), import_names_lost
// (events kept named "<unknown name>": their interned name was lost) and
// import_foreign_packets (Perfetto packets of kinds the toolkit does not
// write, e.g. ftrace) and import_out_of_order (.json events before an
// earlier event of their track in the file past the first 2^20 events:
// drawn at that earlier time; chrome_json_reader.h), import_reordered (such
// events among the first 2^20: the file was sorted) and import_x_clipped (.json "X" events that would
// outlast the "X" they start in: ended with it), import_ids_remapped
// (.json pid/tid numbers past 32 bits, each given an id of its own) and
// import_counters_rounded (.json counter values with a fraction or past
// int64) and import_utf8_repaired (.json bytes that were not UTF-8, read
// as '?'). Everything read before an error is kept, and
// the error that ended the read is the string import_error ("offset N: ...").
ImportResult ImportTrace(ImportKind kind, std::FILE* in, std::string_view head, format::EventSink& out);

}  // namespace mabutrace::host

#endif  // MABUTRACE_HOST_IMPORT_IMPORT_TRACE_H
