// SPDX-License-Identifier: MIT
// etm3_damaged_test.cpp: a damaged ETMv3 stream (TC2, trace ID 0x10). A
// corrupted packet header gives one error naming its byte; the bytes up to
// the next A-sync are NOTSYNC, and from that A-sync on the packets equal the
// clean decode. A stream cut inside a packet ends with INCOMPLETE_EOT and a
// "truncated" error at that packet's byte; every packet before it is kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "coresight/deformatter.h"
#include "etm3_oracle.h"
#include "etm3_test_util.h"
#include "snapshot/snapshot.h"

namespace mabutrace::etm3 {
namespace {

using test::Bytes;

Bytes StreamOf(const Bytes& framed, uint8_t id) {
  struct Sink : coresight::DeformatterSink {
    uint8_t id = 0;
    Bytes out;
    void OnData(uint8_t i, uint64_t, uint64_t, const uint8_t* d, size_t n, const uint64_t*) override {
      if (i == id) out.insert(out.end(), d, d + n);
    }
    void OnError(const coresight::DeformatterError&) override {}
  } sink;
  sink.id = id;
  coresight::FrameDeformatter dfm(coresight::DeformatterOptions{}, &sink);
  dfm.Push(framed.data(), framed.size());
  dfm.Finish();
  return sink.out;
}

Bytes Tc2Stream() {
  return StreamOf(snapshot::ReadBinaryFile(mabutrace_tests::etm3_oracle::Tc2() / "cstrace.bin"), 0x10);
}

// Index of the first packet of `r` of type `t` at byte `from` or later.
size_t FirstAt(const test::Run& r, PacketType t, uint64_t from) {
  for (size_t i = 0; i < r.packets.size(); ++i)
    if (r.packets[i].packet.type == t && r.packets[i].packet.index >= from) return i;
  return r.packets.size();
}

TEST(Etm3Damaged, CorruptHeaderResyncsAtNextAsync) {
  MABUTRACE_NEEDS_SHARED(mabutrace_tests::etm3_oracle::Tc2() / "cstrace.bin");
  const Bytes clean = Tc2Stream();
  const test::Run good = test::Process(test::Config(), clean);
  ASSERT_TRUE(good.errors.empty());
  // a P-header well after the first A-sync
  const size_t sync1 = FirstAt(good, PacketType::kAsync, 0);
  size_t victim = sync1 + 50;
  while (good.packets[victim].packet.type != PacketType::kPHeader) ++victim;
  const uint64_t at = good.packets[victim].packet.index;
  Bytes bad = clean;
  bad[at] = 0x14;  // reserved header
  const test::Run r = test::Process(test::Config(), bad);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, ErrorKind::kReservedHeader);
  EXPECT_EQ(r.errors[0].index, at);
  EXPECT_NE(r.errors[0].message.find("byte " + std::to_string(at)), std::string::npos) << r.errors[0].message;
  // up to the next A-sync: NOTSYNC only; from it on: as the clean decode
  const size_t bad_at = FirstAt(r, PacketType::kReserved, at);
  ASSERT_LT(bad_at, r.packets.size());
  const size_t next_sync = FirstAt(r, PacketType::kAsync, at);
  ASSERT_LT(next_sync, r.packets.size());
  for (size_t i = bad_at + 1; i < next_sync; ++i) EXPECT_EQ(r.packets[i].packet.type, PacketType::kNotSync);
  const size_t good_sync = FirstAt(good, PacketType::kAsync, r.packets[next_sync].packet.index);
  ASSERT_EQ(good.packets.size() - good_sync, r.packets.size() - next_sync);
  for (size_t i = 0; good_sync + i < good.packets.size(); ++i) {
    ASSERT_EQ(r.packets[next_sync + i].text, good.packets[good_sync + i].text) << i;
    ASSERT_EQ(r.packets[next_sync + i].packet.index, good.packets[good_sync + i].packet.index) << i;
  }
}

TEST(Etm3Damaged, TruncatedStreamEndsWithIncompletePacket) {
  MABUTRACE_NEEDS_SHARED(mabutrace_tests::etm3_oracle::Tc2() / "cstrace.bin");
  const Bytes clean = Tc2Stream();
  const test::Run good = test::Process(test::Config(), clean);
  // cut in the middle of the last I-sync
  size_t k = good.packets.size();
  while (k > 0 && good.packets[k - 1].packet.type != PacketType::kIsyncCycle) --k;
  ASSERT_GT(k, 0u);
  const test::Got& isync = good.packets[k - 1];
  const Bytes cut(clean.begin(), clean.begin() + static_cast<std::ptrdiff_t>(isync.packet.index + 3));
  const test::Run r = test::Process(test::Config(), cut);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, ErrorKind::kTruncated);
  EXPECT_EQ(r.errors[0].index, isync.packet.index);
  ASSERT_EQ(r.packets.size(), k);
  EXPECT_EQ(r.packets.back().packet.type, PacketType::kIncompleteEot);
  EXPECT_EQ(r.packets.back().text, "INCOMPLETE_EOT. : Incomplete packet at end of trace data.[I_SYNC_CYCLE]");
  for (size_t i = 0; i + 1 < k; ++i) ASSERT_EQ(r.packets[i].text, good.packets[i].text) << i;
}

}  // namespace
}  // namespace mabutrace::etm3
