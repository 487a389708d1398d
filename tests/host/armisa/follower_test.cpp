// SPDX-License-Identifier: MIT
// follower_test.cpp: the follower on small hand-made images (A64, A32,
// T32 with IT blocks), missing memory, stop addresses, limits and cache.
// Opcodes are from GNU as (see classify_test.cpp).
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "follower.h"

namespace mabutrace::armisa {
namespace {

std::vector<uint8_t> Le32(std::initializer_list<uint32_t> words) {
  std::vector<uint8_t> out;
  for (uint32_t w : words)
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(w >> (8 * i)));
  return out;
}
std::vector<uint8_t> Le16(std::initializer_list<uint16_t> halves) {
  std::vector<uint8_t> out;
  for (uint16_t h : halves) {
    out.push_back(static_cast<uint8_t>(h));
    out.push_back(static_cast<uint8_t>(h >> 8));
  }
  return out;
}

constexpr uint32_t kNop = 0xd503201f, kAdd = 0x8b020020, kBeq = 0x54000200 /* b.eq .+0x40 */, kRet = 0xd65f03c0,
                   kBl = 0x94000400 /* bl .+0x1000 */;

class FollowerA64 : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    const auto code = Le32({kNop, kAdd, kBeq, kNop, kBl, kNop, kNop, kNop});
    ASSERT_TRUE(image_.AddRegion(0x80000, code.data(), code.size(), kMemAny, &error)) << error;
  }
  MemoryImage image_;
};

TEST_F(FollowerA64, StopsAtFirstP0AndCaches) {
  InstrFollower f(&image_);
  WalkResult w = f.FindNextP0(0x80000, Isa::kA64);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.start, 0x80000u);
  EXPECT_EQ(w.last_address, 0x80008u);
  EXPECT_EQ(w.end, 0x8000cu);
  EXPECT_EQ(w.num_instr, 3u);
  EXPECT_EQ(w.opcode, kBeq);
  EXPECT_EQ(w.info.type, InstrType::kBranch);
  EXPECT_TRUE(w.info.is_conditional);
  EXPECT_EQ(w.info.target, 0x80048u);
  // The N path: continue after the branch.
  w = f.FindNextP0(w.end, Isa::kA64);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.num_instr, 2u);
  EXPECT_EQ(w.info.subtype, InstrSubtype::kBrLink);
  EXPECT_EQ(f.stats().hits, 0u);
  const WalkResult again = f.FindNextP0(0x80000, Isa::kA64);
  EXPECT_EQ(f.stats().hits, 1u);
  EXPECT_EQ(again.end, 0x8000cu);
  EXPECT_EQ(again.num_instr, 3u);
  EXPECT_EQ(f.stats().instructions_walked, 5u);
  f.InvalidateCache();
  f.FindNextP0(0x80000, Isa::kA64);
  EXPECT_EQ(f.stats().hits, 1u);
}

TEST_F(FollowerA64, P0AtStartCountsOne) {
  InstrFollower f(&image_);
  const WalkResult w = f.FindNextP0(0x80008, Isa::kA64);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.num_instr, 1u);
  EXPECT_EQ(w.end, 0x8000cu);
}

TEST_F(FollowerA64, MissingMemoryNamesTheAddress) {
  InstrFollower f(&image_);
  // Runs off the end of the region after three NOPs.
  WalkResult w = f.FindNextP0(0x80014, Isa::kA64);
  EXPECT_EQ(w.status, WalkStatus::kNotAccessible);
  EXPECT_EQ(w.end, 0x80020u);
  EXPECT_EQ(w.num_instr, 3u);
  EXPECT_EQ(w.last_address, 0x8001cu);
  EXPECT_EQ(WalkStatusName(w.status), "address not accessible");
  // Starts in unmapped memory.
  w = f.FindNextP0(0x90000, Isa::kA64);
  EXPECT_EQ(w.status, WalkStatus::kNotAccessible);
  EXPECT_EQ(w.end, 0x90000u);
  EXPECT_EQ(w.num_instr, 0u);
}

TEST_F(FollowerA64, WalkToStopsBeforeTheStopAddress) {
  InstrFollower f(&image_);
  WalkResult w = f.WalkTo(0x80000, Isa::kA64, 0x80008);
  EXPECT_EQ(w.status, WalkStatus::kStopReached);
  EXPECT_EQ(w.num_instr, 2u);
  EXPECT_EQ(w.end, 0x80008u);
  w = f.WalkTo(0x80000, Isa::kA64, 0x80010);  // a P0 comes first
  EXPECT_EQ(w.status, WalkStatus::kP0);
  EXPECT_EQ(w.end, 0x8000cu);
  w = f.WalkTo(0x80000, Isa::kA64, 0x80000);  // nothing to walk
  EXPECT_EQ(w.status, WalkStatus::kStopReached);
  EXPECT_EQ(w.num_instr, 0u);
}

