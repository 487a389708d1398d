// SPDX-License-Identifier: MIT
// chrome_json_reader.h: a Chrome JSON trace (Trace Event Format) read into
// events, streaming: the toolkit's own .json (format/chrome_json_writer.h)
// exactly, and the common subset other producers write.
//
// The file is parsed with nlohmann::json's SAX interface, one event object
// at a time. Events go to `out` in time order per track (json_event_order.h:
// the first 2^20 are held; a file whose events go back in time among them
// is held whole and sorted, else events stream in file order); put a
// model::Normalizer after it, as after every decoder. Both forms are read: {"traceEvents":[...], "metadata":{...}}
// and a bare [...] of events.
//
// What each event becomes (ph, Trace Event Format; "ts" and "dur" are µs,
// read as exact ns from their decimal text: "12.345" is 12,345 ns):
//   "M" process_name / thread_name   OnProcess / OnThread ("thread <tid>"
//                                    reads back as unnamed); the model
//                                    names a track at its first event, so a
//                                    name after that is counted (names_late)
//   "B" / "E"                         OnBegin / OnEnd (args: "cpu", "color"
//                                    "#rrggbb", a flag as `"name":true`;
//                                    other args are counted, args_ignored)
//   "bind_id" + "flow_in"/"flow_out"  on a "B" or "X" (flow v2): OnFlow,
//                                    bound to that slice
//   "X"                               OnBegin, and OnEnd at ts + dur once the
//                                    track's later events pass that time; an
//                                    "X" that would end after the "X" it
//                                    starts in ends with it (x_clipped)
//   "i" / "I"                         OnInstant
//   "C"                               OnCounter per numeric arg: the event's
//                                    name for "value", else "name.arg"; the
//                                    model's counters are int64: a fraction
//                                    is rounded, past int64 saturates
//                                    (counters_rounded)
//   "pid" / "tid"                     32-bit ids ("0x1f" and "31" as
//                                    strings too); a number past 32 bits,
//                                    negative or fractional, or a name
//                                    ("GPU"), gets an id of its own, from
//                                    2^32 - 1 down (ids_remapped)
//   "s" / "f"                         an arrow's start / end: joined with the
//                                    point the writer put before it (a 1 ns
//                                    carrier slice or an instant in the
//                                    "mabutrace.flow" category) into
//                                    OnFlowPoint; with a "cpu" arg it is an
//                                    unnamed point inside a slice; else
//                                    OnFlow (an arrow end bound late)
//   the "metadata" object             OnMetadata per number/string/bool
//                                    (the writer's own "producer" and
//                                    "format_version" are not passed on)
// Other phases are counted (skipped_events()), not passed on.
//
// Order: the Trace Event Format does not require time order (a profiler
// that writes each "X" when its function returns puts callers after their
// callees). An event whose "ts" is before that of an earlier event of its
// track (s/f and "M" aside) among the first 2^20 makes the read sort the
// whole file (counted in reordered); after them it is counted in
// out_of_order, and the model draws it at that earlier time.
//
// Text: bytes that start no valid UTF-8 sequence (Latin-1 names, a cut
// character) are read as '?', and an escaped surrogate without its other
// half ("\ud800") as U+FFFD, counted in utf8_repaired, instead of ending
// the read as the parser would; offsets stay the file's. A UTF-8 byte
// order mark at the start is skipped.
//
// Errors: the first JSON syntax error ends the read (a Status with the byte
// offset, from the parser); the events before it have been passed on. An
// event that parses but makes no sense (no "ph", "ts" not a number, "E"
// with a "dur") is skipped and counted in skipped_events().
#ifndef MABUTRACE_HOST_IMPORT_CHROME_JSON_READER_H
#define MABUTRACE_HOST_IMPORT_CHROME_JSON_READER_H

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string_view>

#include "format/trace_events.h"
#include "stream_decoder.h"  // host::Status

namespace mabutrace::host {

struct ChromeJsonResult {
  Status status;                  // ok, or the syntax error that ended the read
  uint64_t events = 0;            // event objects read
  uint64_t skipped_events = 0;    // of them, not passed on
  uint64_t out_of_order = 0;      // of them, earlier than one before them on their track: drawn then
  uint64_t reordered = 0;         // of them, earlier than one before them on their track: sorted
  uint64_t x_clipped = 0;         // "X" events cut to end with the "X" they start in
  uint64_t ids_remapped = 0;      // distinct pid/tid values not 32-bit numbers, given ids of their own
  uint64_t counters_rounded = 0;  // counter values with a fraction, or past int64, rounded
  uint64_t utf8_repaired = 0;     // bytes that were not UTF-8 (read as '?'), lone surrogate escapes
  uint64_t args_ignored = 0;      // args of slices and instants the model has no room for
  uint64_t flows_dropped = 0;     // flow ends whose id is 0 or not a number (s/f "id", v2 "bind_id")
};

// Reads the whole of `in` (from where it is) into `out`. Does not call
// out.Finish(). `head` are bytes already read from `in` (they come first).
ChromeJsonResult ReadChromeJson(std::FILE* in, std::string_view head, format::EventSink& out);

// ns from the decimal text of a µs value ("12.345", "7", "1e3"): exact for
// plain decimals (digits past the ns are cut), else rounded from a double.
// nullopt if it is not a non-negative number.
std::optional<uint64_t> MicrosTextToNs(std::string_view text);

}  // namespace mabutrace::host

#endif  // MABUTRACE_HOST_IMPORT_CHROME_JSON_READER_H
