// SPDX-License-Identifier: MIT
// test_program.h: the small program image the ete_decode tests walk.
//
// A64 (0x1000..0x1047; everything else unmapped):
//   0x1000 nop; 0x1004 nop; 0x1008 b 0x1020; 0x100c..0x101c nop
//   0x1020 nop; 0x1024 bl 0x1040; 0x1028 nop; 0x102c b.eq 0x1000
//   0x1030..0x103c nop; 0x1040 nop; 0x1044 ret
// T32 at 0x8000: mov r0, r1; add.w r0, r1, r2; bx lr
#ifndef MABUTRACE_TESTS_HOST_ETE_DECODE_TEST_PROGRAM_H
#define MABUTRACE_TESTS_HOST_ETE_DECODE_TEST_PROGRAM_H

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memory_image.h"

namespace mabutrace::ete_decode::test {

inline armisa::MemoryImage Program() {
  constexpr uint32_t kNop = 0xd503201f;
  std::vector<uint32_t> w(0x48 / 4, kNop);
  w[0x08 / 4] = 0x14000006;  // b 0x1020
  w[0x24 / 4] = 0x94000007;  // bl 0x1040
  w[0x2c / 4] = 0x54fffea0;  // b.eq 0x1000
  w[0x44 / 4] = 0xd65f03c0;  // ret
  const uint16_t t32[] = {0x4608, 0xeb01, 0x0002, 0x4770};
  armisa::MemoryImage img;
  std::string err;
  EXPECT_TRUE(img.AddRegion(0x1000, reinterpret_cast<const uint8_t*>(w.data()), w.size() * 4, armisa::kMemAny, &err))
      << err;
  EXPECT_TRUE(img.AddRegion(0x8000, reinterpret_cast<const uint8_t*>(t32), sizeof t32, armisa::kMemAny, &err)) << err;
  return img;
}

}  // namespace mabutrace::ete_decode::test

#endif  // MABUTRACE_TESTS_HOST_ETE_DECODE_TEST_PROGRAM_H
