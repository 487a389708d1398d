// SPDX-License-Identifier: MIT
#include "trace_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <filesystem>

#include "mabutrace/mabutrace.h"

namespace {

struct Sink {
  FILE* file;
  uint64_t bytes;
  int error;  // errno of the first failed write
};

int WriteToFile(void* user, const char* data, size_t len) {
  auto* sink = static_cast<Sink*>(user);
  if (fwrite(data, 1, len, sink->file) != len) {
    sink->error = errno;
    return 1;
  }
  sink->bytes += len;
  return 0;
}

}  // namespace

bool WriteTraceFile(const std::string& dir, TraceFormat format, std::string* path, uint64_t* bytes,
                    std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  const bool json = format == TraceFormat::kJson;
  const fs::path final_path = fs::path(dir) / (json ? "trace.json" : "trace.pftrace");
  // Written next to it and renamed: a viewer never opens a half file, and a
  // failed export leaves the previous run's trace alone.
  fs::path tmp_path = final_path;
  tmp_path += ".tmp";
  Sink sink{fopen(tmp_path.c_str(), "wb"), 0, 0};
  if (!sink.file) {
    *error = "cannot write " + tmp_path.string() + ": " + strerror(errno);
    return false;
  }
  const int rc = json ? mabutrace_export_json(WriteToFile, &sink) : mabutrace_export_perfetto(WriteToFile, &sink);
  const bool closed = fclose(sink.file) == 0;  // flushes: may fail late (ENOSPC)
  if (!closed && !sink.error) sink.error = errno;
  if (rc != MABUTRACE_OK || !closed) {
    if (sink.error) {
      *error = "cannot write " + tmp_path.string() + ": " + strerror(sink.error);
    } else {
      *error = "export failed with status " + std::to_string(rc);
    }
    fs::remove(tmp_path, ec);
    return false;
  }
  fs::rename(tmp_path, final_path, ec);
  if (ec) {
    *error = "cannot rename " + tmp_path.string() + ": " + ec.message();
    return false;
  }
  *path = final_path.string();
  *bytes = sink.bytes;
  return true;
}
