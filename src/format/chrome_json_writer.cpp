// SPDX-License-Identifier: MIT
// chrome_json_writer.cpp: see chrome_json_writer.h.
#include "trace_events.h"
#if MABUTRACE_FORMAT_WRITERS  // C++17: see trace_events.h

#include "chrome_json_writer.h"

#include <string.h>

#include "chrome_colors.h"
#include "trace_vocabulary.h"
#include "utf8.h"

namespace mabutrace::format {

void ChromeJsonWriter::Name(std::string_view s) { out_.String(s.data(), KeptNameBytes(s.data(), s.size())); }

bool ChromeJsonWriter::BeginEvent() {
  if (in_metadata_ || finished_) {
    ++events_after_metadata_;
    return false;
  }
  if (!started_) {
    started_ = true;
    out_.Raw("{\"traceEvents\":[\n");
  }
  if (!first_) out_.Raw(",\n");
  first_ = false;
  return true;
}

void ChromeJsonWriter::Ids(Track t) {
  out_.Raw(",\"pid\":");
  out_.U64(t.pid);
  out_.Raw(",\"tid\":");
  out_.U64(t.tid);
}

namespace {

// The pieces of the common events, written through W: a JsonOut::Cursor
// (room taken once, no bounds checks: names plain) or the JsonOut itself
// (bounds checked per piece, names escaped). Both call the same functions,
// so each event's text is written here once.

// `,"pid":P,"tid":T,"ts":US`, the tail every event's head shares.
template <class W>
void IdsAndTs(W& w, Track t, uint64_t ns) {
  w.Lit(",\"pid\":");
  w.U64(t.pid);
  w.Lit(",\"tid\":");
  w.U64(t.tid);
  w.Lit(",\"ts\":");
  w.Micros(ns);
}

// `{"ph":..,"name":..,"cat":..,"pid":..,"tid":..,"ts":..` (object left open).
template <class W>
void HeadText(W& w, Track t, char ph, const char* name, size_t name_len, std::string_view cat, uint64_t ns) {
  w.Lit("{\"ph\":\"");
  w.Char(ph);
  w.Lit("\",\"name\":");
  w.String(name, name_len);
  w.Lit(",\"cat\":\"");
  w.Raw(cat.data(), cat.size());
  w.Char('"');
  IdsAndTs(w, t, ns);
}

// `[,"cname":..],"args":{"cpu":N[,"color":"#rrggbb"][,LATER:true]}`.
template <class W>
void ArgsText(W& w, uint32_t cpu, uint32_t color, const char* cname, size_t cname_len, bool later) {
  if (color) {
    w.Lit(",\"cname\":\"");
    w.Raw(cname, cname_len);
    w.Char('"');
  }
  w.Lit(",\"args\":{\"cpu\":");
  w.U64(cpu);
  if (color) {
    w.Lit(",\"color\":\"");
    w.Hex6(color & 0xFFFFFF);
    w.Char('"');
  }
  if (later) {
    w.Lit(",\"");
    w.Lit(kArrowLater);
    w.Lit("\":true");
  }
  w.Char('}');
}

// `{"ph":"C","name":..,"pid":..,"tid":..,"ts":..,"args":{"value":V}}`.
template <class W>
void CounterText(W& w, Track t, const char* name, size_t name_len, uint64_t ns, int64_t value) {
  w.Lit("{\"ph\":\"C\",\"name\":");
  w.String(name, name_len);
  IdsAndTs(w, t, ns);
  w.Lit(",\"args\":{\"value\":");
  w.I64(value);
  w.Lit("}}");
}

// `{"ph":"s"|"f","name":"flow","cat":..,"id":..,"pid":..,"tid":..,"ts":..` (left open).
template <class W>
void ArrowText(W& w, Track t, bool start, uint64_t id, uint64_t ns) {
  w.Lit("{\"ph\":\"");
  w.Char(start ? 's' : 'f');
  w.Lit("\",\"name\":\"");
  w.Lit(kFlowName);
  w.Lit("\",\"cat\":\"");
  w.Lit(kFlowCategory);
  w.Lit("\",\"id\":");
  w.U64(id);
  IdsAndTs(w, t, ns);
}

}  // namespace

void ChromeJsonWriter::Head(Track t, char ph, std::string_view name, uint64_t ns, std::string_view cat) {
  const size_t kept = KeptNameBytes(name.data(), name.size());
  constexpr size_t kFixed =
      sizeof "{\"ph\":\"X\",\"name\":\"\",\"cat\":\"\",\"pid\":,\"tid\":,\"ts\":" + 2 * JsonOut::kMaxU64Chars +
      JsonOut::kMaxMicrosChars;
  char* room = JsonOut::PlainString(name.data(), kept) && cat.size() <= 64
                   ? out_.Room(uint32_t(kFixed + kept + cat.size()))
                   : nullptr;
  if (!room) return HeadText(out_, t, ph, name.data(), kept, cat, ns);
  JsonOut::Cursor c(out_, room);
  HeadText(c, t, ph, name.data(), kept, cat, ns);
  c.Done();
}

void ChromeJsonWriter::Args(uint32_t cpu, uint32_t color, bool later) {
  const char* cname = color ? NearestReservedColor(color & 0xFFFFFF) : "";
  const size_t cname_len = strlen(cname);
  constexpr size_t kFixed = sizeof ",\"cname\":\"\",\"args\":{\"cpu\":,\"color\":\"#rrggbb\",\"\":true}" +
                            JsonOut::kMaxU64Chars + sizeof kArrowLater;
  char* room = cname_len <= 64 ? out_.Room(uint32_t(kFixed + cname_len)) : nullptr;
  if (!room) return ArgsText(out_, cpu, color, cname, cname_len, later);
  JsonOut::Cursor c(out_, room);
  ArgsText(c, cpu, color, cname, cname_len, later);
  c.Done();
}

void ChromeJsonWriter::OnProcess(uint32_t pid, std::string_view name) {
  if (name.empty() || !BeginEvent()) return;  // the viewer shows "Process N" by itself
  out_.Raw("{\"ph\":\"M\",\"name\":\"process_name\"");
  Ids({pid, pid});
  out_.Raw(",\"args\":{\"name\":");
  Name(name);
  out_.Raw("}}");
}

void ChromeJsonWriter::OnThread(Track t, std::string_view name) {
  if (!BeginEvent()) return;
  out_.Raw("{\"ph\":\"M\",\"name\":\"thread_name\"");
  Ids(t);
  out_.Raw(",\"args\":{\"name\":");
  if (!name.empty()) {
    Name(name);
  } else {
    out_.Char('"');
    out_.Raw(kThreadNamePrefix);
    out_.U64(t.tid);
    out_.Char('"');
  }
  out_.Raw("}}");
}

void ChromeJsonWriter::OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) {
  if (!BeginEvent()) return;
  Head(t, 'B', name, ns);
  Args(cpu, color);
  out_.Char('}');
}

