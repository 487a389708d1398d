// run_cli.h: runs the `mabutrace` CLI (MABUTRACE_CLI_PATH, a compile
// definition of the test) with shell-word arguments, for tests that check
// its output and exit codes. stdout is captured, stderr dropped.
#ifndef MABUTRACE_TESTS_COMMON_RUN_CLI_H
#define MABUTRACE_TESTS_COMMON_RUN_CLI_H

#include <sys/wait.h>

#include <cstdio>
#include <string>

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

}  // namespace mt_cli

#endif  // MABUTRACE_TESTS_COMMON_RUN_CLI_H
