// SPDX-License-Identifier: MIT
// ete_export.cpp: see ete_export.h.
#include "ete_export.h"

#include <algorithm>
#include <cstdint>
#include <map>
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
  std::string first_error;  // "track: message" of the first error (pass 2)
  BufferErrorOnce buffer_errors;
  const std::vector<std::string>* track_names = nullptr;
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
  const std::string& file = p->extra ? p->extra->file : p->buffer->buffer.file.string();
  if (!p->buffer_errors.First(source, file, message)) return;
  if (!p->errors++) {
    const size_t track = p->track_base + source;  // source SIZE_MAX: the buffer itself, no track
    const bool named = source != SIZE_MAX && p->track_names && track < p->track_names->size();
    p->first_error = named ? (*p->track_names)[track] + ": " : "";
    p->first_error += message;
  }
  if (p->extra) {
    if (p->extra->on_error) p->extra->on_error(source, message);
    return;
  }
  if (p->on_error) p->on_error(p->ctx, *p->buffer, source, message);
}

// Holds the metadata and the Finish() of `parts` producers sharing one
// sink until the last one finishes: a writer needs the metadata after every
// event. Integer metadata of a key two producers write (the Normalizers'
// repair counts) is summed, so each key is written once.
class SharedSink final : public model::EventSink {
 public:
  SharedSink(model::EventSink& out, int parts) : out_(out), parts_(parts) {}
  void OnClock(uint64_t m, uint64_t b) override { out_.OnClock(m, b); }
  void OnClockSnapshot(uint32_t id, uint64_t t, uint64_t c) override { out_.OnClockSnapshot(id, t, c); }
  void OnProcess(uint32_t pid, std::string_view name) override { out_.OnProcess(pid, name); }
  void OnThread(model::Track t, std::string_view name) override { out_.OnThread(t, name); }
  void OnBegin(model::Track t, std::string_view n, uint64_t ns, uint32_t cpu, uint32_t color) override {
    out_.OnBegin(t, n, ns, cpu, color);
  }
  void OnEnd(model::Track t, std::string_view n, uint64_t ns, std::string_view flag) override {
    out_.OnEnd(t, n, ns, flag);
  }
  void OnInstant(model::Track t, std::string_view n, uint64_t ns, uint32_t cpu, uint32_t color) override {
    out_.OnInstant(t, n, ns, cpu, color);
  }
  void OnCounter(model::Track t, std::string_view n, uint64_t ns, int64_t v) override { out_.OnCounter(t, n, ns, v); }
  void OnFlowPoint(model::Track t, bool start, uint64_t id, std::string_view n, uint64_t ns, uint32_t cpu,
                   uint32_t color, bool enclosed) override {
    out_.OnFlowPoint(t, start, id, n, ns, cpu, color, enclosed);
  }
  void OnFlow(model::Track t, bool start, uint64_t id, uint64_t ns) override { out_.OnFlow(t, start, id, ns); }
  void OnMetadata(std::string_view key, int64_t value) override {
    auto [it, fresh] = numbers_.try_emplace(std::string(key), meta_.size());
    if (!fresh) {
      meta_[it->second].number += value;
      return;
    }
    meta_.push_back({std::string(key), false, value, {}});
  }
  void OnMetadata(std::string_view key, std::string_view value) override {
    meta_.push_back({std::string(key), true, 0, std::string(value)});
  }
  void DropPart() {
    if (parts_ > 1) --parts_;
  }
  bool Finish() override {
    if (--parts_ > 0) return true;
    for (const Meta& m : meta_) {
      if (m.is_string)
        out_.OnMetadata(m.key, m.text);
      else
        out_.OnMetadata(m.key, m.number);
    }
    return out_.Finish();
  }

 private:
  struct Meta {
    std::string key;
    bool is_string;
    int64_t number;
    std::string text;
  };
  model::EventSink& out_;
  int parts_;
  std::vector<Meta> meta_;
  std::map<std::string, size_t> numbers_;  // integer keys -> index in meta_
};

std::string ProcessName(const LoadedSnapshot& snap, const std::vector<ExportExtra>& extra) {
  std::string name = snap.snap.dir.filename().string();
  if (name.empty()) name = snap.snap.dir.parent_path().filename().string();  // "dir/"
  // After the trace units' protocols: "ETE name", "ETMv4 name", "ETMv3/PTM
  // name" (TC2), each protocol once, in track order.
  std::vector<std::string> protocols;
  auto add = [&](const std::string& p) {
    if (std::find(protocols.begin(), protocols.end(), p) == protocols.end()) protocols.push_back(p);
  };
  for (const DecodeBuffer& b : snap.buffers)
    for (const ete::SourceSpec& s : b.sources) add(s.config.is_ete() ? "ETE" : "ETMv4");
  for (const ExportExtra& x : extra)
    if (!x.tracks.empty()) add(x.protocol);
  std::string out;
  for (const std::string& p : protocols) out += (out.empty() ? "" : "/") + p;
  return (out.empty() ? "ETE" : out) + " " + name;
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
  // DS-5's trace.ini "[timestamp] frequency": the CoreSight timestamp's
  // clock, where no device gives its generic timer's.
  if (snap.timestamp_frequency) {
    *source = "snapshot " + snap.timestamp_frequency_source;
    return static_cast<double>(snap.timestamp_frequency);
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
  SharedSink shared(*sink, options.beside ? 2 : 1);
  model::Normalizer norm(shared);
  const std::vector<std::string> tracks = TrackNames(snap, options.extra);
  TimelineBuilder timeline(&norm, ProcessName(snap, options.extra), tracks, summary.base, topt);
  Pass write;
  write.timeline = &timeline;
  write.track_names = &tracks;
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
  // The file says it holds less than the trace did (the errors went to
  // on_error too): how many, and the first.
  if (write.errors) {
    norm.OnMetadata("ete.decode_errors", static_cast<int64_t>(write.errors));
    norm.OnMetadata("ete.decode_error", write.first_error);
  }
  if (options.beside) {
    TimestampClock clock;
    clock.timestamps = timeline.TimestampOrigin(&clock.origin, &clock.origin_ns);
    clock.hz = topt.timestamp_hz;
    if (!options.beside(&shared, clock)) summary.read_ok = false;
    shared.DropPart();  // in case it did not finish
  }
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
