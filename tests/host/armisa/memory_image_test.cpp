// SPDX-License-Identifier: MIT
// memory_image_test.cpp: regions, spaces, reads across regions, files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "memory_image.h"

namespace mabutrace::armisa {
namespace {

std::vector<uint8_t> Bytes(size_t n, uint8_t first) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(first + i);
  return v;
}

TEST(MemoryImage, SpanAndReadWithinAndAcrossRegions) {
  MemoryImage image;
  std::string error;
  const auto a = Bytes(16, 0x00), b = Bytes(16, 0x10);
  ASSERT_TRUE(image.AddRegion(0x1010, b.data(), b.size(), kMemAny, &error)) << error;
  ASSERT_TRUE(image.AddRegion(0x1000, a.data(), a.size(), kMemAny, &error)) << error;
  EXPECT_EQ(image.region_count(), 2u);

  MemSpan s = image.Span(0x1004);
  ASSERT_NE(s.data, nullptr);
  EXPECT_EQ(s.size, 12u);
  EXPECT_EQ(s.data[0], 0x04);
  EXPECT_EQ(image.Span(0x0fff).size, 0u);
  EXPECT_EQ(image.Span(0x1020).size, 0u);

  uint8_t out[8] = {};
  EXPECT_EQ(image.Read(0x100c, 8, out), 8u);  // crosses into the adjacent region
  EXPECT_EQ(out[0], 0x0c);
  EXPECT_EQ(out[4], 0x10);
  EXPECT_EQ(out[7], 0x13);
  EXPECT_EQ(image.Read(0x101c, 8, out), 4u);  // stops where memory ends
  EXPECT_EQ(image.Read(0x2000, 4, out), 0u);
}

TEST(MemoryImage, OverlapRejectedOnlyWithinASpace) {
  MemoryImage image;
  std::string error;
  const auto a = Bytes(16, 0);
  ASSERT_TRUE(image.AddRegion(0x1000, a.data(), a.size(), kMemEL1N, &error));
  EXPECT_FALSE(image.AddRegion(0x1008, a.data(), a.size(), kMemN, &error));
  EXPECT_NE(error.find("overlaps"), std::string::npos) << error;
  // Same addresses, secure space: another image of the same range.
  const auto s = Bytes(16, 0x80);
  ASSERT_TRUE(image.AddRegion(0x1000, s.data(), s.size(), kMemEL1S, &error)) << error;
  EXPECT_EQ(image.Span(0x1000, kMemEL1N).data[0], 0x00);
  EXPECT_EQ(image.Span(0x1000, kMemEL1S).data[0], 0x80);
  EXPECT_EQ(image.Span(0x1000, kMemEL2N).size, 0u);                                // EL2 sees neither
  EXPECT_FALSE(image.AddRegion(0x3000, a.data(), 0, kMemAny, &error));             // empty
  EXPECT_FALSE(image.AddRegion(~uint64_t{0} - 4, a.data(), 16, kMemAny, &error));  // wraps
  EXPECT_EQ(error, "memory region at 0xfffffffffffffffb: empty, wrapping or no space");
}

TEST(MemoryImage, ManyRegionsLookup) {
  // Regions with gaps: every mapped byte is found, every gap byte is not.
  MemoryImage image;
  std::string error;
  const auto a = Bytes(8, 0x40);
  for (uint64_t i = 0; i < 200; ++i) ASSERT_TRUE(image.AddRegion(0x10000 + i * 16, a.data(), 8, kMemAny, &error));
  for (uint64_t addr = 0xfff0; addr < 0x10000 + 200 * 16 + 16; ++addr) {
    const bool mapped = addr >= 0x10000 && addr < 0x10000 + 200 * 16 && (addr & 15) < 8;
    EXPECT_EQ(image.Span(addr).size != 0, mapped) << std::hex << addr;
  }
}

TEST(MemoryImage, ParseMemSpace) {
  EXPECT_EQ(ParseMemSpace("EL1N"), kMemEL1N);
  EXPECT_EQ(ParseMemSpace("el2"), kMemEL2N);
  EXPECT_EQ(ParseMemSpace("S"), kMemS);
  EXPECT_EQ(ParseMemSpace("ANY"), kMemAny);
  EXPECT_EQ(ParseMemSpace("ROOT"), kMemRoot);
  EXPECT_FALSE(ParseMemSpace("EL4").has_value());
}

TEST(MemoryImage, AddFileWithOffsetAndLength) {
  const auto path = std::filesystem::temp_directory_path() / "armisa_memory_image_test.bin";
  {
    std::ofstream out(path, std::ios::binary);
    const auto bytes = Bytes(64, 0);
    out.write(reinterpret_cast<const char*>(bytes.data()), 64);
  }
  MemoryImage image;
  std::string error;
  ASSERT_TRUE(image.AddFile(path.string(), 0x8000, kMemAny, &error, 16, 8)) << error;
  EXPECT_EQ(image.Span(0x8000).size, 8u);
  EXPECT_EQ(image.Span(0x8000).data[0], 16);
  ASSERT_TRUE(image.AddFiles({{path.string(), 0x9000}}, &error)) << error;
  EXPECT_EQ(image.Span(0x9000).size, 64u);
  EXPECT_FALSE(image.AddFile(path.string(), 0xa000, kMemAny, &error, 60, 8));  // beyond the file
  EXPECT_NE(error.find(path.string()), std::string::npos);
  EXPECT_FALSE(image.AddFile("/nonexistent/armisa.bin", 0, kMemAny, &error));
  EXPECT_NE(error.find("/nonexistent/armisa.bin"), std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace mabutrace::armisa
