// cmd_traceunit.cpp: `mabutrace etm-config` (R-H1, docs/etm-config.md).
// Thin over host/traceunit.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "command.h"
#include "etm_config.h"
#include "etm_registers.h"

namespace mabutrace::cli {
namespace {

using namespace mabutrace::traceunit;

std::optional<uint64_t> ParseU64(const std::string& s) {
  if (s.empty() || s[0] == '-') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || end == s.c_str() || *end != '\0') return std::nullopt;
  return static_cast<uint64_t>(v);
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

struct Options {
  std::string config, decode, format = "text", output = "-", el, trace_id, sync_period, cc_threshold;
  std::vector<std::string> include, exclude;
  bool return_stack = false, timestamps = false, cycle_count = false, context_id = false, vmid = false,
       branch_broadcast = false;
};

bool ParseRange(const std::string& text, bool include, AddressRange* r) {
  const auto sep = text.find_first_of(":-");
  if (sep == std::string::npos) return false;
  auto a = ParseU64(text.substr(0, sep));
  auto b = ParseU64(text.substr(sep + 1));
  if (!a || !b) return false;
  *r = {*a, *b, include};
  return true;
}

int Emit(const std::string& text, const std::string& path) {
  FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "mabutrace etm-config: %s: cannot create: %s\n", path.c_str(), std::strerror(errno));
    return kExitBadInput;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = (f == stdout ? std::fflush(f) == 0 : std::fclose(f) == 0) && ok;
  if (!ok) {
    std::fprintf(stderr, "mabutrace etm-config: %s: write error\n", path.c_str());
    return kExitBadInput;
  }
  return kExitOk;
}

int RunDecode(const Options& o) {
  const auto eq = o.decode.find('=');
  if (eq == std::string::npos) {
    std::fprintf(stderr, "mabutrace etm-config: --decode wants REG=VALUE (e.g. TRCCONFIGR=0x18C1)\n");
    return kExitUsage;
  }
  const std::string reg = o.decode.substr(0, eq);
  const auto v = ParseU64(o.decode.substr(eq + 1));
  if (!v) {
    std::fprintf(stderr, "mabutrace etm-config: --decode: '%s' is not a number\n", o.decode.substr(eq + 1).c_str());
    return kExitUsage;
  }
  Decoded d;
  std::string err;
  if (!DecodeRegister(reg, *v, &d, &err)) {
    std::string list;
    for (const auto& r : DecodableRegisters()) list += " " + r;
    std::fprintf(stderr, "mabutrace etm-config: --decode: %s; registers decoded field by field:%s\n", err.c_str(),
                 list.c_str());
    return kExitUsage;
  }
  return Emit(o.format == "json" ? DecodedToJson(d) + "\n" : DecodedToText(d), o.output);
}

int Run(const Options& o) {
  if (!o.decode.empty()) return RunDecode(o);
  EtmConfig cfg;
  std::string err;
  if (!o.config.empty()) {
    FILE* f = o.config == "-" ? stdin : std::fopen(o.config.c_str(), "rb");
    if (!f) {
      std::fprintf(stderr, "mabutrace etm-config: %s: cannot open: %s\n", o.config.c_str(), std::strerror(errno));
      return kExitBadInput;
    }
    std::string text;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    if (f != stdin) std::fclose(f);
    if (!ParseToml(text, o.config, &cfg, &err)) {
      std::fprintf(stderr, "mabutrace etm-config: %s\n", err.c_str());
      return kExitBadInput;
    }
  }
  // Flags add to / override the file.
  if (!o.el.empty() && !SetExceptionLevels(Split(o.el, ','), &cfg, &err)) {
    std::fprintf(stderr, "mabutrace etm-config: --el: %s\n", err.c_str());
    return kExitUsage;
  }
  for (const auto& [list, inc] : {std::pair{&o.include, true}, std::pair{&o.exclude, false}})
    for (const auto& t : *list) {
      AddressRange r;
      if (!ParseRange(t, inc, &r)) {
        std::fprintf(stderr, "mabutrace etm-config: --%s: '%s' is not START:END\n", inc ? "include" : "exclude",
                     t.c_str());
        return kExitUsage;
      }
      cfg.ranges.push_back(r);
    }
  cfg.return_stack |= o.return_stack;
  cfg.timestamps |= o.timestamps;
  cfg.cycle_counting |= o.cycle_count;
  cfg.context_id |= o.context_id;
  cfg.vmid |= o.vmid;
  cfg.branch_broadcast |= o.branch_broadcast;
  struct {
    const std::string& text;
    const char* name;
    uint32_t* dst;
  } nums[] = {{o.trace_id, "--trace-id", &cfg.trace_id},
              {o.sync_period, "--sync-period", &cfg.sync_period_bytes},
              {o.cc_threshold, "--cc-threshold", &cfg.cycle_threshold}};
  for (auto& n : nums) {
    if (n.text.empty()) continue;
    const auto v = ParseU64(n.text);
    if (!v || *v > 0xFFFFFFFFu) {
      std::fprintf(stderr, "mabutrace etm-config: %s: '%s' is not a number\n", n.name, n.text.c_str());
      return kExitUsage;
    }
    *n.dst = static_cast<uint32_t>(*v);
  }
  Program p;
  if (!Compute(cfg, &p, &err)) {
    std::fprintf(stderr, "mabutrace etm-config: %s%s\n", o.config.empty() ? "" : (o.config + ": ").c_str(), err.c_str());
    return kExitBadInput;
  }
  std::string out;
  if (o.format == "json") out = ProgramToJson(p) + "\n";
  else if (o.format == "c") out = ProgramToC(p);
  else out = ProgramToText(p) + "\nAs C:\n\n" + ProgramToC(p);
  return Emit(out, o.output);
}

Registration reg{"etm-config", [](CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "etm-config",
      "ETE trace-unit programming helper: config -> register values, enable/disable sequences, save/restore list");
  cmd->add_option("--config", o->config, "TOML configuration (docs/etm-config.md, examples/etm-config/)");
  cmd->add_option("--decode", o->decode, "explain an existing value instead: REG=VALUE (e.g. TRCCONFIGR=0x18C1)");
  cmd->add_option("--format", o->format, "text (default: values, sequences, then C) | c | json")
      ->check(CLI::IsMember({"text", "c", "json"}));
  cmd->add_option("-o,--output", o->output, "output file (default '-': stdout)");
  cmd->add_option("--el", o->el, "exception levels to trace, comma-separated: el0,el1 (Non-secure), s_el0, el3, rl_el0, all");
  cmd->add_option("--include", o->include, "trace only START:END (inclusive; repeatable)");
  cmd->add_option("--exclude", o->exclude, "do not trace START:END (inclusive; repeatable)");
  cmd->add_flag("--return-stack", o->return_stack, "TRCCONFIGR.RS");
  cmd->add_flag("--timestamps", o->timestamps, "TRCCONFIGR.TS");
  cmd->add_flag("--cycle-count", o->cycle_count, "TRCCONFIGR.CCI (threshold: --cc-threshold, default 4)");
  cmd->add_option("--cc-threshold", o->cc_threshold, "TRCCCCTLR.THRESHOLD (1..4095)");
  cmd->add_flag("--context-id", o->context_id, "TRCCONFIGR.CID");
  cmd->add_flag("--vmid", o->vmid, "TRCCONFIGR.VMID");
  cmd->add_flag("--branch-broadcast", o->branch_broadcast, "TRCCONFIGR.BB");
  cmd->add_option("--trace-id", o->trace_id, "TRCTRACEIDR (0x01..0x6f, default 1)");
  cmd->add_option("--sync-period", o->sync_period, "bytes between syncs: power of two 256..1048576, 0 = off (default 4096)");
  return Runner{cmd, [o] { return Run(*o); }};
}, 60};

}  // namespace
}  // namespace mabutrace::cli
