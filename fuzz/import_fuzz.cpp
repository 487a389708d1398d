// SPDX-License-Identifier: MIT
// import_fuzz.cpp: libFuzzer target of host/import: any bytes read as a
// .pftrace (in pieces, split where the first byte says) and as Chrome JSON,
// into the Normalizer. Must never crash, hang or read out of bounds.
#include <cstdint>
#include <cstdio>
#include <string>

#include "chrome_json_reader.h"
#include "import_trace.h"
#include "perfetto_reader.h"
#include "trace_model.h"

namespace {
class Null final : public mabutrace::format::EventSink {
 public:
  void OnProcess(uint32_t, std::string_view) override {}
  void OnThread(mabutrace::format::Track, std::string_view) override {}
  void OnBegin(mabutrace::format::Track, std::string_view, uint64_t, uint32_t, uint32_t) override {}
  void OnEnd(mabutrace::format::Track, std::string_view, uint64_t, std::string_view) override {}
  void OnInstant(mabutrace::format::Track, std::string_view, uint64_t, uint32_t, uint32_t) override {}
  void OnCounter(mabutrace::format::Track, std::string_view, uint64_t, int64_t) override {}
  void OnFlowPoint(mabutrace::format::Track, bool, uint64_t, std::string_view, uint64_t, uint32_t, uint32_t,
                   bool) override {}
  void OnFlow(mabutrace::format::Track, bool, uint64_t, uint64_t) override {}
  void OnMetadata(std::string_view, int64_t) override {}
  void OnMetadata(std::string_view, std::string_view) override {}
  bool Finish() override { return true; }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Null null;
  {
    mabutrace::model::Normalizer norm(null);
    mabutrace::host::PerfettoReader reader(norm);
    const size_t split = size ? data[0] % (size + 1) : 0;
    reader.Feed(data, split);
    reader.Feed(data + split, size - split);
    reader.Finish();
    norm.Finish();
  }
  if (size > 0) {  // fmemopen of 0 bytes fails (glibc): nothing to read then
    std::FILE* f = fmemopen(const_cast<uint8_t*>(data), size, "rb");
    if (!f) return 0;
    mabutrace::host::ImportTrace(mabutrace::host::ImportKind::kChromeJson, f, {}, null);
    std::fclose(f);
  }
  return 0;
}
