// SPDX-License-Identifier: MIT
// ete_fuzz_element_checks.h: the element invariants of the ETE and ETMv4
// decode fuzz targets (ete_fuzz_checks.h has the packet ones): index inside
// the input; an executed range is non-empty with at most (end - start) / 2
// instructions; text and JSON renderings work.
#ifndef MABUTRACE_FUZZ_ETE_FUZZ_ELEMENT_CHECKS_H
#define MABUTRACE_FUZZ_ETE_FUZZ_ELEMENT_CHECKS_H

#include <string>

#include "ete/ete_packet_processor.h"
#include "ete_decode/ete_element_decoder.h"
#include "ete_fuzz_checks.h"

namespace mabutrace_fuzz {

inline void CheckElement(Checks* s, const mabutrace::ete_decode::EteElement& e) {
  using mabutrace::ete_decode::ElemType;
  if (e.index > s->limit) abort();
  if (e.type == ElemType::kInstrRange && (e.num_instr == 0 || e.end <= e.start || e.num_instr > (e.end - e.start) / 2))
    abort();
  s->text.clear();
  mabutrace::ete_decode::FormatElementOcsd(e, &s->text);
  mabutrace::ete_decode::FormatElementJson(e, "fuzz", &s->text);
  if (s->text.empty()) abort();
}

// The decode targets' run: `trace` (size bytes; the input after the
// selector) through the packet processor (ErrorPolicy::kOpenCsd, so bad
// packets reach the decoder) and the element decoder configured by `cfg`,
// over a program image made of the trace's first 256 bytes at 0x1000 and
// 0x8000 (A64 or A32/T32, as the trace's context says); `limit` is the
// largest valid element index.
inline void DecodeChecked(const mabutrace::ete::EteConfig& cfg, const uint8_t* trace, size_t size, uint64_t limit) {
  struct State : Checks {
    mabutrace::ete_decode::EteElementDecoder* dec = nullptr;
  } s;
  s.limit = limit;
  const size_t img_len = size > 256 ? 256 : size;
  mabutrace::armisa::MemoryImage image;
  std::string err;
  image.AddRegion(0x1000, trace, img_len, mabutrace::armisa::kMemAny, &err);
  image.AddRegion(0x8000, trace, img_len, mabutrace::armisa::kMemAny, &err);
  mabutrace::ete_decode::EteElementDecoder dec(
      cfg, &image, [](void* c, const mabutrace::ete_decode::EteElement& e) { CheckElement(static_cast<State*>(c), e); },
      &s, [](void*, uint64_t, const std::string& m) { CheckError(m); }, /*cache_log2=*/6);
  s.dec = &dec;
  mabutrace::ete::EtePacketProcessor proc(
      cfg, [](void* c, const mabutrace::ete::EtePacket& p) { static_cast<State*>(c)->dec->OnPacket(p); }, &s, nullptr,
      mabutrace::ete::ErrorPolicy::kOpenCsd);
  proc.Push(0, trace, size);
  proc.Finish();
  dec.Finish();
}

}  // namespace mabutrace_fuzz

#endif  // MABUTRACE_FUZZ_ETE_FUZZ_ELEMENT_CHECKS_H
