// SPDX-License-Identifier: MIT
// ptm_packets_fuzz: libFuzzer target for the PTM packet processor behind
// each buffer format (raw, CoreSight frames, DSTREAM blocks), issue 15.
//
// Input layout: byte 0 selects the configuration: bit 0 cycle accurate,
// bits [2:1] the CONTEXTIDR size, bit 3 PFT 1.1 with 64-bit binary
// timestamps, bits [5:4] the buffer format, bit 6 the error policy, bit 7
// one-byte pushes; the rest is the trace. Invariants: every packet has
// 1..kMaxPacketBytes bytes and lies inside the buffer (index + bytes), its
// text and JSON renderings work; ASan/UBSan catch the rest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ptm/ptm_packet_text.h"
#include "ptm/ptm_source.h"

namespace {
struct Ctx {
  size_t size;
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  ++data;
  --size;
  using mabutrace::ptm::PtmConfig;
  PtmConfig cfg;
  cfg.etmcr = ((sel & 1) ? (1u << 12) : 0) | (static_cast<uint32_t>((sel >> 1) & 3) << 14);
  cfg.etmidr = (sel & 8) ? 0x411CF312 : 0x411CF301;
  cfg.etmccer = (sel & 8) ? 0x34C01AC2 : 0x000008EA;
  cfg.etmtraceidr = 0x10;
  using mabutrace::snapshot::BufferFormat;
  const BufferFormat formats[4] = {BufferFormat::kSourceData, BufferFormat::kCoresight, BufferFormat::kDstreamCoresight,
                                   BufferFormat::kCoresight};
  const auto policy = (sel & 64) ? mabutrace::ptm::ErrorPolicy::kOpenCsd : mabutrace::ptm::ErrorPolicy::kResync;
  Ctx ctx{size};
  auto on_packet = [](void* c, size_t, const mabutrace::ptm::PtmPacket& p) {
    if (p.raw_len < 1 || p.raw_len > mabutrace::ptm::PtmPacketProcessor::kMaxPacketBytes) abort();
    // Every packet lies inside the buffer (fuzz/corpus/ptm_packets_fuzz/
    // regression-*-index: a NOTSYNC run that began in an earlier push once
    // counted its held-back zeros twice).
    if (p.index + p.raw_len > static_cast<const Ctx*>(c)->size) abort();
    std::string s;
    mabutrace::ptm::FormatLine(p, &s);
    mabutrace::ptm::FormatJson(p, "fuzz", &s);
  };
  mabutrace::ptm::PtmBufferDecoder dec(formats[(sel >> 4) & 3], {{"fuzz", "PTM1.1", cfg}}, on_packet, nullptr, &ctx,
                                       policy);
  const size_t step = (sel & 128) ? 1 : size + 1;
  for (size_t i = 0; i < size; i += step) dec.Push(data + i, std::min(step, size - i));
  dec.Finish();
  return 0;
}
