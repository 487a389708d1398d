// SPDX-License-Identifier: MIT
// cmd_traceunit.cpp: `mabutrace etm-config` (R-H1, docs/etm-config.md).
// Options become an EtmConfig (over the --config file), host/traceunit
// computes and renders the program.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_io.h"
#include "command.h"
#include "etm_config.h"
#include "etm_registers.h"

namespace mabutrace::cli {
namespace {

using namespace mabutrace::traceunit;

struct Options {
  std::string config, format = "text", output = "-";
  std::optional<NamedNumber> decode;
  std::vector<std::string> el;
  std::vector<NumberRange> include, exclude;
  bool return_stack = false, timestamps = false, cycle_count = false, context_id = false, vmid = false,
       branch_broadcast = false;
  std::optional<uint32_t> trace_id, sync_period, cc_threshold;
};

int RunDecode(const NamedNumber& reg, const Options& o) {
  Decoded d;
  std::string err;
  if (!DecodeRegister(reg.name, reg.value, &d, &err)) {
    std::fprintf(stderr, "mabutrace etm-config: --decode: %s\n", err.c_str());
    return kExitUsage;
  }
  return WriteFile(o.output, o.format == "json" ? DecodedToJson(d) + "\n" : DecodedToText(d)) ? kExitOk : kExitBadInput;
}

// The --config file, then the flags: booleans and ranges add to it, levels
// and numbers replace it.
bool BuildConfig(const Options& o, EtmConfig* cfg, int* rc) {
  std::string err;
  if (!o.config.empty()) {
    std::string text;
    *rc = kExitBadInput;
    if (!ReadFile(o.config, &text)) return false;
    if (!ParseToml(text, o.config, cfg, &err)) {
      std::fprintf(stderr, "mabutrace etm-config: %s\n", err.c_str());
      return false;
    }
  }
  if (!o.el.empty() && !SetExceptionLevels(o.el, cfg, &err)) {
    std::fprintf(stderr, "mabutrace etm-config: --el: %s\n", err.c_str());
    *rc = kExitUsage;
    return false;
  }
  for (const auto& r : o.include) cfg->ranges.push_back({r.first, r.last, true});
  for (const auto& r : o.exclude) cfg->ranges.push_back({r.first, r.last, false});
  cfg->return_stack |= o.return_stack;
  cfg->timestamps |= o.timestamps;
  cfg->cycle_counting |= o.cycle_count;
  cfg->context_id |= o.context_id;
  cfg->vmid |= o.vmid;
  cfg->branch_broadcast |= o.branch_broadcast;
  cfg->trace_id = o.trace_id.value_or(cfg->trace_id);
  cfg->sync_period_bytes = o.sync_period.value_or(cfg->sync_period_bytes);
  cfg->cycle_threshold = o.cc_threshold.value_or(cfg->cycle_threshold);
  return true;
}

int Run(const Options& o) {
  if (o.decode) return RunDecode(*o.decode, o);
  EtmConfig cfg;
  int rc = kExitOk;
  if (!BuildConfig(o, &cfg, &rc)) return rc;
  Program p;
  std::string err;
  if (!Compute(cfg, &p, &err)) {
    std::fprintf(stderr, "mabutrace etm-config: %s%s\n", o.config.empty() ? "" : (o.config + ": ").c_str(),
                 err.c_str());
    return kExitBadInput;
  }
  std::string out;
  if (o.format == "json")
    out = ProgramToJson(p) + "\n";
  else if (o.format == "c")
    out = ProgramToC(p);
  else
    out = ProgramToText(p) + "\nAs C:\n\n" + ProgramToC(p);
  return WriteFile(o.output, out) ? kExitOk : kExitBadInput;
}

Registration reg{
    "etm-config",
    [](CLI::App& app) {
      auto o = std::make_shared<Options>();
      auto* cmd = app.add_subcommand("etm-config",
                                     "ETE trace-unit programming helper: config -> register "
                                     "values, enable/disable sequences, save/restore list");
      cmd->add_option("--config", o->config,
                      "TOML configuration (docs/etm-config.md, examples/etm-config/), '-' for stdin");
      cmd->add_option("--decode", o->decode, "explain an existing value instead: REG=VALUE (e.g. TRCCONFIGR=0x18C1)")
          ->check(NamedNumberCheck());
      cmd->add_option("--format", o->format, "text (default: values, sequences, then C) | c | json")
          ->check(CLI::IsMember({"text", "c", "json"}));
      cmd->add_option("-o,--output", o->output, "output file (default '-': stdout)");
      cmd->add_option("--el", o->el,
                      "exception levels to trace, comma-separated: el0,el1 (Non-secure), s_el0, "
                      "el3, rl_el0, all")
          ->delimiter(',');
      cmd->add_option("--include", o->include, "trace only START:END (inclusive; repeatable)")->check(RangeCheck());
      cmd->add_option("--exclude", o->exclude, "do not trace START:END (inclusive; repeatable)")->check(RangeCheck());
      cmd->add_flag("--return-stack", o->return_stack, "TRCCONFIGR.RS");
      cmd->add_flag("--timestamps", o->timestamps, "TRCCONFIGR.TS");
      cmd->add_flag("--cycle-count", o->cycle_count, "TRCCONFIGR.CCI (threshold: --cc-threshold, default 4)");
      cmd->add_option("--cc-threshold", o->cc_threshold, "TRCCCCTLR.THRESHOLD (1..4095)")
          ->transform(Number(UINT32_MAX));
      cmd->add_flag("--context-id", o->context_id, "TRCCONFIGR.CID");
      cmd->add_flag("--vmid", o->vmid, "TRCCONFIGR.VMID");
      cmd->add_flag("--branch-broadcast", o->branch_broadcast, "TRCCONFIGR.BB");
      cmd->add_option("--trace-id", o->trace_id, "TRCTRACEIDR (0x01..0x6f, default 1)")->transform(Number(UINT32_MAX));
      cmd->add_option("--sync-period", o->sync_period,
                      "bytes between syncs: power of two 256..1048576, 0 = off (default 4096)")
          ->transform(Size(UINT32_MAX));
      return Runner{cmd, [o] { return Run(*o); }};
    },
    60};

}  // namespace
}  // namespace mabutrace::cli
