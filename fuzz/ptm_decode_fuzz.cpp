// SPDX-License-Identifier: MIT
// ptm_decode_fuzz: libFuzzer target for the PTM element decoder fed by the
// real packet processor behind a raw or CoreSight-framed buffer.
//
// Input layout: byte 0 selects: bit 0 cycle accurate, bits [2:1] the
// CONTEXTIDR size, bit 3 PFT 1.1 (64-bit binary timestamps, return stack
// enabled), bit 4 DSB/DMB waypoints, bit 5 CoreSight frames (else raw), bit
// 6 one-byte pushes; the rest is the trace (ErrorPolicy::kOpenCsd, so bad
// packets reach the decoder), and its first 256 bytes are also a program
// image at 0x1000 and at 0x8000 (read as A32 or T32, as the trace says), in
// both security states. Invariants: element indexes stay inside the input,
// executed
// ranges are non-empty with at most (end - start) / 2 instructions, every
// element renders as text and JSON, EO_TRACE comes once and last; ASan/UBSan
// catch the rest.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ptm/ptm_element_decoder.h"
#include "ptm/ptm_source.h"

namespace {

struct State {
  size_t size;
  bool ended = false;
  mabutrace::ptm::PtmElementDecoder* dec = nullptr;
};

void CheckElement(State* s, const mabutrace::ete_decode::EteElement& e) {
  using mabutrace::ete_decode::ElemType;
  if (s->ended) abort();  // nothing after EO_TRACE
  // Also NO_SYNC and EO_TRACE, which take the index of whatever packet is
  // there: a NOTSYNC run's index once ran past the input (the packet
  // layer's; corpus regression-notsync-index-eotrace).
  if (e.index >= s->size) abort();
  if (e.type == ElemType::kInstrRange) {
    if (e.num_instr == 0) abort();
    if (e.end > e.start && e.num_instr > (e.end - e.start) / 2) abort();
  }
  if (e.type == ElemType::kEoTrace) s->ended = true;
  std::string t;
  mabutrace::ete_decode::FormatElementLine(e, &t);
  mabutrace::ete_decode::FormatElementJson(e, "fuzz", &t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t sel = data[0];
  ++data;
  --size;
  using mabutrace::ptm::PtmConfig;
  PtmConfig cfg;
  const bool v11 = sel & 8;
  cfg.etmcr = ((sel & 1) ? (1u << 12) : 0) | (static_cast<uint32_t>((sel >> 1) & 3) << 14) | (v11 ? (1u << 29) : 0);
  cfg.etmidr = v11 ? 0x411CF312 : 0x411CF301;
  cfg.etmccer = (v11 ? 0x34C01AC2 : 0x000008EA) | ((sel & 16) ? (1u << 24) : 0);
  cfg.etmtraceidr = 0x10;
  mabutrace::armisa::MemoryImage image;
  std::string err;
  const size_t img_len = std::min<size_t>(size, 256);
  image.AddRegion(0x1000, data, img_len, mabutrace::armisa::kMemAny, &err);
  image.AddRegion(0x8000, data, img_len, mabutrace::armisa::kMemAny, &err);
  State st{size};
  mabutrace::ptm::PtmElementDecoder dec(
      cfg, &image, [](void* c, const mabutrace::ete_decode::EteElement& e) { CheckElement(static_cast<State*>(c), e); },
      &st,
      [](void*, uint64_t, const std::string& m) {
        if (m.empty()) abort();
      });
  st.dec = &dec;
  using mabutrace::snapshot::BufferFormat;
  mabutrace::ptm::PtmBufferDecoder packets(
      (sel & 32) ? BufferFormat::kCoresight : BufferFormat::kSourceData, {{"fuzz", "PTM1.1", cfg}},
      [](void* c, size_t, const mabutrace::ptm::PtmPacket& p) { static_cast<State*>(c)->dec->OnPacket(p); }, nullptr,
      &st, mabutrace::ptm::ErrorPolicy::kOpenCsd);
  const size_t step = (sel & 64) ? 1 : size + 1;
  for (size_t i = 0; i < size; i += step) packets.Push(data + i, std::min(step, size - i));
  packets.Finish();
  dec.Finish();
  if (!st.ended) abort();
  return 0;
}
