// SPDX-License-Identifier: MIT
// import_trace.cpp: see import_trace.h.
#include "import_trace.h"

#include "chrome_json_reader.h"
#include "format/perfetto_fields.h"
#include "perfetto_reader.h"
#include "proto_in.h"
#include "trace_model.h"

namespace mabutrace::host {

ImportKind SniffImport(std::string_view head) {
  // A UTF-8 byte order mark (editors on Windows write one); the JSON
  // parser skips it too.
  const bool bom = head.starts_with("\xEF\xBB\xBF");
  size_t i = bom ? 3 : 0;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) ++i;
  if (i < head.size() && (head[i] == '{' || head[i] == '[')) {
    // What must follow: a key or '}' in an object, an event or ']' in an
    // array (a binary file that starts with a brace by chance does not).
    const char open = head[i];
    for (++i; i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r');) ++i;
    if (i == head.size()) return ImportKind::kChromeJson;  // blanks only so far: let the parser say
    const char next = head[i];
    if (open == '{' ? (next == '"' || next == '}') : (next == '{' || next == ']')) return ImportKind::kChromeJson;
    return ImportKind::kNone;
  }
  if (bom) return ImportKind::kChromeJson;  // text, not a binary format: the JSON parser says what is wrong
  const auto* p = reinterpret_cast<const uint8_t*>(head.data());
  if (head.size() < 3 || p[0] != (pb::kTracePacket << 3 | ProtoIn::kLen)) return ImportKind::kNone;
  uint64_t len = 0;
  const size_t k = ReadVarint(p + 1, head.size() - 1, &len);
  if (!k || len == 0 || 1 + k >= head.size()) return ImportKind::kNone;
  uint64_t key = 0;
  if (!ReadVarint(p + 1 + k, head.size() - 1 - k, &key)) return ImportKind::kNone;
  switch (key >> 3) {
    case pb::kClockSnapshot:
    case pb::kTimestamp:
    case pb::kSequenceId:
    case pb::kTrackEvent:
    case pb::kInternedData:
    case pb::kSequenceFlags:
    case pb::kTrackDescriptor: return ImportKind::kPerfetto;
    default: return ImportKind::kNone;
  }
}

ImportResult ImportTrace(ImportKind kind, std::FILE* in, std::string_view head, format::EventSink& out) {
  ImportResult r;
  model::Normalizer norm(out);
  if (kind == ImportKind::kChromeJson) {
    const ChromeJsonResult j = ReadChromeJson(in, head, norm);
    r.fatal = j.status;
    r.out_of_order = j.out_of_order;
    r.x_clipped = j.x_clipped;
    r.skipped = j.skipped_events;
    if (j.skipped_events) norm.OnMetadata("import_skipped", int64_t(j.skipped_events));
    if (j.out_of_order) norm.OnMetadata("import_out_of_order", int64_t(j.out_of_order));
    if (j.x_clipped) norm.OnMetadata("import_x_clipped", int64_t(j.x_clipped));
    r.adapted = {{"import_reordered", j.reordered},
                 {"import_ids_remapped", j.ids_remapped},
                 {"import_counters_rounded", j.counters_rounded},
                 {"import_utf8_repaired", j.utf8_repaired},
                 {"import_args_ignored", j.args_ignored},
                 {"import_names_late", norm.names_late()},
                 {"import_flows_dropped", j.flows_dropped}};
  } else {
    PerfettoReader reader(norm);
    r.fatal = reader.Feed(reinterpret_cast<const uint8_t*>(head.data()), head.size());
    uint8_t buf[64 * 1024];
    size_t n;
    while (r.fatal.ok && (n = std::fread(buf, 1, sizeof buf, in)) > 0) r.fatal = reader.Feed(buf, n);
    if (r.fatal.ok) r.fatal = reader.Finish();
    r.errors = reader.packet_errors();
    r.damaged = reader.skipped_packets() + reader.names_lost();
    if (reader.skipped_packets()) norm.OnMetadata("import_skipped", int64_t(reader.skipped_packets()));
    if (reader.names_lost()) norm.OnMetadata("import_names_lost", int64_t(reader.names_lost()));
    if (reader.foreign_packets()) norm.OnMetadata("import_foreign_packets", int64_t(reader.foreign_packets()));
    r.adapted = {{"import_fields_ignored", reader.fields_ignored()},
                 {"import_flows_dropped", reader.flows_dropped()},
                 {"import_counters_rounded", reader.counters_rounded()},
                 {"import_async_tracks", reader.async_tracks()}};
  }
  std::erase_if(r.adapted, [](const auto& a) { return a.second == 0; });
  for (const auto& [key, n] : r.adapted) norm.OnMetadata(key, int64_t(n));
  // The read ended early (a cut file, a syntax error): the output says so,
  // as a stream's stream_error does.
  if (!r.fatal.ok) norm.OnMetadata("import_error", r.fatal.message);
  r.sink_ok = norm.Finish();
  return r;
}

}  // namespace mabutrace::host
