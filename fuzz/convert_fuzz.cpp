// SPDX-License-Identifier: MIT
// convert_fuzz.cpp: what `mabutrace convert` does with a hostile stream:
// the stream decoder, the Normalizer and the format layer's writers (Chrome
// JSON and Perfetto, src/format), with names of any bytes, any lengths and
// any order of events. The JSON written must be valid UTF-8 (checked here
// byte by byte: the escaper's promise); nothing may crash, hang or read
// out of bounds. Seeds: the stream decoder's corpus.
#include <stddef.h>
#include <stdint.h>

#include <cstdlib>
#include <string>

#include "format/utf8.h"
#include "json_writer.h"
#include "perfetto_writer.h"
#include "stream_to_model.h"

namespace {

// Every byte of the JSON text valid UTF-8.
void CheckUtf8(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t i = 0; i < s.size();) {
    const unsigned n = mabutrace::Utf8Length(p + i, s.size() - i);
    if (n == 0) abort();
    i += n;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool perfetto = data[0] & 1;
  std::string out;
  auto append = [&](const char* d, size_t n) {
    out.append(d, n);
    return out.size() < (64u << 20);  // a bound, so a huge output ends as a write error
  };
  if (perfetto) {
    mabutrace::exporter::PerfettoWriter w(append);
    mabutrace::host::StreamToModel conv(w);
    (void)conv.Feed(data + 1, size - 1);
    (void)conv.Finish();
  } else {
    mabutrace::exporter::JsonWriter w(append);
    mabutrace::host::StreamToModel conv(w);
    (void)conv.Feed(data + 1, size - 1);
    (void)conv.Finish();
    CheckUtf8(out);
  }
  return 0;
}
