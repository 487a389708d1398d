// output.h: where a writer's bytes go: a FILE* or a callback.
#ifndef MABUTRACE_HOST_EXPORT_OUTPUT_H
#define MABUTRACE_HOST_EXPORT_OUTPUT_H

#include <cstddef>
#include <cstdio>
#include <functional>

namespace mabutrace::exporter {

// Returns true when all `len` bytes were written.
using WriteFn = std::function<bool(const char* data, size_t len)>;

// Writes to `f` (not closed, not flushed by the writer beyond fflush at Finish).
inline WriteFn FileWriter(FILE* f) {
  return [f](const char* d, size_t n) { return std::fwrite(d, 1, n, f) == n && !std::ferror(f); };
}

}  // namespace mabutrace::exporter

#endif  // MABUTRACE_HOST_EXPORT_OUTPUT_H
