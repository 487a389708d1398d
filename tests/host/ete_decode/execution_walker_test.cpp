// SPDX-License-Identifier: MIT
// execution_walker_test.cpp: committed P0 elements -> instruction ranges, the
// walker alone (execution_walker.h), on small program images.
//
// The program: test_program.h.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ete_decode/execution_walker.h"
#include "test_program.h"

namespace mabutrace::ete_decode {
namespace {

using armisa::Isa;
using Status = ExecutionWalker::Status;
using Lines = std::vector<std::string>;

struct Harness {
  armisa::MemoryImage image = test::Program();
  Lines out;
  ElementOutput output{0, &OnElement, this};
  ExecutionWalker walker;

  explicit Harness(bool return_stack = false, armisa::FollowOptions options = {})
      : walker(&image, options, return_stack, &output, 8) {
    walker.SetContext(Isa::kA64, armisa::kMemEL1N);
  }
  static void OnElement(void* c, const EteElement& e) {
    std::string s;
    FormatElementOcsd(e, &s);
    static_cast<Harness*>(c)->out.push_back(s.substr(s.find('(') + 1));  // without OCSD_GEN_TRC_ELEM_
  }
  Lines Take() {
    Lines r;
    r.swap(out);
    return r;
  }
};

TEST(ExecutionWalker, AtomsFollowDirectBranchesAndWaitAfterAnIndirectOne) {
  Harness h;
  h.walker.SetAddress(0x1000, Isa::kA64);
  EXPECT_EQ(h.walker.Atom(true, 5), Status::kOk);
  EXPECT_EQ(h.walker.Atom(true, 5), Status::kOk);
  EXPECT_EQ(h.walker.Atom(true, 5), Status::kOk);
  EXPECT_EQ(h.Take(), (Lines{"exec range=0x1000:[0x100c] num_i(3) last_sz(4) (ISA=A64) E BR  )",
                             "exec range=0x1020:[0x1028] num_i(2) last_sz(4) (ISA=A64) E BR  b+link )",
                             "exec range=0x1040:[0x1048] num_i(2) last_sz(4) (ISA=A64) E iBR A64:ret )"}));
  EXPECT_EQ(h.walker.Atom(true, 6), Status::kOk);
  EXPECT_TRUE(h.Take().empty()) << "after RET the next address must come from the trace";
  h.walker.SetAddress(0x1028, Isa::kA64);
  EXPECT_EQ(h.walker.Atom(false, 7), Status::kOk);
  EXPECT_EQ(h.Take(), (Lines{"exec range=0x1028:[0x1030] num_i(2) last_sz(4) (ISA=A64) N BR   <cond>)"}));
}

TEST(ExecutionWalker, NothingWithoutContextOrAddress) {
  Harness h;
  h.walker.Unsync();
  h.walker.SetAddress(0x1000, Isa::kA64);
  EXPECT_EQ(h.walker.Atom(true, 1), Status::kOk);
  EXPECT_TRUE(h.Take().empty()) << "no context yet";
  h.walker.SetContext(Isa::kA64, armisa::kMemEL1N);
  EXPECT_EQ(h.walker.Atom(true, 2), Status::kOk);
  EXPECT_EQ(h.Take().size(), 1u);
}

TEST(ExecutionWalker, ReturnStackGivesTheTargetOfAReturn) {
  Harness h(/*return_stack=*/true);
  h.walker.SetAddress(0x1020, Isa::kA64);
  h.walker.Atom(true, 1);   // bl 0x1040: pushes 0x1028
  h.walker.Atom(true, 2);   // ret, no address packet: pop due
  h.walker.Atom(false, 3);  // from 0x1028 to the b.eq, not taken
  const Lines got = h.Take();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2], "exec range=0x1028:[0x1030] num_i(2) last_sz(4) (ISA=A64) N BR   <cond>)");
}

TEST(ExecutionWalker, AnAddressReplacesTheReturnStackPop) {
  Harness h(true);
  h.walker.SetAddress(0x1020, Isa::kA64);
  h.walker.Atom(true, 1);
  h.walker.Atom(true, 2);
  h.Take();
  h.walker.SetAddress(0x1000, Isa::kA64);
  h.walker.Atom(true, 3);
  EXPECT_EQ(h.Take(), (Lines{"exec range=0x1000:[0x100c] num_i(3) last_sz(4) (ISA=A64) E BR  )"}));
}

TEST(ExecutionWalker, EmptyReturnStackIsReported) {
  Harness h(true);
  h.walker.SetAddress(0x1040, Isa::kA64);
  EXPECT_EQ(h.walker.Atom(true, 1), Status::kOk);  // ret: pop due, nothing pushed
  EXPECT_EQ(h.walker.Atom(true, 2), Status::kReturnStackEmpty);
}

