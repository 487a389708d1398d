// SPDX-License-Identifier: MIT
// output.h: where a host writer's bytes go (a FILE* or any callback), and
// the staging buffer that joins a format-layer writer to it.
#ifndef MABUTRACE_HOST_EXPORT_OUTPUT_H
#define MABUTRACE_HOST_EXPORT_OUTPUT_H

#include <cstddef>
#include <cstdio>
#include <functional>
#include <vector>

#include "format/json_out.h"

namespace mabutrace::exporter {

// Returns true when all `len` bytes were written.
using WriteFn = std::function<bool(const char* data, size_t len)>;

// Writes to `f` (not closed, not flushed by the writer beyond fflush at Finish).
inline WriteFn FileWriter(FILE* f) {
  return [f](const char* d, size_t n) { return std::fwrite(d, 1, n, f) == n && !std::ferror(f); };
}

// A staging buffer of `bytes` flushed through `write`: the ByteOut/JsonOut
// a format-layer writer (format/chrome_json_writer.h, perfetto_writer.h)
// writes into. A base of the host writers, constructed before the format
// writer that uses it. Neither copied nor moved (out_ points into it).
class StagedOutput {
 protected:
  StagedOutput(WriteFn write, size_t bytes)
      : write_(std::move(write)), buf_(bytes), out_(buf_.data(), uint32_t(buf_.size()), &Thunk, &write_) {}
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;

  JsonOut& out() { return out_; }

 private:
  static int Thunk(void* user, const char* data, size_t len) {
    return (*static_cast<WriteFn*>(user))(data, len) ? 0 : 1;
  }

  WriteFn write_;
  std::vector<char> buf_;
  JsonOut out_;
};

}  // namespace mabutrace::exporter

#endif  // MABUTRACE_HOST_EXPORT_OUTPUT_H
