// SPDX-License-Identifier: MIT
// cmd_cptracer.cpp: `mabutrace cptracer decode|metrics|config|simulate|export`
// (docs/cptracer.md): TI KeyStone II CP_Tracer messages over STM. Options
// go into host/cptracer's structs; the clocks and the window follow
// capture_metrics.h's one rule in `metrics` and `export`.
#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capture_metrics.h"
#include "cli_io.h"
#include "command.h"
#include "export.h"
#include "formats.h"
#include "input_kinds.h"
#include "layout.h"
#include "messages.h"
#include "metrics.h"
#include "registers.h"
#include "simulator.h"
#include "snapshot/snapshot.h"

namespace mabutrace::cli {
namespace {

using namespace mabutrace::cptracer;

struct Opts {
  std::string capture, layout, format, out, description;
  TimingOptions timing;
  stm::CaptureOptions capture_options;
  // metrics from counter values
  uint64_t throughput0 = 0, throughput1 = 0, granted = 0, wait_cycles = 0;
  bool have_counters = false;
  // config
  std::optional<uint32_t> sid, export_shift;
  std::string masters, masters1, access, data_types, messages;
  std::optional<NumberRange> address_range;
  std::vector<NamedNumber> decode;
  uint64_t seed = 0;
  // export
  std::string link_window;
  bool ticks_without_freq = false;  // merge/stats: no frequency is a warning, not an error
};

// A decoded capture; rc is kExitBadInput when the capture had problems.
struct Decoded {
  std::vector<TracerMessage> msgs;
  uint64_t ts_freq_hz = 0;
  std::vector<std::string> warnings;  // the capture's problems (already reported)
  int rc = kExitOk;
};

// false (after a message) when --layout names a file that cannot be read
// or is not a layout: bad input, exit 1, as any unreadable file.
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

// nullopt (after a message) with *rc the exit code when nothing decoded.
std::optional<Decoded> Decode(const Opts& o, int* rc) {
  Layout l;
  *rc = kExitBadInput;
  if (!GetLayout(o, &l)) return std::nullopt;
  Decoded d;
  std::vector<std::string> warnings;
  std::string err;
  *rc = kExitBadInput;
  if (!DecodeTracerCapture(o.capture, l, o.capture_options, &d.msgs, &d.ts_freq_hz, &warnings, &err)) {
    std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
    return std::nullopt;
  }
  ReportProblems(o.capture, warnings);
  d.rc = warnings.empty() ? kExitOk : kExitBadInput;
  d.warnings = std::move(warnings);
  return d;
}

int RunDecode(const Opts& o) {
  int rc;
  auto d = Decode(o, &rc);
  if (!d) return rc;
  for (const auto& m : d->msgs) {
    std::printf("%s\n", TracerMessageJson(m).c_str());
    if (m.type == MsgType::kUnknown) {
      std::fprintf(stderr, "mabutrace: %s: %s\n", o.capture.c_str(), m.error.c_str());
      d->rc = kExitBadInput;
    }
  }
  return d->rc;
}

// `metrics` without a capture: one window from the counters given.
int RunCounterMetrics(const Opts& o, bool json) {
  Timing t;
  std::string err;
  if (!ResolveTiming({}, 0, o.timing, &t, &err)) {
    std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
    return kExitUsage;
  }
  const WindowCounters c{t.clock_hz, t.window_cycles, o.throughput0, o.throughput1, o.wait_cycles, o.granted};
  if (auto why = Validate(c); !why.empty()) {
    std::fprintf(stderr, "mabutrace: cptracer metrics: %s\n", why.c_str());
    return kExitUsage;
  }
  const Metrics m = ComputeMetrics(c);
  std::printf("%s\n", json ? MetricsJson(m).c_str() : MetricsText(m).c_str());
  return kExitOk;
}

int RunMetrics(const Opts& o) {
  const bool json = o.format == "json";
  if (o.capture.empty()) {
    if (o.have_counters) return RunCounterMetrics(o, json);
    std::fprintf(stderr,
                 "mabutrace: cptracer metrics: give CAPTURE or the counters "
                 "(--clock-hz --window-cycles --throughput0 --granted --wait-cycles)\n");
    return kExitUsage;
  }
  int rc;
  auto d = Decode(o, &rc);
  if (!d) return rc;
  Timing t;
  std::string err;
  if (!ResolveTiming(d->msgs, d->ts_freq_hz, o.timing, &t, &err)) {
    std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
    return kExitUsage;
  }
  if (t.window_estimated)
    std::fprintf(stderr, "mabutrace: window estimated from timestamps: %" PRIu64 " cycles (give --window-cycles)\n",
                 t.window_cycles);
  if (!(t.clock_hz > 0) || !t.window_cycles) {
    std::fprintf(stderr, "mabutrace: cptracer metrics: give --clock-hz and --window-cycles (or --window-ms)\n");
    return kExitUsage;
  }
  for (const auto& w : CaptureMetrics(d->msgs, t))
    std::printf("%s\n", json ? WindowMetricsJson(w).c_str() : WindowMetricsText(w).c_str());
  return d->rc;
}

int RunDecodeRegisters(const Opts& o, bool json) {
  std::vector<RegisterValue> regs;
  std::string err;
  for (const auto& d : o.decode) {
    regs.emplace_back();
    if (!DecodeRegister(d.name, static_cast<uint32_t>(d.value), o.timing.clock_hz, &regs.back(), &err)) {
      std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
      return kExitUsage;
    }
  }
  std::fputs(json ? (RegistersJson(regs) + "\n").c_str() : RegistersText(regs).c_str(), stdout);
  return kExitOk;
}

// The description file, then the flags over it.
int RunConfig(const Opts& o) {
  const bool json = o.format == "json";
  if (!o.decode.empty()) return RunDecodeRegisters(o, json);
  TracerConfig cfg;
  std::string err;
  if (!o.description.empty() && !LoadTracerConfig(o.description, &cfg, &err)) {
    std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
    return kExitBadInput;
  }
  if (o.timing.clock_hz > 0) cfg.clock_hz = o.timing.clock_hz;
  if (o.timing.window_s > 0) cfg.window_s = o.timing.window_s, cfg.window_cycles = 0;
  if (o.timing.window_cycles) cfg.window_cycles = o.timing.window_cycles;
  if (o.sid) cfg.sid = *o.sid;
  if (o.export_shift) cfg.address_export_shift = *o.export_shift;
  if (o.address_range) {
    cfg.address_filter = true;
    cfg.address_start = o.address_range->first;
    cfg.address_end = o.address_range->last;
  }
  bool ok = true;
  if (!o.masters.empty()) ok = ok && ParseMidList(o.masters, &cfg.masters, &err);
  if (!o.masters1.empty()) ok = ok && ParseMidList(o.masters1, &cfg.masters1, &err);
  if (!o.access.empty()) ok = ok && ParseRw(o.access, &cfg.rw, &err);
  if (!o.data_types.empty()) ok = ok && ParseDtypeList(o.data_types, &cfg.dtypes, &err);
  if (!o.messages.empty()) ok = ok && ParseExportList(o.messages, &cfg.export_select, &err);
  ConfigResult r;
  if (!ok || !ComputeConfig(cfg, &r, &err)) {
    std::fprintf(stderr, "mabutrace: cptracer config: %s\n", err.c_str());
    return kExitUsage;
  }
  std::fputs(json ? (ConfigJson(r) + "\n").c_str() : ConfigText(r).c_str(), stdout);
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
  if (!GetLayout(o, &l)) return kExitBadInput;
  SimResult r;
  if (!Simulate(w, l, &r, &err) || !WriteSimulation(o.out, w, r, &err)) {
    std::fprintf(stderr, "mabutrace: cptracer simulate: %s\n", err.c_str());
    return kExitBadInput;
  }
  std::printf("%s: %s\n", o.out.c_str(), SimulationSummary(r).c_str());
  return kExitOk;
}

// The CP_Tracer timeline of capture `o.capture` into the sink open() gives
// (the cptracer input kind: `cptracer export` and `merge`). open() is
// called once the capture has decoded. `label` names it in messages.
ReadResult ReadCpTracer(const Opts& o, const std::string& label, const SinkOpener& open) {
  ReadResult res;
  auto d = Decode(o, &res.rc);
  if (!d) return res;
  res.rc = kExitBadInput;
  model::EventSink* sink = open();
  if (!sink) return res;
  res.opened = true;
  ExportSummary sum;
  std::string err;
  ExportOptions eo;
  if (!o.link_window.empty()) eo.link_window_ns = uint64_t(std::max<int64_t>(0, *ParseDuration(o.link_window)));
  eo.ticks_without_freq = o.ticks_without_freq;
  eo.capture_problems = d->warnings;
  const bool ok = ExportTimeline(d->msgs, d->ts_freq_hz, o.timing, sink, &sum, &err, eo);
  if (!ok) {
    // The sink failing (a writer that said which file) or nothing to place the messages on.
    if (!err.empty()) std::fprintf(stderr, "mabutrace: %s: %s\n", label.c_str(), err.c_str());
    res.sink_ok = false;
    return res;
  }
  std::fprintf(stderr, "mabutrace: %s: %s\n", label.c_str(), ExportSummaryText(sum).c_str());
  if (sum.ticks_as_ns)
    std::fprintf(stderr,
                 "mabutrace: %s: no FREQ packet: times are STM timestamp ticks written as ns "
                 "(cptracer.clock in the metadata); `merge --clock-hz NAME=HZ` converts them\n",
                 label.c_str());
  if (eo.link_window_ns)
    std::fprintf(stderr, "mabutrace: %llu transaction links drawn, %llu ambiguous matches not drawn\n",
                 static_cast<unsigned long long>(sum.transaction_links),
                 static_cast<unsigned long long>(sum.transaction_links_ambiguous));
  res.rc = sum.unknown ? kExitBadInput : d->rc;
  return res;
}

int RunExport(const Opts& o) {
  return ExportTo("cptracer export", o.format, o.out,
                  [&](const SinkOpener& open) { return ReadCpTracer(o, o.capture, open); });
}

// The cptracer input kind (input_kinds.h): a snapshot with an STM source,
// or a TI .dcm capture; a raw STP or TI .bin file only when named,
// --kind NAME=cptracer (a .bin is as likely a runtime stream).
bool ClaimsCpTracer(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return path.extension() == ".dcm";
  if (!std::filesystem::is_regular_file(path / "snapshot.ini", ec)) return false;
  std::string error;
  const std::optional<snapshot::Snapshot> snap = snapshot::TryReadSnapshot(path, &error);
  if (!snap) return false;
  for (const snapshot::Device& d : snap->devices) {
    std::string t = d.type;
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::toupper(c); });
    if (t.rfind("STM", 0) == 0) return true;
  }
  return false;
}

