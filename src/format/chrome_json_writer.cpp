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

ChromeJsonWriter::ChromeJsonWriter(JsonOut& out, JsonNameMemo names) : out_(out), names_(names) {
  if (names_.count & (names_.count - 1)) names_ = {};  // not a power of two: not used
  for (uint32_t i = 0; i < names_.count; ++i) names_.entries[i] = JsonNameMemo::Entry{nullptr, 0, 0};
}

ChromeJsonWriter::KeptName ChromeJsonWriter::Kept(std::string_view name) {
  JsonNameMemo::Entry* e = nullptr;
  if (names_.count && name.size() < JsonNameMemo::kPlain) {
    const uint64_t address = uint64_t(uintptr_t(name.data()));
    e = &names_.entries[uint32_t((address * 0x9E3779B97F4A7C15ull) >> 32) & (names_.count - 1)];
    if (e->data == name.data() && e->size == name.size()) {
      return {e->kept & ~JsonNameMemo::kPlain, (e->kept & JsonNameMemo::kPlain) != 0};
    }
  }
  const size_t kept = KeptNameBytes(name.data(), name.size());
  const bool plain = JsonOut::PlainString(name.data(), kept);
  if (e)
    *e = JsonNameMemo::Entry{name.data(), uint32_t(name.size()), uint32_t(kept) | (plain ? JsonNameMemo::kPlain : 0)};
  return {kept, plain};
}

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
  between_events_ = true;
  return true;
}

void ChromeJsonWriter::Ids(Track t) {
  out_.Raw(",\"pid\":");
  out_.U64(t.pid);
  out_.Raw(",\"tid\":");
  out_.U64(t.tid);
}

const ChromeJsonWriter::IdsText& ChromeJsonWriter::IdsOf(Track t) {
  if (ids_.len && ids_.track == t) return ids_;
  char* p = ids_.text;
  memcpy(p, ",\"pid\":", 7);
  p = JsonOut::PutU64(p + 7, t.pid);
  memcpy(p, ",\"tid\":", 7);
  p = JsonOut::PutU64(p + 7, t.tid);
  memcpy(p, ",\"ts\":", 6);
  ids_.len = uint32_t(p + 6 - ids_.text);
  ids_.track = t;
  return ids_;
}

const ChromeJsonWriter::ColorText* ChromeJsonWriter::ColorOf(uint32_t color) {
  if (!color) return nullptr;
  const uint32_t rgb = color & 0xFFFFFF;
  ColorText& c = colors_[(rgb * 0x9E3779B1u) >> (32 - kColorSlotBits)];
  if (c.rgb == rgb) return &c;
  static const char kDigits[] = "0123456789abcdef";
  c.rgb = rgb;
  c.cname = NearestReservedColor(rgb);
  c.cname_len = uint32_t(strlen(c.cname));
  c.hex[0] = '#';
  for (int k = 0; k < 6; ++k) c.hex[1 + k] = kDigits[(rgb >> (20 - 4 * k)) & 0xF];
  c.hex[7] = '\0';
  return &c;
}

