// perfetto_exporter.cpp: the ring buffer as a Perfetto protobuf trace
// (R-C2), streamed packet by packet while writers keep writing.
//
// Field numbers: perfetto_trace.proto (../shared/reference/perfetto/),
// summarised in trace-formats.md Part 2. Sequences (perfetto_sequence.h):
// sequence 1 holds the track descriptors, late flow ends and the
// statistics, with absolute timestamps (ns since mabutrace_init() on the
// default clock); each thread's events go on sequence 2 + its registry
// slot, with delta timestamps and the thread's track as the default, so
// an event packet carries no track uuid. Event names are interned per
// sequence on first use (by pointer: names are static strings, R-A7), in
// the packet that first uses them; the debug annotation names are interned
// in each sequence's clearing packet.
//
// Tracks: one process track (uuid 1); one thread track per thread (uuid
// 2 + slot | gen << 16, child of the process); one counter track per
// counter name (child of the process, uuid from the name's text so that
// equal names share a track). Slices are SLICE_BEGIN/SLICE_END on the
// thread track (END carries no name, so it always closes the innermost
// slice, §2.5). A flow point is an INSTANT on the thread track carrying
// flow_ids (start) or terminating_flow_ids (end), so the arrow leaves from
// inside the enclosing slice. The per-thread rules (orphans, open scopes,
// ...) are trace_walker's. The statistics (R-A12) are the debug
// annotations of a final INSTANT named "mabutrace statistics" on the
// process track.
#include <string.h>

#include "../format/json_out.h"
#include "mabutrace/mabutrace.h"
#include "../format/perfetto_fields.h"
#include "../format/perfetto_sequence.h"
#include "../format/proto_out.h"
#include "trace_walker.h"
#include "../format/utf8.h"

