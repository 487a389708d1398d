// cmd_trbe.cpp: `mabutrace trbe status|linearize|simulate` (R-G1..R-G3,
// docs/trbe.md). Thin over host/trbe.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "trbe_linearize.h"
#include "trbe_registers.h"
#include "trbe_simulate.h"

namespace mabutrace::cli {
namespace {

using namespace mabutrace::trbe;

// "0x1000", "4096", "4K", "1M" -> value. nullopt on garbage or overflow.
std::optional<uint64_t> ParseNumber(const std::string& s) {
  if (s.empty() || s[0] == '-') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || end == s.c_str()) return std::nullopt;
  std::string rest(end);
  uint64_t mul = 1;
  if (rest == "K" || rest == "k" || rest == "KiB") mul = 1024;
  else if (rest == "M" || rest == "m" || rest == "MiB") mul = 1024 * 1024;
  else if (!rest.empty()) return std::nullopt;
  if (mul > 1 && v > UINT64_MAX / mul) return std::nullopt;
  return static_cast<uint64_t>(v) * mul;
}

// Parses option `name`'s text into *out; prints an error and returns false.
bool Num(const std::string& name, const std::string& text, uint64_t* out) {
  auto v = ParseNumber(text);
  if (!v) {
    std::fprintf(stderr, "mabutrace trbe: %s: '%s' is not a number (decimal, 0x hex, optional K/M)\n", name.c_str(),
                 text.c_str());
    return false;
  }
  *out = *v;
  return true;
}

bool ReadFile(const std::string& path, std::vector<uint8_t>* out) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "mabutrace trbe: %s: cannot open: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->insert(out->end(), buf, buf + n);
  const bool bad = std::ferror(f);
  if (f != stdin) std::fclose(f);
  if (bad) std::fprintf(stderr, "mabutrace trbe: %s: read error\n", path.c_str());
  return !bad;
}

bool WriteFile(const std::string& path, const void* data, size_t len) {
  FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "mabutrace trbe: %s: cannot create: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  bool ok = std::fwrite(data, 1, len, f) == len;
  ok = (f == stdout ? std::fflush(f) == 0 : std::fclose(f) == 0) && ok;
  if (!ok) std::fprintf(stderr, "mabutrace trbe: %s: write error\n", path.c_str());
  return ok;
}

// ---- trbe status -----------------------------------------------------------------
struct StatusOptions {
  std::string value, reg = "TRBSR_EL1", format = "text";
};

