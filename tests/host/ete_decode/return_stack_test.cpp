// SPDX-License-Identifier: MIT
// return_stack_test.cpp: the return stack alone (return_stack.h; §5.9).
#include <gtest/gtest.h>

#include "ete_decode/return_stack.h"

namespace mabutrace::ete_decode {
namespace {

using armisa::Isa;

TEST(ReturnStack, PopsTheNewestFirst) {
  ReturnStack s(true);
  s.Push(0x1004, Isa::kA64);
  s.Push(0x2008, Isa::kT32);
  uint64_t a;
  Isa isa;
  ASSERT_TRUE(s.Pop(&a, &isa));
  EXPECT_EQ(a, 0x2008u);
  EXPECT_EQ(isa, Isa::kT32);
  ASSERT_TRUE(s.Pop(&a, &isa));
  EXPECT_EQ(a, 0x1004u);
  EXPECT_FALSE(s.Pop(&a, &isa)) << "empty";
}

TEST(ReturnStack, AFullStackDropsTheOldest) {
  ReturnStack s(true);
  for (uint64_t i = 0; i < ReturnStack::kEntries + 3; ++i) s.Push(0x1000 + 4 * i, Isa::kA64);
  EXPECT_EQ(s.size(), ReturnStack::kEntries);
  uint64_t a = 0;
  Isa isa;
  for (unsigned i = 0; i < ReturnStack::kEntries; ++i) ASSERT_TRUE(s.Pop(&a, &isa));
  EXPECT_EQ(a, 0x1000u + 4 * 3) << "the three oldest fell off";
  EXPECT_FALSE(s.Pop(&a, &isa));
}

TEST(ReturnStack, AArch32AddressesAre32Bit) {
  ReturnStack s(true);
  s.Push(0x1'0000'8000ull, Isa::kA32);
  s.Push(0x1'0000'8000ull, Isa::kA64);
  uint64_t a;
  Isa isa;
  s.Pop(&a, &isa);
  EXPECT_EQ(a, 0x1'0000'8000ull);
  s.Pop(&a, &isa);
  EXPECT_EQ(a, 0x8000u);
}

TEST(ReturnStack, DisabledOrFlushedItIsEmpty) {
  ReturnStack off(false);
  off.Push(0x1000, Isa::kA64);
  EXPECT_EQ(off.size(), 0u) << "TRCCONFIGR.RS = 0";
  ReturnStack on(true);
  on.Push(0x1000, Isa::kA64);
  on.Flush();
  uint64_t a;
  Isa isa;
  EXPECT_FALSE(on.Pop(&a, &isa));
}

}  // namespace
}  // namespace mabutrace::ete_decode
