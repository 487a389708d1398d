// json_exporter.cpp: the ring buffer as Chrome trace-event JSON (R-C1),
// streamed through a 4 KiB staging buffer while writers keep writing.
//
// Output (object form, trace-formats.md §1.1):
//   {"traceEvents":[
//     process_name / thread_name M events (a thread's when first seen),
//     B/E slices, i instants, C counters, s/f flows (v1, "bp":"e"),
//   ],"displayTimeUnit":"ns","metadata":{ statistics and export notes }}
//
// What the exporter guarantees on each thread (trace-formats.md Part 4):
// - every E has its B, with the same name, and ends after it (a scope that
//   begins and ends within the same ns gets 1 ns);
// - timestamps never go backwards (ties keep file order);
// - the end of a scope whose begin was overwritten is dropped and counted
//   ("orphan_scope_ends"); scopes still open at export end at the last
//   timestamp of the trace with args {"open_at_export":true};
// - a flow point binds to the innermost open slice; with none open it gets
//   a 1 ns carrier slice named after the flow. A flow end whose start is no
//   longer in the buffer is dropped and counted, never written alone.
// Flow ids in the file are the runtime's 32-bit flow numbers, unique per
// arrow even though link ids (16 bit) cycle.
//
// Two passes: the first lists chunks and marks which flow starts are
// present, the second writes. Memory: the export workspace (snapshot.h).
#include <string.h>

#include "chrome_colors.h"
#include "json_out.h"
#include "mabutrace/mabutrace.h"
#include "snapshot.h"

namespace mabutrace {
namespace {

constexpr const char* kCategory = "mabutrace";

struct Counts {
  uint64_t records = 0;
  uint64_t orphan_ends = 0;
  uint64_t too_deep = 0;
  uint64_t open_closed = 0;
  uint64_t flow_ends_without_start = 0;
  uint64_t chunks_lost = 0;
  uint64_t corrupt_chunks = 0;
};

class JsonExporter {
 public:
  JsonExporter(Runtime& rt, mabutrace_write_fn write, void* user)
      : rt_(rt),
        ws_(*rt.workspace),
        out_(ws_.out, ws_.out_cap, write, user),
        snap_(rt) {}

  int Run() {
    MarkFlowStarts();
    for (uint32_t i = 0; i <= rt_.max_threads; ++i) ws_.threads[i] = ThreadState{};
    out_.Raw("{\"traceEvents\":[\n");
    ProcessName();
    for (uint32_t i = 0; i < snap_.size() && !out_.failed(); ++i) WriteChunk(i);
    CloseOpenScopes();
    out_.Raw("\n],\"displayTimeUnit\":\"ns\",\"metadata\":");
    Metadata();
    out_.Raw("}\n");
    out_.Flush();
    return out_.failed() ? MABUTRACE_ERR_IO : MABUTRACE_OK;
  }

 private:
  // ---- pass 1 ---------------------------------------------------------------
  void MarkFlowStarts() {
    memset(ws_.flow_bits, 0, (size_t(ws_.flow_mask) + 1) / 8);
    for (uint32_t i = 0; i < snap_.size(); ++i) {
      ChunkCopy info;
      if (!snap_.Load(i, &info)) continue;
      snap_.ForEach(info, [&](const Record& r) {
        if (r.type == RecordType::kFlowOut) SetBit(r.flow);
      });
    }
  }
  void SetBit(uint32_t n) { ws_.flow_bits[(n & ws_.flow_mask) >> 6] |= uint64_t(1) << (n & 63); }
  bool HasBit(uint32_t n) const {
    return n != 0 && (ws_.flow_bits[(n & ws_.flow_mask) >> 6] >> (n & 63) & 1) != 0;
  }

