// SPDX-License-Identifier: MIT
// ptm_elements_test.cpp: the PTM element decoder's rules on hand-made
// packets over a tiny program image: an atom walks to the next waypoint
// (taken direct branch -> its target, N -> the next instruction), a branch
// address with an exception gives EXCEPTION at the current address instead
// of a range, an I-sync's ISA change gives PE_CONTEXT and switches the walk
// to T32, a bad packet gives an error with its byte index, NO_SYNC and a
// wait for A-sync then I-sync, and code missing from the image gives
// ADDR_NACC.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ptm/ptm_element_decoder.h"

namespace mabutrace::ptm {
namespace {

struct Out {
  std::vector<std::string> lines;
  std::vector<uint64_t> error_index;
};

void Put32(std::vector<uint8_t>* v, uint32_t w) {
  for (int i = 0; i < 4; ++i) v->push_back(static_cast<uint8_t>(w >> (8 * i)));
}

class PtmElements : public ::testing::Test {
 protected:
  PtmElements() {
    // A32 at 0x1000: nop, nop, b 0x2000
    std::vector<uint8_t> a;
    Put32(&a, 0xE1A00000);
    Put32(&a, 0xE1A00000);
    Put32(&a, 0xEA0003FC);
    // A32 at 0x2000: nop, beq 0x1000, bx lr
    std::vector<uint8_t> b;
    Put32(&b, 0xE1A00000);
    Put32(&b, 0x0AFFFBFC);
    Put32(&b, 0xE12FFF1E);
    // T32 at 0x3000: nop (16-bit), nop, b.n 0x3000
    std::vector<uint8_t> t = {0x00, 0xBF, 0x00, 0xBF, 0xFC, 0xE7};
    std::string err;
    image_.AddRegion(0x1000, a.data(), a.size(), armisa::kMemAny, &err);
    image_.AddRegion(0x2000, b.data(), b.size(), armisa::kMemAny, &err);
    image_.AddRegion(0x3000, t.data(), t.size(), armisa::kMemAny, &err);
    config_.etmcr = 0;
    config_.etmtraceidr = 0x10;
  }

  void Run(const std::vector<PtmPacket>& packets) {
    PtmElementDecoder dec(
        config_, &image_,
        [](void* c, const ete_decode::EteElement& e) {
          std::string s;
          ete_decode::FormatElementLine(e, &s);
          while (!s.empty() && s.back() == ' ') s.pop_back();
          static_cast<Out*>(c)->lines.push_back(s);
        },
        &out_, [](void* c, uint64_t index, const std::string&) { static_cast<Out*>(c)->error_index.push_back(index); });
    for (const PtmPacket& p : packets) dec.OnPacket(p);
    dec.Finish();
  }

  static PtmPacket Pkt(PtmPacketType type, uint64_t index) {
    PtmPacket p;
    p.type = type;
    p.index = index;
    p.isa = PtmIsa::kArm;
    p.prev_isa = PtmIsa::kArm;
    return p;
  }
  static PtmPacket Isync(uint64_t index, uint32_t addr, PtmIsa isa, PtmIsa prev, uint8_t reason = 1) {
    PtmPacket p = Pkt(PtmPacketType::kIsync, index);
    p.addr = addr;
    p.isa = isa;
    p.prev_isa = prev;
    p.isync_reason = reason;
    return p;
  }
  static PtmPacket Atoms(uint64_t index, uint8_t count, uint8_t bits, PtmIsa isa = PtmIsa::kArm) {
    PtmPacket p = Pkt(PtmPacketType::kAtom, index);
    p.atom_count = count;
    p.atom_bits = bits;
    p.isa = p.prev_isa = isa;
    return p;
  }

