// SPDX-License-Identifier: MIT
// ete_export.h: a snapshot's ETE trace -> the host trace model (R-F6), for
// `mabutrace ete export SNAPSHOT_DIR -o OUT.json|OUT.pftrace`; the ETE
// counterpart of cptracer/export.h.
//
//   snapshot ──decode pass 1──► TimeSources ──► time base (ete_timeline.h)
//            ──decode pass 2──► TimelineBuilder ──► model::Normalizer ──► sink
//
// Every buffer of the snapshot with an ETE source is decoded twice (a
// writer needs time-ordered input, so the time base is chosen before
// writing). Tracks: process 1 "ETE <snapshot directory name>" (the
// protocols of its sources: "ETMv4", "ETMv3/PTM", ...), one thread per
// trace source in buffer order, named "<core> (<source>)" ("cpu_0
// (ETE_0_s1)"), or the source's name when it feeds no core. Metadata:
// "source" = source_label, then TimelineBuilder's "ete.*" keys.
//
// Errors: the decode errors of the second pass go to on_error (optional)
// with their buffer and source index (SIZE_MAX: the buffer itself, e.g.
// framing or a file that cannot be read; each once per buffer file however
// many protocols de-format it, BufferErrorOnce); they are counted and the
// export goes on, and the metadata says so: "ete.decode_errors" (how many)
// and "ete.decode_error" (the first, "<track>: <message>"). sink->Finish()
// is called once, at the end.
//
// ExportOptions (issue 21): timestamp frequency and symbols. The frequency
// comes from the snapshot when a device gives it (register CNTFRQ_EL0 in a
// core's or the trace source's [regs]: the generic timer frequency, which
// ETE timestamps count), else from options.timestamp_hz (--ts-hz); which one
// is said in "ete.time_unit". With options.symbols, executed ranges become
// function slices (function_slices.h). If the first pass finds executed
// ranges but no symbol covers any of them, the ELF does not match the image:
// nothing is written (sink untouched, summary.elf_mismatch) so the caller
// can fail naming the ELF.
//
// The SinkOpener form opens the sink only once the input is known usable
// (after pass 1 and the ELF check): a caller that creates its output file
// in open() leaves no file behind on a mismatch. open() returning nullptr
// stops the export (write_ok false, nothing decoded further).
#ifndef MABUTRACE_HOST_ETE_DECODE_ETE_EXPORT_H
#define MABUTRACE_HOST_ETE_DECODE_ETE_EXPORT_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ete_decode_session.h"
#include "ete_timeline.h"
#include "trace_model.h"

namespace mabutrace::elf {
class SymbolTable;  // elf/elf_symbols.h
}  // namespace mabutrace::elf

namespace mabutrace::ete_decode {

using elf::SymbolTable;

// A trace buffer's own errors (its framing: source SIZE_MAX) are found again
// by every protocol's decoder that de-formats the buffer (ETMv3 and PTM
// sources behind one formatter): they are one error of the buffer, reported
// and counted once per buffer file. The export does this for its on_error;
// `arm decode`, which calls the decoders itself, does it with one of these.
class BufferErrorOnce {
 public:
  // false for a buffer error already seen in `file`; true for any other.
  bool First(size_t source, const std::string& file, const std::string& message) {
    return source != SIZE_MAX || seen_.insert(file + "\n" + message).second;
  }

 private:
  std::set<std::string> seen_;  // "file\nmessage"
};

// The element streams of another protocol's decoder (host/etm3), on tracks
// of their own after the ETE/ETMv4 sources' (the timeline only needs
// elements). decode() decodes all of its sources once per pass, calling
// on_element / on_error with a source index < tracks.size(); false when its
// input could not be read. on_error gets the errors of the writing pass.
struct ExportExtra {
  std::string protocol;             // "ETMv3" (process name when there is no ETE/ETMv4 source)
  std::string file;                 // the trace buffer's file: its framing errors are counted once (BufferErrorOnce)
  std::vector<std::string> tracks;  // one per source: "cpu_0 (ETM_0)"
  std::function<bool(SourceElementCallback, SourceDecodeErrorCallback, void*)> decode;
  std::function<void(size_t source, const std::string& message)> on_error;
};

// How the timeline's time relates to the trace's timestamps, for another
// timeline written beside it (ExportOptions::beside).
struct TimestampClock {
  bool timestamps = false;  // time base "timestamp" and a timestamp came
  uint64_t origin = 0;      // the timestamp (ticks) at...
  uint64_t origin_ns = 0;   // ...this time of the timeline
  double hz = 0;            // ticks per second (0: ticks written as ns)
};

// Another exporter's timeline on the same sink (`arm export`: the ITM
// sources, host/itm): called once the ETE/ETMv4/extra tracks are written,
// with their clock. It writes its own processes (pid >= 2) through a
// Normalizer of its own and calls sink->Finish() once; the metadata of both
// reaches the real sink after every event (repair counts of equal keys
// summed). false: its input could not be read (summary.read_ok false).
using BesideTimeline = std::function<bool(model::EventSink* sink, const TimestampClock& clock)>;

struct ExportOptions {
  double timestamp_hz = 0;               // --ts-hz (0: none)
  const SymbolTable* symbols = nullptr;  // --elf (nullptr: a slice per range)
  std::vector<ExportExtra> extra;        // other protocols' sources
  BesideTimeline beside;                 // optional
};

struct ExportSummary {
  TimeBase base = TimeBase::kElementOrder;
  uint64_t range_slices = 0;   // one per executed range
  uint64_t decode_errors = 0;  // reported through on_error
  bool read_ok = true;         // every buffer file was read whole
  bool write_ok = true;        // sink->Finish() succeeded
  double timestamp_hz = 0;     // used (0: ticks as ns)
  std::string timestamp_hz_source;
  bool hz_conflict = false;            // the snapshot and --ts-hz disagree (the snapshot's is used)
  bool elf_mismatch = false;           // symbols given, none covers a traced range: nothing written
  uint64_t ranges_without_symbol = 0;  // with symbols: ranges named by address
  uint64_t function_slices = 0;
};

using ExportErrorCallback = void (*)(void* ctx, const DecodeBuffer& buffer, size_t source, const std::string& message);

ExportSummary ExportTimeline(const LoadedSnapshot& snap, std::string_view source_label, model::EventSink* sink,
                             ExportErrorCallback on_error = nullptr, void* ctx = nullptr);
ExportSummary ExportTimeline(const LoadedSnapshot& snap, std::string_view source_label, model::EventSink* sink,
                             const ExportOptions& options, ExportErrorCallback on_error = nullptr, void* ctx = nullptr);
using SinkOpener = std::function<model::EventSink*()>;
ExportSummary ExportTimeline(const LoadedSnapshot& snap, std::string_view source_label, const SinkOpener& open,
                             const ExportOptions& options, ExportErrorCallback on_error = nullptr, void* ctx = nullptr);

// The timestamp frequency a snapshot states, with its origin: CNTFRQ_EL0 of
// a core or trace source device ("snapshot cpu_0.ini CNTFRQ_EL0"), else
// DS-5's trace.ini [timestamp] frequency ("snapshot DIR/trace.ini
// [timestamp] frequency"); 0 if none.
double SnapshotTimestampHz(const snapshot::Snapshot& snap, std::string* source);

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_ETE_EXPORT_H
