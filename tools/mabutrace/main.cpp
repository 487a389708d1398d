// SPDX-License-Identifier: MIT
// main.cpp: the `mabutrace` command line (CLI11), thin over host/.
// Exit codes: 0 ok, 1 bad input (file, stream, device, server), 2 usage.
// Subcommands register themselves (command.h): one cmd_*.cpp each.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "command.h"
#include "mabutrace/version.h"

namespace mabutrace::cli {

std::vector<RegisteredCommand>& Registry() {
  static std::vector<RegisteredCommand> commands;
  return commands;
}

Registration::Registration(const char* name, CommandSetup setup, int order) {
  Registry().push_back({name, std::move(setup), order});
}

}  // namespace mabutrace::cli

namespace {

// A listing that could not be written in full (a full disk) is not a
// success: the commands that print with fputs leave the check to here;
// one that already failed said why.
int StdoutCheck() {
  using mabutrace::cli::kExitBadInput;
  using mabutrace::cli::kExitOk;
  const int err = std::fflush(stdout) != 0 ? errno : 0;
  if (!err && !std::ferror(stdout)) return kExitOk;
  std::fprintf(stderr, "mabutrace: <stdout>: write error: %s\n", err ? std::strerror(err) : "the output is incomplete");
  return kExitBadInput;
}

// Where a command word belongs, CLI11 says only "A subcommand is required"
// for a word that is not one (`mabutrace stm frob`) or none: name the word
// and list the commands there. False when that is not what went wrong.
bool UnknownCommand(CLI::App& app) {
  CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  if (at->get_require_subcommand_min() == 0 || !at->get_subcommands().empty()) return false;
  const std::vector<std::string> left = at->remaining();
  if (!left.empty() && (left.front().empty() || left.front()[0] == '-')) return false;
  std::string where = at->get_name(), names;
  for (const CLI::App* p = at->get_parent(); p && p->get_parent(); p = p->get_parent())
    where = p->get_name() + " " + where;
  for (const CLI::App* sub : at->get_subcommands([](CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  const std::string help = at == &app ? "mabutrace --help" : "mabutrace " + where + " --help";
  if (left.empty()) {
    std::fprintf(stderr, "mabutrace: %s%sneeds a command: one of %s (see '%s')\n", at == &app ? "" : where.c_str(),
                 at == &app ? "" : " ", names.c_str(), help.c_str());
  } else {
    std::fprintf(stderr, "mabutrace: unknown command '%s%s%s' (one of: %s; see '%s')\n",
                 at == &app ? "" : where.c_str(), at == &app ? "" : " ", left.front().c_str(), names.c_str(),
                 help.c_str());
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mabutrace::cli;
  CLI::App app{"mabutrace: record, decode and show what a program did"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mabutrace " MABUTRACE_VERSION_STRING);

  auto commands = Registry();
  std::sort(commands.begin(), commands.end(), [](const auto& a, const auto& b) {
    return a.order != b.order ? a.order < b.order : std::strcmp(a.name, b.name) < 0;
  });
  std::vector<Runner> runners;
  for (const auto& c : commands) runners.push_back(c.setup(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (dynamic_cast<const CLI::RequiredError*>(&e) && UnknownCommand(app)) return kExitUsage;
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  // The deepest parsed command runs: `ete decode` may be registered apart
  // from `ete` (it finds its parent with app.get_subcommand("ete")).
  const Runner* chosen = nullptr;
  int chosen_depth = -1;
  for (const auto& r : runners) {
    if (!r.command || !r.command->parsed()) continue;
    int depth = 0;
    for (const CLI::App* a = r.command; a->get_parent(); a = a->get_parent()) ++depth;
    if (depth > chosen_depth) chosen = &r, chosen_depth = depth;
  }
  if (!chosen) return kExitUsage;
  int rc;
  try {
    rc = chosen->run();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "mabutrace: out of memory\n");
    return kExitBadInput;
  }
  return rc == kExitOk ? StdoutCheck() : rc;
}
