// SPDX-License-Identifier: MIT
// etm3_packets_fuzz: libFuzzer target for the ETMv3 packet processor and
// element decoder (host/etm3), raw or behind CoreSight frames, issue 15.
//
// Input layout: byte 0 selects the configuration: bit 0 cycle-accurate,
// bit 1 data value trace, bit 2 data address trace, bit 3 alternative
// branch encoding (ETMv3.5 with ETMIDR bit 20), bits [5:4] context ID size,
// bit 6 the buffer format (source_data / coresight, trace ID 0x10), bit 7
// the error policy plus one-byte pushes; the rest is the trace. The packets
// feed an element decoder over a 64-byte A32/T32 program at 0xc0000000.
// Invariants: every packet has 1..kMaxPacketBytes bytes, its index lies in
// the input, its text and JSON renderings work, and so do the elements';
// ASan/UBSan catch the rest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "etm3/etm3_element_decoder.h"
#include "etm3/etm3_packet_text.h"
#include "etm3/etm3_source.h"

namespace {

struct Ctx {
  size_t size = 0;
  mabutrace::etm3::Etm3ElementDecoder* dec = nullptr;
};

void OnPacket(void* c, size_t, const mabutrace::etm3::Etm3Packet& p) {
  auto* ctx = static_cast<Ctx*>(c);
  if (p.size == 0 || p.size > mabutrace::etm3::Etm3PacketProcessor::kMaxPacketBytes) abort();
  if (p.index >= ctx->size) abort();
  std::string s;
  mabutrace::etm3::FormatLine(p, &s);
  mabutrace::etm3::FormatJson(p, "fuzz", &s);
  ctx->dec->OnPacket(p);
}

void OnElement(void*, const mabutrace::ete_decode::EteElement& e) {
  std::string s;
  mabutrace::ete_decode::FormatElementLine(e, &s);
  mabutrace::ete_decode::FormatElementJson(e, "fuzz", &s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  ++data;
  --size;
  using namespace mabutrace;
  etm3::Etm3Config cfg;
  cfg.etmcr = 0x10000000u | ((sel & 1) ? 0x1000u : 0) | ((sel & 2) ? 0x4u : 0) | ((sel & 4) ? 0x8u : 0) |
              (static_cast<uint32_t>((sel >> 4) & 3) << 14);
  cfg.etmidr = (sel & 8) ? 0x411CF250 : 0x410CF250;
  cfg.etmccer = 0x344008F2;
  cfg.etmtraceidr = 0x10;
  static const armisa::MemoryImage* image = [] {
    auto* img = new armisa::MemoryImage;
    // NOP, B, BX LR, BL; T32: CBZ, B.N, POP {pc}, BX LR
    const uint8_t code[] = {0x00, 0xF0, 0x20, 0xE3, 0x01, 0x00, 0x00, 0xEA, 0x1E, 0xFF, 0x2F, 0xE1,
                            0xFE, 0xFF, 0xFF, 0xEB, 0x08, 0xB1, 0xFE, 0xE7, 0x00, 0xBD, 0x70, 0x47};
    std::string error;
    img->AddRegion(0xc0000000, code, sizeof code, armisa::kMemAny, &error);
    return img;
  }();
  Ctx ctx;
  ctx.size = size;
  etm3::Etm3ElementDecoder dec(cfg, image, &OnElement, nullptr);
  ctx.dec = &dec;
  const auto format = (sel & 64) ? snapshot::BufferFormat::kCoresight : snapshot::BufferFormat::kSourceData;
  const auto policy = (sel & 128) ? etm3::ErrorPolicy::kOpenCsd : etm3::ErrorPolicy::kResync;
  etm3::Etm3BufferDecoder buf(format, {{"fuzz", cfg}}, &OnPacket, nullptr, &ctx, policy);
  const size_t step = (sel & 128) ? 1 : (size ? size : 1);
  for (size_t at = 0; at < size; at += step) buf.Push(data + at, step < size - at ? step : size - at);
  buf.Finish();
  dec.Finish();
  return 0;
}