void ChromeJsonWriter::OnEnd(Track t, std::string_view name, uint64_t ns, std::string_view flag) {
  if (!BeginEvent()) return;
  Head(t, 'E', name, ns);
  if (!flag.empty()) {
    out_.Raw(",\"args\":{");
    out_.String(flag.data(), flag.size());
    out_.Raw(":true}");
  }
  out_.Char('}');
}

void ChromeJsonWriter::OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) {
  if (!BeginEvent()) return;
  Head(t, 'i', name, ns);
  Args(cpu, color);
  out_.Raw(",\"s\":\"t\"}");
}

void ChromeJsonWriter::OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) {
  if (!BeginEvent()) return;
  const size_t kept = KeptNameBytes(name.data(), name.size());
  constexpr size_t kFixed = sizeof "{\"ph\":\"C\",\"name\":\"\",\"pid\":,\"tid\":,\"ts\":,\"args\":{\"value\":-}}" +
                            3 * JsonOut::kMaxU64Chars + JsonOut::kMaxMicrosChars;
  char* room = JsonOut::PlainString(name.data(), kept) ? out_.Room(uint32_t(kFixed + kept)) : nullptr;
  if (!room) return CounterText(out_, t, name.data(), kept, ns, value);
  JsonOut::Cursor c(out_, room);
  CounterText(c, t, name.data(), kept, ns, value);
  c.Done();
}