  // ---- pass 2 ---------------------------------------------------------------
  void WriteChunk(uint32_t i) {
    const ChunkRef& ref = snap_.ref(i);
    ChunkCopy info;
    if (!snap_.Load(i, &info)) {
      // Recycled since it was listed: this thread's records have a gap.
      ++counts_.chunks_lost;
      ThreadState* t = Find(ref.thread);
      if (t) CloseAll(*t, t->last_ns, "truncated");
      return;
    }
    ThreadState& t = Thread(info);
    if (!snap_.ForEach(info, [&](const Record& r) { Write(t, r); })) ++counts_.corrupt_chunks;
  }

  ThreadState* Find(uint32_t key) {
    const uint32_t slot = key & 0xFFFF;
    if (slot >= rt_.max_threads) return nullptr;
    ThreadState& t = ws_.threads[slot];
    return t.seen && t.key == key ? &t : nullptr;
  }

  ThreadState& Thread(const ChunkCopy& info) {
    uint32_t slot = info.thread & 0xFFFF;
    if (slot >= rt_.max_threads) slot = rt_.max_threads;  // defensive: spare state
    ThreadState& t = ws_.threads[slot];
    if (t.seen && t.key == info.thread) return t;
    if (t.seen) CloseAll(t, t.last_ns, "thread_exited");  // slot reused
    t = ThreadState{};
    t.seen = true;
    t.key = info.thread;
    t.tid = info.tid;
    t.stack = ws_.stacks + size_t(slot) * rt_.max_depth;
    ThreadName(t, slot);
    return t;
  }

  void Write(ThreadState& t, const Record& r) {
    ++counts_.records;
    uint64_t ns = TicksToNs(rt_, r.ticks);
    if (ns < t.last_ns) ns = t.last_ns;  // ties (and only ties) on a monotonic clock
    switch (r.type) {
      case RecordType::kScopeBegin:
        if (t.too_deep || t.depth == rt_.max_depth) {
          ++t.too_deep;
          ++counts_.too_deep;
          break;
        }
        t.stack[t.depth++] = OpenScope{r.name, ns, r.color};
        Event(t, 'B', r.name, ns, r.cpu, r.color);
        Close();
        break;
      case RecordType::kScopeEnd:
        if (t.too_deep) {
          --t.too_deep;
        } else if (t.depth == 0) {
          ++counts_.orphan_ends;
        } else {
          ns = EndTime(t, ns);
          EndEvent(t, ns, r.cpu, nullptr);
        }
        break;
      case RecordType::kInstant:
        Event(t, 'i', r.name, ns, r.cpu, r.color);
        out_.Raw(",\"s\":\"t\"}");
        break;
      case RecordType::kCounter:
        Counter(t, r, ns);
        break;
      case RecordType::kFlowOut:
        ns = Flow(t, r, ns, 's', r.flow);
        break;
      case RecordType::kFlowIn: {
        const uint32_t n = FlowForLink(r.link, r.flow);
        if (!HasBit(n)) {
          ++counts_.flow_ends_without_start;
          if (r.name) {  // keep the named point, without a dangling arrow
            Event(t, 'i', r.name, ns, r.cpu, r.color);
            out_.Raw(",\"s\":\"t\"}");
          }
          break;
        }
        ns = Flow(t, r, ns, 'f', n);
        break;
      }
      case RecordType::kTimeBase:
        break;
    }
    t.last_ns = ns;
    if (ns > end_ns_) end_ns_ = ns;
  }

  // An end never at or before its begin: Perfetto sorts an E before a B of
  // the same timestamp, which would orphan it (trace-formats.md §1.3).
  uint64_t EndTime(const ThreadState& t, uint64_t ns) const {
    const uint64_t min = t.stack[t.depth - 1].ns + 1;
    return ns < min ? min : ns;
  }