// As an input of merge or stats there is no --ts-hz: a capture without FREQ
// is read in ticks (merge's --clock-hz converts them) rather than refused.
ReadResult ReadCpTracerKind(const std::string& path, const std::string&, const SinkOpener& open) {
  Opts o;
  o.capture = path;
  o.ticks_without_freq = true;
  return ReadCpTracer(o, path, open);
}

InputKindRegistration cptracer_kind{
    {"cptracer", "TI CP_Tracer over STM: a snapshot with an STM source, a TI .dcm/.bin or raw STP capture", 30,
     &ClaimsCpTracer, &ReadCpTracerKind}};

// --clock-hz, --window-cycles, --window-ms (and --ts-hz) of metrics,
// config and export.
void AddTiming(CLI::App* c, Opts* o, const char* clock_help, bool ts) {
  // 0 means "not given" inside (capture_metrics.h): refused here, as is
  // anything else not above 0.
  c->add_option("--clock-hz", o->timing.clock_hz, clock_help)->check(FrequencyCheck());
  c->add_option("--window-cycles", o->timing.window_cycles, "sliding window in tracer cycles")->transform(Number());
  c->add_option_function<double>(
       "--window-ms", [o](double ms) { o->timing.window_s = ms / 1e3; }, "sliding window in ms (at the tracer clock)")
      ->check(PositiveCheck());
  if (ts)
    c->add_option("--ts-hz", o->timing.ts_hz, "STM timestamp frequency (default: the FREQ packet)")
        ->check(FrequencyCheck());
}