TEST_F(FollowerA64, InstructionLimit) {
  FollowOptions options;
  options.max_instructions = 2;
  InstrFollower f(&image_, options);
  const WalkResult w = f.FindNextP0(0x80000, Isa::kA64);
  EXPECT_EQ(w.status, WalkStatus::kLimit);
  EXPECT_EQ(w.num_instr, 2u);
  EXPECT_EQ(w.end, 0x80008u);
}

TEST(Follower, InstructionAcrossAdjacentRegions) {
  MemoryImage image;
  std::string error;
  const auto code = Le32({kNop, kNop, kRet});
  ASSERT_TRUE(image.AddRegion(0x1000, code.data(), 6, kMemAny, &error));  // ends mid-instruction
  ASSERT_TRUE(image.AddRegion(0x1006, code.data() + 6, 6, kMemAny, &error));
  InstrFollower f(&image);
  const WalkResult w = f.FindNextP0(0x1000, Isa::kA64);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.num_instr, 3u);
  EXPECT_EQ(w.info.subtype, InstrSubtype::kV8Ret);
}

TEST(Follower, MemorySpaceIsPartOfTheKey) {
  MemoryImage image;
  std::string error;
  const auto el1 = Le32({kNop, kRet});
  const auto el2 = Le32({kRet});
  ASSERT_TRUE(image.AddRegion(0x4000, el1.data(), el1.size(), kMemEL1N, &error));
  ASSERT_TRUE(image.AddRegion(0x4000, el2.data(), el2.size(), kMemEL2N, &error));
  InstrFollower f(&image);
  EXPECT_EQ(f.FindNextP0(0x4000, Isa::kA64, kMemEL1N).num_instr, 2u);
  EXPECT_EQ(f.FindNextP0(0x4000, Isa::kA64, kMemEL2N).num_instr, 1u);
  EXPECT_EQ(f.FindNextP0(0x4000, Isa::kA64, kMemEL3).status, WalkStatus::kNotAccessible);
  EXPECT_EQ(f.FindNextP0(0x4000, Isa::kA64, kMemEL1N).num_instr, 2u);
}

TEST(Follower, A32) {
  MemoryImage image;
  std::string error;
  // mov r0, r1; ldr r0, [pc, #8]; pop {r4, r5, r6, pc}
  const auto code = Le32({0xe1a00001, 0xe59f0008, 0xe8bd8070});
  ASSERT_TRUE(image.AddRegion(0x1aa93c, code.data(), code.size(), kMemAny, &error));
  InstrFollower f(&image);
  const WalkResult w = f.FindNextP0(0x1aa93c, Isa::kA32);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.isa, Isa::kA32);
  EXPECT_EQ(w.num_instr, 3u);
  EXPECT_EQ(w.end, 0x1aa948u);
  EXPECT_EQ(w.info.subtype, InstrSubtype::kV7ImpliedRet);
  // AArch32 addresses are 32-bit.
  EXPECT_EQ(f.FindNextP0(0x1'001aa93cull, Isa::kA32).end, 0x1aa948u);
}

TEST(Follower, T32MixedWidthsAndItBlocks) {
  MemoryImage image;
  std::string error;
  const auto code = Le16({
      0x4608,          // 0x00 mov r0, r1
      0xeb01, 0x0002,  // 0x02 add.w r0, r1, r2
      0xbf08,          // 0x06 it eq
      0x4770,          // 0x08 bxeq lr          <- P0, conditional by IT
      0xbf1a,          // 0x0a itte ne
      0x2001,          // 0x0c movne r0, #1
      0x2102,          // 0x0e movne r1, #2
      0x2203,          // 0x10 moveq r2, #3
      0x4770,          // 0x12 bx lr            <- after the block: unconditional
      0xbfe8,          // 0x14 it al
      0x4770,          // 0x16 bxal lr          <- AL: unconditional
      0xf000, 0xbffe,  // 0x18 b.w .+0x1000
      0xf000,          // 0x1c first half of a 32-bit instruction, memory ends
  });
  ASSERT_TRUE(image.AddRegion(0x8000, code.data(), code.size(), kMemAny, &error));
  InstrFollower f(&image);
  WalkResult w = f.FindNextP0(0x8000, Isa::kT32);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.num_instr, 4u);
  EXPECT_EQ(w.last_address, 0x8008u);
  EXPECT_EQ(w.end, 0x800au);
  EXPECT_EQ(w.info.size, 2u);
  EXPECT_TRUE(w.info.is_conditional);
  EXPECT_FALSE(w.info.ocsd_conditional);
  EXPECT_EQ(w.info.subtype, InstrSubtype::kV7ImpliedRet);

  w = f.FindNextP0(0x800a, Isa::kT32);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.num_instr, 5u);
  EXPECT_EQ(w.end, 0x8014u);
  EXPECT_FALSE(w.info.is_conditional);

  w = f.FindNextP0(0x8014, Isa::kT32);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.num_instr, 2u);
  EXPECT_FALSE(w.info.is_conditional);

  w = f.FindNextP0(0x8018, Isa::kT32);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.info.size, 4u);
  EXPECT_EQ(w.end, 0x801cu);
  EXPECT_EQ(w.info.target, 0x9018u);
  EXPECT_EQ(w.opcode, 0xf000bffeu);

  w = f.FindNextP0(0x801c, Isa::kT32);
  EXPECT_EQ(w.status, WalkStatus::kNotAccessible);
  EXPECT_EQ(w.end, 0x801cu);
  EXPECT_EQ(w.num_instr, 0u);
}

