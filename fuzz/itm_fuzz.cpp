// SPDX-License-Identifier: MIT
// itm_fuzz.cpp: libFuzzer target for the ITM layers: (CoreSight frames ->)
// ITM packets -> elements -> timeline (Chrome JSON into a counting sink),
// and the raw SWO start search. Byte 0 selects: bit0 CoreSight frames (trace
// ID from byte 1, else raw ITM), bit1 first-header sync (raw SWO) instead of
// waiting for an A-Sync, bit2 TSPrescale /64 with SWOENA, bits 4..7 the block
// size (1-16) so that block boundaries are fuzzed.
// Invariants: no crash, no hang, no read outside the input (ASan/UBSan);
// every packet's raw bytes are bounded and lie in the input; offsets never
// exceed the input; payload sizes are 0-5.
// Build: clang, -DMABUTRACE_FUZZ=ON; run: ./itm_fuzz fuzz/corpus/itm_fuzz
#include <stddef.h>
#include <stdint.h>

#include <cstdlib>
#include <string>

#include "itm/itm_element.h"
#include "itm/itm_packet_processor.h"
#include "itm/itm_session.h"
#include "itm/itm_timeline.h"
#include "json_writer.h"

namespace {

using namespace mabutrace;

struct Sink final : itm::SessionSink {
  Sink(itm::ItmTimeline* t, uint64_t limit) : t(t), limit(limit) {}
  void OnPacket(size_t, const itm::ItmPacket& p) override {
    if (p.raw_size > limit || p.index > limit || p.size > 5) std::abort();
  }
  void OnElement(size_t s, const itm::ItmElement& e) override {
    if (e.index > limit || e.size > 4) std::abort();
    t->OnElement(s, e);
  }
  void OnError(size_t, uint64_t offset, const std::string&) override {
    if (offset > limit) std::abort();
  }
  itm::ItmTimeline* t;
  uint64_t limit;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t sel = data[0];
  const uint8_t id = data[1] & 0x7F;
  data += 2;
  size -= 2;
  if (itm::FindSwoStart(data, size) > size) std::abort();
  itm::ItmInput in;
  in.kind = (sel & 2) ? "swo" : "snapshot";
  in.format = (sel & 1) ? snapshot::BufferFormat::kCoresight : snapshot::BufferFormat::kSourceData;
  itm::ItmSource src;
  src.name = "ITM";
  src.config = itm::ItmConfig::FromTcr((sel & 4) ? 0x0312u : 0x2u);
  src.trace_id = id;
  in.sources.push_back(src);
  uint64_t bytes = 0;
  exporter::JsonWriter writer([&bytes](const char*, size_t n) {
    bytes += n;
    return true;
  });
  itm::TimelineOptions topt;
  topt.ports[1] = itm::PortMapping{itm::PortMapping::Kind::kCounter, "c"};
  topt.ports[0] = itm::PortMapping{itm::PortMapping::Kind::kText, "t"};
  topt.clock_hz = (sel & 8) ? 48e6 : 0;
  itm::ItmTimeline timeline(&writer, topt, {"ITM"});
  Sink sink(&timeline, size);
  itm::SessionOptions opt;
  opt.sync = (sel & 2) ? itm::Sync::kFirstHeader : itm::Sync::kAsync;
  if (sel & 1) {
    itm::DecodeItmBytes(in, opt, data, size, &sink);
  } else {
    // Raw: the packet layer alone in blocks of (sel >> 4) + 1 bytes, then
    // the session (which pushes 1 KiB blocks) for the elements and timeline.
    struct Count final : itm::PacketSink {
      explicit Count(uint64_t l) : limit(l) {}
      void OnPacket(const itm::ItmPacket& p) override {
        if (p.raw_size > limit || p.index > limit) std::abort();
      }
      void OnError(uint64_t o, const std::string&) override {
        if (o > limit) std::abort();
      }
      uint64_t limit;
    } count(size);
    itm::PacketProcessor pp(itm::ProcessorOptions{id, !(sel & 2)}, &count);
    const size_t block = 1 + (sel >> 4);
    for (size_t at = 0; at < size; at += block) pp.Push(at, data + at, size - at < block ? size - at : block);
    pp.Finish();
    itm::DecodeItmBytes(in, opt, data, size, &sink);
  }
  timeline.Finish();
  return 0;
}
