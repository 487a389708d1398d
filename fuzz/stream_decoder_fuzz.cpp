// SPDX-License-Identifier: MIT
// stream_decoder_fuzz.cpp: libFuzzer target for the host stream decoder
// (docs/stream-format.md). Any input must decode or fail with a Status,
// never crash or read out of bounds. Build: clang, -DMABUTRACE_FUZZ=ON
// (adds -fsanitize=fuzzer,address,undefined); run:
//   ./stream_decoder_fuzz -max_total_time=60
#include <stddef.h>
#include <stdint.h>

#include "stream_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The first byte picks a piece size, so that the buffering paths of Feed
  // are fuzzed too, not only whole-input decoding.
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 64;
  ++data;
  --size;
  uint64_t events = 0;
  mabutrace::host::StreamDecoder dec([&](const mabutrace::host::Event& e) {
    events += e.name.size() + e.thread_name.size();  // touch the views
  });
  for (size_t at = 0; at < size; at += piece) {
    const size_t n = size - at < piece ? size - at : piece;
    if (!dec.Feed(data + at, n).ok) return 0;
  }
  (void)dec.Finish();
  return 0;
}