void ChromeJsonWriter::OnFlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                                   uint32_t color, bool enclosed) {
  if (enclosed) {
    // The instant of a named point is in the flows' category, so that a
    // reader tells it from a recorded instant (host/import).
    if (!name.empty() && BeginEvent()) {
      Head(t, 'i', name, ns, kFlowCategory);
      Args(cpu, color, id == 0);
      out_.Raw(",\"s\":\"t\"}");
    }
    if (id) Arrow(t, start, id, ns, name.empty(), cpu, color);
    return;
  }
  // The carrier: a 1 ns slice in the flows' category, so that a reader
  // tells it from a recorded scope.
  const std::string_view carrier = !name.empty() ? name : start ? kFlowOutName : kFlowInName;
  if (!BeginEvent()) return;
  Head(t, 'B', carrier, ns, kFlowCategory);
  Args(cpu, color, id == 0);
  out_.Char('}');
  if (id) OnFlow(t, start, id, ns);
  if (!BeginEvent()) return;
  Head(t, 'E', carrier, ns + 1, kFlowCategory);
  out_.Char('}');
}

void ChromeJsonWriter::OnFlow(Track t, bool start, uint64_t id, uint64_t ns) { Arrow(t, start, id, ns, false, 0, 0); }

void ChromeJsonWriter::Arrow(Track t, bool start, uint64_t id, uint64_t ns, bool point, uint32_t cpu, uint32_t color) {
  if (!BeginEvent()) return;
  constexpr size_t kFixed =
      sizeof "{\"ph\":\"s\",\"name\":\"\",\"cat\":\"\",\"id\":,\"pid\":,\"tid\":,\"ts\":" + sizeof kFlowName +
      sizeof kFlowCategory + 3 * JsonOut::kMaxU64Chars + JsonOut::kMaxMicrosChars;
  if (char* room = out_.Room(kFixed)) {
    JsonOut::Cursor c(out_, room);
    ArrowText(c, t, start, id, ns);
    c.Done();
  } else {
    ArrowText(out_, t, start, id, ns);
  }
  if (point) Args(cpu, color);
  out_.Raw(start ? "}" : ",\"bp\":\"e\"}");
}

// Closes traceEvents and opens the metadata object (once).
void ChromeJsonWriter::OpenMetadata() {
  if (in_metadata_) return;
  if (!started_) out_.Raw("{\"traceEvents\":[\n");
  started_ = true;
  in_metadata_ = true;
  out_.Raw("\n],\"displayTimeUnit\":\"ns\",\"metadata\":{\"producer\":\"");
  out_.Raw(kProducer);
  out_.Raw("\",\"format_version\":");
  out_.U64(kFormatVersion);
}

void ChromeJsonWriter::MetadataKey(std::string_view key) {
  OpenMetadata();
  out_.Char(',');
  out_.String(key.data(), key.size());
  out_.Char(':');
}

void ChromeJsonWriter::OnMetadata(std::string_view key, int64_t value) {
  if (finished_) return;
  MetadataKey(key);
  out_.I64(value);
}

void ChromeJsonWriter::OnMetadata(std::string_view key, std::string_view value) {
  if (finished_) return;
  MetadataKey(key);
  out_.String(value.data(), value.size());
}

bool ChromeJsonWriter::Finish() {
  if (finished_) return !out_.failed();
  if (events_after_metadata_) OnMetadata(stat::kEventsAfterMetadata, int64_t(events_after_metadata_));
  OpenMetadata();
  finished_ = true;
  out_.Raw("}}\n");
  out_.Flush();
  return !out_.failed();
}

}  // namespace mabutrace::format

#endif  // MABUTRACE_FORMAT_WRITERS
