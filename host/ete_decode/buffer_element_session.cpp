// SPDX-License-Identifier: MIT
// buffer_element_session.cpp: the chunked read of a trace buffer file.
#include "buffer_element_session.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mabutrace::ete_decode {

FileRead DecodeFileInChunks(const std::filesystem::path& path, const std::function<void(const uint8_t*, size_t)>& push,
                            const std::function<void(const std::string&)>& on_error) {
  FILE* in = std::fopen(path.string().c_str(), "rb");
  if (!in) {
    if (on_error) on_error(std::string("cannot open: ") + std::strerror(errno));
    return FileRead::kCannotOpen;
  }
  std::vector<uint8_t> chunk(1 << 20);
  size_t n;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), in)) > 0) push(chunk.data(), n);
  const bool ok = !std::ferror(in);
  const int err = errno;
  std::fclose(in);
  if (!ok) {
    if (on_error) on_error(std::string("read error: ") + std::strerror(err));
    return FileRead::kReadError;
  }
  return FileRead::kOk;
}

}  // namespace mabutrace::ete_decode
