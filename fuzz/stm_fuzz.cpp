// SPDX-License-Identifier: MIT
// stm_fuzz.cpp: libFuzzer target for the STM layers: CoreSight/TWP frames
// -> STPv2 packets -> STM messages -> CP_Tracer messages (default layout).
// Invariants: no crash, no hang, no read outside the input (ASan/UBSan);
// every packet's raw bytes are bounded; offsets never exceed the input.
// (CP_Tracer layer only when host/cptracer is built.) Byte 0 picks the mode (bit0: framed with
// trace ID from byte 1, else raw STP) and the block size (bits 4..7) so that block boundaries are
// fuzzed. Build: clang, -DMABUTRACE_FUZZ=ON; run: ./stm_fuzz fuzz/corpus/stm_fuzz
#include <stddef.h>
#include <stdint.h>

#include <cstdlib>

#include "stm_capture.h"
#include "stm_messages.h"
#if MABUTRACE_STM_FUZZ_CPTRACER
#include "messages.h"
#endif

namespace {

using namespace mabutrace;

#if MABUTRACE_STM_FUZZ_CPTRACER
struct Sink final : stm::StpPacketSink, cptracer::TracerMessageSink {
  explicit Sink(uint64_t limit) : tracer(cptracer::DefaultLayout(), this), md(&tracer), limit(limit) {}
  void OnPacket(const stm::StpPacket& p) override {
    if (p.raw.size() > limit || p.offset > limit) std::abort();
    md.OnPacket(p);
  }
  void OnTracerMessage(const cptracer::TracerMessage& m) override {
    if (m.words.size() > 16) std::abort();
  }
  void Finish() { tracer.Finish(); }
  cptracer::TracerDecoder tracer;
  stm::StmMessageDecoder md;
  uint64_t limit;
};
#else
struct Sink final : stm::StpPacketSink, stm::StmMessageSink {
  explicit Sink(uint64_t limit) : md(this), limit(limit) {}
  void OnPacket(const stm::StpPacket& p) override {
    if (p.raw.size() > limit || p.offset > limit) std::abort();
    md.OnPacket(p);
  }
  void OnMessage(const stm::StmMessage& m) override {
    if (m.size_bits > 64) std::abort();
  }
  void Finish() {}
  stm::StmMessageDecoder md;
  uint64_t limit;
};
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const bool framed = data[0] & 1;
  const size_t block = 1 + (data[0] >> 4);
  const uint8_t id = data[1] & 0x7F;
  data += 2;
  size -= 2;
  Sink sink(size + 16);
  stm::StpDecoder dec(&sink);
  if (framed) {
    std::vector<std::string> warnings;
    stm::FeedBytes(data, size, true, id, &dec, &warnings);
  } else {
    for (size_t at = 0; at < size; at += block) dec.Push(at, data + at, size - at < block ? size - at : block);
    dec.Finish();
  }
  sink.Finish();
  return 0;
}
