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

// `{"ph":..,"name":..,"cat":..,"pid":..,"tid":..,"ts":..` (object left open).
void ChromeJsonWriter::Head(Track t, char ph, std::string_view name, uint64_t ns, std::string_view cat) {
  // Nearly every head has a plain name and fits the staging buffer: written
  // with one bounds check.
  const size_t kept = KeptNameBytes(name.data(), name.size());
  const size_t cat_len = cat.size();
  constexpr size_t kFixed =
      sizeof "{\"ph\":\"X\",\"name\":\"\",\"cat\":\"\",\"pid\":,\"tid\":,\"ts\":" + 2 * JsonOut::kMaxU64Chars +
      JsonOut::kMaxMicrosChars;
  if (JsonOut::PlainString(name.data(), kept) && cat_len <= 64) {
    if (char* room = out_.Room(uint32_t(kFixed + kept + cat_len))) {
      JsonOut::Cursor c(out_, room);
      c.Lit("{\"ph\":\"");
      c.Char(ph);
      c.Lit("\",\"name\":");
      c.PlainString(name.data(), kept);
      c.Lit(",\"cat\":\"");
      c.Raw(cat.data(), cat_len);
      c.Lit("\",\"pid\":");
      c.U64(t.pid);
      c.Lit(",\"tid\":");
      c.U64(t.tid);
      c.Lit(",\"ts\":");
      c.Micros(ns);
      c.Done();
      return;
    }
  }
  out_.Raw("{\"ph\":\"");
  out_.Char(ph);
  out_.Raw("\",\"name\":");
  Name(name);
  out_.Raw(",\"cat\":\"");
  out_.Raw(cat.data(), cat.size());
  out_.Char('"');
  Ids(t);
  out_.Raw(",\"ts\":");
  out_.Micros(ns);
}

// `[,"cname":..],"args":{"cpu":N[,"color":"#rrggbb"]}` (event left open).
void ChromeJsonWriter::Args(uint32_t cpu, uint32_t color, bool later) {
  const char* cname = color ? NearestReservedColor(color & 0xFFFFFF) : "";
  const size_t cname_len = strlen(cname);
  constexpr size_t kFixed = sizeof ",\"cname\":\"\",\"args\":{\"cpu\":,\"color\":\"#rrggbb\",\"\":true}" +
                            JsonOut::kMaxU64Chars + sizeof kArrowLater;
  if (char* room = cname_len <= 64 ? out_.Room(uint32_t(kFixed + cname_len)) : nullptr) {
    JsonOut::Cursor c(out_, room);
    if (color) {
      c.Lit(",\"cname\":\"");
      c.Raw(cname, cname_len);
      c.Char('"');
    }
    c.Lit(",\"args\":{\"cpu\":");
    c.U64(cpu);
    if (color) {
      c.Lit(",\"color\":\"");
      c.Hex6(color & 0xFFFFFF);
      c.Char('"');
    }
    if (later) {
      c.Lit(",\"");
      c.Lit(kArrowLater);
      c.Lit("\":true");
    }
    c.Char('}');
    c.Done();
    return;
  }
  if (color) {
    out_.Raw(",\"cname\":\"");
    out_.Raw(cname, cname_len);
    out_.Char('"');
  }
  out_.Raw(",\"args\":{\"cpu\":");
  out_.U64(cpu);
  if (color) {
    out_.Raw(",\"color\":\"");
    out_.Hex6(color & 0xFFFFFF);
    out_.Char('"');
  }
  if (later) {
    out_.Raw(",\"");
    out_.Raw(kArrowLater);
    out_.Raw("\":true");
  }
  out_.Char('}');
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
  if (room) {
    JsonOut::Cursor c(out_, room);
    c.Lit("{\"ph\":\"C\",\"name\":");
    c.PlainString(name.data(), kept);
    c.Lit(",\"pid\":");
    c.U64(t.pid);
    c.Lit(",\"tid\":");
    c.U64(t.tid);
    c.Lit(",\"ts\":");
    c.Micros(ns);
    c.Lit(",\"args\":{\"value\":");
    if (value < 0) c.Char('-');
    c.U64(value < 0 ? uint64_t(0) - uint64_t(value) : uint64_t(value));
    c.Lit("}}");
    c.Done();
    return;
  }
  out_.Raw("{\"ph\":\"C\",\"name\":");
  Name(name);
  Ids(t);
  out_.Raw(",\"ts\":");
  out_.Micros(ns);
  out_.Raw(",\"args\":{\"value\":");
  out_.I64(value);
  out_.Raw("}}");
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
      sizeof "{\"ph\":\"s\",\"name\":\"\",\"cat\":\"\",\"id\":,\"pid\":,\"tid\":,\"ts\":,\"bp\":\"e\"}" +
      sizeof kFlowName + sizeof kFlowCategory + 3 * JsonOut::kMaxU64Chars + JsonOut::kMaxMicrosChars;
  if (char* room = out_.Room(kFixed)) {
    JsonOut::Cursor c(out_, room);
    c.Lit("{\"ph\":\"s\",\"name\":\"");
    if (!start) room[7] = 'f';
    c.Lit(kFlowName);
    c.Lit("\",\"cat\":\"");
    c.Lit(kFlowCategory);
    c.Lit("\",\"id\":");
    c.U64(id);
    c.Lit(",\"pid\":");
    c.U64(t.pid);
    c.Lit(",\"tid\":");
    c.U64(t.tid);
    c.Lit(",\"ts\":");
    c.Micros(ns);
    c.Done();
  } else {
    out_.Raw(start ? "{\"ph\":\"s\"" : "{\"ph\":\"f\"");
    out_.Raw(",\"name\":\"");
    out_.Raw(kFlowName);
    out_.Raw("\",\"cat\":\"");
    out_.Raw(kFlowCategory);
    out_.Raw("\",\"id\":");
    out_.U64(id);
    Ids(t);
    out_.Raw(",\"ts\":");
    out_.Micros(ns);
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
