// SPDX-License-Identifier: MIT
// capture_http.cpp: see capture.h (RunCaptureHttp).
#include <httplib.h>

#include <cstdio>
#include <optional>

#include "capture.h"
#include "cli_io.h"
#include "convert.h"

namespace mabutrace::cli {

namespace {

// httplib's error names are terse ("Connection"): say what happened.
std::string Describe(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection:
      return "cannot connect (refused or unreachable: is mabutrace_start_server running there?)";
    case httplib::Error::ConnectionTimeout: return "connection timed out";
    case httplib::Error::Read: return "the connection broke while reading the trace";
    default: return httplib::to_string(e);
  }
}

}  // namespace

int RunCaptureHttp(const std::string& url, const std::string& out, Format format) {
  if (format != Format::kJson && format != Format::kPftrace) {
    std::fprintf(stderr, "mabutrace: capture --url: the output must be .json or .pftrace\n");
    return kExitUsage;
  }
  if (url.rfind("http://", 0) != 0) {
    std::fprintf(stderr, "mabutrace: capture --url: expected http://HOST:PORT, got '%s'\n", url.c_str());
    return kExitUsage;
  }
  // http://HOST:PORT[/PATH]: a PATH names the resource itself (a server
  // behind a proxy prefix, or the URL copied from the capture page);
  // without one, the server's /trace.json or /trace.pftrace.
  const size_t slash = url.find('/', 7);
  const std::string base = url.substr(0, slash);
  std::string named = slash == std::string::npos ? "" : url.substr(slash);
  while (!named.empty() && named.back() == '/') named.pop_back();
  while (named.size() > 1 && named[1] == '/') named.erase(0, 1);  // http://HOST:PORT//x
  // The output is opened when the first bytes arrive, so a failed capture
  // leaves an existing file as it was.
  std::optional<OutputFile> f;
  bool open_failed = false;
  auto open = [&] {
    if (!f && !open_failed) {
      f = OutputFile::Create(out);
      open_failed = !f;
    }
    return f.has_value();
  };
  httplib::Client client(base);
  client.set_connection_timeout(5);
  client.set_read_timeout(60);
  const std::string path = !named.empty() ? named : format == Format::kJson ? "/trace.json" : "/trace.pftrace";
  // The body is written as it arrives: the trace is never held in memory.
  auto res = client.Get(path, [&](const char* data, size_t len) { return open() && f->Write(data, len); });
  int rc = kExitOk;
  if (open_failed) {
    rc = kExitBadInput;
  } else if (!res && res.error() != httplib::Error::Canceled) {
    std::fprintf(stderr, "mabutrace: %s%s: %s\n", base.c_str(), path.c_str(), Describe(res.error()).c_str());
    rc = kExitBadInput;
  } else if (res && res->status != 200) {
    std::fprintf(stderr, "mabutrace: %s%s: HTTP %d\n", base.c_str(), path.c_str(), res->status);
    rc = kExitBadInput;
  } else if (!open()) {  // 200 with an empty body
    rc = kExitBadInput;
  }
  if (f && !f->Finish()) rc = kExitBadInput;  // a write that failed (Canceled) is said here, with its file
  return rc;
}

}  // namespace mabutrace::cli
