// SPDX-License-Identifier: MIT
// ete_fuzz_checks.h: the invariants the ETE and ETMv4 fuzz targets check on
// every packet / element (one copy for ete_*_fuzz and etm4_*_fuzz; the
// element part is ete_fuzz_element_checks.h, for the decode targets):
//   packet   1..kMaxPacketBytes bytes, raw bytes present, index inside the
//            input, text and JSON renderings work
//   element  index inside the input; an executed range is non-empty with at
//            most (end - start) / 2 instructions; text and JSON work
// A broken invariant aborts (libFuzzer reports it); ASan/UBSan catch the rest.
#ifndef MABUTRACE_FUZZ_ETE_FUZZ_CHECKS_H
#define MABUTRACE_FUZZ_ETE_FUZZ_CHECKS_H

#include <cstdint>
#include <cstdlib>
#include <string>

#include "ete/ete_packet_processor.h"
#include "ete/ete_packet_text.h"

namespace mabutrace_fuzz {

struct Checks {
  uint64_t limit = 0;  // input size: no index beyond it
  std::string text;
};

inline void CheckPacket(Checks* s, const mabutrace::ete::EtePacket& p) {
  if (p.size == 0 || p.size > mabutrace::ete::EtePacketProcessor::kMaxPacketBytes || p.raw == nullptr) abort();
  if (p.index > s->limit) abort();
  s->text.clear();
  mabutrace::ete::FormatLine(p, &s->text);
  mabutrace::ete::FormatJson(p, "fuzz", &s->text);
  if (s->text.empty()) abort();
  volatile uint8_t sum = 0;  // every raw byte readable
  for (int i = 0; i < p.size; ++i) sum = static_cast<uint8_t>(sum + p.raw[i]);
}

inline void CheckError(const std::string& message) {
  if (message.empty()) abort();
}

}  // namespace mabutrace_fuzz

#endif  // MABUTRACE_FUZZ_ETE_FUZZ_CHECKS_H
