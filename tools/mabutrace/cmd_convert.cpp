// SPDX-License-Identifier: MIT
// cmd_convert.cpp: `mabutrace convert IN -o OUT [--format F]`.
#include <memory>

#include "command.h"
#include "convert.h"

namespace mabutrace::cli {
namespace {

struct ConvertOptions {
  std::string in, out, format, elf;
};

Registration reg{"convert",
                 [](CLI::App& app) {
                   auto o = std::make_shared<ConvertOptions>();
                   auto* cmd = app.add_subcommand(
                       "convert",
                       "Convert a binary stream (mabutrace_set_output_callback), a raw RAM dump of the trace "
                       "memory, or a .json / .pftrace this toolkit wrote, to JSON, Perfetto or text (a failed "
                       "write leaves no OUT behind; a damaged input gives exit 1 and OUT with what could be read)");
                   cmd->add_option("IN", o->in,
                                   "binary stream file, raw dump (docs/raw-dump.md), or a .json / .pftrace written by "
                                   "mabutrace (Chrome JSON, Perfetto); '-' for stdin")
                       ->required();
                   cmd->add_option("-o,--output", o->out, "output file, '-' for stdout")->required();
                   cmd->add_option("--format", o->format, "json | pftrace | text (default: from OUT's extension)")
                       ->check(CLI::IsMember({"json", "pftrace", "text"}, CLI::ignore_case));
                   cmd->add_option("--elf", o->elf,
                                   "firmware ELF resolving a raw dump's name pointers (the dump itself holds the "
                                   "buffer geometry)")
                       ->check(CLI::ExistingFile);
                   return Runner{cmd, [o] {
                                   auto f = PickFormat(o->format, o->out);
                                   if (!f) return kExitUsage;
                                   return RunConvert(o->in, o->out, *f, o->elf);
                                 }};
                 },
                 10};

}  // namespace
}  // namespace mabutrace::cli