  armisa::MemoryImage image_;
  PtmConfig config_;
  Out out_;
};

TEST_F(PtmElements, AtomsWalkToTheNextWaypoint) {
  // E: 0x1000..0x100c ends at the taken b -> 0x2000; N: beq not taken ->
  // 0x2008; E: bx lr taken, an indirect branch: the address is unknown, so
  // the fourth atom gives nothing.
  Run({Pkt(PtmPacketType::kAsync, 0), Isync(6, 0x1000, PtmIsa::kArm, PtmIsa::kUnknown), Atoms(12, 4, 0b1101)});
  const std::vector<std::string> want = {
      "Idx:0; ID:10; OCSD_GEN_TRC_ELEM_NO_SYNC( [init-decoder])",
      "Idx:6; ID:10; OCSD_GEN_TRC_ELEM_TRACE_ON( [begin or filter])",
      "Idx:6; ID:10; OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A32) S; 32-bit; )",
      "Idx:12; ID:10; OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1000:[0x100c] num_i(3) last_sz(4) (ISA=A32) E BR  )",
      "Idx:12; ID:10; OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x2000:[0x2008] num_i(2) last_sz(4) (ISA=A32) N BR   "
      "<cond>)",
      "Idx:12; ID:10; OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x2008:[0x200c] num_i(1) last_sz(4) (ISA=A32) E iBR "
      "V7:impl ret)",
      "Idx:12; ID:10; OCSD_GEN_TRC_ELEM_EO_TRACE( [end-of-trace])",
  };
  EXPECT_EQ(out_.lines, want);
}

TEST_F(PtmElements, ExceptionInABranchAddressReplacesTheRange) {
  PtmPacket exc = Pkt(PtmPacketType::kBranchAddress, 12);
  exc.has_exception = true;
  exc.exception_number = 5;
  exc.addr = 0x2000;
  PtmPacket br = Pkt(PtmPacketType::kBranchAddress, 20);  // implies E on the waypoint at 0x2004
  br.addr = 0x1000;
  Run({Pkt(PtmPacketType::kAsync, 0), Isync(6, 0x1000, PtmIsa::kArm, PtmIsa::kUnknown), exc, br});
  ASSERT_EQ(out_.lines.size(), 6u);
  EXPECT_EQ(out_.lines[3], "Idx:12; ID:10; OCSD_GEN_TRC_ELEM_EXCEPTION(pref ret addr:0x1000; excep num (0x05) )");
  EXPECT_EQ(out_.lines[4],
            "Idx:20; ID:10; OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x2000:[0x2008] num_i(2) last_sz(4) (ISA=A32) E "
            "BR   <cond>)");
}

TEST_F(PtmElements, IsyncIsaChangeGivesPeContextAndWalksT32) {
  Run({Pkt(PtmPacketType::kAsync, 0), Isync(6, 0x1000, PtmIsa::kArm, PtmIsa::kUnknown),
       Isync(12, 0x3000, PtmIsa::kThumb2, PtmIsa::kArm, 0), Atoms(18, 1, 1, PtmIsa::kThumb2)});
  const std::vector<std::string> want = {
      "Idx:0; ID:10; OCSD_GEN_TRC_ELEM_NO_SYNC( [init-decoder])",
      "Idx:6; ID:10; OCSD_GEN_TRC_ELEM_TRACE_ON( [begin or filter])",
      "Idx:6; ID:10; OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A32) S; 32-bit; )",
      // periodic I-sync: no TRACE_ON, and (OpenCSD) no PE_CONTEXT either;
      // the walk still switches to T32
      "Idx:18; ID:10; OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x3000:[0x3006] num_i(3) last_sz(2) (ISA=T32) E BR  )",
      "Idx:18; ID:10; OCSD_GEN_TRC_ELEM_EO_TRACE( [end-of-trace])",
  };
  EXPECT_EQ(out_.lines, want);
  out_ = {};
  Run({Pkt(PtmPacketType::kAsync, 0), Isync(6, 0x1000, PtmIsa::kArm, PtmIsa::kUnknown),
       Isync(12, 0x3000, PtmIsa::kThumb2, PtmIsa::kArm, 1)});
  ASSERT_EQ(out_.lines.size(), 6u);
  EXPECT_EQ(out_.lines[3], "Idx:12; ID:10; OCSD_GEN_TRC_ELEM_TRACE_ON( [begin or filter])");
  EXPECT_EQ(out_.lines[4], "Idx:12; ID:10; OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=T32) S; 32-bit; )");
}

TEST_F(PtmElements, BadPacketResynchronisesAtASyncThenIsync) {
  Run({Pkt(PtmPacketType::kAsync, 0), Isync(6, 0x1000, PtmIsa::kArm, PtmIsa::kUnknown),
       Pkt(PtmPacketType::kReserved, 12), Atoms(13, 1, 1), Isync(14, 0x2000, PtmIsa::kArm, PtmIsa::kArm, 0),
       Pkt(PtmPacketType::kAsync, 20), Atoms(26, 1, 1),
       // periodic, but the first after the resync: TRACE_ON
       Isync(27, 0x2000, PtmIsa::kArm, PtmIsa::kArm, 0), Atoms(33, 1, 0)});
  EXPECT_EQ(out_.error_index, std::vector<uint64_t>{12});
  const std::vector<std::string> want = {
      "Idx:0; ID:10; OCSD_GEN_TRC_ELEM_NO_SYNC( [init-decoder])",
      "Idx:6; ID:10; OCSD_GEN_TRC_ELEM_TRACE_ON( [begin or filter])",
      "Idx:6; ID:10; OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A32) S; 32-bit; )",
      "Idx:12; ID:10; OCSD_GEN_TRC_ELEM_NO_SYNC( [bad-packet])",
      "Idx:27; ID:10; OCSD_GEN_TRC_ELEM_TRACE_ON( [begin or filter])",
      "Idx:33; ID:10; OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x2000:[0x2008] num_i(2) last_sz(4) (ISA=A32) N BR   "
      "<cond>)",
      "Idx:33; ID:10; OCSD_GEN_TRC_ELEM_EO_TRACE( [end-of-trace])",
  };
  EXPECT_EQ(out_.lines, want);
}

TEST_F(PtmElements, MissingCodeGivesAddrNaccAndWaitsForAnAddress) {
  // Nothing at 0x5000: ADDR_NACC, and the second atom has no address.
  Run({Pkt(PtmPacketType::kAsync, 0), Isync(6, 0x5000, PtmIsa::kArm, PtmIsa::kUnknown), Atoms(12, 2, 0b11)});
  ASSERT_EQ(out_.lines.size(), 5u);
  EXPECT_EQ(out_.lines[3], "Idx:12; ID:10; OCSD_GEN_TRC_ELEM_ADDR_NACC( 0x5000; Memspace [0x19:Any S] )");
}

}  // namespace
}  // namespace mabutrace::ptm
