// SPDX-License-Identifier: MIT
// tool_process.h: what the tests that run the `mabutrace` executable and
// its helper programs share: a temporary directory, a program run with its
// exit code and both outputs, a file's bytes.
#ifndef MABUTRACE_TESTS_TOOLS_TOOL_PROCESS_H
#define MABUTRACE_TESTS_TOOLS_TOOL_PROCESS_H

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"

namespace mt_tools {

// A fresh directory under /tmp, removed with everything in it.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/mabutrace_test_XXXXXX";
    if (::mkdtemp(tmpl)) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

struct Result {
  int rc = -1;  // exit status; -1 if it did not start, was killed or timed out
  std::string out, err;
};

inline Result RunProgram(const std::string& path, const std::vector<std::string>& args,
                         std::chrono::seconds timeout = std::chrono::seconds(120)) {
  ChildProcess p(path, args);
  Result r;
  if (!p.started()) return r;
  const auto st = p.Wait(timeout);
  r.rc = st ? *st : -1;
  r.out = p.Stdout();
  r.err = p.Stderr();
  return r;
}

inline std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace mt_tools

#endif  // MABUTRACE_TESTS_TOOLS_TOOL_PROCESS_H
