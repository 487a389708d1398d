// cmd_cptracer.cpp: `mabutrace cptracer decode|metrics|config|simulate|export`
// (docs/cptracer.md): TI KeyStone II CP_Tracer messages over STM.
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "command.h"
#include "export.h"
#include "formats.h"
#include "layout.h"
#include "messages.h"
#include "metrics.h"
#include "registers.h"
#include "simulator.h"

namespace mabutrace::cli {
namespace {

using namespace mabutrace::cptracer;

struct Opts {
  std::string capture, layout, format, out, description;
  double clock_hz = 0, window_ms = 0, ts_hz = 0;
  uint64_t window_cycles = 0;
  uint64_t throughput0 = 0, throughput1 = 0, granted = 0, wait_cycles = 0;
  bool have_counters = false;
  int trace_id = -1;
  // config
  int sid = -1;
  std::string masters, masters1, address_range, access, data_types, messages;
  int export_shift = -1;
  std::vector<std::string> decode;
  uint64_t seed = 0;
};

bool GetLayout(const Opts& o, Layout* l) {
  if (o.layout.empty()) {
    *l = DefaultLayout();
    return true;
  }
  std::string err;
  if (LoadLayout(o.layout, l, &err)) return true;
  std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
  return false;
}

bool Decode(const Opts& o, std::vector<TracerMessage>* msgs, uint64_t* freq, int* rc) {
  Layout l;
  if (!GetLayout(o, &l)) {
    *rc = kExitUsage;
    return false;
  }
  stm::CaptureOptions copts;
  copts.trace_id = o.trace_id;
  std::vector<std::string> warnings;
  std::string err;
  if (!DecodeTracerCapture(o.capture, l, copts, msgs, freq, &warnings, &err)) {
    std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
    *rc = kExitBadInput;
    return false;
  }
  for (size_t i = 0; i < warnings.size() && i < 20; ++i)
    std::fprintf(stderr, "mabutrace: %s: %s\n", o.capture.c_str(), warnings[i].c_str());
  if (warnings.size() > 20) std::fprintf(stderr, "mabutrace: %s: %zu more problems\n", o.capture.c_str(), warnings.size() - 20);
  *rc = warnings.empty() ? kExitOk : kExitBadInput;
  return true;
}

int RunDecode(const Opts& o) {
  std::vector<TracerMessage> msgs;
  uint64_t freq = 0;
  int rc;
  if (!Decode(o, &msgs, &freq, &rc)) return rc;
  for (const auto& m : msgs) {
    std::printf("%s\n", TracerMessageJson(m).c_str());
    if (m.type == MsgType::kUnknown) {
      std::fprintf(stderr, "mabutrace: %s: %s\n", o.capture.c_str(), m.error.c_str());
      rc = kExitBadInput;
    }
  }
  return rc;
}

int RunMetrics(const Opts& o) {
  const bool json = o.format == "json";
  if (!json && !o.format.empty() && o.format != "text") {
    std::fprintf(stderr, "mabutrace: cptracer metrics: --format must be json or text\n");
    return kExitUsage;
  }
  uint64_t window = o.window_cycles;
  std::string err;
  if (!window && o.window_ms > 0 && o.clock_hz > 0 && !WindowCycles(o.window_ms / 1e3, o.clock_hz, &window, &err)) {
    std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
    return kExitUsage;
  }
  if (o.capture.empty()) {
    if (!o.have_counters) {
      std::fprintf(stderr, "mabutrace: cptracer metrics: give CAPTURE or the counters "
                           "(--clock-hz --window-cycles --throughput0 --granted --wait-cycles)\n");
      return kExitUsage;
    }
    WindowCounters c{o.clock_hz, window, o.throughput0, o.throughput1, o.wait_cycles, o.granted};
    if (auto why = Validate(c); !why.empty()) {
      std::fprintf(stderr, "mabutrace: cptracer metrics: %s\n", why.c_str());
      return kExitUsage;
    }
    const Metrics m = ComputeMetrics(c);
    std::printf("%s\n", json ? MetricsJson(m).c_str() : MetricsText(m).c_str());
    return kExitOk;
  }
  std::vector<TracerMessage> msgs;
  uint64_t freq = 0;
  int rc;
  if (!Decode(o, &msgs, &freq, &rc)) return rc;
  const double ts_hz = o.ts_hz > 0 ? o.ts_hz : freq ? static_cast<double>(freq) : o.clock_hz;
  const double clock = o.clock_hz > 0 ? o.clock_hz : ts_hz;
  std::map<uint32_t, uint64_t> first_ts;
  std::map<uint32_t, uint32_t> index;
  if (!window) {  // estimate from the first two statistics messages (export.h)
    for (const auto& m : msgs) {
      if (m.type != MsgType::kStatistics || !m.has_ts || !(ts_hz > 0)) continue;
      auto it = first_ts.find(m.tracer);
      if (it == first_ts.end()) first_ts[m.tracer] = m.timestamp;
      else if (m.timestamp > it->second) {
        window = static_cast<uint64_t>(std::llround(static_cast<double>(m.timestamp - it->second) * clock / ts_hz));
        std::fprintf(stderr, "mabutrace: window estimated from timestamps: %" PRIu64 " cycles (give --window-cycles)\n",
                     window);
        break;
      }
    }
  }
  if (!(clock > 0) || !window) {
    std::fprintf(stderr, "mabutrace: cptracer metrics: give --clock-hz and --window-cycles (or --window-ms)\n");
    return kExitUsage;
  }
  for (const auto& m : msgs) {
    if (m.type != MsgType::kStatistics) continue;
    const Metrics x = ComputeMetrics({clock, window, m.throughput0, m.throughput1, m.wait_cycles, m.grants});
    const uint32_t w = index[m.tracer]++;
    if (json) {
      std::string s = MetricsJson(x);
      std::printf("{\"tracer\":%u,\"window\":%u,%s\n", m.tracer, w, s.c_str() + 1);
    } else {
      std::printf("tracer %u window %u\n%s\n", m.tracer, w, MetricsText(x).c_str());
    }
  }
  return rc;
}

bool ParseRange(const std::string& s, uint64_t* a, uint64_t* b) {
  const auto dash = s.find('-', 1);
  if (dash == std::string::npos) return false;
  char* end;
  *a = std::strtoull(s.substr(0, dash).c_str(), &end, 0);
  if (*end) return false;
  *b = std::strtoull(s.substr(dash + 1).c_str(), &end, 0);
  return !*end;
}

int RunConfig(const Opts& o) {
  const bool json = o.format == "json";
  if (!json && !o.format.empty() && o.format != "text") {
    std::fprintf(stderr, "mabutrace: cptracer config: --format must be json or text\n");
    return kExitUsage;
  }
  std::string err;
  if (!o.decode.empty()) {
    std::string out = json ? "[" : "";
    for (size_t i = 0; i < o.decode.size(); ++i) {
      const auto eq = o.decode[i].find('=');
      char* end = nullptr;
      const unsigned long long v = eq == std::string::npos ? 0 : std::strtoull(o.decode[i].c_str() + eq + 1, &end, 0);
      if (eq == std::string::npos || *end || v > 0xFFFFFFFFull) {
        std::fprintf(stderr, "mabutrace: --decode wants NAME=VALUE (32-bit), not '%s'\n", o.decode[i].c_str());
        return kExitUsage;
      }
      RegisterValue r;
      if (!DecodeRegister(o.decode[i].substr(0, eq), static_cast<uint32_t>(v), &r, &err)) {
        std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
        return kExitUsage;
      }
      if (r.name == "SLIDING_TIME_WINDOW" && o.clock_hz > 0)
        r.fields.push_back({"WINDOW_US", static_cast<uint32_t>(std::llround(v * 1e6 / o.clock_hz)),
                            "window in microseconds at --clock-hz"});
      out += json ? (i ? "," : "") + RegisterJson(r) : RegisterText(r);
    }
    std::printf("%s%s", out.c_str(), json ? "]\n" : "");
    return kExitOk;
  }
  TracerConfig cfg;
  if (!o.description.empty() && !LoadTracerConfig(o.description, &cfg, &err)) {
    std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
    return kExitBadInput;
  }
  bool ok = true;
  if (o.clock_hz > 0) cfg.clock_hz = o.clock_hz;
  if (o.window_ms > 0) {
    cfg.window_s = o.window_ms / 1e3;
    cfg.window_cycles = 0;
  }
  if (o.window_cycles) cfg.window_cycles = o.window_cycles;
  if (o.sid >= 0) cfg.sid = static_cast<uint32_t>(o.sid);
  if (!o.masters.empty()) ok = ok && ParseMidList(o.masters, &cfg.masters, &err);
  if (!o.masters1.empty()) ok = ok && ParseMidList(o.masters1, &cfg.masters1, &err);
  if (!o.access.empty()) ok = ok && ParseRw(o.access, &cfg.rw, &err);
  if (!o.data_types.empty()) ok = ok && ParseDtypeList(o.data_types, &cfg.dtypes, &err);
  if (!o.messages.empty()) ok = ok && ParseExportList(o.messages, &cfg.export_select, &err);
  if (o.export_shift >= 0) cfg.address_export_shift = static_cast<uint32_t>(o.export_shift);
  if (!o.address_range.empty()) {
    cfg.address_filter = ParseRange(o.address_range, &cfg.address_start, &cfg.address_end);
    if (!cfg.address_filter) {
      err = "--address-range wants START-END, not '" + o.address_range + "'";
      ok = false;
    }
  }
  ConfigResult r;
  if (!ok || !ComputeConfig(cfg, &r, &err)) {
    std::fprintf(stderr, "mabutrace: cptracer config: %s\n", err.c_str());
    return kExitUsage;
  }
  std::printf("%s%s", json ? ConfigJson(r).c_str() : ConfigText(r).c_str(), json ? "\n" : "");
  return kExitOk;
}

int RunSimulate(const Opts& o) {
  Workload w;
  std::string err;
  if (!LoadWorkload(o.description, &w, &err)) {
    std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
    return kExitBadInput;
  }
  if (o.seed) w.seed = o.seed;
  Layout l;
  if (!GetLayout(o, &l)) return kExitUsage;
  SimResult r;
  if (!Simulate(w, l, &r, &err) || !WriteSimulation(o.out, w, r, &err)) {
    std::fprintf(stderr, "mabutrace: cptracer simulate: %s\n", err.c_str());
    return kExitBadInput;
  }
  uint64_t overflow = 0;
  for (const auto& e : r.events) overflow += e.overflow;
  std::printf("%s: %zu windows, %zu event messages (%" PRIu64 " with O=1), %" PRIu64
              " events lost, %zu STP bytes in %zu framed bytes\n",
              o.out.c_str(), r.windows.size(), r.events.size(), overflow, r.events_lost, r.stp.size(),
              r.framed.size());
  return kExitOk;
}

int RunExport(const Opts& o) {
  auto f = PickFormat(o.format, o.out);
  if (!f || *f == Format::kRaw) {
    if (f) std::fprintf(stderr, "mabutrace: cptracer export: the output format must be json or pftrace\n");
    return kExitUsage;
  }
  std::vector<TracerMessage> msgs;
  uint64_t freq = 0;
  int rc;
  if (!Decode(o, &msgs, &freq, &rc)) return rc;
  FILE* out = o.out == "-" ? stdout : std::fopen(o.out.c_str(), "wb");
  if (!out) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", o.out.c_str(), std::strerror(errno));
    return kExitBadInput;
  }
  auto writer = MakeWriter(*f, exporter::FileWriter(out));
  if (!writer) {
    std::fprintf(stderr, "mabutrace: cptracer export: this build has no writer for that format\n");
    if (out != stdout) std::fclose(out);
    return kExitUsage;
  }
  ExportOptions eo;
  eo.clock_hz = o.clock_hz;
  eo.window_cycles = o.window_cycles;
  eo.ts_hz = o.ts_hz;
  if (!eo.window_cycles && o.window_ms > 0 && o.clock_hz > 0)
    eo.window_cycles = static_cast<uint64_t>(std::llround(o.window_ms * 1e-3 * o.clock_hz));
  ExportSummary sum;
  std::string err;
  const bool ok = ExportTimeline(msgs, freq, eo, writer.get(), &sum, &err);
  writer.reset();
  const bool closed = out == stdout ? std::fflush(out) == 0 : std::fclose(out) == 0;
  if (!ok || !closed) {
    std::fprintf(stderr, "mabutrace: cptracer export: %s\n", ok ? std::strerror(errno) : err.c_str());
    return kExitBadInput;
  }
  std::fprintf(stderr, "mabutrace: %" PRIu64 " statistics, %" PRIu64 " event, %" PRIu64 " status, %" PRIu64
                       " unknown messages; window %" PRIu64 " cycles%s at %.0f Hz\n",
               sum.statistics, sum.events, sum.status, sum.unknown, sum.window_cycles,
               sum.window_estimated ? " (estimated)" : "", sum.clock_hz);
  return sum.unknown ? kExitBadInput : rc;
}

Registration reg{"cptracer", [](CLI::App& app) {
  auto* cmd = app.add_subcommand("cptracer", "TI KeyStone II CP_Tracer: decode, metrics, registers, simulate, export");
  cmd->require_subcommand(1);
  auto o = std::make_shared<Opts>();
  auto layout = [&](CLI::App* c) {
    c->add_option("--layout", o->layout, "message layout override (INI, docs/cptracer.md)");
    c->add_option("--trace-id", o->trace_id, "STM trace ID in the frames");
  };
  auto* dec = cmd->add_subcommand("decode", "List the tracer messages of a capture (jsonl)");
  dec->add_option("CAPTURE", o->capture, "snapshot dir, TI .bin/.dcm or raw STP")->required();
  layout(dec);

  auto* met = cmd->add_subcommand("metrics", "Window metrics from a capture or from counter values");
  met->add_option("CAPTURE", o->capture, "capture (else give the counters)");
  met->add_option("--clock-hz", o->clock_hz, "tracer clock in Hz");
  met->add_option("--window-cycles", o->window_cycles, "sliding window in tracer cycles");
  met->add_option("--window-ms", o->window_ms, "sliding window in ms (with --clock-hz)");
  auto counters = [&](const char* n, uint64_t* v, const char* d) {
    met->add_option(n, *v, d)->each([o](const std::string&) { o->have_counters = true; });
  };
  counters("--throughput0", &o->throughput0, "throughput counter 0 (bytes)");
  counters("--throughput1", &o->throughput1, "throughput counter 1 (bytes)");
  counters("--granted", &o->granted, "grant count");
  counters("--wait-cycles", &o->wait_cycles, "accumulated wait cycles");
  met->add_option("--ts-hz", o->ts_hz, "STM timestamp frequency (default: FREQ packet)");
  met->add_option("--format", o->format, "text (default) | json");
  layout(met);

  auto* cfg = cmd->add_subcommand("config", "Compute (or --decode) CP_Tracer, STM and TBR register values");
  cfg->add_option("DESCRIPTION", o->description, "description file (INI, examples/cptracer/)");
  cfg->add_option("--clock-hz", o->clock_hz, "tracer clock in Hz");
  cfg->add_option("--window-ms", o->window_ms, "sliding window in ms");
  cfg->add_option("--window-cycles", o->window_cycles, "sliding window in cycles");
  cfg->add_option("--sid", o->sid, "tracer SID");
  cfg->add_option("--masters", o->masters, "MIDs for throughput 0 and events, e.g. 0x40,0x41");
  cfg->add_option("--masters-counter1", o->masters1, "MIDs for throughput 1");
  cfg->add_option("--address-range", o->address_range, "START-END (inclusive, up to 48-bit)");
  cfg->add_option("--access", o->access, "read | write | both");
  cfg->add_option("--data-types", o->data_types, "cpu_data,cpu_inst,dma");
  cfg->add_option("--messages", o->messages, "statistics,event_b,event_c,event_e,status");
  cfg->add_option("--address-export-shift", o->export_shift, "event messages carry address bits [S+9:S]");
  cfg->add_option("--decode", o->decode, "explain a value: NAME=VALUE (repeatable)");
  cfg->add_option("--format", o->format, "text (default) | json");

  auto* sim = cmd->add_subcommand("simulate", "Simulate a workload into an STM capture + ground truth");
  sim->add_option("WORKLOAD", o->description, "workload description (INI)")->required();
  sim->add_option("-o,--output", o->out, "output directory")->required();
  sim->add_option("--seed", o->seed, "override the workload's seed");
  sim->add_option("--layout", o->layout, "message layout override");

  auto* exp = cmd->add_subcommand("export", "Timeline: counters per tracer, events per master");
  exp->add_option("CAPTURE", o->capture, "snapshot dir, TI .bin/.dcm or raw STP")->required();
  exp->add_option("-o,--output", o->out, "OUT.json | OUT.pftrace ('-' = stdout)")->required();
  exp->add_option("--format", o->format, "json | pftrace (default: from OUT)");
  exp->add_option("--clock-hz", o->clock_hz, "tracer clock in Hz (default: STM FREQ)");
  exp->add_option("--window-cycles", o->window_cycles, "sliding window in cycles (default: estimated)");
  exp->add_option("--window-ms", o->window_ms, "sliding window in ms (with --clock-hz)");
  exp->add_option("--ts-hz", o->ts_hz, "STM timestamp frequency (default: FREQ packet)");
  layout(exp);

  return Runner{cmd, [o, dec, met, cfg, sim] {
    if (dec->parsed()) return RunDecode(*o);
    if (met->parsed()) return RunMetrics(*o);
    if (cfg->parsed()) return RunConfig(*o);
    if (sim->parsed()) return RunSimulate(*o);
    return RunExport(*o);
  }};
}, 41};

}  // namespace
}  // namespace mabutrace::cli
