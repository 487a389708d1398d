// SPDX-License-Identifier: MIT
// options.h: the demo's command line.
#ifndef PIPELINE_OPTIONS_H
#define PIPELINE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include <string>

struct Options {
  double seconds = 30;
  uint16_t port = 8080;  // 0: any free port
  std::string out = "out";
  std::string bind = "127.0.0.1";
  size_t buffer_kib = 1024;
  std::string counter_log;  // empty: no log
};

// Exit codes (also documented in --help and docs/pipeline-demo.md).
constexpr int kExitOk = 0;
constexpr int kExitRuntimeError = 1;
constexpr int kExitUsage = 2;

// Parses argv into *opt. Returns -1 to go on, else the exit code to return
// at once (0 after --help, kExitUsage after a usage error, with the message
// already printed).
int ParseOptions(int argc, char** argv, Options* opt);

#endif  // PIPELINE_OPTIONS_H
