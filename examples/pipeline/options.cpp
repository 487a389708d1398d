// SPDX-License-Identifier: MIT
#include "options.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <filesystem>
#include <system_error>

#include <unistd.h>

int ParseOptions(int argc, char** argv, Options* opt) {
  CLI::App app{
      "mabutrace pipeline demo: a 1 kHz timer 'ISR' feeds a worker through a 16-slot\n"
      "queue, the worker forwards batches to an uploader, a monitor samples counters.\n"
      "The live trace is served over HTTP; at the end DIR/trace.json and\n"
      "DIR/trace.pftrace are written.\n"
      "Ctrl-C (SIGINT) or SIGTERM ends the run early and still writes the trace.\n"
      "Exit status: 0 ok, 1 runtime error (e.g. port in use), 2 usage error.",
      "mabutrace-pipeline-demo"};
  app.option_defaults()->always_capture_default();
  app.add_option("--seconds", opt->seconds, "How long to run")->check(CLI::Range(0.001, 1e6));
  app.add_option("--port", opt->port, "HTTP port of the live trace (0: any free port)")->check(CLI::Range(0, 65535));
  app.add_option("--out", opt->out, "Directory for trace.json and trace.pftrace (created if missing)");
  app.add_option("--bind", opt->bind, "Address the HTTP server binds (0.0.0.0: all)");
  app.add_option("--buffer-kib", opt->buffer_kib, "Trace buffer in KiB; when full the oldest events are overwritten")
      ->check(CLI::Range(size_t(4), size_t(1) << 20));
  app.add_option("--counter-log", opt->counter_log,
                 "Also write every counter sample as '<counter> <value> <thread>' lines");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and a hint to --help
    return kExitUsage;
  }
  if (!std::isfinite(opt->seconds)) {  // NaN passes CLI::Range: comparisons are false
    fprintf(stderr, "--seconds: %g is not a number of seconds\n", opt->seconds);
    return kExitUsage;
  }
  if (opt->out.empty()) {
    fprintf(stderr, "--out: must not be empty\n");
    return kExitUsage;
  }
  // Find out now, not after the whole run, that the trace cannot be written.
  std::error_code ec;
  std::filesystem::create_directories(opt->out, ec);
  if (ec || access(opt->out.c_str(), W_OK | X_OK) != 0) {
    fprintf(stderr, "--out: cannot write to %s%s%s\n", opt->out.c_str(), ec ? ": " : "",
            ec ? ec.message().c_str() : "");
    return kExitRuntimeError;
  }
  return -1;
}