int RunStatus(const StatusOptions& o) {
  uint64_t v;
  if (!Num("VALUE", o.value, &v)) return kExitUsage;
  auto reg = ParseRegName(o.reg);
  if (!reg) {
    std::fprintf(stderr, "mabutrace trbe status: --reg: unknown register '%s'\n", o.reg.c_str());
    return kExitUsage;
  }
  const Explanation e = Explain(*reg, v);
  const std::string text = o.format == "json" ? ExplanationToJson(e) + "\n" : ExplanationToText(e);
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

// ---- trbe linearize ------------------------------------------------------------------
struct LinearizeCli {
  std::string dump, out, base, limit, ptr, start, trbsr, mode = "circular", head = "keep";
  bool wrapped = false, strip = false, quiet = false;
};

int RunLinearize(const LinearizeCli& o) {
  LinearizeOptions lo;
  if (!Num("--base", o.base, &lo.base) || !Num("--ptr", o.ptr, &lo.ptr)) return kExitUsage;
  if (!o.start.empty()) {
    uint64_t s;
    if (!Num("--start", o.start, &s)) return kExitUsage;
    lo.start = s;
  }
  lo.wrapped = o.wrapped;
  if (!o.trbsr.empty()) {
    uint64_t sr;
    if (!Num("--trbsr", o.trbsr, &sr)) return kExitUsage;
    lo.wrapped = lo.wrapped || Status::Decode(sr).wrap;
  }
  lo.fill_mode = *ParseFillMode(o.mode);
  lo.head = o.head == "pad" ? HeadPolicy::kPad : o.head == "drop" ? HeadPolicy::kDrop : HeadPolicy::kKeep;
  lo.strip_padding = o.strip;
  std::vector<uint8_t> dump;
  if (!ReadFile(o.dump, &dump)) return kExitBadInput;
  if (o.limit.empty()) {
    lo.limit = lo.base + dump.size();
  } else if (!Num("--limit", o.limit, &lo.limit)) {
    return kExitUsage;
  }
  LinearizeResult r;
  std::string err;
  if (!Linearize(dump, lo, &r, &err)) {
    std::fprintf(stderr, "mabutrace trbe linearize: %s: %s\n", o.dump.c_str(), err.c_str());
    return kExitBadInput;
  }
  if (!WriteFile(o.out, r.bytes.data(), r.bytes.size())) return kExitBadInput;
  if (!o.quiet) {
    std::fprintf(stderr, "mabutrace trbe linearize: %zu bytes from", r.bytes.size());
    for (const auto& s : r.segments)
      std::fprintf(stderr, " [0x%llx, 0x%llx)", static_cast<unsigned long long>(s.begin),
                   static_cast<unsigned long long>(s.end));
    std::fprintf(stderr, "\n");
    if (r.overwritten) {
      if (r.async_found)
        std::fprintf(stderr, "  oldest data overwritten: %llu bytes before the first A-Sync (%s)\n",
                     static_cast<unsigned long long>(r.head_bytes), o.head.c_str());
      else
        std::fprintf(stderr, "  warning: oldest data overwritten and no A-Sync in the buffer: not decodable\n");
    }
    if (r.padding_stripped)
      std::fprintf(stderr, "  stripped %llu leading 0x70 padding bytes\n",
                   static_cast<unsigned long long>(r.padding_stripped));
  }
  return kExitOk;
}

// ---- trbe simulate ---------------------------------------------------------------------
struct SimulateCli {
  std::string trace, mode = "circular", trigger_mode = "ignore", size = "4096", base = "0x80000000",
                     start_offset = "0", trigger_at, trigger_count = "0", flush_latency = "0", trbidr = "0x20",
                     fault_at, format = "text", memory_out;
};

int RunSimulate(const SimulateCli& o) {
  SimulationConfig c;
  c.fill_mode = *ParseFillMode(o.mode);
  c.trigger_mode = *ParseTriggerMode(o.trigger_mode);
  uint64_t count = 0;
  if (!Num("--size", o.size, &c.size) || !Num("--base", o.base, &c.base) ||
      !Num("--start-offset", o.start_offset, &c.start_offset) || !Num("--trigger-count", o.trigger_count, &count) ||
      !Num("--flush-latency", o.flush_latency, &c.flush_latency) || !Num("--trbidr", o.trbidr, &c.trbidr))
    return kExitUsage;
  if (count > 0xFFFFFFFFu) {
    std::fprintf(stderr, "mabutrace trbe simulate: --trigger-count: TRBTRG_EL1 holds 32 bits\n");
    return kExitUsage;
  }
  c.trigger_count = static_cast<uint32_t>(count);
  if (!o.trigger_at.empty()) {
    uint64_t t;
    if (!Num("--trigger-at", o.trigger_at, &t)) return kExitUsage;
    c.trigger_at = t;
  }
  if (!o.fault_at.empty()) {
    uint64_t f;
    if (!Num("--fault-at", o.fault_at, &f)) return kExitUsage;
    c.fault_offset = f;
  }
  std::vector<uint8_t> trace;
  if (!ReadFile(o.trace, &trace)) return kExitBadInput;
  SimulationResult r;
  std::string err;
  if (!Simulate(trace, c, &r, &err)) {
    std::fprintf(stderr, "mabutrace trbe simulate: %s\n", err.c_str());
    return kExitUsage;
  }
  const std::string text = o.format == "json" ? SimulationToJson(c, r) + "\n" : SimulationToText(c, r);
  std::fputs(text.c_str(), stdout);
  if (!o.memory_out.empty() && !WriteFile(o.memory_out, r.memory.data(), r.memory.size())) return kExitBadInput;
  return kExitOk;
}

Registration reg{"trbe", [](CLI::App& app) {
  auto* cmd = app.add_subcommand("trbe", "Arm Trace Buffer Extension: explain registers, linearize dumps, simulate");
  cmd->require_subcommand(1);

  auto so = std::make_shared<StatusOptions>();
  auto* status = cmd->add_subcommand("status", "Explain every field of a TRBSR_EL1 (or TRBLIMITR_EL1, ...) value");
  status->add_option("VALUE", so->value, "register value (0x hex or decimal)")->required();
  status->add_option("--reg", so->reg, "register: TRBSR_EL1 (default), TRBLIMITR_EL1, TRBIDR_EL1, TRBMAR_EL1, "
                                       "TRBPTR_EL1, TRBBASER_EL1, TRBTRG_EL1");
  status->add_option("--format", so->format, "text (default) | json")->check(CLI::IsMember({"text", "json"}));

  auto lo = std::make_shared<LinearizeCli>();
  auto* lin = cmd->add_subcommand(
      "linearize", "Turn a TRBE buffer dump into the oldest-to-newest stream an ETE decoder reads (as Linux perf does)");
  lin->add_option("DUMP", lo->dump, "memory image of [base, limit), '-' for stdin")->required();
  lin->add_option("--base", lo->base, "TRBBASER_EL1: address of the dump's first byte")->required();
  lin->add_option("--limit", lo->limit, "limit address (exclusive; default base + dump size)");
  lin->add_option("--ptr", lo->ptr, "final TRBPTR_EL1")->required();
  lin->add_flag("--wrapped", lo->wrapped, "the buffer wrapped (TRBSR_EL1.WRAP=1)");
  lin->add_option("--trbsr", lo->trbsr, "final TRBSR_EL1: sets --wrapped from its WRAP bit");
  lin->add_option("--start", lo->start, "TRBPTR_EL1 software programmed at the start (default base)");
  lin->add_option("--mode", lo->mode, "fill mode the buffer ran in: circular (default) | wrap | fill")
      ->check(CLI::IsMember({"fill", "wrap", "circular"}));
  lin->add_option("--head", lo->head,
                  "wrapped buffers: bytes before the first A-Sync: keep (default) | pad (0x70 Ignore) | drop")
      ->check(CLI::IsMember({"keep", "pad", "drop"}));
  lin->add_flag("--strip-padding", lo->strip, "remove the leading run of 0x70 Ignore padding");
  lin->add_flag("-q,--quiet", lo->quiet, "no summary on stderr");
  lin->add_option("-o,--output", lo->out, "output file, '-' for stdout")->required();

  auto si = std::make_shared<SimulateCli>();
  auto* sim = cmd->add_subcommand(
      "simulate", "Run the TRBE model over a trace file and report pointers, status and interrupts as they change");
  sim->add_option("TRACE", si->trace, "raw trace bytes (e.g. an ETE source_data .bin), '-' for stdin")->required();
  sim->add_option("--mode", si->mode, "fill mode: circular (default) | wrap | fill")
      ->check(CLI::IsMember({"fill", "wrap", "circular"}));
  sim->add_option("--trigger-mode", si->trigger_mode, "trigger mode: ignore (default) | stop | irq")
      ->check(CLI::IsMember({"stop", "irq", "ignore"}));
  sim->add_option("--size", si->size, "buffer size in bytes, multiple of 4096 (default 4096; K/M suffix ok)");
  sim->add_option("--base", si->base, "buffer base address, 4 KB aligned (default 0x80000000)");
  sim->add_option("--start-offset", si->start_offset, "initial TRBPTR_EL1 offset from base (default 0)");
  sim->add_option("--trigger-at", si->trigger_at, "trace byte index at which the Detected Trigger arrives");
  sim->add_option("--trigger-count", si->trigger_count, "TRBTRG_EL1: bytes after the trigger (default 0)");
  sim->add_option("--flush-latency", si->flush_latency, "bytes the trace unit delivers during its flush (default 0)");
  sim->add_option("--trbidr", si->trbidr, "TRBIDR_EL1 value (default 0x20: byte alignment)");
  sim->add_option("--fault-at", si->fault_at, "buffer offset from which writes take a translation fault");
  sim->add_option("--format", si->format, "text (default) | json")->check(CLI::IsMember({"text", "json"}));
  sim->add_option("--memory-out", si->memory_out, "write the buffer memory after the run to this file");

  return Runner{cmd, [so, lo, si, status, lin, sim] {
    if (status->parsed()) return RunStatus(*so);
    if (lin->parsed()) return RunLinearize(*lo);
    if (sim->parsed()) return RunSimulate(*si);
    return kExitUsage;
  }};
}, 40};

}  // namespace
}  // namespace mabutrace::cli
