// capture_http.cpp: see capture.h (RunCaptureHttp).
#include <httplib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "capture.h"
#include "convert.h"

namespace mabutrace::cli {

int RunCaptureHttp(const std::string& url, const std::string& out, Format format) {
  if (format != Format::kJson && format != Format::kPftrace) {
    std::fprintf(stderr, "mabutrace: capture --url: the output must be .json or .pftrace\n");
    return kExitUsage;
  }
  if (url.rfind("http://", 0) != 0) {
    std::fprintf(stderr, "mabutrace: capture --url: expected http://HOST:PORT, got '%s'\n",
                 url.c_str());
    return kExitUsage;
  }
  std::string base = url;
  while (base.size() > 7 && base.back() == '/') base.pop_back();
  FILE* f = out == "-" ? stdout : std::fopen(out.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", out.c_str(), std::strerror(errno));
    return kExitBadInput;
  }
  httplib::Client client(base);
  client.set_connection_timeout(5);
  client.set_read_timeout(60);
  const char* path = format == Format::kJson ? "/trace.json" : "/trace.pftrace";
  bool write_ok = true;
  // The body is written as it arrives: the trace is never held in memory.
  auto res = client.Get(path, [&](const char* data, size_t len) {
    write_ok = std::fwrite(data, 1, len, f) == len;
    return write_ok;
  });
  int rc = kExitOk;
  if (!res) {
    std::fprintf(stderr, "mabutrace: %s%s: %s\n", base.c_str(), path,
                 httplib::to_string(res.error()).c_str());
    rc = kExitBadInput;
  } else if (res->status != 200) {
    std::fprintf(stderr, "mabutrace: %s%s: HTTP %d\n", base.c_str(), path, res->status);
    rc = kExitBadInput;
  }
  if (!write_ok || std::fflush(f) != 0) {
    std::fprintf(stderr, "mabutrace: %s: write failed\n", out.c_str());
    rc = kExitBadInput;
  }
  if (f != stdout) std::fclose(f);
  return rc;
}

}  // namespace mabutrace::cli
