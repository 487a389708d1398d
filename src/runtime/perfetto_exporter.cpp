// perfetto_exporter.cpp: the ring buffer as a Perfetto protobuf trace
// (R-C2), streamed packet by packet while writers keep writing.
//
// Field numbers: perfetto_trace.proto (../shared/reference/perfetto/),
// summarised in trace-formats.md Part 2. One writer sequence
// (trusted_packet_sequence_id 1); its first packet clears the incremental
// state and interns the debug annotation names; every later packet that
// uses an interned id sets SEQ_NEEDS_INCREMENTAL_STATE. Event names are
// interned on first use (by pointer; names are static strings, R-A7), in
// the packet that first uses them.
//
// Tracks: one process track; one thread track per thread (child of the
// process); one counter track per counter name (child of the process, uuid
// from the name's text so that equal names share a track). Slices are
// SLICE_BEGIN/SLICE_END on the thread track (END carries no name, so it
// always closes the innermost slice, §2.5). A flow point is an INSTANT on
// the thread track carrying flow_ids (start) or terminating_flow_ids (end),
// so the arrow leaves from inside the enclosing slice. Timestamps are ns
// since mabutrace_init() on the trace's default clock (no ClockSnapshot,
// §2.8). The per-thread rules (orphans, open scopes, ...) are trace_walker's.
// The statistics (R-A12) are the debug annotations of a final INSTANT named
// "mabutrace statistics" on the process track.
#include <string.h>

#include "json_out.h"
#include "mabutrace/mabutrace.h"
#include "perfetto_fields.h"
#include "proto_out.h"
#include "trace_walker.h"
#include "utf8.h"

namespace mabutrace {
namespace {


constexpr uint32_t kSequence = 1;
constexpr size_t kMaxName = 256;  // bytes of a name kept in a packet

// Debug annotation names, interned once in the first packet.
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
constexpr uint32_t kNameInterned = 1;      // interned_data sent for its iid
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
    process_uuid_ = Mix(0x70726F63ull << 32 | rt.pid);
  }

  // First packet: clears the sequence's state, describes the process,
  // interns the annotation names.
  void Start() {
    p_.Reset();
    p_.U64(pb::kTimestamp, 0);
    p_.U64(pb::kSequenceId, kSequence);
    p_.U64(pb::kSequenceFlags, pb::kIncrementalStateCleared);
    uint32_t id = p_.Begin(pb::kInternedData);
    for (uint32_t i = 1; i < sizeof kAnnotationNames / sizeof *kAnnotationNames; ++i) {
      uint32_t e = p_.Begin(pb::kIdAnnotationNames);
      p_.U64(pb::kIidIid, i);
      p_.String(pb::kIidName, kAnnotationNames[i]);
      p_.End(e);
    }
    p_.End(id);
    uint32_t td = p_.Begin(pb::kTrackDescriptor);
    p_.U64(pb::kTdUuid, process_uuid_);
    uint32_t pd = p_.Begin(pb::kTdProcess);
    p_.I64(pb::kPdPid, int32_t(rt_.pid));
    Name(pb::kPdName, rt_.process_name);
    p_.End(pd);
    p_.End(td);
    Emit();
  }

  void OnThread(const ThreadState& t, const char* name) override {
    p_.Reset();
    p_.U64(pb::kTimestamp, 0);
    p_.U64(pb::kSequenceId, kSequence);
    uint32_t td = p_.Begin(pb::kTrackDescriptor);
    p_.U64(pb::kTdUuid, ThreadUuid(t));
    p_.U64(pb::kTdParent, process_uuid_);
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
  }

  void OnBegin(const ThreadState& t, const char* name, uint64_t ns, uint32_t cpu,
               uint32_t color) override {
    ThreadEvent(t, pb::kSliceBegin, name, ns, cpu, color);
  }

  void OnEnd(const ThreadState& t, const char*, uint64_t ns, uint32_t cpu,
             const char* flag) override {
    const uint32_t te = EventPacket(ns, nullptr);
    p_.U64(pb::kTeType, pb::kSliceEnd);
    p_.U64(pb::kTeTrack, ThreadUuid(t));
    if (flag) {
      uint32_t da = p_.Begin(pb::kTeAnnotations);
      p_.U64(pb::kDaNameIid, FlagIid(flag));
      p_.U64(pb::kDaBool, 1);
      p_.End(da);
    } else {
      Annotations(cpu, 0);
    }
    p_.End(te);
    Emit();
  }

  void OnInstant(const ThreadState& t, const char* name, uint64_t ns, uint32_t cpu,
                 uint32_t color) override {
    ThreadEvent(t, pb::kInstant, name, ns, cpu, color);
  }

