// SPDX-License-Identifier: MIT
// run_cli.h: runs the `mabutrace` CLI (MABUTRACE_CLI_PATH, a compile
// definition of the test) with shell-word arguments, for tests that check
// its output and exit codes. stdout is captured, stderr dropped.
// RunCliJson also expects exit 0 and one JSON document on stdout;
// ExpectExitCodes checks a table of command lines.
#ifndef MABUTRACE_TESTS_COMMON_RUN_CLI_H
#define MABUTRACE_TESTS_COMMON_RUN_CLI_H

#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace mt_cli {

struct Result {
  int code = -1;  // exit status; -1 if it did not run or was killed
  std::string out;
};

inline Result RunCli(const std::string& args) {
  Result r;
  const std::string cmd = std::string("'") + MABUTRACE_CLI_PATH + "' " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// stdout parsed; null (after a test failure) when the run failed or the
// output is not JSON.
inline nlohmann::json RunCliJson(const std::string& args) {
  const Result r = RunCli(args);
  EXPECT_EQ(r.code, 0) << "mabutrace " << args;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "mabutrace " << args << ": not JSON: " << r.out.substr(0, 200);
  return j.is_discarded() ? nlohmann::json() : j;
}

// stdout of a run expected to exit 0.
inline std::string RunCliOut(const std::string& args) {
  Result r = RunCli(args);
  EXPECT_EQ(r.code, 0) << "mabutrace " << args;
  return std::move(r.out);
}

// Each command line exits with its code (a table of usage and input errors).
inline void ExpectExitCodes(std::initializer_list<std::pair<std::string, int>> runs) {
  for (const auto& [args, code] : runs) EXPECT_EQ(RunCli(args).code, code) << "mabutrace " << args;
}

}  // namespace mt_cli

#endif  // MABUTRACE_TESTS_COMMON_RUN_CLI_H
