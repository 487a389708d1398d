// SPDX-License-Identifier: MIT
// stats_check_fuzz.cpp: libFuzzer target for the --check expression
// parser (host/stats/stats_check.h). Invariants: no crash, no read outside
// the input (ASan/UBSan); a rejected expression names a column within the
// text + 1; an accepted one evaluates on empty statistics without a crash.
// Build: clang, -DMABUTRACE_FUZZ=ON; run: ./stats_check_fuzz fuzz/corpus/stats_check_fuzz
#include <stddef.h>
#include <stdint.h>

#include <cstdlib>
#include <string_view>

#include "stats_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mabutrace::stats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckError err;
  const auto check = ParseCheck(text, &err);
  if (!check) {
    if (err.column < 1 || err.column > size + 1 || err.message.empty()) std::abort();
    return 0;
  }
  static const TraceStats empty;
  (void)Evaluate(*check, empty);
  return 0;
}
