// SPDX-License-Identifier: MIT
// ete_export.cpp: see ete_export.h.
#include "ete_export.h"

#include <vector>

namespace mabutrace::ete_decode {
namespace {

struct Pass {
  TimeSources* times = nullptr;         // pass 1
  TimelineBuilder* timeline = nullptr;  // pass 2
  size_t track_base = 0;                // tracks of the buffers before this one
  const DecodeBuffer* buffer = nullptr;
  ExportErrorCallback on_error = nullptr;
  void* ctx = nullptr;
  uint64_t errors = 0;
};

void OnElement(void* c, size_t source, const EteElement& e) {
  auto* p = static_cast<Pass*>(c);
  if (p->times) p->times->Add(e);
  if (p->timeline) p->timeline->OnElement(p->track_base + source, e);
}

void OnError(void* c, size_t source, uint64_t, const std::string& message) {
  auto* p = static_cast<Pass*>(c);
  if (!p->timeline) return;  // reported once, in the second pass
  ++p->errors;
  if (p->on_error) p->on_error(p->ctx, *p->buffer, source, message);
}

std::string ProcessName(const LoadedSnapshot& snap) {
  std::string name = snap.snap.dir.filename().string();
  if (name.empty()) name = snap.snap.dir.parent_path().filename().string();  // "dir/"
  // "ETE name" / "ETMv4 name" after the trace units' protocol.
  bool ete = true, etm4 = true;
  for (const DecodeBuffer& b : snap.buffers)
    for (const ete::SourceSpec& s : b.sources) (s.config.is_ete() ? etm4 : ete) = false;
  return std::string(ete ? "ETE " : etm4 ? "ETMv4 " : "ETE/ETMv4 ") + name;
}

std::vector<std::string> TrackNames(const LoadedSnapshot& snap) {
  std::vector<std::string> tracks;
  for (const DecodeBuffer& b : snap.buffers)
    for (size_t i = 0; i < b.sources.size(); ++i)
      tracks.push_back(b.cores[i].empty() ? b.sources[i].name : b.cores[i] + " (" + b.sources[i].name + ")");
  return tracks;
}

}  // namespace

ExportSummary ExportTimeline(const LoadedSnapshot& snap, std::string_view source_label, model::EventSink* sink,
                             ExportErrorCallback on_error, void* ctx) {
  ExportSummary summary;
  TimeSources times;
  Pass count;
  count.times = &times;
  for (const DecodeBuffer& b : snap.buffers) DecodeBufferFile(b, &OnElement, &OnError, &count);
  summary.base = times.Choose();

  model::Normalizer norm(*sink);
  TimelineBuilder timeline(&norm, ProcessName(snap), TrackNames(snap), summary.base);
  Pass write;
  write.timeline = &timeline;
  write.on_error = on_error;
  write.ctx = ctx;
  for (const DecodeBuffer& b : snap.buffers) {
    write.buffer = &b;
    if (!DecodeBufferFile(b, &OnElement, &OnError, &write)) summary.read_ok = false;
    write.track_base += b.sources.size();
  }
  norm.OnMetadata("source", source_label);
  summary.write_ok = timeline.Finish();
  summary.range_slices = timeline.slices();
  summary.decode_errors = write.errors;
  return summary;
}

}  // namespace mabutrace::ete_decode