TEST(ExecutionWalker, MissingMemoryGivesAddrNaccAndWaitsForAnAddress) {
  Harness h;
  h.walker.SetAddress(0x2000, Isa::kA64);
  EXPECT_EQ(h.walker.Atom(true, 4), Status::kOk);
  EXPECT_EQ(h.Take(), (Lines{" 0x2000; Memspace [0x2:EL1N] )"}));
  h.walker.Atom(true, 5);
  EXPECT_TRUE(h.Take().empty());
  h.walker.SetAddress(0x1040, Isa::kA64);
  h.walker.Atom(true, 6);
  EXPECT_EQ(h.Take().size(), 1u);
}

TEST(ExecutionWalker, ARangeThatDoesNotContinueTheLastOneIsABadImage) {
  Harness h;
  h.walker.SetAddress(0x1028, Isa::kA64);
  h.walker.Atom(false, 1);                 // ends at 0x1030: the next range starts there
  h.walker.SetAddress(0x1000, Isa::kA64);  // an address alone does not say otherwise
  EXPECT_EQ(h.walker.Atom(true, 2), Status::kBadImage);
  EXPECT_EQ(h.Take().size(), 1u) << "the mismatching range is not emitted";
  h.walker.Reset();  // what the decoder does: resynchronise
  h.walker.SetContext(Isa::kA64, armisa::kMemEL1N);
  h.walker.SetAddress(0x1028, Isa::kA64);
  h.walker.Atom(false, 3);
  h.walker.BreakChain();  // e.g. Trace On
  h.walker.SetAddress(0x1000, Isa::kA64);
  EXPECT_EQ(h.walker.Atom(true, 4), Status::kOk);
  EXPECT_EQ(h.Take().size(), 2u);
}

TEST(ExecutionWalker, ExceptionWalksToThePreferredReturnAddressThroughP0s) {
  Harness h;
  h.walker.SetAddress(0x100c, Isa::kA64);
  h.walker.WalkToException(0x1018, true, 5);
  EXPECT_EQ(h.Take(), (Lines{"exec range=0x100c:[0x1018] num_i(3) last_sz(4) (ISA=A64) E --- )"}));
  h.walker.SetAddress(0x1000, Isa::kA64);
  h.walker.WalkToException(0x1028, true, 6);  // through the b at 0x1008 (OpenCSD)
  EXPECT_EQ(h.Take(), (Lines{"exec range=0x1000:[0x1028] num_i(10) last_sz(4) (ISA=A64) E BR  b+link )"}));
  h.walker.WalkToException(0, false, 7);  // PE Reset: no walk
  EXPECT_TRUE(h.Take().empty());
}

TEST(ExecutionWalker, SourceAddressEndsATakenRange) {
  Harness h;
  h.walker.SetAddress(0x1000, Isa::kA64);
  h.walker.SourceAddress(0x1008, 3);
  h.walker.Atom(true, 4);  // continues at the branch target
  EXPECT_EQ(h.Take(), (Lines{"exec range=0x1000:[0x100c] num_i(3) last_sz(4) (ISA=A64) E BR  )",
                             "exec range=0x1020:[0x1028] num_i(2) last_sz(4) (ISA=A64) E BR  b+link )"}));
}

TEST(ExecutionWalker, SourceAddressCountsT32InstructionsOfBothSizes) {
  Harness h;
  h.walker.SetContext(Isa::kT32, armisa::kMemEL1N);
  h.walker.SetAddress(0x8000, Isa::kT32);
  h.walker.SourceAddress(0x8006, 1);
  EXPECT_EQ(h.Take(), (Lines{"exec range=0x8000:[0x8008] num_i(3) last_sz(2) (ISA=T32) E iBR V7:impl ret)"}));
}

TEST(ExecutionWalker, QIsARangeOnlyOnAStraightLine) {
  Harness h;
  h.walker.SetAddress(0x1000, Isa::kA64);
  h.walker.Q(2, 0x1008, Isa::kA64, 1);
  EXPECT_EQ(h.Take(), (Lines{"exec range=0x1000:[0x1008] num_i(2) last_sz(4) (ISA=A64) E --- )"}));
  h.walker.SetAddress(0x1000, Isa::kA64);
  h.walker.Q(5, 0x1040, Isa::kA64, 2);  // the b at 0x1008 comes first: no path
  EXPECT_EQ(h.Take(), (Lines{"first 0x1000:[next 0x1040] num_i(5) )"}));
  h.walker.Atom(true, 3);  // the PE is at the Q's target
  EXPECT_EQ(h.Take(), (Lines{"exec range=0x1040:[0x1048] num_i(2) last_sz(4) (ISA=A64) E iBR A64:ret )"}));
}

