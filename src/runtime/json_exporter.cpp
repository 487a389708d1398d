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
// - timestamps never go backwards in file order, except flow ends ("f")
//   whose start came later in the walk: they follow the slices, as in
//   Perfetto's own JSON export, and bind by time ("bp":"e");
// - the end of a scope whose begin was overwritten is dropped and counted
//   ("orphan_scope_ends"); scopes still open at export end at the last
//   timestamp of the trace with args {"open_at_export":true};
// - a flow point binds to the innermost open slice; with none open it gets
//   a 1 ns carrier slice named after the flow. A flow end whose start is no
//   longer in the buffer (or was recycled during the export) is dropped and
//   counted, never written alone.
// Flow ids in the file are the runtime's 32-bit flow numbers, unique per
// arrow even though link ids (16 bit) cycle.
//
// The per-thread rules above live in trace_walker.h; this file only formats.
// Memory: the export workspace (export_workspace.h).
#include "../format/chrome_colors.h"
#include "../format/json_out.h"
#include "mabutrace/mabutrace.h"
#include "trace_walker.h"

namespace mabutrace {
namespace {

constexpr const char* kCategory = "mabutrace";

class JsonSink final : public TraceSink {
 public:
  JsonSink(const Runtime& rt, JsonOut& out) : rt_(rt), out_(out) {}

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

  void OnThread(const ThreadState& t, const char* name) override {
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

  void OnBegin(const ThreadState& t, const char* name, uint64_t ns, uint32_t cpu,
               uint32_t color) override {
    Event(t, 'B', name, ns, cpu, color);
    out_.Char('}');
  }

  void OnEnd(const ThreadState& t, const char* name, uint64_t ns, uint32_t cpu,
             const char* flag) override {
    Head(t, 'E', name, ns);
    if (flag) {
      out_.Raw(",\"args\":{\"");
      out_.Raw(flag);
      out_.Raw("\":true}}");
    } else {
      out_.Raw(",\"args\":{\"cpu\":");
      out_.U64(cpu);
      out_.Raw("}}");
    }
  }

  void OnInstant(const ThreadState& t, const char* name, uint64_t ns, uint32_t cpu,
                 uint32_t color) override {
    Event(t, 'i', name, ns, cpu, color);
    out_.Raw(",\"s\":\"t\"}");
  }

  // Counter args hold only the series (trace-formats.md §1.3: every args key
  // of a C event is a series), so cpu and color are not written here.
  void OnCounter(const ThreadState& t, const char* name, uint64_t ns, int64_t value) override {
    Sep();
    out_.Raw("{\"ph\":\"C\",\"name\":");
    out_.String(name);
    Ids(t);
    out_.Raw(",\"ts\":");
    out_.Micros(ns);
    out_.Raw(",\"args\":{\"value\":");
    out_.I64(value);
    out_.Raw("}}");
  }

  // v1 flow point bound to the innermost open slice (trace-formats.md §1.5),
  // or to a 1 ns carrier slice when none is open.
  uint64_t OnFlow(const ThreadState& t, bool start, uint32_t id, const char* name, uint64_t ns,
                  uint32_t cpu, uint32_t color, bool enclosed) override {
    const char* carrier = nullptr;
    if (!enclosed) {
      carrier = name ? name : (start ? "flow_out" : "flow_in");
      OnBegin(t, carrier, ns, cpu, color);
    } else if (name) {
      OnInstant(t, name, ns, cpu, color);
    }
    if (id) FlowEvent(t, start, id, ns);
    if (carrier) OnEnd(t, carrier, ++ns, cpu, nullptr);
    return ns;
  }

  void OnFlowEnd(const ThreadState& t, uint32_t id, uint64_t ns) override {
    FlowEvent(t, false, id, ns);
  }

  bool Failed() const override { return out_.failed(); }

 private:
  // `s`, or `f` bound to the enclosing slice ("bp":"e"); same name and cat
  // on both ends, numeric id (trace-formats.md §1.5).
  void FlowEvent(const ThreadState& t, bool start, uint32_t id, uint64_t ns) {
    Sep();
    out_.Raw(start ? "{\"ph\":\"s\"" : "{\"ph\":\"f\"");
    out_.Raw(",\"name\":\"flow\",\"cat\":\"mabutrace.flow\",\"id\":");
    out_.U64(id);
    Ids(t);
    out_.Raw(",\"ts\":");
    out_.Micros(ns);
    out_.Raw(start ? "}" : ",\"bp\":\"e\"}");
  }

  // `{"ph":..,"name":..,"cat":..,"pid":..,"tid":..,"ts":..` (object left open).
  void Head(const ThreadState& t, char ph, const char* name, uint64_t ns) {
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
  }

  // Head, then `[,"cname":..],`
  // "args":{"cpu":N[,"color":"#rrggbb"]}` with the event object left open.
  void Event(const ThreadState& t, char ph, const char* name, uint64_t ns, uint32_t cpu,
             uint32_t color) {
    Head(t, ph, name, ns);
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

  const Runtime& rt_;
  JsonOut& out_;
  bool first_ = true;
};

void Metadata(const Runtime& rt, const WalkCounts& counts, JsonOut& out) {
  StatItem items[kMaxStatItems];
  const size_t n = CollectExportStats(rt, counts, items);
  out.Raw("{\"producer\":\"mabutrace\",\"format_version\":1,\"clock\":\"");
  out.Raw(rt.clock ? "user" : "CLOCK_MONOTONIC");
  out.Raw("\",\"recording_paused_for_export\":false");
  for (size_t i = 0; i < n; ++i) {
    out.Raw(",\"");
    out.Raw(items[i].key);
    out.Raw("\":");
    out.U64(items[i].value);
  }
  out.Char('}');
}

}  // namespace
}  // namespace mabutrace

extern "C" int mabutrace_export_json(mabutrace_write_fn write, void* user) {
  using namespace mabutrace;
  if (!write) return MABUTRACE_ERR_INVALID_ARG;
  Runtime* rt = BeginExport();
  if (!rt) return MABUTRACE_ERR_NOT_INITIALIZED;
  JsonOut out(rt->workspace->out, rt->workspace->out_cap, write, user);
  JsonSink sink(*rt, out);
  TraceWalker walker(*rt);
  out.Raw("{\"traceEvents\":[\n");
  sink.ProcessName();
  walker.Run(sink);
  out.Raw("\n],\"displayTimeUnit\":\"ns\",\"metadata\":");
  Metadata(*rt, walker.counts(), out);
  out.Raw("}\n");
  out.Flush();
  EndExport(rt);
  return out.failed() ? MABUTRACE_ERR_IO : MABUTRACE_OK;
}
