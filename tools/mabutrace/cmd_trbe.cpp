// SPDX-License-Identifier: MIT
// cmd_trbe.cpp: `mabutrace trbe status|linearize|simulate` (R-G1..R-G3,
// docs/trbe.md). Options go straight into host/trbe's option structs.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_io.h"
#include "command.h"
#include "trbe_linearize.h"
#include "trbe_registers.h"
#include "trbe_simulate.h"

namespace mabutrace::cli {
namespace {

using namespace mabutrace::trbe;

// ---- trbe status -----------------------------------------------------------------
struct StatusCli {
  uint64_t value = 0;
  std::string reg = "TRBSR_EL1", format = "text";
};

int RunStatus(const StatusCli& o) {
  const Explanation e = Explain(*ParseRegName(o.reg), o.value);
  std::fputs((o.format == "json" ? ExplanationToJson(e) + "\n" : ExplanationToText(e)).c_str(), stdout);
  return kExitOk;
}

// ---- trbe linearize --------------------------------------------------------------
struct LinearizeCli {
  LinearizeOptions options;
  std::string dump, out, mode = "circular", head = "keep";
  std::optional<uint64_t> trbsr;
  bool quiet = false;
};

int RunLinearize(LinearizeCli o) {
  o.options.fill_mode = *ParseFillMode(o.mode);
  o.options.head = *ParseHeadPolicy(o.head);
  if (o.trbsr) o.options.wrapped = o.options.wrapped || Status::Decode(*o.trbsr).wrap;
  std::vector<uint8_t> dump;
  if (!ReadFile(o.dump, &dump)) return kExitBadInput;
  LinearizeResult r;
  std::string err;
  if (!Linearize(dump, o.options, &r, &err)) {
    std::fprintf(stderr, "mabutrace trbe linearize: %s: %s\n", o.dump.c_str(), err.c_str());
    return kExitBadInput;
  }
  if (!WriteFile(o.out, {reinterpret_cast<const char*>(r.bytes.data()), r.bytes.size()})) return kExitBadInput;
  if (!o.quiet) std::fprintf(stderr, "mabutrace trbe linearize: %s", LinearizeSummary(r, o.options.head).c_str());
  return kExitOk;
}

// ---- trbe simulate ---------------------------------------------------------------
struct SimulateCli {
  SimulationConfig config;
  std::string trace, mode = "circular", trigger_mode = "ignore", format = "text", memory_out;
};

int RunSimulate(SimulateCli o) {
  o.config.fill_mode = *ParseFillMode(o.mode);
  o.config.trigger_mode = *ParseTriggerMode(o.trigger_mode);
  std::vector<uint8_t> trace;
  if (!ReadFile(o.trace, &trace)) return kExitBadInput;
  SimulationResult r;
  std::string err;
  if (!Simulate(trace, o.config, &r, &err)) {
    std::fprintf(stderr, "mabutrace trbe simulate: %s\n", err.c_str());
    return kExitUsage;
  }
  const bool json = o.format == "json";
  std::fputs((json ? SimulationToJson(o.config, r) + "\n" : SimulationToText(o.config, r)).c_str(), stdout);
  if (!o.memory_out.empty() &&
      !WriteFile(o.memory_out, {reinterpret_cast<const char*>(r.memory.data()), r.memory.size()}))
    return kExitBadInput;
  return kExitOk;
}

const CLI::Validator kRegName(
    [](std::string& s) { return ParseRegName(s) ? std::string() : "unknown register '" + s + "'"; }, "REG");

Registration reg{
    "trbe",
    [](CLI::App& app) {
      auto* cmd =
          app.add_subcommand("trbe", "Arm Trace Buffer Extension: explain registers, linearize dumps, simulate");
      cmd->require_subcommand(1);
      const auto modes = CLI::IsMember({"fill", "wrap", "circular"});

      auto so = std::make_shared<StatusCli>();
      auto* status = cmd->add_subcommand("status", "Explain every field of a TRBSR_EL1 (or TRBLIMITR_EL1, ...) value");
      status->add_option("VALUE", so->value, "register value (0x hex or decimal)")->required()->transform(Number());
      status
          ->add_option("--reg", so->reg,
                       "register: TRBSR_EL1 (default), TRBLIMITR_EL1, TRBIDR_EL1, TRBMAR_EL1, "
                       "TRBPTR_EL1, TRBBASER_EL1, TRBTRG_EL1")
          ->check(kRegName);
      status->add_option("--format", so->format, "text (default) | json")->check(CLI::IsMember({"text", "json"}));

      auto lo = std::make_shared<LinearizeCli>();
      LinearizeOptions& l = lo->options;
      auto* lin = cmd->add_subcommand("linearize",
                                      "Turn a TRBE buffer dump into the oldest-to-newest stream an "
                                      "ETE decoder reads (as Linux perf does)");
      lin->add_option("DUMP", lo->dump, "memory image of [base, limit), '-' for stdin")->required();
      lin->add_option("--base", l.base, "TRBBASER_EL1: address of the dump's first byte")
          ->required()
          ->transform(Number());
      lin->add_option("--limit", l.limit, "limit address (exclusive; default base + dump size)")->transform(Number());
      lin->add_option("--ptr", l.ptr, "final TRBPTR_EL1")->required()->transform(Number());
      lin->add_flag("--wrapped", l.wrapped, "the buffer wrapped (TRBSR_EL1.WRAP=1)");
      lin->add_option("--trbsr", lo->trbsr, "final TRBSR_EL1: sets --wrapped from its WRAP bit")->transform(Number());
      lin->add_option("--start", l.start, "TRBPTR_EL1 software programmed at the start (default base)")
          ->transform(Number());
      lin->add_option("--mode", lo->mode, "fill mode the buffer ran in: circular (default) | wrap | fill")
          ->check(modes);
      lin->add_option("--head", lo->head,
                      "wrapped buffers: bytes before the first A-Sync: keep (default) | pad (0x70 "
                      "Ignore) | drop")
          ->check(CLI::IsMember({"keep", "pad", "drop"}));
      lin->add_flag("--strip-padding", l.strip_padding, "remove the leading run of 0x70 Ignore padding");
      lin->add_flag("-q,--quiet", lo->quiet, "no summary on stderr");
      lin->add_option("-o,--output", lo->out, "output file, '-' for stdout")->required();

      auto si = std::make_shared<SimulateCli>();
      SimulationConfig& c = si->config;
      auto* sim = cmd->add_subcommand("simulate",
                                      "Run the TRBE model over a trace file and report pointers, "
                                      "status and interrupts as they change");
      sim->add_option("TRACE", si->trace, "raw trace bytes (e.g. an ETE source_data .bin), '-' for stdin")->required();
      sim->add_option("--mode", si->mode, "fill mode: circular (default) | wrap | fill")->check(modes);
      sim->add_option("--trigger-mode", si->trigger_mode, "trigger mode: ignore (default) | stop | irq")
          ->check(CLI::IsMember({"stop", "irq", "ignore"}));
      sim->add_option("--size", c.size, "buffer size in bytes, multiple of 4096 (default 4096; K/M suffix ok)")
          ->transform(Size());
      sim->add_option("--base", c.base, "buffer base address, 4 KB aligned (default 0x80000000)")->transform(Number());
      sim->add_option("--start-offset", c.start_offset, "initial TRBPTR_EL1 offset from base (default 0)")
          ->transform(Size());
      sim->add_option("--trigger-at", c.trigger_at, "trace byte index at which the Detected Trigger arrives")
          ->transform(Size());
      sim->add_option("--trigger-count", c.trigger_count, "TRBTRG_EL1: bytes after the trigger (default 0)")
          ->transform(Size(UINT32_MAX));
      sim->add_option("--flush-latency", c.flush_latency, "bytes the trace unit delivers during its flush (default 0)")
          ->transform(Size());
      sim->add_option("--trbidr", c.trbidr, "TRBIDR_EL1 value (default 0x20: byte alignment)")->transform(Number());
      sim->add_option("--fault-at", c.fault_offset, "buffer offset from which writes take a translation fault")
          ->transform(Size());
      sim->add_option("--format", si->format, "text (default) | json")->check(CLI::IsMember({"text", "json"}));
      sim->add_option("--memory-out", si->memory_out, "write the buffer memory after the run to this file");

      return Runner{cmd, [so, lo, si, status, lin] {
                      if (status->parsed()) return RunStatus(*so);
                      if (lin->parsed()) return RunLinearize(*lo);
                      return RunSimulate(*si);
                    }};
    },
    40};

}  // namespace
}  // namespace mabutrace::cli