namespace {

// The pieces of the common events, written through W: a JsonOut::Cursor
// (room taken once, no bounds checks: names plain) or the JsonOut itself
// (bounds checked per piece, names escaped). Both call the same functions,
// so each event's text is written here once.

// `,"pid":P,"tid":T,"ts":US`, the tail every event's head shares.
template <class W, class Ids>
void IdsAndTs(W& w, const Ids& ids, uint64_t ns) {
  w.RawPadded(ids.text, ids.len);
  w.Micros(ns);
}
template <class Ids>
constexpr size_t kIdsAndTsMax = sizeof(Ids::text) + JsonOut::kMaxMicrosChars;

// `{"ph":..,"name":..,"cat":..,"pid":..,"tid":..,"ts":..` (object left open).
template <class W, class Ids>
void HeadText(W& w, char ph, const char* name, size_t name_len, std::string_view cat, const Ids& ids, uint64_t ns) {
  w.Lit("{\"ph\":\"");
  w.Char(ph);
  w.Lit("\",\"name\":");
  w.String(name, name_len);
  w.Lit(",\"cat\":\"");
  w.Raw(cat.data(), cat.size());
  w.Char('"');
  IdsAndTs(w, ids, ns);
}

// `[,"cname":..],"args":{"cpu":N[,"color":"#rrggbb"][,LATER:true]}`.
template <class W, class Args>
void ArgsText(W& w, const Args& args) {
  if (args.color) {
    w.Lit(",\"cname\":\"");
    w.Raw(args.color->cname, args.color->cname_len);
    w.Char('"');
  }
  w.Lit(",\"args\":{\"cpu\":");
  w.U64(args.cpu);
  if (args.color) {
    w.Lit(",\"color\":\"");
    w.RawPadded(args.color->hex, 7);
    w.Char('"');
  }
  if (args.later) {
    w.Lit(",\"");
    w.Lit(kArrowLater);
    w.Lit("\":true");
  }
  w.Char('}');
}

// `{"ph":"C","name":..,"pid":..,"tid":..,"ts":..,"args":{"value":V}}`.
template <class W, class Ids>
void CounterText(W& w, const char* name, size_t name_len, const Ids& ids, uint64_t ns, int64_t value) {
  w.Lit("{\"ph\":\"C\",\"name\":");
  w.String(name, name_len);
  IdsAndTs(w, ids, ns);
  w.Lit(",\"args\":{\"value\":");
  w.I64(value);
  w.Lit("}}");
}

// `{"ph":"s"|"f","name":"flow","cat":..,"id":..,"pid":..,"tid":..,"ts":..` (left open).
template <class W, class Ids>
void ArrowText(W& w, bool start, uint64_t id, const Ids& ids, uint64_t ns) {
  w.Lit("{\"ph\":\"");
  w.Char(start ? 's' : 'f');
  w.Lit("\",\"name\":\"");
  w.Lit(kFlowName);
  w.Lit("\",\"cat\":\"");
  w.Lit(kFlowCategory);
  w.Lit("\",\"id\":");
  w.U64(id);
  IdsAndTs(w, ids, ns);
}

// Room for ArgsText with a cname of up to `cname_len` bytes.
constexpr size_t ArgsMax(size_t cname_len) {
  return sizeof ",\"cname\":\"\",\"args\":{\"cpu\":,\"color\":\"#rrggbb_\",\"\":true}" + JsonOut::kMaxU64Chars +
         sizeof kArrowLater + cname_len;
}

}  // namespace

template <class Text>
void ChromeJsonWriter::Event(bool plain, size_t max, Text&& text) {
  if (MT_FORMAT_LIKELY(plain && between_events_)) {
    if (char* room = out_.Room(uint32_t(2 + max))) {
      JsonOut::Cursor c(out_, room);
      c.Lit(",\n");
      text(c);
      c.Done();
      return;
    }
  }
  if (BeginEvent()) text(out_);
}

void ChromeJsonWriter::Named(Track t, char ph, std::string_view name, std::string_view cat, uint64_t ns,
                             const ArgsOf* args, std::string_view flag, bool instant) {
  const KeptName n = Kept(name);
  const size_t kept = n.size;
  const IdsText& ids = IdsOf(t);
  const size_t cname_len = args && args->color ? args->color->cname_len : 0;
  const bool plain = n.plain && cat.size() <= 64 && cname_len <= 64 &&
                     (flag.empty() || JsonOut::PlainString(flag.data(), flag.size()));
  const size_t max = sizeof "{\"ph\":\"X\",\"name\":\"\",\"cat\":\"\"" + kIdsAndTsMax<IdsText> + kept + cat.size() +
                     ArgsMax(cname_len) + sizeof ",\"args\":{\"\":true}" + flag.size() + sizeof ",\"s\":\"t\"}";
  Event(plain, max, [&](auto& w) {
    HeadText(w, ph, name.data(), kept, cat, ids, ns);
    if (args) ArgsText(w, *args);
    if (!flag.empty()) {
      w.Lit(",\"args\":{");
      w.String(flag.data(), flag.size());
      w.Lit(":true}");
    }
    if (instant) {
      w.Lit(",\"s\":\"t\"}");
    } else {
      w.Char('}');
    }
  });
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
  const ArgsOf args{cpu, ColorOf(color), false};
  Named(t, 'B', name, kCategory, ns, &args);
}

