// SPDX-License-Identifier: MIT
// ete_export.cpp: see ete_export.h.
#include "ete_export.h"

#include <optional>
#include <vector>

#include "elf_symbols.h"
#include "function_slices.h"

namespace mabutrace::ete_decode {
namespace {

struct Pass {
  TimeSources* times = nullptr;          // pass 1
  const SymbolTable* symbols = nullptr;  // pass 1: count ranges with a symbol
  uint64_t ranges = 0, ranges_with_symbol = 0;
  TimelineBuilder* timeline = nullptr;  // pass 2
  size_t track_base = 0;                // tracks of the buffers before this one
  const DecodeBuffer* buffer = nullptr;
  const ExportExtra* extra = nullptr;  // set while an ExportExtra decodes (instead of buffer)
  ExportErrorCallback on_error = nullptr;
  void* ctx = nullptr;
  uint64_t errors = 0;
};

void OnElement(void* c, size_t source, const EteElement& e) {
  auto* p = static_cast<Pass*>(c);
  if (p->times) p->times->Add(e);
  if (p->symbols && (e.type == ElemType::kInstrRange || e.type == ElemType::kInstrRangeNoPath)) {
    ++p->ranges;
    p->ranges_with_symbol += p->symbols->Find(e.start) != nullptr;
  }
  if (p->timeline) p->timeline->OnElement(p->track_base + source, e);
}

void OnError(void* c, size_t source, uint64_t, const std::string& message) {
  auto* p = static_cast<Pass*>(c);
  if (!p->timeline) return;  // reported once, in the second pass
  ++p->errors;
  if (p->extra) {
    if (p->extra->on_error) p->extra->on_error(source, message);
    return;
  }
  if (p->on_error) p->on_error(p->ctx, *p->buffer, source, message);
}

std::string ProcessName(const LoadedSnapshot& snap, const std::vector<ExportExtra>& extra) {
  std::string name = snap.snap.dir.filename().string();
  if (name.empty()) name = snap.snap.dir.parent_path().filename().string();  // "dir/"
  if (snap.buffers.empty() && !extra.empty()) return extra.front().protocol + " " + name;
  // "ETE name" / "ETMv4 name" after the trace units' protocol.
  bool ete = true, etm4 = true;
  for (const DecodeBuffer& b : snap.buffers)
    for (const ete::SourceSpec& s : b.sources) (s.config.is_ete() ? etm4 : ete) = false;
  return std::string(ete ? "ETE " : etm4 ? "ETMv4 " : "ETE/ETMv4 ") + name;
}

std::vector<std::string> TrackNames(const LoadedSnapshot& snap, const std::vector<ExportExtra>& extra) {
  std::vector<std::string> tracks;
  for (const DecodeBuffer& b : snap.buffers)
    for (size_t i = 0; i < b.sources.size(); ++i)
      tracks.push_back(b.cores[i].empty() ? b.sources[i].name : b.cores[i] + " (" + b.sources[i].name + ")");
  for (const ExportExtra& x : extra) tracks.insert(tracks.end(), x.tracks.begin(), x.tracks.end());
  return tracks;
}

}  // namespace

double SnapshotTimestampHz(const snapshot::Snapshot& snap, std::string* source) {
  for (const snapshot::Device& d : snap.devices) {
    if (auto hz = d.Reg("CNTFRQ_EL0"); hz && *hz) {
      *source = "snapshot " + d.ini_file.filename().string() + " CNTFRQ_EL0";
      return static_cast<double>(*hz);
    }
  }
  return 0;
}

ExportSummary ExportTimeline(const LoadedSnapshot& snap, std::string_view source_label, model::EventSink* sink,
                             ExportErrorCallback on_error, void* ctx) {
  return ExportTimeline(snap, source_label, sink, ExportOptions{}, on_error, ctx);
}

ExportSummary ExportTimeline(const LoadedSnapshot& snap, std::string_view source_label, model::EventSink* sink,
                             const ExportOptions& options, ExportErrorCallback on_error, void* ctx) {
  return ExportTimeline(snap, source_label, SinkOpener([sink] { return sink; }), options, on_error, ctx);
}

ExportSummary ExportTimeline(const LoadedSnapshot& snap, std::string_view source_label, const SinkOpener& open,
                             const ExportOptions& options, ExportErrorCallback on_error, void* ctx) {
  ExportSummary summary;
  TimeSources times;
  Pass count;
  count.times = &times;
  count.symbols = options.symbols;
  for (const DecodeBuffer& b : snap.buffers) DecodeBufferFile(b, &OnElement, &OnError, &count);
  for (const ExportExtra& x : options.extra) x.decode(&OnElement, &OnError, &count);
  summary.base = times.Choose();
  if (options.symbols && count.ranges && !count.ranges_with_symbol) {
    summary.elf_mismatch = true;
    summary.ranges_without_symbol = count.ranges;
    return summary;
  }

  TimelineOptions topt;
  topt.timestamp_hz = SnapshotTimestampHz(snap.snap, &topt.timestamp_hz_source);
  if (topt.timestamp_hz > 0 && options.timestamp_hz > 0 && options.timestamp_hz != topt.timestamp_hz)
    summary.hz_conflict = true;
  if (topt.timestamp_hz <= 0 && options.timestamp_hz > 0) {
    topt.timestamp_hz = options.timestamp_hz;
    topt.timestamp_hz_source = "--ts-hz";
  }
  summary.timestamp_hz = topt.timestamp_hz;
  summary.timestamp_hz_source = topt.timestamp_hz_source;
  std::optional<FunctionSlices> functions;
  if (options.symbols) {
    functions.emplace(options.symbols);
    topt.functions = &*functions;
  }

  model::EventSink* sink = open();
  if (!sink) {
    summary.write_ok = false;
    return summary;
  }
  model::Normalizer norm(*sink);
  TimelineBuilder timeline(&norm, ProcessName(snap, options.extra), TrackNames(snap, options.extra), summary.base,
                           topt);
  Pass write;
  write.timeline = &timeline;
  write.on_error = on_error;
  write.ctx = ctx;
  for (const DecodeBuffer& b : snap.buffers) {
    write.buffer = &b;
    if (!DecodeBufferFile(b, &OnElement, &OnError, &write)) summary.read_ok = false;
    write.track_base += b.sources.size();
  }
  write.buffer = nullptr;
  for (const ExportExtra& x : options.extra) {
    write.extra = &x;
    if (!x.decode(&OnElement, &OnError, &write)) summary.read_ok = false;
    write.track_base += x.tracks.size();
  }
  norm.OnMetadata("source", source_label);
  summary.write_ok = timeline.Finish();
  summary.range_slices = timeline.slices();
  summary.decode_errors = write.errors;
  if (functions) {
    summary.function_slices = functions->slices();
    summary.ranges_without_symbol = functions->ranges_without_symbol();
  }
  return summary;
}

}  // namespace mabutrace::ete_decode
