// SPDX-License-Identifier: MIT
// etm3_elements_test.cpp: the ETMv3 element decoder on hand-made packet
// streams over a small A32 program: one range per atom, direct branches
// followed, an indirect branch waiting for its branch address
// (ADDR_UNKNOWN once), EXCEPTION_EXIT holding back the range before it, a
// branch with exception "cancel" dropping the held range, and a bad packet
// giving an error at its byte and NO_SYNC until the next A-sync + I-sync.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "etm3/etm3_element_decoder.h"
#include "etm3_test_util.h"

namespace mabutrace::etm3 {
namespace {

using ete_decode::ElemType;
using ete_decode::EteElement;
using test::Bytes;

struct Out {
  std::vector<EteElement> elements;
  std::vector<std::pair<uint64_t, std::string>> errors;
};

Out Decode(const Etm3Config& cfg, const armisa::MemoryImage& image, const Bytes& in) {
  Out out;
  Etm3ElementDecoder dec(
      cfg, &image, [](void* c, const EteElement& e) { static_cast<Out*>(c)->elements.push_back(e); }, &out,
      [](void* c, uint64_t i, const std::string& m) {
        static_cast<Out*>(c)->errors.push_back({i, m});
      });
  Etm3PacketProcessor proc(
      cfg, [](void* c, const Etm3Packet& p) { static_cast<Etm3ElementDecoder*>(c)->OnPacket(p); }, &dec, nullptr,
      ErrorPolicy::kOpenCsd);
  proc.Push(0, in.data(), in.size());
  proc.Finish();
  dec.Finish();
  return out;
}

// 0x1000 NOP; 0x1004 B 0x1010; 0x1008 NOP; 0x100c NOP; 0x1010 BX LR
armisa::MemoryImage Program() {
  const uint32_t words[] = {0xE320F000, 0xEA000001, 0xE320F000, 0xE320F000, 0xE12FFF1E};
  uint8_t bytes[sizeof words];
  for (size_t i = 0; i < 5; ++i)
    for (int k = 0; k < 4; ++k) bytes[i * 4 + k] = static_cast<uint8_t>(words[i] >> (8 * k));
  armisa::MemoryImage img;
  std::string error;
  EXPECT_TRUE(img.AddRegion(0x1000, bytes, sizeof bytes, armisa::kMemAny, &error)) << error;
  return img;
}

const Bytes kIsyncArm1000 = {0x08, 0x00, 0x00, 0x10, 0x00, 0x00};  // periodic, S, ARM, 0x1000

std::vector<ElemType> Types(const Out& o) {
  std::vector<ElemType> t;
  for (const EteElement& e : o.elements) t.push_back(e.type);
  return t;
}

TEST(Etm3Elements, AtomsBranchesCancelAndExceptionReturn) {
  const Etm3Config cfg = test::Config(0x10000860);  // not cycle-accurate
  const armisa::MemoryImage img = Program();
  Bytes in = test::kAsync;
  in.insert(in.end(), kIsyncArm1000.begin(), kIsyncArm1000.end());
  const Bytes body = {
      0x8C,                               // E E E: NOP, B (taken), BX LR (taken: address unknown)
      0x84, 0x84,                         // E, E: ADDR_UNKNOWN once
      0x01,                               // branch address 0x1000
      0x84,                               // E: NOP (held back)
      0x76,                               // exception exit: holds the NOP's range and itself
      0x84,                               // E: B (held back); the NOP and EXCEPTION_RET go out
      0x81, 0x90, 0x80, 0x80, 0x48, 0x3C  // branch 0x1000 + exception IRQ, cancel: drops the B
  };
  in.insert(in.end(), body.begin(), body.end());
  const Out o = Decode(cfg, img, in);
  EXPECT_TRUE(o.errors.empty());
  const std::vector<ElemType> want = {ElemType::kNoSync,      ElemType::kTraceOn,    ElemType::kPeContext,
                                      ElemType::kInstrRange,  ElemType::kInstrRange, ElemType::kInstrRange,
                                      ElemType::kAddrUnknown, ElemType::kInstrRange, ElemType::kExceptionRet,
                                      ElemType::kException,   ElemType::kEoTrace};
  ASSERT_EQ(Types(o), want);
  std::vector<std::string> ranges;
  for (const EteElement& e : o.elements) {
    if (e.type != ElemType::kInstrRange) continue;
    std::string s;
    ete_decode::FormatElementOcsd(e, &s);
    ranges.push_back(s);
  }
  EXPECT_EQ(ranges[0],
            "OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1000:[0x1004] num_i(1) last_sz(4) (ISA=A32) E --- )");
  EXPECT_EQ(ranges[1],
            "OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1004:[0x1008] num_i(1) last_sz(4) (ISA=A32) E BR  )");
  EXPECT_EQ(
      ranges[2],
      "OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1010:[0x1014] num_i(1) last_sz(4) (ISA=A32) E iBR V7:impl ret)");
  EXPECT_EQ(o.elements[7].start, 0x1000u);
  EXPECT_EQ(o.elements[9].exception_number, 0xE);
  std::string ctx;
  ete_decode::FormatElementOcsd(o.elements[2], &ctx);
  EXPECT_EQ(ctx, "OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A32) S; 32-bit; )");  // no EL: ETMv3 does not say it
}

TEST(Etm3Elements, CycleAccurateRangesCarryTheirWCount) {
  const armisa::MemoryImage img = Program();
  Bytes in = test::kAsync;
  in.insert(in.end(), kIsyncArm1000.begin(), kIsyncArm1000.end());
  in.insert(in.end(), {0xbc, 0x82});  // 8 W (CYCLE_COUNT), then W E E (format 2)
  const Out o = Decode(test::Config(), img, in);
  ASSERT_EQ(o.elements.size(), 7u);
  EXPECT_EQ(o.elements[3].type, ElemType::kCycleCount);
  EXPECT_EQ(o.elements[3].cycle_count, 8u);
  EXPECT_EQ(o.elements[4].type, ElemType::kInstrRange);
  EXPECT_TRUE(o.elements[4].has_cc);
  EXPECT_EQ(o.elements[4].cycle_count, 1u);
  EXPECT_EQ(o.elements[5].cycle_count, 0u);  // the second atom of format 2 has no W
  EXPECT_EQ(o.elements[5].start, 0x1004u);
}

TEST(Etm3Elements, BadPacketGivesErrorAtItsByteThenResyncs) {
  const armisa::MemoryImage img = Program();
  Bytes in = test::kAsync;
  in.insert(in.end(), kIsyncArm1000.begin(), kIsyncArm1000.end());
  in.push_back(0x84);  // range at 0x1000
  in.push_back(0x14);  // reserved header at byte 13
  in.push_back(0x84);  // ignored: waiting for A-sync
  in.insert(in.end(), test::kAsync.begin(), test::kAsync.end());
  in.insert(in.end(), kIsyncArm1000.begin(), kIsyncArm1000.end());
  in.push_back(0x84);
  const Out o = Decode(test::Config(0x10000860), img, in);
  ASSERT_EQ(o.errors.size(), 1u);
  EXPECT_EQ(o.errors[0].first, 13u);
  EXPECT_NE(o.errors[0].second.find("byte 13"), std::string::npos) << o.errors[0].second;
  const std::vector<ElemType> want = {ElemType::kNoSync,     ElemType::kTraceOn, ElemType::kPeContext,
                                      ElemType::kNoSync,     ElemType::kTraceOn, ElemType::kPeContext,
                                      ElemType::kInstrRange, ElemType::kEoTrace};
  // the range before the bad packet was held back and is dropped with it, as in OpenCSD
  EXPECT_EQ(Types(o), want);
  EXPECT_EQ(o.elements[3].index, 14u);  // NO_SYNC at the next packet
}

}  // namespace
}  // namespace mabutrace::etm3