  // A flow point ('s' or 'f') bound to the innermost open slice, or to a
  // 1 ns carrier slice when none is open. Returns the last time written.
  uint64_t Flow(ThreadState& t, const Record& r, uint64_t ns, char ph, uint32_t id) {
    const char* carrier = nullptr;
    if (t.depth == 0 || t.too_deep) {
      carrier = r.name ? r.name : (ph == 's' ? "flow_out" : "flow_in");
      Event(t, 'B', carrier, ns, r.cpu, r.color);
      Close();
    } else if (r.name) {
      Event(t, 'i', r.name, ns, r.cpu, r.color);
      out_.Raw(",\"s\":\"t\"}");
    }
    Sep();
    out_.Raw("{\"ph\":\"");
    out_.Char(ph);
    out_.Raw("\",\"name\":\"flow\",\"cat\":\"mabutrace.flow\",\"id\":");
    out_.U64(id);
    Ids(t);
    out_.Raw(",\"ts\":");
    out_.Micros(ns);
    out_.Raw(ph == 'f' ? ",\"bp\":\"e\"}" : "}");
    if (carrier) {
      ns += 1;
      Sep();
      out_.Raw("{\"ph\":\"E\",\"name\":");
      out_.String(carrier);
      out_.Raw(",\"cat\":\"mabutrace\"");
      Ids(t);
      out_.Raw(",\"ts\":");
      out_.Micros(ns);
      out_.Raw("}");
    }
    return ns;
  }

  // Writes `{"ph":..,"name":..,"cat":..,"pid":..,"tid":..,"ts":..[,"cname":..],
  // "args":{"cpu":N[,"color":"#rrggbb"]}` and leaves the event object open.
  void Event(const ThreadState& t, char ph, const char* name, uint64_t ns, uint32_t cpu,
             uint32_t color) {
    Sep();
    out_.Raw("{\"ph\":\"");
    out_.Char(ph);
    out_.Raw("\",\"name\":");
    out_.String(name);
    out_.Raw(",\"cat\":\"");
    out_.Raw(kCategory);
    out_.Char('"');
    Ids(t);
    out_.Raw(",\"ts\":");
    out_.Micros(ns);
    if (color) {
      out_.Raw(",\"cname\":\"");
      out_.Raw(NearestReservedColor(color & 0xFFFFFF));
      out_.Char('"');
    }
    out_.Raw(",\"args\":{\"cpu\":");
    out_.U64(cpu);
    if (color) {
      out_.Raw(",\"color\":\"");
      out_.Hex6(color & 0xFFFFFF);
      out_.Char('"');
    }
    out_.Char('}');
  }
  void Close() { out_.Char('}'); }

  // Counter args hold only the series (trace-formats.md §1.3: every args key
  // of a C event is a series), so cpu and color are not written here.
  void Counter(const ThreadState& t, const Record& r, uint64_t ns) {
    Sep();
    out_.Raw("{\"ph\":\"C\",\"name\":");
    out_.String(r.name);
    Ids(t);
    out_.Raw(",\"ts\":");
    out_.Micros(ns);
    out_.Raw(",\"args\":{\"value\":");
    out_.I64(r.value);
    out_.Raw("}}");
  }

  void EndEvent(ThreadState& t, uint64_t ns, uint32_t cpu, const char* flag) {
    const OpenScope& s = t.stack[--t.depth];
    Sep();
    out_.Raw("{\"ph\":\"E\",\"name\":");
    out_.String(s.name);
    out_.Raw(",\"cat\":\"");
    out_.Raw(kCategory);
    out_.Char('"');
    Ids(t);
    out_.Raw(",\"ts\":");
    out_.Micros(ns);
    if (flag) {
      out_.Raw(",\"args\":{\"");
      out_.Raw(flag);
      out_.Raw("\":true}");
    } else {
      out_.Raw(",\"args\":{\"cpu\":");
      out_.U64(cpu);
      out_.Char('}');
    }
    out_.Char('}');
    t.last_ns = ns;
  }

  // Ends every open scope of t at `ns` (or later), args {flag: true}.
  void CloseAll(ThreadState& t, uint64_t ns, const char* flag) {
    t.too_deep = 0;
    while (t.depth) {
      const uint64_t at = EndTime(t, ns > t.last_ns ? ns : t.last_ns);
      EndEvent(t, at, 0, flag);
      ++counts_.open_closed;
    }
  }

