// SPDX-License-Identifier: MIT
// chrome_json_reader.cpp: see chrome_json_reader.h.
#include "chrome_json_reader.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "format/trace_vocabulary.h"
#include "json_event_order.h"
#include "writer_inverse.h"

namespace mabutrace::host {

std::optional<uint64_t> MicrosTextToNs(std::string_view text) {
  size_t i = 0;
  uint64_t us = 0;
  bool digits = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, digits = true) {
    if (us > (UINT64_MAX - 9) / 10) return std::nullopt;
    us = us * 10 + uint64_t(text[i] - '0');
  }
  uint64_t frac = 0;
  int frac_digits = 0;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, digits = true) {
      if (frac_digits < 3) frac = frac * 10 + uint64_t(text[i] - '0'), ++frac_digits;
    }
  }
  if (i == text.size()) {
    if (!digits || us > UINT64_MAX / 1000 - 1) return std::nullopt;
    while (frac_digits < 3) frac *= 10, ++frac_digits;
    return us * 1000 + frac;
  }
  // An exponent or a sign: through a double.
  char* end = nullptr;
  const std::string s(text);
  const double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !(d >= 0) || d * 1000 >= 1.8e19) return std::nullopt;
  return uint64_t(std::llround(d * 1000));
}

namespace {

// Length of the UTF-8 sequence at p[0 .. n): > 0 when it is valid
// (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF),
// 0 when p[0] starts no valid sequence, -1 when the bytes so far are a
// valid beginning that n cuts.
int Utf8Sequence(const unsigned char* p, size_t n) {
  const unsigned char b = p[0];
  if (b < 0x80) return 1;
  int len;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (b >= 0xC2 && b <= 0xDF) {
    len = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    len = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    len = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (int i = 1; i < len; ++i) {
    if (size_t(i) >= n) return -1;
    const unsigned char lo_i = i == 1 ? lo : 0x80, hi_i = i == 1 ? hi : 0xBF;
    if (p[i] < lo_i || p[i] > hi_i) return 0;
  }
  return len;
}

// FILE* as a streambuf, with bytes already read from it first. The JSON
// parser refuses a string that is not UTF-8 and would end the read there:
// a byte that starts no valid UTF-8 sequence is handed on as '?' instead,
// and an escaped UTF-16 surrogate without its other half ("\ud800", which
// JavaScript producers write for a cut emoji) as "\ufffd" (RFC 8259 §8.2
// leaves such strings to the reader), each counted in *repaired; both keep
// the length, so offsets stay those of the file. A sequence or escape cut
// by the end of a read is handed on with the next one.
class FileBuf : public std::streambuf {
 public:
  FileBuf(std::FILE* f, std::string_view head, uint64_t* repaired) : f_(f), pending_(head), repaired_(repaired) {}

 protected:
  int_type underflow() override {
    // First what is pending (the head, or the cut sequence of the last
    // read), then the file.
    size_t n = std::min(pending_.size(), sizeof buf_);
    std::memcpy(buf_, pending_.data(), n);
    pending_.erase(0, n);
    if (pending_.empty()) n += std::fread(buf_ + n, 1, sizeof buf_ - n, f_);
    if (n == 0) return traits_type::eof();
    const bool last = n < sizeof buf_;  // fread came back short: the end of the file
    auto* p = reinterpret_cast<unsigned char*>(buf_);
    size_t i = 0;
    while (i < n) {
      int len;
      if (p[i] >= 0x80) {
        len = Utf8Sequence(p + i, n - i);
      } else if (p[i] == '"') {
        in_string_ = !in_string_;  // escaped quotes are skipped with their escape
        len = 1;
      } else {
        len = p[i] == '\\' && in_string_ ? Escape(p + i, n - i) : 1;
        if (len < 0 && last) len = int(n - i);  // the file ends in it: the parser's to report
      }
      if (len > 0) {
        i += size_t(len);
      } else if (len < 0 && !last) {
        break;  // cut by this read (at most 11 bytes): handed on with the next
      } else {
        p[i++] = '?';
        ++*repaired_;
      }
    }
    pending_.insert(0, buf_ + i, n - i);
    setg(buf_, buf_, buf_ + i);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  static int Hex4(const unsigned char* p) {
    int v = 0;
    for (int k = 0; k < 4; ++k) {
      const unsigned char c = p[k] | 0x20;  // lower case
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return -1;
      v = v << 4 | d;
    }
    return v;
  }
  // Length of the escape at p[0] == '\\' in a string, as Utf8Sequence's
  // (-1: cut by n, handed on). A lone surrogate's four hex digits are
  // rewritten to fffd; anything malformed is left for the parser to report.
  int Escape(unsigned char* p, size_t n) {
    if (n < 2) return -1;
    if (p[1] != 'u') return 2;
    if (n < 6) return -1;
    const int unit = Hex4(p + 2);
    if (unit < 0xD800 || unit > 0xDFFF) return 6;  // not a surrogate, or not hex
    if (unit <= 0xDBFF) {                          // a high half: a low half must follow
      if (n < 12 && (n < 7 || p[6] == '\\') && (n < 8 || p[7] == 'u')) return -1;
      if (n >= 12 && p[6] == '\\' && p[7] == 'u') {
        const int low = Hex4(p + 8);
        if (low >= 0xDC00 && low <= 0xDFFF) return 12;
      }
    }
    std::memcpy(p + 2, "fffd", 4);
    ++*repaired_;
    return 6;
  }

  std::FILE* f_;
  std::string pending_;
  uint64_t* repaired_;
  bool in_string_ = false;  // at a byte inside a JSON string
  char buf_[64 * 1024];
};

// A scalar of an event's field or args.
struct Value {
  enum Kind { kNone, kInt, kUint, kFloat, kString, kBool } kind = kNone;
  int64_t i = 0;
  uint64_t u = 0;
  bool b = false;
  std::string text;  // a string, or a number's own text
};

struct RawEvent {
  std::map<std::string, Value, std::less<>> fields, args;
};

// The point the writer put just before an arrow's s/f (the next event of
// the file).
struct PendingPoint {
  bool active = false;
  bool carrier = false;  // a carrier slice (B ... E), else an instant
  format::Track track;
  std::string name;
  uint64_t ns = 0;
  uint32_t cpu = 0, color = 0;
};

class Handler : public nlohmann::json_sax<nlohmann::json> {
 public:
  Handler(format::EventSink& out, ChromeJsonResult& r) : out_(out), order_(out), r_(r) {}

  // ---- SAX --------------------------------------------------------------
  bool null() override { return Scalar(Value{}); }
  bool boolean(bool v) override { return Scalar({Value::kBool, 0, 0, v, {}}); }
  bool number_integer(number_integer_t v) override { return Scalar({Value::kInt, v, 0, false, std::to_string(v)}); }
  bool number_unsigned(number_unsigned_t v) override { return Scalar({Value::kUint, 0, v, false, std::to_string(v)}); }
  // The number's own text, for exact ns (MicrosTextToNs).
  bool number_float(number_float_t, const string_t& s) override { return Scalar({Value::kFloat, 0, 0, false, s}); }
  bool string(string_t& s) override { return Scalar({Value::kString, 0, 0, false, std::move(s)}); }
  bool binary(binary_t&) override { return Scalar(Value{}); }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) override {
    Open(kObject);
    return true;
  }
  bool end_object() override {
    Close();
    return true;
  }
  bool start_array(std::size_t) override {
    Open(kArray);
    return true;
  }
  bool end_array() override {
    Close();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    std::string what = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." → after the prefix
    if (const size_t p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    // The array form may end without its "]" (a trace written as it goes,
    // cut between events: the Trace Event Format allows it), also after a
    // last ','. Only between events of the top-level array: a cut event
    // is still an error.
    const bool open_array = path_.size() == 1 && path_[0].c == kArray && path_[0].role == Role::kTraceEvents;
    if (open_array && what.find("unexpected end of input") != std::string::npos) return false;
    r_.status = Status::Error(position ? position - 1 : 0, "not valid JSON: " + what);
    return false;
  }

  void Finish() {
    FlushNames();
    FlushPoint();
    order_.Finish();
    r_.out_of_order = order_.out_of_order();
    r_.reordered = order_.reordered();
    r_.x_clipped = order_.x_clipped();
  }

 private:
  enum Container { kObject, kArray };
  // Where the parser is: what the containers on the path are.
  enum class Role { kTop, kTraceEvents, kEvent, kArgs, kMetadata, kOther };
  struct Frame {
    Container c;
    Role role;
  };

  Role Parent() const { return path_.empty() ? Role::kTop : path_.back().role; }

  void Open(Container c) {
    Role role = Role::kOther;
    const Role parent = Parent();
    if (path_.empty()) {
      role = c == kArray ? Role::kTraceEvents : Role::kTop;
    } else if (parent == Role::kTop && path_.back().c == kObject) {
      if (key_ == "traceEvents" && c == kArray) role = Role::kTraceEvents;
      if (key_ == "metadata" && c == kObject) role = Role::kMetadata;
    } else if (parent == Role::kTraceEvents && c == kObject) {
      role = Role::kEvent;
      ev_ = RawEvent{};
    } else if (parent == Role::kEvent && c == kObject && key_ == "args") {
      role = Role::kArgs;
    }
    path_.push_back({c, role});
  }

  void Close() {
    const Role role = Parent();
    path_.pop_back();
    if (role == Role::kEvent) Event();
  }

  bool Scalar(Value v) {
    switch (Parent()) {
      case Role::kEvent: ev_.fields[key_] = std::move(v); break;
      case Role::kArgs: ev_.args[key_] = std::move(v); break;
      case Role::kMetadata: Metadata(v); break;
      default: break;
    }
    return true;
  }

  void Metadata(const Value& v) {
    if (key_ == "producer" || key_ == "format_version") return;
    if (WriterOwnKey(key_)) {
      if (v.kind == Value::kInt && v.i) out_.OnMetadata(SourceKey(key_), v.i);
      if (v.kind == Value::kUint && v.u) out_.OnMetadata(SourceKey(key_), int64_t(v.u));
      return;
    }
    switch (v.kind) {
      case Value::kInt: out_.OnMetadata(key_, v.i); break;
      case Value::kUint: out_.OnMetadata(key_, int64_t(v.u)); break;
      case Value::kBool: out_.OnMetadata(key_, int64_t(v.b)); break;
      case Value::kString: out_.OnMetadata(key_, v.text); break;
      case Value::kFloat: out_.OnMetadata(key_, v.text); break;
      default: break;
    }
  }

  // ---- fields -------------------------------------------------------------
  static const Value* Find(const std::map<std::string, Value, std::less<>>& m, std::string_view k) {
    auto it = m.find(k);
    return it == m.end() ? nullptr : &it->second;
  }
  std::string_view Text(std::string_view k) const {
    const Value* v = Find(ev_.fields, k);
    return v && v->kind == Value::kString ? std::string_view(v->text) : std::string_view();
  }
  static std::optional<uint64_t> Unsigned(const Value* v) {
    if (!v) return std::nullopt;
    if (v->kind == Value::kUint) return v->u;
    if (v->kind == Value::kInt && v->i >= 0) return uint64_t(v->i);
    if (v->kind == Value::kFloat) {  // 1.0, 1e3: a whole number written as a float
      const double d = std::strtod(v->text.c_str(), nullptr);
      if (d >= 0 && d < 0x1p64 && d == std::floor(d)) return uint64_t(d);
      return std::nullopt;
    }
    if (v->kind == Value::kString && !v->text.empty()) {  // ids as "0x1f"
      char* end = nullptr;
      const uint64_t x = std::strtoull(v->text.c_str(), &end, 0);
      if (*end == '\0') return x;
    }
    return std::nullopt;
  }
  std::optional<uint64_t> Micros(std::string_view k) const {
    const Value* v = Find(ev_.fields, k);
    if (!v || (v->kind != Value::kInt && v->kind != Value::kUint && v->kind != Value::kFloat)) return std::nullopt;
    return MicrosTextToNs(v->text);
  }
  // A "pid" or "tid" as the model's 32-bit id (absent: 0). A value that is
  // not one (negative, past 2^32 - 1: 64-bit thread ids, hashes; a name
  // such as "GPU"; a fraction) would wrap onto another track or all share
  // 0: it gets an id of its own from the top of the range down, counted
  // once per distinct value (ids_remapped), and the value as its track's
  // name unless the file names the track first (Passed).
  uint32_t TrackId(std::string_view k) {
    const Value* v = Find(ev_.fields, k);
    if (!v) return 0;
    const auto u = Unsigned(v);
    if (u && *u <= UINT32_MAX) return uint32_t(*u);
    const std::string text = u                           ? std::to_string(*u)
                             : v->kind == Value::kInt    ? std::to_string(v->i)
                             : v->kind == Value::kBool   ? std::string(v->b ? "true" : "false")
                             : v->kind == Value::kString ? '"' + v->text + '"'
                                                         : v->text;
    const auto [it, fresh] = remapped_.emplace(std::string(k) + ':' + text, uint32_t(UINT32_MAX - remapped_.size()));
    if (fresh) {
      ++r_.ids_remapped;
      (k == "pid" ? pid_labels_ : tid_labels_)[it->second] = v->kind == Value::kString ? v->text : text;
    }
    return it->second;
  }
  // A counter's value as the model's int64: a fraction is rounded and a
  // number past int64 saturates, each counted (counters_rounded).
  int64_t CounterValue(const Value& v) {
    if (v.kind == Value::kInt) return v.i;
    if (v.kind == Value::kUint) {
      if (v.u <= uint64_t(INT64_MAX)) return int64_t(v.u);
      ++r_.counters_rounded;
      return INT64_MAX;
    }
    bool rounded;
    const int64_t value = CounterFromDouble(std::strtod(v.text.c_str(), nullptr), &rounded);
    r_.counters_rounded += rounded;
    return value;
  }
  uint32_t Cpu() const { return uint32_t(Unsigned(Find(ev_.args, "cpu")).value_or(0)); }
  uint32_t Color() const {
    const Value* v = Find(ev_.args, "color");
    return v && v->kind == Value::kString ? ParseColor(v->text) : 0;
  }
  // A flag of an end: an arg that is `true`.
  std::string_view Flag() const {
    for (const auto& [k, v] : ev_.args) {
      if (v.kind == Value::kBool && v.b) return k;
    }
    return {};
  }

  // ---- events -------------------------------------------------------------
  void Skip() { ++r_.skipped_events; }

  bool True(std::string_view field) const {
    const Value* v = Find(ev_.fields, field);
    return v && v->kind == Value::kBool && v->b;
  }

  // Flow v2 of the Trace Event Format (Perfetto's JSON importer reads it):
  // "bind_id" with "flow_in" / "flow_out" on a slice are its arrows' ends,
  // bound to the slice it begins.
  BoundFlows FlowsV2() {
    const bool in = True("flow_in"), out = True("flow_out");
    if (!in && !out) return {};
    const auto id = Unsigned(Find(ev_.fields, "bind_id"));
    if (!id || !*id) {  // the model's flow ids are numbers from 1 up
      r_.flows_dropped += in + out;
      return {};
    }
    return {in ? *id : 0, out ? *id : 0};
  }

  // Args of a slice or instant the model has no room for (all but "cpu",
  // "color", the writer's arrow_later and an end's flag): counted.
  void CountIgnoredArgs(char ph) {
    const std::string_view flag = ph == 'E' ? Flag() : std::string_view();
    for (const auto& [k, v] : ev_.args) {
      if (k == "cpu" || k == "color" || k == format::kArrowLater || (!flag.empty() && k == flag)) continue;
      ++r_.args_ignored;
    }
  }

  // A point that no s/f followed: a point alone (only a flow-in's point
  // has its arrow end bound later, by an OnFlow).
  void FlushPoint() {
    PendingPoint& p = point_;
    if (!p.active) return;
    p.active = false;
    order_.FlowPoint(p.track, p.name == format::kFlowOutName, 0, FlowPointName(p.name), p.ns, p.cpu, p.color,
                     !p.carrier);
  }

  // Holds a flow point until the next event says whether its arrow's s/f
  // follows (arrow_later: it does not).
  void HoldPoint(const format::Track& t, bool carrier, std::string_view name, uint64_t ns) {
    point_ = {true, carrier, t, std::string(name), ns, Cpu(), Color()};
    if (carrier) carrier_open_ = true, carrier_track_ = t;
    const Value* later = Find(ev_.args, format::kArrowLater);
    if (later && later->kind == Value::kBool && later->b) FlushPoint();
  }

  static uint64_t Key(const format::Track& t) { return uint64_t(t.pid) << 32 | t.tid; }

  // The track of an event passed on; its process is announced from here
  // (and the names held for it go out first). A remapped id that no name
  // event named first is named by its value ("GPU"), or the model would
  // show only the id it was given.
  void Passed(const format::Track& t) {
    FlushNames();
    if (announced_.insert(t.pid).second) {
      if (const auto l = pid_labels_.find(t.pid); l != pid_labels_.end()) order_.Process(t.pid, l->second);
    }
    if (const auto l = tid_labels_.find(t.tid); l != tid_labels_.end() && named_threads_.insert(Key(t)).second) {
      order_.Thread(t, l->second);
    }
  }

  // The model names a process or thread when it is announced: a thread's
  // announcement announces its process too. So thread names are held
  // until their process's name or the first event (writers put a
  // thread_name before the process_name as often as after). A name that
  // comes after its track was announced is not shown: the Normalizer
  // counts it (names_late).
  void ProcessName(uint32_t pid, std::string_view value) {
    order_.Process(pid, value);
    if (!announced_.insert(pid).second) return;
    for (auto it = held_names_.begin(); it != held_names_.end();) {
      if (it->first.pid != pid) {
        ++it;
        continue;
      }
      order_.Thread(it->first, ThreadName(it->second, it->first.tid));
      it = held_names_.erase(it);
    }
  }
  void ThreadNameEvent(const format::Track& t, std::string_view value) {
    named_threads_.insert(Key(t));
    if (announced_.count(t.pid)) return order_.Thread(t, ThreadName(value, t.tid));
    held_names_.emplace_back(t, std::string(value));
  }
  void FlushNames() {
    for (const auto& [t, value] : held_names_) {
      announced_.insert(t.pid);
      order_.Thread(t, ThreadName(value, t.tid));
    }
    held_names_.clear();
  }

  void Event() {
    ++r_.events;
    const std::string_view ph = Text("ph");
    const std::string_view name = Text("name");
    const std::string_view cat = Text("cat");
    const format::Track t{TrackId("pid"), TrackId("tid")};
    if (ph.size() != 1) return Skip();
    if (ph == "M") {
      const Value* n = Find(ev_.args, "name");
      const std::string_view value = n && n->kind == Value::kString ? std::string_view(n->text) : std::string_view();
      if (name == "process_name") return ProcessName(t.pid, value);
      if (name == "thread_name") return ThreadNameEvent(t, value);
      return Skip();
    }
    const auto ts = Micros("ts");
    if (!ts) return Skip();
    const uint64_t ns = *ts;
    const char p = ph[0];
    if (p == 's' || p == 'f') {
      const auto id = Unsigned(Find(ev_.fields, "id"));
      if (!id || *id == 0) {  // the model's flow ids are numbers from 1 up
        ++r_.flows_dropped;
        return;
      }
      Passed(t);
      if (point_.active && point_.track == t && point_.ns == ns) {
        point_.active = false;
        order_.FlowPoint(t, p == 's', *id, FlowPointName(point_.name), ns, point_.cpu, point_.color, !point_.carrier);
        return;
      }
      FlushPoint();
      if (Find(ev_.args, "cpu")) {  // an unnamed point inside a slice
        order_.FlowPoint(t, p == 's', *id, {}, ns, Cpu(), Color(), true);
      } else {
        order_.Flow(t, p == 's', *id, ns);
      }
      return;
    }
    FlushPoint();
    if (!std::strchr("BEXiIC", p)) return Skip();
    std::optional<uint64_t> dur;
    if (p == 'X' && !(dur = Micros("dur"))) return Skip();
    Passed(t);
    const bool flow_cat = cat == format::kFlowCategory;
    if (p != 'C') CountIgnoredArgs(p);
    switch (p) {
      case 'B':
        if (flow_cat) return HoldPoint(t, true, name, ns);
        return order_.Begin(t, name, ns, Cpu(), Color(), FlowsV2());
      case 'E':
        if (carrier_open_ && carrier_track_ == t) {
          carrier_open_ = false;  // the carrier's end: its point was passed on
          return;
        }
        return order_.End(t, name, ns, Flag());
      case 'X': return order_.Complete(t, name, ns, *dur, Cpu(), Color(), FlowsV2());
      case 'i':
      case 'I':
        if (flow_cat) return HoldPoint(t, false, name, ns);
        return order_.Instant(t, name, ns, Cpu(), Color());
      case 'C':
        for (const auto& [k, v] : ev_.args) {
          if (v.kind != Value::kInt && v.kind != Value::kUint && v.kind != Value::kFloat) {
            ++r_.args_ignored;  // a counter value that is not a number ("12", null, true)
            continue;
          }
          order_.Counter(t, k == "value" ? std::string(name) : std::string(name) + "." + k, ns, CounterValue(v));
        }
        return;
      default: return Skip();
    }
  }

  format::EventSink& out_;  // metadata; events through order_
  JsonEventOrder order_;
  ChromeJsonResult& r_;
  std::vector<Frame> path_;
  std::string key_;
  RawEvent ev_;
  std::map<std::string, uint32_t, std::less<>> remapped_;    // "pid:N" / "tid:N" -> its id
  std::set<uint32_t> announced_;                             // pids given to the model (named or not)
  std::map<uint32_t, std::string> pid_labels_, tid_labels_;  // remapped id -> the value it stands for
  std::set<uint64_t> named_threads_;                         // pid << 32 | tid of tracks a thread_name or a label named
  std::vector<std::pair<format::Track, std::string>> held_names_;  // thread names waiting for their process's
  PendingPoint point_;
  bool carrier_open_ = false;  // a carrier's B was read, its E not yet
  format::Track carrier_track_;
};

}  // namespace

ChromeJsonResult ReadChromeJson(std::FILE* in, std::string_view head, format::EventSink& out) {
  ChromeJsonResult r;
  FileBuf buf(in, head, &r.utf8_repaired);
  std::istream is(&buf);
  Handler h(out, r);
  nlohmann::json::sax_parse(is, &h);
  h.Finish();
  return r;
}

}  // namespace mabutrace::host