// A walk that hits the follower's instruction limit (here 4; from 0x100c the
// next P0 is the BL at 0x1024, 7 instructions on) must not be reported as an
// executed range: INSTR_LIMIT names where it
// started and stopped, it is counted, and the walker waits for an address.
// Mutation: treat kLimit like kNotAccessible (the old code) -> an
// "exec range=0x100c:[0x101c] num_i(4)" that never executed as such.
TEST(ExecutionWalker, WalkLimitGivesInstrLimitNotARange) {
  armisa::FollowOptions limited;
  limited.max_instructions = 4;
  Harness h(false, limited);
  h.walker.SetAddress(0x100c, Isa::kA64);
  EXPECT_EQ(h.walker.Atom(true, 5), Status::kOk);
  EXPECT_EQ(h.Take(), (Lines{"first 0x100c:[stop 0x101c] num_i(4) no P0 instruction within the walk limit)"}));
  EXPECT_EQ(h.output.stats().instr_limits, 1u);
  EXPECT_EQ(h.output.stats().ranges, 0u);
  EXPECT_EQ(h.walker.Atom(true, 6), Status::kOk);
  EXPECT_TRUE(h.Take().empty()) << "after the limit the next address must come from the trace";
  h.walker.SetAddress(0x1040, Isa::kA64);
  EXPECT_EQ(h.walker.Atom(true, 7), Status::kOk);
  EXPECT_EQ(h.Take(), (Lines{"exec range=0x1040:[0x1048] num_i(2) last_sz(4) (ISA=A64) E iBR A64:ret )"}));
}

// The same for an exception's walk to its preferred return address.
// Mutation: no kLimit case in WalkToException -> "exec range=0x100c:[0x101c]".
TEST(ExecutionWalker, ExceptionWalkLimitGivesInstrLimitNotARange) {
  armisa::FollowOptions limited;
  limited.max_instructions = 4;
  Harness h(false, limited);
  h.walker.SetAddress(0x100c, Isa::kA64);
  h.walker.WalkToException(0x1020, true, 5);
  EXPECT_EQ(h.Take(), (Lines{"first 0x100c:[stop 0x101c] num_i(4) no P0 instruction within the walk limit)"}));
  EXPECT_EQ(h.output.stats().instr_limits, 1u);
}

// A packet of 2-5 atoms is walked once and kept in the walker's memo, then
// replayed: the first walk, the replay and the same atoms one by one (the
// hop path) must give the same elements and leave the same state (the
// return-stack push, the wait after an indirect branch, ADDR_NACC; a pop
// due makes the walk not replayable).
TEST(ExecutionWalker, PacketsReplayedFromTheMemoGiveWhatTheirAtomsGiveOneByOne) {
  struct Packet {
    uint64_t address;  // SetAddress before the atoms (0: none)
    uint32_t bits;     // oldest atom in bit 0, 1 = E
    uint32_t n;
  };
  const std::vector<Packet> packets = {
      {0x1000, 0b001, 3},    // b, bl not taken, b.eq not taken
      {0x1020, 0b11, 2},     // bl (push), ret taken: waits (a pop is due with the return stack)
      {0, 0b00, 2},          // nothing, or (return stack) the pop of that push, b.eq not taken, ret not taken
      {0x1028, 0b100, 3},    // b.eq N, ret N, then unmapped memory: ADDR_NACC
      {0x1000, 0b11111, 5},  // b, bl, ret taken, then nothing or (return stack) the pop and on
  };
  for (const bool return_stack : {false, true}) {
    Harness by_packet(return_stack), by_atom(return_stack);
    const auto start = [](Harness& h, const Packet& p) {
      if (!p.address) return;
      h.walker.BreakChain();
      h.walker.SetAddress(p.address, Isa::kA64);
    };
    for (const Packet& p : packets) {
      start(by_atom, p);
      for (uint32_t i = 0; i < p.n; ++i) EXPECT_EQ(by_atom.walker.Atom((p.bits >> i) & 1, 1), Status::kOk);
    }
    const Lines one_by_one = by_atom.Take();
    for (int pass = 0; pass < 2; ++pass) {
      by_packet.walker.FlushReturnStack();  // a replay that does not push leaves the pop nothing
      for (const Packet& p : packets) {
        start(by_packet, p);
        EXPECT_EQ(by_packet.walker.Atoms(p.bits, p.n, 1), Status::kOk);
      }
      EXPECT_EQ(by_packet.Take(), one_by_one) << "return stack " << return_stack << ", pass " << pass;
    }
    EXPECT_GT(one_by_one.size(), 8u);
  }
}

}  // namespace
}  // namespace mabutrace::ete_decode
