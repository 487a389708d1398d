// SPDX-License-Identifier: MIT
// cmd_capture.cpp: `mabutrace capture --url URL | --serial DEV ... -o OUT`.
#include <cstdio>
#include <memory>

#include "capture.h"
#include "command.h"

namespace mabutrace::cli {
namespace {

struct CaptureOptions {
  std::string url, device, out, format;
  unsigned baud = 115200;
  double seconds = 0;
};

int RunCapture(const CaptureOptions& o) {
  if (o.url.empty() == o.device.empty()) {
    std::fprintf(stderr, "mabutrace: capture: give exactly one of --url or --serial\n");
    return kExitUsage;
  }
  if (!o.url.empty()) {
    auto f = PickFormat(o.format, o.out);
    if (!f) return kExitUsage;
    return RunCaptureHttp(o.url, o.out, *f);
  }
  auto f = PickFormat(o.format, o.out, Format::kRaw);
  if (!f) return kExitUsage;
  return RunCaptureSerial(o.device, o.baud, o.seconds, o.out, *f);
}

Registration reg{"capture",
                 [](CLI::App& app) {
                   auto o = std::make_shared<CaptureOptions>();
                   auto* cmd = app.add_subcommand(
                       "capture", "Capture a trace from a device's HTTP server (--url) or serial port (--serial)");
                   auto* url_opt = cmd->add_option("--url", o->url,
                                                   "http://HOST:PORT of mabutrace_start_server (its /trace.json or "
                                                   "/trace.pftrace, by the output), or the full URL of one");
                   auto* serial_opt =
                       cmd->add_option("--serial", o->device, "serial device carrying the binary stream");
                   url_opt->excludes(serial_opt);
                   cmd->add_option("--baud", o->baud, "serial baud rate (default 115200)")->needs(serial_opt);
                   cmd->add_option("--seconds", o->seconds, "stop after S seconds (default: at Ctrl-C)")
                       ->needs(serial_opt)
                       ->check(CLI::NonNegativeNumber);
                   cmd->add_option("-o,--output", o->out,
                                   "output file, '-' for stdout: .json/.pftrace (.txt for --serial; any other "
                                   "name keeps the raw stream)")
                       ->required();
                   cmd->add_option("--format", o->format, "json | pftrace | text | raw")
                       ->check(CLI::IsMember({"json", "pftrace", "text", "raw"}, CLI::ignore_case));
                   return Runner{cmd, [o] { return RunCapture(*o); }};
                 },
                 20};

}  // namespace
}  // namespace mabutrace::cli