  void CloseOpenScopes() {
    for (uint32_t i = 0; i <= rt_.max_threads; ++i) {
      ThreadState& t = ws_.threads[i];
      if (t.seen) CloseAll(t, end_ns_, "open_at_export");
    }
  }

  void Ids(const ThreadState& t) {
    out_.Raw(",\"pid\":");
    out_.U64(rt_.pid);
    out_.Raw(",\"tid\":");
    out_.U64(t.tid);
  }

  void Sep() {
    if (!first_) out_.Raw(",\n");
    first_ = false;
  }

  void ProcessName() {
    Sep();
    out_.Raw("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
    out_.U64(rt_.pid);
    out_.Raw(",\"tid\":");
    out_.U64(rt_.pid);
    out_.Raw(",\"args\":{\"name\":");
    out_.String(rt_.process_name);
    out_.Raw("}}");
  }

  void ThreadName(const ThreadState& t, uint32_t slot) {
    char name[kMaxThreadName + 16] = {};
    if (slot < rt_.max_threads) {
      const ThreadSlot& s = rt_.threads[slot];
      rt_.names_lock.lock();
      if ((s.gen.load(std::memory_order_relaxed) & 0xFFFF) == (t.key >> 16)) {
        memcpy(name, s.name, kMaxThreadName);
      }
      rt_.names_lock.unlock();
    }
    Sep();
    out_.Raw("{\"ph\":\"M\",\"name\":\"thread_name\"");
    Ids(t);
    out_.Raw(",\"args\":{\"name\":");
    if (name[0]) {
      out_.String(name);
    } else {
      out_.Raw("\"thread ");
      out_.U64(t.tid);
      out_.Char('"');
    }
    out_.Raw("}}");
  }

  void Metadata() {
    mabutrace_stats_t st;
    mabutrace_get_stats(&st);
    struct Item {
      const char* key;
      uint64_t value;
    } items[] = {
        {"clock_hz", rt_.clock_hz},
        {"events_written", st.events_written},
        {"events_overwritten", st.events_overwritten},
        {"events_dropped", st.events_dropped},
        {"bytes_in_use", st.bytes_in_use},
        {"buffer_size", st.buffer_size},
        {"chunk_size", st.chunk_size},
        {"threads", st.threads},
        {"exported_records", counts_.records},
        {"orphan_scope_ends", counts_.orphan_ends},
        {"open_scopes_closed", counts_.open_closed},
        {"scopes_too_deep", counts_.too_deep},
        {"flow_ends_without_start", counts_.flow_ends_without_start},
        {"chunks_lost_during_export", counts_.chunks_lost},
        {"corrupt_chunks", counts_.corrupt_chunks},
    };
    out_.Raw("{\"producer\":\"mabutrace\",\"format_version\":1,\"clock\":\"");
    out_.Raw(rt_.clock ? "user" : "CLOCK_MONOTONIC");
    out_.Raw("\",\"recording_paused_for_export\":false");
    for (const Item& it : items) {
      out_.Raw(",\"");
      out_.Raw(it.key);
      out_.Raw("\":");
      out_.U64(it.value);
    }
    out_.Char('}');
  }

  Runtime& rt_;
  ExportWorkspace& ws_;
  JsonOut out_;
  Snapshot snap_;
  Counts counts_;
  uint64_t end_ns_ = 0;
  bool first_ = true;
};

}  // namespace
}  // namespace mabutrace

extern "C" int mabutrace_export_json(mabutrace_write_fn write, void* user) {
  using namespace mabutrace;
  if (!write) return MABUTRACE_ERR_INVALID_ARG;
  Runtime* rt = BeginExport();
  if (!rt) return MABUTRACE_ERR_NOT_INITIALIZED;
  const int rc = JsonExporter(*rt, write, user).Run();
  EndExport(rt);
  return rc;
}
