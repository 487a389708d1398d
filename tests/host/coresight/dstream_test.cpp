// SPDX-License-Identifier: MIT
// dstream_test.cpp: the DSTREAM block layout (coresight/dstream.h): 504
// TPIU bytes then an 8-byte probe footer per 512-byte block, whatever the
// chunking of the input.
// Mutation: kDstreamFooterBytes 8 -> 4 (or the footer branch handing the
// bytes on) -> the footer bytes (0xF0..) appear in the output.
#include "coresight/dstream.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace mabutrace::coresight {
namespace {

// A file of `blocks` full blocks plus `tail` bytes: TPIU byte i = i & 0x7F
// (never >= 0x80), footer bytes 0xF0 + k.
std::vector<uint8_t> File(size_t blocks, size_t tail) {
  std::vector<uint8_t> f;
  size_t tpiu = 0;
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t i = 0; i < 504; ++i) f.push_back(static_cast<uint8_t>(tpiu++ & 0x7F));
    for (uint8_t k = 0; k < 8; ++k) f.push_back(static_cast<uint8_t>(0xF0 + k));
  }
  for (size_t i = 0; i < tail; ++i) f.push_back(i < 504 ? static_cast<uint8_t>(tpiu++ & 0x7F) : 0xF0);
  return f;
}

std::vector<uint8_t> Read(const std::vector<uint8_t>& file, size_t chunk, DstreamBlockReader::DataFn fn = nullptr) {
  std::vector<uint8_t> out;
  DstreamBlockReader r(
      fn ? fn
         : [](void* c, const uint8_t* d, size_t n) {
             ASSERT_GT(n, 0u);
             static_cast<std::vector<uint8_t>*>(c)->insert(static_cast<std::vector<uint8_t>*>(c)->end(), d, d + n);
           },
      &out);
  for (size_t at = 0; at < file.size(); at += chunk) r.Push(file.data() + at, std::min(chunk, file.size() - at));
  EXPECT_EQ(r.tpiu_bytes(), out.size());
  EXPECT_EQ(r.tpiu_bytes() + r.footer_bytes(), file.size());
  return out;
}

TEST(Dstream, FootersDroppedAtAnyChunking) {
  const std::vector<uint8_t> file = File(3, 510);  // the last block: 504 data + 6 footer bytes
  std::vector<uint8_t> want;
  for (size_t i = 0; i < 4 * 504; ++i) want.push_back(static_cast<uint8_t>(i & 0x7F));
  for (size_t chunk : {1u, 7u, 8u, 504u, 512u, 513u, 4096u}) EXPECT_EQ(Read(file, chunk), want) << "chunk " << chunk;
}

TEST(Dstream, ShortFileIsAllData) {
  const std::vector<uint8_t> file = File(0, 100);
  EXPECT_EQ(Read(file, 33).size(), 100u);
}

}  // namespace
}  // namespace mabutrace::coresight