void AddCapture(CLI::App* c, Opts* o, const char* help) {
  c->add_option("CAPTURE", o->capture, help);
  c->add_option("--layout", o->layout, "message layout override (INI, docs/cptracer.md)");
  c->add_option("--trace-id", o->capture_options.trace_id, "STM trace ID in the frames")
      ->transform(Number(0x7F))
      ->check(CLI::Range(1, 0x6F).description("CoreSight trace IDs are 0x01-0x6F"));
}

Registration reg{
    "cptracer",
    [](CLI::App& app) {
      auto* cmd =
          app.add_subcommand("cptracer", "TI KeyStone II CP_Tracer: decode, metrics, registers, simulate, export");
      cmd->require_subcommand(1);
      auto o = std::make_shared<Opts>();
      const char* kCapture = "snapshot dir, TI .bin/.dcm or raw STP";
      const auto text_or_json = CLI::IsMember({"text", "json"});

      auto* dec = cmd->add_subcommand("decode", "List the tracer messages of a capture (jsonl)");
      AddCapture(dec, o.get(), kCapture);
      dec->get_option("CAPTURE")->required();

      auto* met = cmd->add_subcommand("metrics", "Window metrics from a capture or from counter values");
      AddCapture(met, o.get(), "capture (else give the counters)");
      AddTiming(met, o.get(), "tracer clock in Hz (default: the FREQ packet)", true);
      auto counter = [&](const char* n, uint64_t* v, const char* d) {
        met->add_option(n, *v, d)->transform(Number())->each([o](const std::string&) { o->have_counters = true; });
      };
      counter("--throughput0", &o->throughput0, "throughput counter 0 (bytes)");
      counter("--throughput1", &o->throughput1, "throughput counter 1 (bytes)");
      counter("--granted", &o->granted, "grant count");
      counter("--wait-cycles", &o->wait_cycles, "accumulated wait cycles");
      met->add_option("--format", o->format, "text (default) | json")->check(text_or_json);

      auto* cfg = cmd->add_subcommand("config", "Compute (or --decode) CP_Tracer, STM and TBR register values");
      cfg->add_option("DESCRIPTION", o->description, "description file (INI, examples/cptracer/)");
      AddTiming(cfg, o.get(), "tracer clock in Hz", false);
      cfg->add_option("--sid", o->sid, "tracer SID")->transform(Number(UINT32_MAX));
      cfg->add_option("--masters", o->masters, "MIDs for throughput 0 and events, e.g. 0x40,0x41");
      cfg->add_option("--masters-counter1", o->masters1, "MIDs for throughput 1");
      cfg->add_option("--address-range", o->address_range, "START-END (inclusive, up to 48-bit)")->check(RangeCheck());
      cfg->add_option("--access", o->access, "read | write | both");
      cfg->add_option("--data-types", o->data_types, "cpu_data,cpu_inst,dma");
      cfg->add_option("--messages", o->messages, "statistics,event_b,event_c,event_e,status");
      cfg->add_option("--address-export-shift", o->export_shift, "event messages carry address bits [S+9:S]")
          ->transform(Number(63));
      cfg->add_option("--decode", o->decode, "explain a value: NAME=VALUE (repeatable)")
          ->check(NamedNumberCheck(UINT32_MAX));
      cfg->add_option("--format", o->format, "text (default) | json")->check(text_or_json);

      auto* sim = cmd->add_subcommand("simulate", "Simulate a workload into an STM capture + ground truth");
      sim->add_option("WORKLOAD", o->description, "workload description (INI)")->required();
      sim->add_option("-o,--output", o->out, "output directory")->required();
      sim->add_option("--seed", o->seed, "override the workload's seed")->transform(Number());
      sim->add_option("--layout", o->layout, "message layout override");

      auto* exp = cmd->add_subcommand("export", "Timeline: counters per tracer, events per master");
      AddCapture(exp, o.get(), kCapture);
      exp->get_option("CAPTURE")->required();
      exp->add_option("-o,--output", o->out, "OUT.json | OUT.pftrace ('-' = stdout)")->required();
      exp->add_option("--format", o->format, "json | pftrace (default: from OUT)")
          ->check(CLI::IsMember({"json", "pftrace"}, CLI::ignore_case));
      AddTiming(exp, o.get(), "tracer clock in Hz (default: the FREQ packet)", true);
      exp->add_option("--link-window", o->link_window,
                      "follow a transaction (same MID and XID) from tracer to tracer when the sightings are at "
                      "most this far apart (e.g. 2us); ambiguous matches are counted, not drawn")
          ->check(DurationCheck());

      return Runner{cmd, [o, dec, met, cfg, sim] {
                      if (dec->parsed()) return RunDecode(*o);
                      if (met->parsed()) return RunMetrics(*o);
                      if (cfg->parsed()) return RunConfig(*o);
                      if (sim->parsed()) return RunSimulate(*o);
                      return RunExport(*o);
                    }};
    },
    41};

}  // namespace
}  // namespace mabutrace::cli
