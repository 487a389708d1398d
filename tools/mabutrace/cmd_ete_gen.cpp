// SPDX-License-Identifier: MIT
// cmd_ete_gen.cpp: `mabutrace ete generate` (issue 21; docs/ete-decode.md):
// the ETE packet generator (host/ete_gen) as a command.
//
//   ete generate --elf PROG.elf --script RUN.txt -o SNAPSHOT_DIR [--ts-hz HZ]
//     traces the scripted run of PROG (gen_script.h) and writes a snapshot
//     directory (snapshot_writer.h) for `ete decode|export`; --ts-hz
//     overrides the script's timestamp_hz (0: leave CNTFRQ_EL0 out).
// Errors name the file ("RUN.txt:7: 'foo': not a symbol of PROG.elf ...",
// "PROG.elf: No such file or directory"); exit 1.
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "command.h"
#include "ete_decode/elf_symbols.h"
#include "ete_gen/ete_generator.h"
#include "ete_gen/snapshot_writer.h"
#include "memory_image.h"

namespace mabutrace::cli {
namespace {

struct GenOptions {
  std::string elf;
  std::string script;
  std::string output;
  std::optional<uint64_t> ts_hz;
};

int RunGenerate(const GenOptions& opt) {
  std::string error;
  std::optional<ete_decode::ElfFile> elf = ete_decode::ReadElfFile(opt.elf, std::nullopt, &error);
  if (!elf) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return kExitBadInput;
  }
  std::ifstream in(opt.script);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", opt.script.c_str());
    return kExitBadInput;
  }
  std::stringstream text;
  text << in.rdbuf();
  ete_gen::GenScript script;
  if (!ete_gen::ParseScript(text.str(), opt.script, *elf, &script, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return kExitBadInput;
  }
  if (opt.ts_hz) script.ts_hz = *opt.ts_hz;
  armisa::MemoryImage image;
  for (const ete_decode::ElfSegment& s : elf->segments)
    if (!image.AddRegion(s.vaddr, s.bytes.data(), s.bytes.size(), armisa::kMemAny, &error)) {
      std::fprintf(stderr, "%s: %s\n", opt.elf.c_str(), error.c_str());
      return kExitBadInput;
    }
  ete_gen::GenResult result;
  if (!ete_gen::Generate(image, script, &result, &error)) {
    std::fprintf(stderr, "%s: %s\n", opt.script.c_str(), error.c_str());
    return kExitBadInput;
  }
  if (!ete_gen::WriteSnapshot(opt.output, ete_gen::ImagesOf(*elf), result, script.ts_hz, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return kExitBadInput;
  }
  std::fprintf(stderr, "%s: %zu trace bytes, %llu instructions, %zu ranges, %zu exceptions, %zu timestamps\n",
               opt.output.c_str(), result.trace.size(), static_cast<unsigned long long>(result.instructions),
               result.ranges.size(), result.exceptions.size(), result.timestamps.size());
  return kExitOk;
}

Registration reg_generate{
    "ete generate",
    [](CLI::App& app) {
      auto o = std::make_shared<GenOptions>();
      CLI::App* ete = app.get_subcommand("ete");
      auto* cmd = ete->add_subcommand("generate",
                                      "ETE packet generator: trace a scripted run of an A64 ELF into a snapshot "
                                      "directory (for ete decode / export)");
      cmd->add_option("--elf", o->elf, "the A64 program (its loadable segments become the memory image)")->required();
      cmd->add_option("--script", o->script, "execution script (start, stop, cond, indirect, exception, timestamp)")
          ->required();
      cmd->add_option("-o,--output", o->output, "snapshot directory to write")->required();
      cmd->add_option("--ts-hz", o->ts_hz, "timestamp frequency written as CNTFRQ_EL0 (0: none)");
      return Runner{cmd, [o] { return RunGenerate(*o); }};
    },
    43};

}  // namespace
}  // namespace mabutrace::cli
