// SPDX-License-Identifier: MIT
// json_fmt_baseline.cpp: see json_fmt_baseline.h. The event shapes are
// those of src/format/chrome_json_writer.cpp (docs/trace-formats.md).
#include "json_fmt_baseline.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <charconv>

namespace mabutrace::bench {
namespace {

// A cursor over one event line; every Take* is false at a mismatch.
struct Cursor {
  std::string_view s;
  bool ok = true;

  bool Lit(std::string_view lit) {
    if (ok && s.substr(0, lit.size()) == lit) {
      s.remove_prefix(lit.size());
      return true;
    }
    return false;
  }
  void Need(std::string_view lit) { ok = Lit(lit); }
  // A quoted string without escapes (the baseline writes names raw).
  std::string_view Str() {
    if (!Lit("\"")) return ok = false, std::string_view{};
    const size_t end = s.find('"');
    const std::string_view v = s.substr(0, end);
    if (end == std::string_view::npos || v.find('\\') != std::string_view::npos) return ok = false, v;
    s.remove_prefix(end + 1);
    return v;
  }
  template <class T>
  T Num() {
    T v{};
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc()) ok = false;
    s.remove_prefix(size_t(r.ptr - s.data()));
    return v;
  }
  uint64_t Micros() {
    const uint64_t us = Num<uint64_t>();
    Need(".");
    const size_t before = s.size();
    const uint64_t frac = Num<uint64_t>();
    if (before - s.size() != 3) ok = false;  // always three decimals
    return us * 1000 + frac;
  }
};

// `[,"cname":..],"args":{"cpu":N[,"color":".."][,"arrow_later":true]}`
void ParseArgs(Cursor& c, JsonFmtBaseline::Event& e) {
  if (c.Lit(",\"cname\":")) e.cname = c.Str();
  c.Need(",\"args\":{\"cpu\":");
  e.has_args = true;
  e.cpu = c.Num<uint32_t>();
  if (c.Lit(",\"color\":")) e.color = c.Str();
  if (c.Lit(",\"")) {
    const size_t end = c.s.find('"');
    e.later = c.s.substr(0, end);
    c.s.remove_prefix(end == std::string_view::npos ? c.s.size() : end);
    c.Need("\":true");
  }
  c.Need("}");
}

// `{"ph":"X","name":..,"cat":..,"pid":..,"tid":..,"ts":..`
void ParseHead(Cursor& c, JsonFmtBaseline::Event& e) {
  e.name = c.Str();
  c.Need(",\"cat\":");
  e.cat = c.Str();
  c.Need(",\"pid\":");
  e.pid = c.Num<uint32_t>();
  c.Need(",\"tid\":");
  e.tid = c.Num<uint32_t>();
  c.Need(",\"ts\":");
  e.ns = c.Micros();
}

bool ParseEvent(std::string_view line, JsonFmtBaseline::Event* out) {
  Cursor c{line};
  JsonFmtBaseline::Event e;
  c.Need("{\"ph\":\"");
  if (!c.ok || c.s.empty()) return false;
  e.ph = c.s[0];
  c.s.remove_prefix(1);
  c.Need("\",");
  switch (e.ph) {
    case 'M':
      c.Need("\"name\":");
      e.meta = c.Str();
      c.Need(",\"pid\":");
      e.pid = c.Num<uint32_t>();
      c.Need(",\"tid\":");
      e.tid = c.Num<uint32_t>();
      c.Need(",\"args\":{\"name\":");
      e.name = c.Str();
      c.Need("}}");
      break;
    case 'B':
    case 'i':
      c.Need("\"name\":");
      ParseHead(c, e);
      ParseArgs(c, e);
      if (e.ph == 'i') c.Need(",\"s\":\"t\"");
      c.Need("}");
      break;
    case 'E':
      c.Need("\"name\":");
      ParseHead(c, e);
      if (c.Lit(",\"args\":{")) {
        e.flag = c.Str();
        c.Need(":true}");
      }
      c.Need("}");
      break;
    case 'C':
      c.Need("\"name\":");
      e.name = c.Str();
      c.Need(",\"pid\":");
      e.pid = c.Num<uint32_t>();
      c.Need(",\"tid\":");
      e.tid = c.Num<uint32_t>();
      c.Need(",\"ts\":");
      e.ns = c.Micros();
      c.Need(",\"args\":{\"value\":");
      e.value = c.Num<int64_t>();
      c.Need("}}");
      break;
    case 's':
    case 'f':
      c.Need("\"name\":");
      e.name = c.Str();
      c.Need(",\"cat\":");
      e.cat = c.Str();
      c.Need(",\"id\":");
      e.id = c.Num<uint64_t>();
      c.Need(",\"pid\":");
      e.pid = c.Num<uint32_t>();
      c.Need(",\"tid\":");
      e.tid = c.Num<uint32_t>();
      c.Need(",\"ts\":");
      e.ns = c.Micros();
      if (c.s.substr(0, 8) == ",\"cname\"" || c.s.substr(0, 8) == ",\"args\":") ParseArgs(c, e);
      if (e.ph == 'f') c.Need(",\"bp\":\"e\"");
      c.Need("}");
      break;
    default: return false;
  }
  if (!c.ok || !c.s.empty()) return false;
  *out = e;
  return true;
}

using Buffer = fmt::memory_buffer;

void Args(Buffer& b, const JsonFmtBaseline::Event& e) {
  if (!e.cname.empty()) fmt::format_to(std::back_inserter(b), FMT_COMPILE(",\"cname\":\"{}\""), e.cname);
  fmt::format_to(std::back_inserter(b), FMT_COMPILE(",\"args\":{{\"cpu\":{}"), e.cpu);
  if (!e.color.empty()) fmt::format_to(std::back_inserter(b), FMT_COMPILE(",\"color\":\"{}\""), e.color);
  if (!e.later.empty()) fmt::format_to(std::back_inserter(b), FMT_COMPILE(",\"{}\":true"), e.later);
  b.push_back('}');
}

void Head(Buffer& b, const JsonFmtBaseline::Event& e) {
  fmt::format_to(std::back_inserter(b),
                 FMT_COMPILE("{{\"ph\":\"{}\",\"name\":\"{}\",\"cat\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":{}.{:03}"),
                 e.ph, e.name, e.cat, e.pid, e.tid, e.ns / 1000, e.ns % 1000);
}

void WriteEvent(Buffer& b, const JsonFmtBaseline::Event& e) {
  auto out = std::back_inserter(b);
  switch (e.ph) {
    case 'M':
      fmt::format_to(out,
                     FMT_COMPILE("{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"{}\"}}}}"),
                     e.meta, e.pid, e.tid, e.name);
      break;
    case 'B':
    case 'i':
      Head(b, e);
      Args(b, e);
      if (e.ph == 'i') fmt::format_to(out, FMT_COMPILE(",\"s\":\"t\""));
      b.push_back('}');
      break;
    case 'E':
      Head(b, e);
      if (!e.flag.empty()) fmt::format_to(out, FMT_COMPILE(",\"args\":{{\"{}\":true}}"), e.flag);
      b.push_back('}');
      break;
    case 'C':
      fmt::format_to(
          out,
          FMT_COMPILE(
              "{{\"ph\":\"C\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":{}.{:03},\"args\":{{\"value\":{}}}}}"),
          e.name, e.pid, e.tid, e.ns / 1000, e.ns % 1000, e.value);
      break;
    default:  // s, f
      fmt::format_to(
          out,
          FMT_COMPILE("{{\"ph\":\"{}\",\"name\":\"{}\",\"cat\":\"{}\",\"id\":{},\"pid\":{},\"tid\":{},\"ts\":{}.{:03}"),
          e.ph, e.name, e.cat, e.id, e.pid, e.tid, e.ns / 1000, e.ns % 1000);
      if (e.has_args) Args(b, e);
      if (e.ph == 'f') fmt::format_to(out, FMT_COMPILE(",\"bp\":\"e\""));
      b.push_back('}');
  }
}

int AppendTo(void* user, const char* data, size_t n) {
  static_cast<std::string*>(user)->append(data, n);
  return 0;
}

}  // namespace

bool JsonFmtBaseline::Load(std::string_view json, std::string* error) {
  text_.assign(json);
  events_.clear();
  const std::string_view all = text_;
  constexpr std::string_view kOpen = "{\"traceEvents\":[\n";
  if (all.substr(0, kOpen.size()) != kOpen) return *error = "not a mabutrace JSON export", false;
  head_ = all.substr(0, kOpen.size());
  size_t at = kOpen.size();
  size_t line = 2;
  for (;; ++line) {
    const size_t nl = all.find('\n', at);
    if (nl == std::string_view::npos) return *error = "no end of traceEvents", false;
    std::string_view ev = all.substr(at, nl - at);
    const bool last = ev.empty() || ev.back() != ',';
    if (!last) ev.remove_suffix(1);
    if (ev.empty() || ev[0] != '{') {
      tail_ = all.substr(at - 1);  // from the newline before "],"
      break;
    }
    Event e;
    if (!ParseEvent(ev, &e))
      return *error = fmt::format("line {}: a shape the baseline does not write: {}", line, ev), false;
    events_.push_back(e);
    at = nl + 1;
    if (last) {
      tail_ = all.substr(nl);
      break;
    }
  }
  std::string again;
  Write(&AppendTo, &again);
  if (again != all) {
    size_t i = 0;
    while (i < again.size() && i < all.size() && again[i] == all[i]) ++i;
    return *error = fmt::format("the baseline's text differs from the export at byte {}", i), false;
  }
  return true;
}

uint64_t JsonFmtBaseline::Write(mabutrace_write_fn write, void* user) const {
  constexpr size_t kPiece = 64 * 1024;
  Buffer b;
  b.reserve(kPiece + 1024);
  uint64_t total = 0;
  auto flush = [&] {
    write(user, b.data(), b.size());
    total += b.size();
    b.clear();
  };
  b.append(head_);
  for (size_t i = 0; i < events_.size(); ++i) {
    if (i) {
      b.push_back(',');
      b.push_back('\n');
    }
    WriteEvent(b, events_[i]);
    if (b.size() >= kPiece) flush();
  }
  b.append(tail_);
  flush();
  return total;
}

}  // namespace mabutrace::bench
