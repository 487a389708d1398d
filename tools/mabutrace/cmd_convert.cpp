// cmd_convert.cpp: `mabutrace convert IN -o OUT [--format F]`.
#include <memory>

#include "command.h"
#include "convert.h"

namespace mabutrace::cli {
namespace {

struct ConvertOptions {
  std::string in, out, format;
};

Registration reg{"convert", [](CLI::App& app) {
  auto o = std::make_shared<ConvertOptions>();
  auto* cmd = app.add_subcommand(
      "convert", "Convert a binary stream file (mabutrace_set_output_callback) to JSON, Perfetto or text");
  cmd->add_option("IN", o->in, "binary stream file, '-' for stdin")->required();
  cmd->add_option("-o,--output", o->out, "output file, '-' for stdout")->required();
  cmd->add_option("--format", o->format, "json | pftrace | text (default: from OUT's extension)");
  return Runner{cmd, [o] {
    auto f = PickFormat(o->format, o->out);
    if (!f) return kExitUsage;
    return RunConvert(o->in, o->out, *f);
  }};
}, 10};

}  // namespace
}  // namespace mabutrace::cli
