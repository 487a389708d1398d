// SPDX-License-Identifier: MIT
// stp_decoder_test.cpp: hand-made STPv2 streams through StpDecoder and
// StmMessageDecoder: every opcode, nibble order, timestamps (binary, Gray,
// length codes), errors with offsets, resync, chunking independence.
#include <gtest/gtest.h>

#include <random>

#include "stm_messages.h"
#include "stp_decoder.h"
#include "stp_encoder.h"

namespace mabutrace::stm {
namespace {

struct Collect final : StpPacketSink, StmMessageSink {
  StmMessageDecoder md{this};
  std::vector<StpPacket> pkts;
  std::vector<StmMessage> msgs;
  void OnPacket(const StpPacket& p) override {
    pkts.push_back(p);
    md.OnPacket(p);
  }
  void OnMessage(const StmMessage& m) override { msgs.push_back(m); }
};

Collect Decode(const std::vector<uint8_t>& b, size_t block = 16) {
  Collect c;
  StpDecoder d(&c);
  for (size_t at = 0; at < b.size(); at += block) d.Push(at, b.data() + at, std::min(block, b.size() - at));
  d.Finish();
  return c;
}

std::vector<std::string> Names(const Collect& c) {
  std::vector<std::string> v;
  for (const auto& p : c.pkts) v.push_back(StpTypeName(p));
  return v;
}

TEST(StpDecoder, WorkedExampleD32NibbleOrder) {
  // facts §3.5: 0x12345678 as D32 -> nibbles 6,1,2,3,4,5,6,7,8.
  StpEncoder e;
  e.Async();
  e.Version(3);
  e.Data(32, 0x12345678);
  auto b = e.Bytes();
  // ASYNC (11 bytes) + VERSION F,0,0,3 (2 bytes), then 0x16 0x32 0x54 0x76 0x?8.
  ASSERT_GE(b.size(), 17u);
  EXPECT_EQ(b[13], 0x16);
  EXPECT_EQ(b[14], 0x32);
  EXPECT_EQ(b[15], 0x54);
  EXPECT_EQ(b[16], 0x76);
  auto c = Decode(b);
  ASSERT_EQ(Names(c), (std::vector<std::string>{"ASYNC", "VERSION", "D32", "NULL"}));
  EXPECT_EQ(c.pkts[2].payload, 0x12345678u);
  EXPECT_EQ(c.pkts[2].offset, 13u);
}

TEST(StpDecoder, AllDataVariantsAndIds) {
  StpEncoder e;
  e.Async();
  e.Version(3);
  e.Master8(0x80);
  e.Channel8(0x12);
  e.Data(4, 0xA);
  e.Data(8, 0xAB, true, true, 0x1234);
  e.Data(16, 0xABCD, false, true, 0x5);
  e.Data(32, 0xDEADBEEF, true, false);
  e.Data(64, 0x0123456789ABCDEFull, true, true, 0x77);
  e.Data(4, 0x3, true, true, 0x9);
  e.Data(4, 0x4, false, true, 0x9);
  e.Data(4, 0x5, true, false);
  e.Channel16(0x1234);
  e.Master16(0x0102);
  e.Data(8, 0x11);
  e.Flag();
  e.Flag(true, 0xFF);
  e.Trigger(0x42);
  e.Freq(19200000);
  auto c = Decode(e.Bytes());
  std::vector<std::string> want{"ASYNC", "VERSION", "M8",  "C8",  "D4", "D8MTS", "D16TS",  "D32M", "D64MTS", "D4MTS",
                                "D4TS",  "D4M",     "C16", "M16", "D8", "FLAG",  "FLAGTS", "TRIG", "FREQ"};
  auto names = Names(c);
  if (names.size() == want.size() + 1) names.pop_back();  // padding NULL
  ASSERT_EQ(names, want);
  ASSERT_EQ(c.msgs.size(), 13u);
  EXPECT_EQ(c.msgs[0].master, 0x80);
  EXPECT_EQ(c.msgs[0].channel, 0x12);
  EXPECT_EQ(c.msgs[0].data, 0xAu);
  EXPECT_EQ(c.msgs[0].size_bits, 4);
  EXPECT_TRUE(c.msgs[1].marker);
  EXPECT_EQ(c.msgs[1].timestamp, 0x1234u);
  EXPECT_EQ(c.msgs[2].timestamp, 0x5u);  // binary: full-length field replaces all
  EXPECT_EQ(c.msgs[4].data, 0x0123456789ABCDEFull);
  EXPECT_EQ(c.msgs[8].master, 0x0102);
  EXPECT_EQ(c.msgs[8].channel, 0);  // M16 resets the channel
  EXPECT_EQ(c.msgs[9].kind, StmMessageKind::kFlag);
  EXPECT_EQ(c.msgs[10].timestamp, 0xFFu);
  EXPECT_EQ(c.msgs[11].kind, StmMessageKind::kTrigger);
  EXPECT_EQ(c.msgs[11].data, 0x42u);
  EXPECT_EQ(c.msgs[12].kind, StmMessageKind::kFreq);
  EXPECT_EQ(c.md.ts_freq_hz(), 19200000u);
}

TEST(StpDecoder, PartialTimestampUpdatesLowBits) {
  StpEncoder e;
  e.Async();
  e.Version(3);
  e.set_ts_nibbles(8);
  e.Flag(true, 0x3AEB284C);
  e.set_ts_nibbles(2);
  e.Flag(true, 0xD6);
  auto c = Decode(e.Bytes());
  ASSERT_EQ(c.msgs.size(), 2u);
  EXPECT_EQ(c.msgs[1].timestamp, 0x3AEB28D6u);
  EXPECT_EQ(c.pkts[3].ts_bits, 8);
}

TEST(StpDecoder, GrayTimestamps) {
  StpEncoder e;
  e.Async();
  e.Version(4);
  e.set_ts_nibbles(4);
  e.Flag(true, 0x0006);  // gray 0110 -> binary 0100
  auto c = Decode(e.Bytes());
  ASSERT_EQ(c.msgs.size(), 1u);
  EXPECT_EQ(c.msgs[0].timestamp, 0x4u);
}

TEST(StpDecoder, NotSyncUntilAsyncThenResyncAfterError) {
  std::vector<uint8_t> b{0x12, 0x34};  // junk
  StpEncoder e;
  e.Async();
  e.Version(3);
  e.Master8(1);
  e.Data(8, 0x55);
  auto tail = e.Bytes();
  b.insert(b.end(), tail.begin(), tail.end());
  auto c = Decode(b, 64);
  ASSERT_GE(c.pkts.size(), 5u);
  EXPECT_EQ(StpTypeName(c.pkts[0]), "NOTSYNC");
  EXPECT_EQ(c.pkts[0].raw, (std::vector<uint8_t>{0x12, 0x34}));
  EXPECT_EQ(StpTypeName(c.pkts[1]), "ASYNC");
  EXPECT_EQ(c.pkts[1].offset, 2u);
  ASSERT_EQ(c.msgs.size(), 1u);
  EXPECT_EQ(c.msgs[0].data, 0x55u);

  // Timestamp length F -> BAD_SEQUENCE naming the offset, then resync.
  StpEncoder f;
  f.Async();
  f.Version(3);
  f.Nibble(0xE);  // FLAG_TS
  f.Nibble(0xF);  // invalid TS length
  f.Async();
  f.Version(3);
  f.Data(8, 0x66);
  auto c2 = Decode(f.Bytes());
  bool saw_bad = false;
  for (const auto& p : c2.pkts)
    if (p.type == StpType::kBadSequence) {
      saw_bad = true;
      EXPECT_NE(p.error.find("byte offset 13"), std::string::npos) << p.error;
    }
  EXPECT_TRUE(saw_bad);
  ASSERT_EQ(c2.msgs.size(), 1u);
  EXPECT_EQ(c2.msgs[0].data, 0x66u);
}

TEST(StpDecoder, TimestampBeforeVersionAndBadVersionAreErrors) {
  StpEncoder e;
  e.Async();
  e.Flag(true, 1);
  auto c = Decode(e.Bytes());
  ASSERT_GE(c.pkts.size(), 2u);
  EXPECT_EQ(c.pkts[1].type, StpType::kBadSequence);
  EXPECT_EQ(c.pkts[1].err_type, StpType::kFlag);
  StpEncoder v;
  v.Async();
  v.Version(7);
  auto c2 = Decode(v.Bytes());
  EXPECT_EQ(c2.pkts[1].type, StpType::kBadSequence);
}

TEST(StpDecoder, ReservedOpcodeAndIncompleteEot) {
  StpEncoder e;
  e.Async();
  e.Version(3);
  e.Nibble(0xF);
  e.Nibble(0x0);
  e.Nibble(0xC);  // F0C reserved
  auto c = Decode(e.Bytes());
  bool reserved = false;
  for (const auto& p : c.pkts) reserved |= p.type == StpType::kReserved;
  EXPECT_TRUE(reserved);

  StpEncoder t;
  t.Async();
  t.Version(3);
  t.Data(32, 0x1234);
  auto b = t.Bytes();
  b.resize(b.size() - 2);
  auto c2 = Decode(b);
  ASSERT_FALSE(c2.pkts.empty());
  EXPECT_EQ(c2.pkts.back().type, StpType::kIncompleteEot);
  EXPECT_EQ(c2.pkts.back().err_type, StpType::kD32);
}

TEST(StpDecoder, ChunkingDoesNotChangeSyncedPackets) {
  StpEncoder e;
  e.Async();
  e.Version(3);
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    e.Master8(static_cast<uint8_t>(rng()));
    e.Data(32, rng(), rng() & 1, rng() & 1, rng() & 0xFFFF);
  }
  auto b = e.Bytes();
  auto whole = Decode(b, b.size());
  for (size_t block : {1, 3, 7, 15}) {
    auto parts = Decode(b, block);
    ASSERT_EQ(parts.msgs.size(), whole.msgs.size()) << block;
    for (size_t i = 0; i < whole.msgs.size(); ++i) {
      EXPECT_EQ(parts.msgs[i].data, whole.msgs[i].data);
      EXPECT_EQ(parts.msgs[i].timestamp, whole.msgs[i].timestamp);
    }
  }
}

// Regression (stm_fuzz): a broken F run before the real ASYNC made the
// ASYNC offset point past the input.
TEST(StpDecoder, AsyncOffsetAfterBrokenFRunStaysInTheInput) {
  std::vector<uint8_t> b(40, 0xFF);
  b.push_back(0xF7);  // 7 breaks the run, its high F starts a new one
  b.insert(b.end(), 30, 0xFF);
  b.push_back(0x00);
  auto c = Decode(b, 2);
  bool async = false;
  for (const auto& p : c.pkts) {
    EXPECT_LE(p.offset, b.size());
    if (p.type == StpType::kAsync) {
      async = true;
      EXPECT_EQ(p.offset, 40u);
    }
  }
  EXPECT_TRUE(async);
}

TEST(StpDecoder, RandomInputNeverCrashesOrHangs) {
  std::mt19937 rng(1);
  for (int round = 0; round < 200; ++round) {
    std::vector<uint8_t> b(rng() % 300);
    for (auto& x : b) x = static_cast<uint8_t>(rng() % 4 == 0 ? 0xFF : rng());
    auto c = Decode(b, 1 + rng() % 16);
    EXPECT_LE(c.pkts.size(), 2 * b.size() + 2);
  }
}

}  // namespace
}  // namespace mabutrace::stm
