// SPDX-License-Identifier: MIT
// chrome_json_writer.h: a trace as Chrome trace-event JSON, object form
// (trace-formats.md Part 1), streamed event by event: the one JSON writer
// of the toolkit, used by the device export (mabutrace_export_json) and
// by every host tool (mabutrace convert, ete/cptracer export).
//
//   {"traceEvents":[
//     {"ph":"M","name":"process_name",...}, {"ph":"M","name":"thread_name",...},
//     {"ph":"B","name":N,"cat":"mabutrace","pid":P,"tid":T,"ts":US[,"cname":C],
//      "args":{"cpu":K[,"color":"#rrggbb"]}},
//     {"ph":"E",...,"ts":US[,"args":{FLAG:true}]},
//     {"ph":"i",...,"s":"t"}, {"ph":"C","name":N,...,"args":{"value":V}},
//     {"ph":"s"|"f","name":"flow","cat":"mabutrace.flow","id":ID,...[,"bp":"e"]}
//   ],"displayTimeUnit":"ns","metadata":{"producer":"mabutrace","format_version":1,...}}
//
// - ts: microseconds with 3 decimals from integer ns, exact (§1.2, P6);
//   pid/tid integers; names made valid UTF-8 and cut at kMaxNameBytes.
// - cname: the nearest colour Catapult reserves (chrome_colors.h; any other
//   name makes its importer throw); the exact RGB goes to args.color.
// - C events carry only the series in args (§1.3: every key is a series).
// - Flows are v1 s/f with "bp":"e", bound to the enclosing slice (§1.5);
//   ids are the producer's, unique per arrow. A flow point inside a slice
//   is an i (when named) and its s/f; outside every slice it gets a 1 ns
//   carrier slice named after it ("flow_out"/"flow_in" when unnamed), in
//   the flows' category "mabutrace.flow" (a recorded scope's is "mabutrace").
// The writer trusts the producer's rules (trace_rules.h). Metadata must
// come after the last event (the object is streamed); an event after it is
// dropped and counted in stat::kEventsAfterMetadata.
//
// Memory: about 300 bytes of its own (flags, the last track's ids and a
// few colours as text); output through `out`.
// Not thread-safe. C++17, no heap, no exceptions.
#ifndef MABUTRACE_FORMAT_CHROME_JSON_WRITER_H
#define MABUTRACE_FORMAT_CHROME_JSON_WRITER_H

#include <stdint.h>

#include "json_out.h"
#include "trace_events.h"
#include "trace_vocabulary.h"

namespace mabutrace::format {

// Where a writer may keep, by address, what it learnt of a name (its
// kept length, whether it needs escaping), so that a name met again costs
// a lookup instead of a scan. Only for a producer whose names never change
// under one address: a device's are static (mabutrace.h), and its
// exporters already take a name's address as its identity.
struct JsonNameMemo {
  struct Entry {
    const char* data;  // nullptr: empty
    uint32_t size;
    uint32_t kept;  // KeptNameBytes | kPlain when those bytes need no escaping
  };
  static constexpr uint32_t kPlain = uint32_t{1} << 31;
  Entry* entries = nullptr;  // a power of two of them; the writer clears them
  uint32_t count = 0;
};

class ChromeJsonWriter : public EventSink {
 public:
  // `out` must outlive the writer, and `names.entries` (if any) too;
  // nothing is written before the first call.
  explicit ChromeJsonWriter(JsonOut& out, JsonNameMemo names = {});

  void OnProcess(uint32_t pid, std::string_view name) override;
  void OnThread(Track t, std::string_view name) override;
  void OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnEnd(Track t, std::string_view name, uint64_t ns, std::string_view flag) override;
  void OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) override;
  void OnFlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color,
                   bool enclosed) override;
  void OnFlow(Track t, bool start, uint64_t id, uint64_t ns) override;
  void OnMetadata(std::string_view key, int64_t value) override;
  void OnMetadata(std::string_view key, std::string_view value) override;
  // Closes the arrays and objects and flushes `out`; false if a write failed.
  bool Finish() override;

 private:
  // `,"pid":P,"tid":T,"ts":` of one track, kept for the next event: most
  // events follow one of the same thread.
  struct IdsText {
    Track track;
    uint32_t len = 0;    // 0: nothing kept yet
    char text[48] = {};  // the longest is 40 bytes; the rest is room for word stores
  };
  // A colour's reserved name (cname) and "#rrggbb", kept by RGB.
  struct ColorText {
    uint32_t rgb = UINT32_MAX;  // never an RGB: the slot is empty
    uint32_t cname_len = 0;
    const char* cname = "";
    char hex[8] = {};  // "#rrggbb" and a spare byte for one word store
  };
  static constexpr unsigned kColorSlotBits = 3;
  // An event's args: `,"args":{"cpu":N[,"color":..][,LATER:true]}`.
  struct ArgsOf {
    uint32_t cpu;
    const ColorText* color;  // nullptr: no colour
    bool later;              // the point's arrow end comes later (OnFlow)
  };

  bool BeginEvent();  // false (event dropped) once metadata has begun
  // Writes one event through text(w): w is a JsonOut::Cursor in room of
  // `max` bytes taken once when `plain` (every string in it needs no
  // escaping) and an event was written before; else the JsonOut itself,
  // piece by piece, after BeginEvent.
  template <class Text>
  void Event(bool plain, size_t max, Text&& text);
  // A slice's begin or end, an instant or a flow point's carrier:
  // `{"ph":PH,"name":..,"cat":..,"pid":..,"tid":..,"ts":..` then args (when
  // given), then `"args":{FLAG:true}` (when not empty), then `,"s":"t"`
  // (an instant's scope) when `instant`, then `}`.
  void Named(Track t, char ph, std::string_view name, std::string_view cat, uint64_t ns, const ArgsOf* args,
             std::string_view flag = {}, bool instant = false);
  // An arrow's s/f event; `point` adds the point's cpu/color args (an
  // unnamed point inside a slice has no event of its own).
  void Arrow(Track t, bool start, uint64_t id, uint64_t ns, bool point, uint32_t cpu, uint32_t color);
  struct KeptName {
    size_t size;  // KeptNameBytes
    bool plain;   // those bytes need no escaping (JsonOut::PlainString)
  };
  KeptName Kept(std::string_view name);
  const IdsText& IdsOf(Track t);
  const ColorText* ColorOf(uint32_t color);  // nullptr when color is 0
  void Ids(Track t);
  void Name(std::string_view s);
  void OpenMetadata();
  void MetadataKey(std::string_view key);

  JsonOut& out_;
  bool started_ = false;         // "{"traceEvents":[" written
  bool first_ = true;            // no event written yet
  bool between_events_ = false;  // an event written, metadata not begun: the next one starts with ",\n"
  bool in_metadata_ = false;
  bool finished_ = false;
  uint64_t events_after_metadata_ = 0;
  JsonNameMemo names_;
  IdsText ids_;
  ColorText colors_[1u << kColorSlotBits];
};

}  // namespace mabutrace::format

#endif  // MABUTRACE_FORMAT_CHROME_JSON_WRITER_H