namespace mabutrace {
namespace {

constexpr uint32_t kSequence = pb::kGlobalSequence;
constexpr uint64_t kProcessUuid = 1;
constexpr size_t kMaxName = 256;  // bytes of a name kept in a packet

// Debug annotation names, interned in each thread sequence's first packet.
enum AnnotationIid : uint32_t { kAnnCpu = 1, kAnnColor, kAnnOpen, kAnnTruncated, kAnnExited };
const char* const kAnnotationNames[] = {nullptr, "cpu", "color", "open_at_export", "truncated",
                                        "thread_exited"};
uint32_t FlagIid(const char* flag) {
  if (!flag) return 0;
  if (strcmp(flag, "open_at_export") == 0) return kAnnOpen;
  if (strcmp(flag, "truncated") == 0) return kAnnTruncated;
  return kAnnExited;
}

// InternEntry.flags
constexpr uint32_t kCounterDescribed = 2;  // its counter track descriptor sent

uint64_t Mix(uint64_t x) {  // splitmix64 finaliser: spreads ids into uuids
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
uint64_t Fnv1a(const char* s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (; *s; ++s) h = (h ^ uint8_t(*s)) * 0x100000001B3ull;
  return h;
}

class PerfettoSink final : public TraceSink {
 public:
  PerfettoSink(const Runtime& rt, JsonOut& out)
      : rt_(rt), ws_(*rt.workspace), out_(out), p_(ws_.packet, ws_.packet_cap) {
    memset(ws_.interned, 0, sizeof(InternEntry) * ws_.intern_cap);
  }

  // First packet: clears sequence 1 (which interns nothing) and describes
  // the process.
  void Start() {
    p_.Reset();
    p_.U64(pb::kTimestamp, 0);
    p_.U64(pb::kSequenceId, kSequence);
    p_.U64(pb::kSequenceFlags, pb::kIncrementalStateCleared);
    uint32_t td = p_.Begin(pb::kTrackDescriptor);
    p_.U64(pb::kTdUuid, kProcessUuid);
    uint32_t pd = p_.Begin(pb::kTdProcess);
    p_.I64(pb::kPdPid, int32_t(rt_.pid));
    Name(pb::kPdName, rt_.process_name);
    p_.End(pd);
    p_.End(td);
    Emit();
  }

  // The thread's track, then (re)starts its sequence: a registry slot reused
  // by a new thread clears the old thread's state on that sequence.
  void OnThread(const ThreadState& t, const char* name) override {
    p_.Reset();
    p_.U64(pb::kTimestamp, 0);
    p_.U64(pb::kSequenceId, kSequence);
    uint32_t td = p_.Begin(pb::kTrackDescriptor);
    p_.U64(pb::kTdUuid, ThreadUuid(t));
    p_.U64(pb::kTdParent, kProcessUuid);
    uint32_t th = p_.Begin(pb::kTdThread);
    p_.I64(pb::kThPid, int32_t(rt_.pid));
    p_.I64(pb::kThTid, int64_t(t.tid));
    if (name[0]) {
      Name(pb::kThName, name);
    } else {
      char fallback[24] = "thread ";
      Decimal(fallback + 7, t.tid);
      Name(pb::kThName, fallback);
    }
    p_.End(th);
    p_.End(td);
    Emit();
    p_.Reset();
    pb::WriteSequenceStart(p_, SequenceOf(t), ThreadUuid(t), kAnnotationNames,
                           sizeof kAnnotationNames / sizeof *kAnnotationNames);
    Emit();
  }

  void OnBegin(const ThreadState& t, const char* name, uint64_t ns, uint32_t cpu,
               uint32_t color) override {
    ThreadEvent(t, pb::kSliceBegin, name, ns, cpu, color);
  }

  // The end's CPU is not written: the begin has it, and ends are a third of
  // the events.
  void OnEnd(const ThreadState& t, const char*, uint64_t ns, uint32_t,
             const char* flag) override {
    const uint32_t te = EventPacket(t, ns, nullptr);
    p_.U64(pb::kTeType, pb::kSliceEnd);
    if (flag) {
      uint32_t da = p_.Begin(pb::kTeAnnotations);
      p_.U64(pb::kDaNameIid, FlagIid(flag));
      p_.U64(pb::kDaBool, 1);
      p_.End(da);
    }
    p_.End(te);
    Emit();
  }

  void OnInstant(const ThreadState& t, const char* name, uint64_t ns, uint32_t cpu,
                 uint32_t color) override {
    ThreadEvent(t, pb::kInstant, name, ns, cpu, color);
  }

  // Counter uuids: bit 33 set, the name's 32-bit hash below, so they never
  // meet a thread's (< 2^32 + 2) and stay 5-byte varints.
  void OnCounter(const ThreadState& t, const char* name, uint64_t ns, int64_t value) override {
    const char* text = name ? name : "(null)";
    const uint64_t uuid = (Fnv1a(text) & 0xFFFFFFFFu) | (uint64_t(1) << 33);
    InternEntry* e = Lookup(name);
    if (!e || !(e->flags & kCounterDescribed)) {
      p_.Reset();
      p_.U64(pb::kTimestamp, 0);
      p_.U64(pb::kSequenceId, kSequence);
      uint32_t td = p_.Begin(pb::kTrackDescriptor);
      p_.U64(pb::kTdUuid, uuid);
      p_.U64(pb::kTdParent, kProcessUuid);
      Name(pb::kTdName, text);
      uint32_t cd = p_.Begin(pb::kTdCounter);
      p_.U64(pb::kCdUnit, pb::kUnitCount);
      p_.End(cd);
      p_.End(td);
      Emit();
      if (e) e->flags |= kCounterDescribed;
    }
    p_.Reset();
    ThreadState& ts = const_cast<ThreadState&>(t);
    pb::WriteSequencePacketHead(p_, SequenceOf(t), &ts.seq_ns, ns);
    uint32_t te = p_.Begin(pb::kTrackEvent);
    p_.U64(pb::kTeType, pb::kCounter);
    p_.U64(pb::kTeTrack, uuid);
    p_.I64(pb::kTeCounterValue, value);
    p_.End(te);
    Emit();
  }

  // An instant inside the enclosing slice carries the flow id (§2.5: flows
  // attach to BEGIN, END and INSTANT events). Ids are global to the trace.
  uint64_t OnFlow(const ThreadState& t, bool start, uint32_t id, const char* name, uint64_t ns,
                  uint32_t cpu, uint32_t color, bool) override {
    // An unnamed end whose arrow comes later (OnFlowEnd) is written then,
    // once: an instant now would only duplicate it.
    if (!start && id == 0 && !name) return ns;
    const uint32_t te = EventPacket(t, ns, name ? name : (start ? "flow_out" : "flow_in"), color);
    p_.U64(pb::kTeType, pb::kInstant);
    Annotations(cpu, color);
    if (id) p_.Fixed64(start ? pb::kTeFlowIds : pb::kTeTerminatingFlowIds, id);
    p_.End(te);
    Emit();
    return ns;
  }

  // A late arrow end: an instant at the flow-in point that carries it. On
  // sequence 1 at its absolute time (the thread's sequence has moved on,
  // and its slot may belong to another thread by now).
  void OnFlowEnd(const ThreadState& t, uint32_t id, uint64_t ns) override {
    const uint32_t te = GlobalEventPacket(ns, "flow_in");
    p_.U64(pb::kTeType, pb::kInstant);
    p_.U64(pb::kTeTrack, ThreadUuid(t));
    p_.Fixed64(pb::kTeTerminatingFlowIds, id);
    p_.End(te);
    Emit();
  }

  bool Failed() const override { return out_.failed(); }

  void Statistics(uint64_t ns, const WalkCounts& counts) {
    StatItem items[kMaxStatItems + 1];
    size_t n = CollectExportStats(rt_, counts, items);
    items[n++] = StatItem{"packets_dropped", packets_dropped_};
    const uint32_t te = GlobalEventPacket(ns, "mabutrace statistics");
    p_.U64(pb::kTeType, pb::kInstant);
    p_.U64(pb::kTeTrack, kProcessUuid);
    for (size_t i = 0; i < n; ++i) {
      uint32_t da = p_.Begin(pb::kTeAnnotations);
      p_.String(pb::kDaName, items[i].key);
      p_.U64(pb::kDaUint, items[i].value);
      p_.End(da);
    }
    p_.End(te);
    Emit();
  }

 private:
  // A named TrackEvent of `type` on t's track with the cpu/color annotations.
  void ThreadEvent(const ThreadState& t, uint32_t type, const char* name, uint64_t ns,
                   uint32_t cpu, uint32_t color) {
    const uint32_t te = EventPacket(t, ns, name, color);
    p_.U64(pb::kTeType, type);
    Annotations(cpu, color);
    p_.End(te);
    Emit();
  }

  // Starts a packet on t's sequence with a TrackEvent named `name`
  // (interned when it can be; nullptr: no name) and returns the open
  // TrackEvent.
  uint32_t EventPacket(const ThreadState& t, uint64_t ns, const char* name, uint32_t color = 0) {
    p_.Reset();
    ThreadState& ts = const_cast<ThreadState&>(t);  // its sequence state is ours
    pb::WriteSequencePacketHead(p_, SequenceOf(t), &ts.seq_ns, ns);
    // One interned_data per packet (it is not a repeated field): the name
    // and the color go in together.
    InternEntry* e = name ? Lookup(name) : nullptr;
    bool send_name = false;
    if (e) {
      uint16_t& sent = ts.sent_iids[e->iid % kSentIids];
      send_name = sent != e->iid;
      sent = uint16_t(e->iid);
    }
    color_iid_ = color ? ColorIid(color) : 0;
    const uint64_t color_bit = color_iid_ ? uint64_t(1) << (color_iid_ - 1) : 0;
    const bool send_color = (ts.sent_colors & color_bit) == 0 && color_bit;
    ts.sent_colors |= color_bit;
    if (send_name || send_color) {
      uint32_t id = p_.Begin(pb::kInternedData);
      if (send_name) {
        uint32_t en = p_.Begin(pb::kIdEventNames);
        p_.U64(pb::kIidIid, e->iid);
        Name(pb::kIidName, name);
        p_.End(en);
      }
      if (send_color) {
        char rgb[8];
        uint32_t sv = p_.Begin(pb::kIdAnnotationStrings);
        p_.U64(pb::kIidIid, color_iid_);
        p_.Bytes(pb::kInternedStringStr, ColorText(color, rgb), 7);
        p_.End(sv);
      }
      p_.End(id);
    }
    const uint32_t te = p_.Begin(pb::kTrackEvent);
    if (e) {
      p_.U64(pb::kTeNameIid, e->iid);
    } else if (name) {
      Name(pb::kTeName, name);  // table full: inline
    }
    return te;
  }

  // The iid of `color` among this export's interned color strings (1..64),
  // 0 when the table is full (the color is then written inline).
  uint32_t ColorIid(uint32_t color) {
    const uint32_t key = color | MABUTRACE_COLOR_SET;
    uint32_t i = (key * 2654435761u) >> 26;  // 6 bits
    for (uint32_t probes = 0; probes < kColorSlots; ++probes, i = (i + 1) % kColorSlots) {
      if (colors_[i] == key) return i + 1;
      if (colors_[i] == 0) {
        colors_[i] = key;
        return i + 1;
      }
    }
    return 0;
  }

  static const char* ColorText(uint32_t color, char* rgb) {
    static const char kHex[] = "0123456789abcdef";
    rgb[0] = '#';
    for (int i = 0; i < 6; ++i) rgb[1 + i] = kHex[(color >> (20 - 4 * i)) & 0xF];
    rgb[7] = '\0';
    return rgb;
  }

  // Starts a packet on sequence 1 at absolute time `ns` with a TrackEvent
  // named `name` (inline: sequence 1 interns nothing); the caller sets the
  // track.
  uint32_t GlobalEventPacket(uint64_t ns, const char* name) {
    p_.Reset();
    p_.U64(pb::kTimestamp, ns);
    p_.U64(pb::kSequenceId, kSequence);
    const uint32_t te = p_.Begin(pb::kTrackEvent);
    Name(pb::kTeName, name);
    return te;
  }

  void Annotations(uint32_t cpu, uint32_t color) {
    uint32_t da = p_.Begin(pb::kTeAnnotations);
    p_.U64(pb::kDaNameIid, kAnnCpu);
    p_.U64(pb::kDaUint, cpu);
    p_.End(da);
    if (color) {  // interned by EventPacket when the table had room
      da = p_.Begin(pb::kTeAnnotations);
      p_.U64(pb::kDaNameIid, kAnnColor);
      if (color_iid_) {
        p_.U64(pb::kDaStringIid, color_iid_);
      } else {
        char rgb[8];
        p_.Bytes(pb::kDaString, ColorText(color, rgb), 7);
      }
      p_.End(da);
    }
  }

  // A string field holding s as valid UTF-8 (each invalid byte becomes
  // U+FFFD, as in the JSON export), cut at a character boundary to at most
  // kMaxName bytes.
  void Name(uint32_t field, const char* s) {
    if (!s) s = "(null)";
    const uint32_t slot = p_.Begin(field);  // a string is length-delimited too
    PutValidUtf8(s, strlen(s), kMaxName, [this](const char* d, size_t n) { p_.Raw(d, n); });
    p_.End(slot);
  }

  // The entry for `name` (by pointer), claimed with a fresh iid on first
  // use; nullptr when the table is full (the caller then writes names inline).
  InternEntry* Lookup(const char* name) {
    const uint32_t mask = ws_.intern_cap - 1;
    uint32_t i = uint32_t(Mix(uintptr_t(name))) & mask;
    for (uint32_t probes = 0; probes < ws_.intern_cap; ++probes, i = (i + 1) & mask) {
      InternEntry& e = ws_.interned[i];
      if (e.iid != 0 && e.name == name) return &e;
      if (e.iid == 0) {
        e.name = name;
        e.iid = ++next_iid_;
        return &e;
      }
    }
    return nullptr;
  }

  // 2 + key: unique per thread (the key has the slot's generation), never 1
  // (the process), below every counter uuid.
  static uint64_t ThreadUuid(const ThreadState& t) { return 2 + uint64_t(t.key); }
  // 2 + registry slot (the walker's spare state, max_threads, included).
  static uint32_t SequenceOf(const ThreadState& t) { return 2 + (t.key & 0xFFFF); }

  static void Decimal(char* out, uint32_t v) {
    char tmp[12];
    int n = 0;
    do {
      tmp[n++] = char('0' + v % 10);
      v /= 10;
    } while (v);
    while (n) *out++ = tmp[--n];
    *out = '\0';
  }

  // Frames the encoded packet as Trace.packet (field 1) and writes it.
  void Emit() {
    if (p_.overflow()) {
      ++packets_dropped_;
      return;
    }
    uint8_t head[6];
    uint32_t n = 0, len = p_.size();
    head[n++] = uint8_t(pb::kTracePacket << 3 | ProtoOut::kLengthDelimited);
    while (len >= 0x80) {
      head[n++] = uint8_t(len | 0x80);
      len >>= 7;
    }
    head[n++] = uint8_t(len);
    out_.Raw(reinterpret_cast<const char*>(head), n);
    out_.Raw(reinterpret_cast<const char*>(p_.data()), p_.size());
  }

  const Runtime& rt_;
  ExportWorkspace& ws_;
  JsonOut& out_;  // used as a plain byte stream here
  ProtoOut p_;
  static constexpr uint32_t kColorSlots = 64;
  uint32_t colors_[kColorSlots] = {};  // MABUTRACE_COLOR_SET | rgb; slot + 1 = iid
  uint32_t color_iid_ = 0;             // of the event being written
  uint32_t next_iid_ = 0;
  uint64_t packets_dropped_ = 0;
};

}  // namespace
}  // namespace mabutrace

extern "C" int mabutrace_export_perfetto(mabutrace_write_fn write, void* user) {
  using namespace mabutrace;
  if (!write) return MABUTRACE_ERR_INVALID_ARG;
  Runtime* rt = BeginExport();
  if (!rt) return MABUTRACE_ERR_NOT_INITIALIZED;
  JsonOut out(rt->workspace->out, rt->workspace->out_cap, write, user);
  PerfettoSink sink(*rt, out);
  TraceWalker walker(*rt);
  sink.Start();
  walker.Run(sink);
  sink.Statistics(walker.end_ns(), walker.counts());
  out.Flush();
  EndExport(rt);
  return out.failed() ? MABUTRACE_ERR_IO : MABUTRACE_OK;
}
