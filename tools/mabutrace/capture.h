// SPDX-License-Identifier: MIT
// capture.h: `mabutrace capture` from a device's HTTP server or a serial port.
#ifndef MABUTRACE_TOOLS_CAPTURE_H
#define MABUTRACE_TOOLS_CAPTURE_H

#include <string>

#include "formats.h"

namespace mabutrace::cli {

// GET /trace.json or /trace.pftrace from `url` ("http://HOST:PORT") into
// `out` ("-": stdout). Returns an exit code (1: connection or HTTP error).
int RunCaptureHttp(const std::string& url, const std::string& out, Format format);

// Reads the binary stream from the serial device `device` at `baud` (raw
// mode, 8N1) until SIGINT, `seconds` (> 0) elapse, or the device hangs up.
// Writes it raw, or converted when `format` is not kRaw. Progress on stderr
// only when stderr is a terminal.
int RunCaptureSerial(const std::string& device, unsigned baud, double seconds, const std::string& out, Format format);

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_CAPTURE_H
