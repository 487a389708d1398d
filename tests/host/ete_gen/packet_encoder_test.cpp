// SPDX-License-Identifier: MIT
// packet_encoder_test.cpp: the generator's packet bytes against the verified
// examples of arm-trace-facts.md §4 (the inverse of host/ete's parser).
#include <gtest/gtest.h>

#include <vector>

#include "ete_gen/packet_encoder.h"

namespace mabutrace::ete_gen {
namespace {

using Bytes = std::vector<uint8_t>;

TEST(PacketEncoder, TimestampBitReplacement) {
  Bytes b;
  PacketEncoder e(&b);
  e.Timestamp(0x7406);  // §4.5 verified: 02 86 E8 01
  EXPECT_EQ(b, (Bytes{0x02, 0x86, 0xE8, 0x01}));
  b.clear();
  e.Timestamp(0x7407);  // a smaller change still covers the previous value's bits
  EXPECT_EQ(b, (Bytes{0x02, 0x87, 0xE8, 0x01}));
  b.clear();
  e.Timestamp(0x5);  // smaller: the old value's set bits must be replaced too
  EXPECT_EQ(b, (Bytes{0x02, 0x85, 0x80, 0x00}));
  b.clear();
  e.Timestamp(0xFF00000000000001ull);  // 9 bytes: the 9th carries bits [63:56]
  ASSERT_EQ(b.size(), 10u);
  EXPECT_EQ(b[1], 0x81);
  EXPECT_EQ(b[9], 0xFF);
}

TEST(PacketEncoder, AtomsOldestInBitZero) {
  Bytes b;
  PacketEncoder e(&b);
  const bool en[] = {true, false};
  const bool nne[] = {false, false, true};
  e.Atoms(en, 1);
  e.Atoms(en + 1, 1);
  e.Atoms(en, 2);
  e.Atoms(nne, 3);
  EXPECT_EQ(b, (Bytes{0xF7, 0xF6, 0xD9, 0xFC}));  // E, N, F2 "EN", F3 "NNE" (§4.15)
}

TEST(PacketEncoder, LongAddressAndException) {
  Bytes b;
  PacketEncoder e(&b);
  e.AddressWithContext(0xFFFFFFC000083400ull, 1);  // §4.12: 85 00 1A 08 00 C0 FF FF FF + info
  EXPECT_EQ(b, (Bytes{0x85, 0x00, 0x1A, 0x08, 0x00, 0xC0, 0xFF, 0xFF, 0xFF, 0x31}));
  b.clear();
  e.Exception(0x02, 0x400068);  // Call: info = TYPE << 1 | E[0]
  EXPECT_EQ(b, (Bytes{0x06, 0x05, 0x9D, 0x1A, 0x00, 0x40, 0, 0, 0, 0, 0}));
}

}  // namespace
}  // namespace mabutrace::ete_gen