  void OnCounter(const ThreadState&, const char* name, uint64_t ns, int64_t value) override {
    const char* text = name ? name : "(null)";
    const uint64_t uuid = Fnv1a(text) | (uint64_t(1) << 63);
    InternEntry* e = Lookup(name);
    if (!e || !(e->flags & kCounterDescribed)) {
      p_.Reset();
      p_.U64(pb::kTimestamp, ns);
      p_.U64(pb::kSequenceId, kSequence);
      uint32_t td = p_.Begin(pb::kTrackDescriptor);
      p_.U64(pb::kTdUuid, uuid);
      p_.U64(pb::kTdParent, process_uuid_);
      Name(pb::kTdName, text);
      uint32_t cd = p_.Begin(pb::kTdCounter);
      p_.U64(pb::kCdUnit, pb::kUnitCount);
      p_.End(cd);
      p_.End(td);
      Emit();
      if (e) e->flags |= kCounterDescribed;
    }
    p_.Reset();
    p_.U64(pb::kTimestamp, ns);
    p_.U64(pb::kSequenceId, kSequence);
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
    const uint32_t te = EventPacket(ns, name ? name : (start ? "flow_out" : "flow_in"));
    p_.U64(pb::kTeType, pb::kInstant);
    p_.U64(pb::kTeTrack, ThreadUuid(t));
    Annotations(cpu, color);
    if (id) p_.Fixed64(start ? pb::kTeFlowIds : pb::kTeTerminatingFlowIds, id);
    p_.End(te);
    Emit();
    return ns;
  }

  // A late arrow end: an instant at the flow-in point that carries it.
  void OnFlowEnd(const ThreadState& t, uint32_t id, uint64_t ns) override {
    const uint32_t te = EventPacket(ns, "flow_in");
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
    const uint32_t te = EventPacket(ns, "mabutrace statistics");
    p_.U64(pb::kTeType, pb::kInstant);
    p_.U64(pb::kTeTrack, process_uuid_);
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
    const uint32_t te = EventPacket(ns, name);
    p_.U64(pb::kTeType, type);
    p_.U64(pb::kTeTrack, ThreadUuid(t));
    Annotations(cpu, color);
    p_.End(te);
    Emit();
  }

  // Starts a packet with a TrackEvent named `name` (interned when it can
  // be; nullptr: no name) and returns the open TrackEvent.
  uint32_t EventPacket(uint64_t ns, const char* name) {
    p_.Reset();
    p_.U64(pb::kTimestamp, ns);
    p_.U64(pb::kSequenceId, kSequence);
    p_.U64(pb::kSequenceFlags, pb::kNeedsIncrementalState);
    InternEntry* e = name ? Lookup(name) : nullptr;
    if (e && !(e->flags & kNameInterned)) {
      e->flags |= kNameInterned;
      uint32_t id = p_.Begin(pb::kInternedData);
      uint32_t en = p_.Begin(pb::kIdEventNames);
      p_.U64(pb::kIidIid, e->iid);
      Name(pb::kIidName, name);
      p_.End(en);
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

  void Annotations(uint32_t cpu, uint32_t color) {
    uint32_t da = p_.Begin(pb::kTeAnnotations);
    p_.U64(pb::kDaNameIid, kAnnCpu);
    p_.U64(pb::kDaUint, cpu);
    p_.End(da);
    if (color) {
      static const char kHex[] = "0123456789abcdef";
      char rgb[8] = {'#'};
      for (int i = 0; i < 6; ++i) rgb[1 + i] = kHex[(color >> (20 - 4 * i)) & 0xF];
      da = p_.Begin(pb::kTeAnnotations);
      p_.U64(pb::kDaNameIid, kAnnColor);
      p_.Bytes(pb::kDaString, rgb, 7);
      p_.End(da);
    }
  }

  // A string field holding s as valid UTF-8 (each invalid byte becomes
  // U+FFFD, as in the JSON export), cut at a character boundary to at most
  // kMaxName bytes.
  void Name(uint32_t field, const char* s) {
    if (!s) s = "(null)";
    const uint32_t slot = p_.Begin(field);  // a string is length-delimited too
    size_t written = 0;
    for (auto* c = reinterpret_cast<const unsigned char*>(s); *c;) {
      const unsigned n = Utf8Length(c);
      const unsigned out = n ? n : 3;
      if (written + out > kMaxName) break;
      if (n) {
        p_.Raw(c, n);
        c += n;
      } else {
        p_.Raw(kReplacementChar, 3);
        ++c;
      }
      written += out;
    }
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

  uint64_t ThreadUuid(const ThreadState& t) const {
    return Mix((uint64_t(rt_.pid) << 32) | t.tid);
  }

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
  uint64_t process_uuid_ = 0;
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
