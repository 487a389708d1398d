// SPDX-License-Identifier: MIT
// command.h: how a `mabutrace` subcommand plugs itself in.
//
// Each command lives in its own cmd_*.cpp and registers at static-init time:
//
//   static mabutrace::cli::Registration reg{"ete", [](CLI::App& app) {
//     auto* cmd = app.add_subcommand("ete", "Arm ETE trace: packets, decode, export");
//     auto opts = std::make_shared<Options>();
//     ...add options to cmd, capturing opts...
//     return mabutrace::cli::Runner{cmd, [opts] { return RunEte(*opts); }};
//   }};
//
// main() builds every registered subcommand, parses, and runs the one the
// user chose: the deepest parsed one, so a file may add a subcommand to a
// command registered elsewhere (`app.get_subcommand("ete")->add_subcommand`
// with a higher `order`). Adding a command touches no shared file.
#ifndef MABUTRACE_TOOLS_COMMAND_H
#define MABUTRACE_TOOLS_COMMAND_H

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace mabutrace::cli {

// Exit codes of every command.
constexpr int kExitOk = 0;
constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;

// A parsed subcommand and what to run when the user picked it. The run
// function returns an exit code (kExit*).
struct Runner {
  CLI::App* command;
  std::function<int()> run;
};

using CommandSetup = std::function<Runner(CLI::App& app)>;

// Registers `setup`; `order` sorts --help (lower first; ties by name).
struct Registration {
  Registration(const char* name, CommandSetup setup, int order = 100);
};

struct RegisteredCommand {
  const char* name;
  CommandSetup setup;
  int order;
};
// Every registered command, in registration order (unsorted).
std::vector<RegisteredCommand>& Registry();

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_COMMAND_H