void ChromeJsonWriter::OnEnd(Track t, std::string_view name, uint64_t ns, std::string_view flag) {
  Named(t, 'E', name, kCategory, ns, nullptr, flag);
}

void ChromeJsonWriter::OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) {
  const ArgsOf args{cpu, ColorOf(color), false};
  Named(t, 'i', name, kCategory, ns, &args, {}, true);
}

void ChromeJsonWriter::OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) {
  const KeptName n = Kept(name);
  const size_t kept = n.size;
  const IdsText& ids = IdsOf(t);
  constexpr size_t kFixed =
      sizeof "{\"ph\":\"C\",\"name\":\"\",\"args\":{\"value\":-}}" + kIdsAndTsMax<IdsText> + JsonOut::kMaxU64Chars;
  Event(n.plain, kFixed + kept, [&](auto& w) { CounterText(w, name.data(), kept, ids, ns, value); });
}

void ChromeJsonWriter::OnFlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                                   uint32_t color, bool enclosed) {
  const ArgsOf args{cpu, ColorOf(color), id == 0};
  if (enclosed) {
    // The instant of a named point is in the flows' category, so that a
    // reader tells it from a recorded instant (host/import).
    if (!name.empty()) Named(t, 'i', name, kFlowCategory, ns, &args, {}, true);
    if (id) Arrow(t, start, id, ns, name.empty(), cpu, color);
    return;
  }
  // The carrier: a 1 ns slice in the flows' category, so that a reader
  // tells it from a recorded scope.
  const std::string_view carrier = !name.empty() ? name : start ? kFlowOutName : kFlowInName;
  if (in_metadata_ || finished_) {
    ++events_after_metadata_;  // the carrier, its arrow end and its end are one point: counted once
    return;
  }
  Named(t, 'B', carrier, kFlowCategory, ns, &args);
  if (id) OnFlow(t, start, id, ns);
  Named(t, 'E', carrier, kFlowCategory, ns + 1, nullptr);
}

void ChromeJsonWriter::OnFlow(Track t, bool start, uint64_t id, uint64_t ns) { Arrow(t, start, id, ns, false, 0, 0); }

void ChromeJsonWriter::Arrow(Track t, bool start, uint64_t id, uint64_t ns, bool point, uint32_t cpu, uint32_t color) {
  const IdsText& ids = IdsOf(t);
  const ArgsOf args{cpu, point ? ColorOf(color) : nullptr, false};
  const size_t cname_len = args.color ? args.color->cname_len : 0;
  const size_t max = sizeof "{\"ph\":\"s\",\"name\":\"\",\"cat\":\"\",\"id\":,\"bp\":\"e\"}" + sizeof kFlowName +
                     sizeof kFlowCategory + JsonOut::kMaxU64Chars + kIdsAndTsMax<IdsText> + ArgsMax(cname_len);
  Event(cname_len <= 64, max, [&](auto& w) {
    ArrowText(w, start, id, ids, ns);
    if (point) ArgsText(w, args);
    if (start) {
      w.Char('}');
    } else {
      w.Lit(",\"bp\":\"e\"}");
    }
  });
}

// Closes traceEvents and opens the metadata object (once).
void ChromeJsonWriter::OpenMetadata() {
  if (in_metadata_) return;
  if (!started_) out_.Raw("{\"traceEvents\":[\n");
  started_ = true;
  in_metadata_ = true;
  between_events_ = false;
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
