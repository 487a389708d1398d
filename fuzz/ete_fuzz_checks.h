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
#include <vector>

#include "ete/ete_packet_processor.h"
#include "ete/ete_packet_text.h"
#include "ete/ete_source.h"

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

// The packet targets' run: `trace` through a BufferDecoder of one source
// (`spec`) in `format`, pushed in chunks of `chunk` bytes, every packet and
// error checked.
inline void PacketsChecked(const mabutrace::ete::SourceSpec& spec, mabutrace::snapshot::BufferFormat format,
                           mabutrace::ete::ErrorPolicy policy, size_t chunk, const uint8_t* trace, size_t size) {
  Checks s;
  s.limit = size;
  mabutrace::ete::BufferDecoder dec(
      format, std::vector<mabutrace::ete::SourceSpec>{spec},
      [](void* c, size_t, const mabutrace::ete::EtePacket& p) { CheckPacket(static_cast<Checks*>(c), p); },
      [](void*, size_t, uint64_t, const std::string& m) { CheckError(m); }, &s, policy);
  for (size_t pos = 0; pos < size; pos += chunk) dec.Push(trace + pos, size - pos < chunk ? size - pos : chunk);
  dec.Finish();
}

}  // namespace mabutrace_fuzz

#endif  // MABUTRACE_FUZZ_ETE_FUZZ_CHECKS_H
