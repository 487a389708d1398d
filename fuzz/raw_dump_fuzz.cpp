// SPDX-License-Identifier: MIT
// raw_dump_fuzz.cpp: libFuzzer target for the raw RAM dump reader
// (docs/raw-dump.md) and the stream decoder behind it. Any input must
// convert or fail with a Status; never crash, hang or read out of bounds.
// The corpus (fuzz/corpus/raw_dump_fuzz/) holds a real dump.
#include <stddef.h>
#include <stdint.h>

#include "raw_dump.h"
#include "stream_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mabutrace::host;
  RawDumpResult res = RawDumpToStream(data, size, nullptr);
  for (const Status& e : res.errors) (void)res.ToDump(e);
  if (!res.fatal.ok) return 0;
  uint64_t touched = 0;
  StreamDecoder dec([&](const Event& e) { touched += e.name.size(); });
  Status s = dec.Feed(reinterpret_cast<const uint8_t*>(res.stream.data()), res.stream.size());
  if (s.ok) s = dec.Finish();
  (void)res.ToDump(s);
  for (const Status& e : dec.record_errors()) (void)res.ToDump(e);
  return 0;
}
