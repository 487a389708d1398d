// main.cpp: the `mabutrace` command line (CLI11), thin over host/.
// Exit codes: 0 ok, 1 bad input (file, stream, device, server), 2 usage.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "capture.h"
#include "convert.h"

namespace {

using mabutrace::cli::Format;

// The format from --format, else from OUT's extension; nullopt + message
// when neither says.
std::optional<Format> PickFormat(const std::string& flag, const std::string& out,
                                 std::optional<Format> fallback) {
  if (!flag.empty()) {
    auto f = mabutrace::cli::ParseFormat(flag);
    if (!f) std::fprintf(stderr, "mabutrace: unknown --format '%s'\n", flag.c_str());
    return f;
  }
  if (auto f = mabutrace::cli::FormatFromPath(out)) return f;
  if (fallback) return fallback;
  std::fprintf(stderr, "mabutrace: cannot tell the format of '%s': use --format\n", out.c_str());
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mabutrace: convert and capture mabutrace traces"};
  app.require_subcommand(1);

  std::string in, out, format;
  auto* convert = app.add_subcommand(
      "convert", "Convert a binary stream file (mabutrace_set_output_callback) to JSON, Perfetto or text");
  convert->add_option("IN", in, "binary stream file, '-' for stdin")->required();
  convert->add_option("-o,--output", out, "output file, '-' for stdout")->required();
  convert->add_option("--format", format, "json | pftrace | text (default: from OUT's extension)");

  std::string url, device;
  unsigned baud = 115200;
  double seconds = 0;
  auto* capture = app.add_subcommand(
      "capture", "Capture a trace from a device's HTTP server (--url) or serial port (--serial)");
  auto* url_opt = capture->add_option("--url", url, "http://HOST:PORT of mabutrace_start_server");
  auto* serial_opt =
      capture->add_option("--serial", device, "serial device carrying the binary stream");
  url_opt->excludes(serial_opt);
  capture->add_option("--baud", baud, "serial baud rate (default 115200)")->needs(serial_opt);
  capture->add_option("--seconds", seconds, "stop after S seconds (default: at Ctrl-C)")
      ->needs(serial_opt)
      ->check(CLI::NonNegativeNumber);
  capture->add_option("-o,--output", out,
                      "output file, '-' for stdout: .json/.pftrace (.txt for --serial; any other "
                      "name keeps the raw stream)")
      ->required();
  capture->add_option("--format", format, "json | pftrace | text | raw");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : mabutrace::cli::kExitUsage;
  }

  if (*convert) {
    auto f = PickFormat(format, out, std::nullopt);
    if (!f) return mabutrace::cli::kExitUsage;
    return mabutrace::cli::RunConvert(in, out, *f);
  }
  if (url.empty() == device.empty()) {
    std::fprintf(stderr, "mabutrace: capture: give exactly one of --url or --serial\n");
    return mabutrace::cli::kExitUsage;
  }
  if (!url.empty()) {
    auto f = PickFormat(format, out, std::nullopt);
    if (!f) return mabutrace::cli::kExitUsage;
    return mabutrace::cli::RunCaptureHttp(url, out, *f);
  }
  auto f = PickFormat(format, out, Format::kRaw);
  if (!f) return mabutrace::cli::kExitUsage;
  return mabutrace::cli::RunCaptureSerial(device, baud, seconds, out, *f);
}