// One instruction at a time (Q and source-address walks): the walks' fetch,
// size and classification.
TEST(Follower, DecodeOneInstruction) {
  MemoryImage image;
  std::string error;
  const auto a64 = Le32({kNop, kBl});
  const auto t32 = Le16({0x4608, 0xf000, 0xbffe, 0xf000});  // mov; b.w .+0x1000; half of a 32-bit one
  ASSERT_TRUE(image.AddRegion(0x1000, a64.data(), a64.size(), kMemAny, &error));
  ASSERT_TRUE(image.AddRegion(0x8000, t32.data(), t32.size(), kMemAny, &error));
  const InstrFollower f(&image);
  std::optional<InstrInfo> i = f.Decode(0x1004, Isa::kA64);
  ASSERT_TRUE(i);
  EXPECT_EQ(i->subtype, InstrSubtype::kBrLink);
  EXPECT_EQ(i->target, 0x2004u);
  EXPECT_EQ(i->size, 4u);
  i = f.Decode(0x8000, Isa::kT32);
  ASSERT_TRUE(i);
  EXPECT_FALSE(i->is_p0());
  EXPECT_EQ(i->size, 2u);
  i = f.Decode(0x8002, Isa::kT32);
  ASSERT_TRUE(i);
  EXPECT_EQ(i->size, 4u);
  EXPECT_EQ(i->target, 0x9002u);
  EXPECT_FALSE(f.Decode(0x8006, Isa::kT32)) << "second halfword missing";
  EXPECT_FALSE(f.Decode(0x1008, Isa::kA64));
}

TEST(Follower, CountInstructionsInARange) {
  MemoryImage image;
  std::string error;
  const auto t32 = Le16({0x4608, 0xeb01, 0x0002, 0x4608, 0xf000});  // 2 + 4 + 2 bytes, then half of one
  ASSERT_TRUE(image.AddRegion(0x8000, t32.data(), t32.size(), kMemAny, &error));
  const InstrFollower f(&image);
  EXPECT_EQ(f.CountInstructions(0x8000, 0x8008, Isa::kT32), 3u);
  EXPECT_EQ(f.CountInstructions(0x8002, 0x8006, Isa::kT32), 1u);
  EXPECT_FALSE(f.CountInstructions(0x8000, 0x800c, Isa::kT32)) << "the last one cannot be read";
  EXPECT_EQ(f.CountInstructions(0x100, 0x140, Isa::kA64), 16u) << "fixed size: no memory needed";
  EXPECT_EQ(f.CountInstructions(0x140, 0x140, Isa::kA32), 0u);
  // 2^32 instructions or more is no range (a fuzz finding: the count was
  // cut to 32 bits, 0x8004..0x180000000008004 gave 0 instructions).
  EXPECT_FALSE(f.CountInstructions(0x8004, 0x180000000008004ull, Isa::kA64));
  EXPECT_EQ(f.CountInstructions(0, 0x3FFFFFFFCull, Isa::kA64), 0xFFFFFFFFu);
}

}  // namespace
}  // namespace mabutrace::armisa
