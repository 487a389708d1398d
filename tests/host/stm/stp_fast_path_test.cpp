// SPDX-License-Identifier: MIT
// stp_fast_path_test.cpp: StpDecoder's whole-packet fast path against its
// nibble-at-a-time path (set_fast_path(false)), the reference: every packet
// field (offset, raw bytes, type, error text, timestamp, master/channel) and
// the stats must be equal, on encoder streams with every opcode, on mutated
// and random bytes (ASYNC searches, errors, F runs across packets), on the
// real captures, for raw blocks of many sizes and through the CoreSight frame
// de-formatter.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "stm_capture.h"
#include "stm_messages.h"
#include "stp_decoder.h"
#include "stp_encoder.h"

namespace mabutrace::stm {
namespace {

namespace fs = std::filesystem;

struct Record final : StpPacketSink {
  std::vector<StpPacket> pkts;
  void OnPacket(const StpPacket& p) override { pkts.push_back(p); }
};

struct Result {
  std::vector<StpPacket> pkts;
  StpStats stats;
};

// `feed` pushes the input into the decoder and finishes it.
template <typename Feed>
Result Decode(bool fast, Feed&& feed) {
  Record r;
  StpDecoder d(&r);
  d.set_fast_path(fast);
  feed(&d);
  return {std::move(r.pkts), d.stats()};
}

// Raw STP in `block`-byte blocks, with gaps between the block indexes as the
// de-formatter's runs have (a packet's nibbles then are not at offset + k/2).
auto Blocks(const std::vector<uint8_t>& b, size_t block) {
  return [&b, block](StpDecoder* d) {
    for (size_t at = 0, index = 0; at < b.size(); at += block, index += block + 1)
      d->Push(index, b.data() + at, std::min(block, b.size() - at));
    d->Finish();
  };
}

// Raw STP as de-formatter blocks (PushBlock): runs of 1..15 bytes, `block`
// bytes a block, with gaps of 1..3 between the runs' indexes as frames have;
// the nibble path (the reference) then reads it run by run.
auto RunBlocks(const std::vector<uint8_t>& b, size_t block, uint64_t seed) {
  return [&b, block, seed](StpDecoder* d) {
    std::mt19937_64 rng(seed);
    uint64_t index = 0;
    for (size_t at = 0; at < b.size();) {
      const size_t n = std::min(block, b.size() - at);
      std::vector<coresight::DataRun> runs;
      for (size_t pos = 0; pos < n;) {
        const size_t len = 1 + rng() % 15;
        runs.push_back({static_cast<uint32_t>(pos), index});
        index += len + 1 + rng() % 3;
        pos += len;
      }
      d->PushBlock(b.data() + at, n, runs.data(), runs.size());
      at += n;
    }
    d->Finish();
  };
}

std::string Describe(const StpPacket& p) {
  std::string s = StpTypeName(p) + " off=" + std::to_string(p.offset) + " raw=";
  for (uint8_t b : p.raw) s += std::to_string(b) + ",";
  s += " err=" + std::to_string(static_cast<int>(p.err_type)) + " m=" + std::to_string(p.marker) +
       " ts=" + std::to_string(p.has_ts) + "/" + std::to_string(p.ts_bits) + "/" + std::to_string(p.timestamp) +
       " pl=" + std::to_string(p.payload) + "/" + std::to_string(p.payload_bits) + " ma=" + std::to_string(p.master) +
       " ch=" + std::to_string(p.channel) + " op=" + std::to_string(p.opcode_nibbles) + " " + p.error;
  return s;
}

// Returns "" when equal, else the first difference.
template <typename Feed>
std::string Compare(Feed&& feed) {
  const Result slow = Decode(false, feed), fast = Decode(true, feed);
  const size_t n = std::min(slow.pkts.size(), fast.pkts.size());
  for (size_t i = 0; i < n; ++i) {
    const std::string a = Describe(slow.pkts[i]), c = Describe(fast.pkts[i]);
    if (a != c) return "packet " + std::to_string(i) + ": nibble path " + a + " | fast path " + c;
  }
  if (slow.pkts.size() != fast.pkts.size())
    return "packet count " + std::to_string(slow.pkts.size()) + " vs " + std::to_string(fast.pkts.size());
  if (slow.stats.packets != fast.stats.packets || slow.stats.notsync_bytes != fast.stats.notsync_bytes ||
      slow.stats.bad_packets != fast.stats.bad_packets || slow.stats.asyncs != fast.stats.asyncs)
    return "stats differ";
  return "";
}

// A stream with every opcode the encoder writes, random values (many F and 0
// nibbles so that F runs cross fields and packets), both timestamp codings.
std::vector<uint8_t> MixedStream(std::mt19937_64& rng, int packets) {
  StpEncoder e;
  e.Async();
  e.Version(rng() & 1 ? 3 : 4);
  auto value = [&]() -> uint64_t {
    const uint64_t r = rng();
    switch (r & 3) {
      case 0: return ~0ull;                   // all F
      case 1: return r & 0xF0F0F0FFF0FF0ull;  // F's and 0's
      default: return rng();
    }
  };
  const unsigned sizes[] = {4, 8, 16, 32, 64};
  for (int i = 0; i < packets; ++i) {
    const uint64_t r = rng();
    e.set_ts_nibbles(1 + (r >> 40) % 16);
    switch (r % 14) {
      case 0: e.Master8(static_cast<uint8_t>(value())); break;
      case 1: e.Master16(static_cast<uint16_t>(value())); break;
      case 2: e.Channel8(static_cast<uint8_t>(value())); break;
      case 3: e.Channel16(static_cast<uint16_t>(value())); break;
      case 4: e.Freq(static_cast<uint32_t>(value())); break;
      case 5: e.Null(); break;
      case 6: e.Flag((r >> 8) & 1, value()); break;
      case 7: e.Trigger(static_cast<uint8_t>(value())); break;
      case 8: e.Async(); break;
      case 9: e.Version(3); break;
      case 10:
        for (int k = 0; k < 1 + static_cast<int>((r >> 8) % 24); ++k) e.Nibble(0xF);  // F runs
        e.Nibble(static_cast<uint8_t>((r >> 16) & 1 ? 0 : r >> 20));
        break;
      case 11: e.Nibble(static_cast<uint8_t>(r >> 8)); break;  // any opcode, resync
      default: e.Data(sizes[(r >> 8) % 5], value(), (r >> 12) & 1, (r >> 13) & 1, value()); break;
    }
  }
  return e.Bytes();
}

TEST(StpFastPath, EqualsNibblePathOnEncoderStreams) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    const auto b = MixedStream(rng, 1 + static_cast<int>(rng() % 200));
    for (size_t block : {1, 2, 3, 5, 8, 15, 16, 27, 28, 40, 100, 4096})
      ASSERT_EQ(Compare(Blocks(b, block)), "") << "round " << round << " block " << block;
  }
}

TEST(StpFastPath, EqualsNibblePathOnMutatedAndRandomBytes) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 400; ++round) {
    auto b = MixedStream(rng, 50);
    for (int k = 0; k < 1 + static_cast<int>(rng() % 8); ++k) b[rng() % b.size()] = static_cast<uint8_t>(rng());
    if (round % 4 == 0)
      for (auto& x : b) x = static_cast<uint8_t>(rng() % 3 == 0 ? 0xFF : rng() % 3 == 0 ? 0 : rng());
    for (size_t block : {1, 4, 15, 33, 1000}) ASSERT_EQ(Compare(Blocks(b, block)), "") << "round " << round;
  }
}

TEST(StpFastPath, EqualsNibblePathOnRunBlocks) {
  std::mt19937_64 rng(13);
  for (int round = 0; round < 300; ++round) {
    auto b = MixedStream(rng, 1 + static_cast<int>(rng() % 400));
    if (round % 3 == 0)
      for (int k = 0; k < 1 + static_cast<int>(rng() % 8); ++k) b[rng() % b.size()] = static_cast<uint8_t>(rng());
    for (size_t block : {1, 16, 30, 100, 4096})
      ASSERT_EQ(Compare(RunBlocks(b, block, rng())), "") << "round " << round << " block " << block;
  }
}

struct Messages : StmMessageSink {
  std::vector<std::string> lines;
  static std::string Line(const StmMessage& m) {
    return std::string(StmMessageKindName(m.kind)) + " off=" + std::to_string(m.offset) +
           " id=" + std::to_string(m.id_valid) + " ma=" + std::to_string(m.master) +
           " ch=" + std::to_string(m.channel) + " d=" + std::to_string(m.data) + "/" + std::to_string(m.size_bits) +
           " m=" + std::to_string(m.marker) + " ts=" + std::to_string(m.has_ts) + "/" + std::to_string(m.timestamp);
  }
  void OnMessage(const StmMessage& m) override { lines.push_back(Line(m)); }
  void OnSyncLost(uint64_t offset) override { lines.push_back("lost " + std::to_string(offset)); }
  void OnResync(uint64_t offset, StpType t) override {
    lines.push_back("resync " + std::to_string(offset) + " " + StpTypeBaseName(t));
  }
};

// A sink that takes the message decoder's batches (OnMessages); a message
// reported through OnMessage as well shows as a line of its own.
struct BatchedMessages final : Messages {
  void OnMessage(const StmMessage& m) override { lines.push_back("one by one: " + Line(m)); }
  void OnMessages(const StmMessage* m, size_t n) override {
    for (size_t i = 0; i < n; ++i) lines.push_back(Line(m[i]));
  }
};

// The message decoder as the decoder's own sink (the fast path's packets in
// batches, StmMessageDecoder::OnPackets; its messages in batches,
// OnMessages) against it fed packet by packet from the nibble path, one
// OnMessage per message.
template <typename Feed>
std::string CompareMessages(Feed&& feed) {
  BatchedMessages batched;
  Messages single;
  {
    StmMessageDecoder md(&batched);
    StpDecoder d(&md);
    feed(&d);
  }
  {
    struct PerPacket final : StpPacketSink {
      StmMessageDecoder* md;
      void OnPacket(const StpPacket& p) override { md->OnPacket(p); }
    };
    StmMessageDecoder md(&single);
    PerPacket sink;
    sink.md = &md;
    StpDecoder d(&sink);
    d.set_fast_path(false);
    feed(&d);
  }
  const size_t n = std::min(batched.lines.size(), single.lines.size());
  for (size_t i = 0; i < n; ++i)
    if (batched.lines[i] != single.lines[i])
      return "message " + std::to_string(i) + ": per packet " + single.lines[i] + " | batched " + batched.lines[i];
  if (batched.lines.size() != single.lines.size())
    return "message count " + std::to_string(single.lines.size()) + " vs " + std::to_string(batched.lines.size());
  return "";
}

TEST(StpFastPath, MessagesFromBatchesEqualPerPacket) {
  std::mt19937_64 rng(14);
  for (int round = 0; round < 200; ++round) {
    auto b = MixedStream(rng, 1 + static_cast<int>(rng() % 400));
    if (round % 3 == 0)
      for (int k = 0; k < 1 + static_cast<int>(rng() % 8); ++k) b[rng() % b.size()] = static_cast<uint8_t>(rng());
    for (size_t block : {16, 100, 4096})
      ASSERT_EQ(CompareMessages(RunBlocks(b, block, rng())), "") << "round " << round << " block " << block;
    ASSERT_EQ(CompareMessages(Blocks(b, 1000)), "") << "round " << round;
  }
}

// An ASYNC found while unsynchronised is indexed where its run of F's
// started, by OpenCSD's formula (CheckSync): the offset of the packet the
// run opened in plus half the nibbles before it, at most the index of the
// run's first byte. Here each run opens in the trailing F's of a D32TS whose
// timestamp length is F (a bad sequence: the decoder drops sync, the run
// goes on into the ASYNC): (a) the packet crosses a de-formatter run end
// and its F's come after the index gap (the nibble count gives the smaller
// index); (b) the packet starts in a byte's high nibble (the byte's index is
// the smaller). The fast path and the nibble path both must give these;
// comparing them cannot catch a formula they share.
TEST(StpFastPath, AsyncIndexWhenRunOpensInsidePacket) {
  StpEncoder e;
  e.Async();     // bytes 0-10
  e.Version(3);  // bytes 11-12
  // (a) nibbles 26-36: F 6, 1 2 3 4 5 F F F, F (bad TS length); the run
  // opens at nibble 33 (byte 16's high nibble) and goes on to nibble 53.
  for (uint8_t n : {0xF, 0x6, 0x1, 0x2, 0x3, 0x4, 0x5, 0xF, 0xF, 0xF, 0xF}) e.Nibble(n);
  for (int i = 0; i < 17; ++i) e.Nibble(0xF);
  e.Nibble(0);  // nibble 54: 21 F's, the ASYNC
  // (b) nibbles 55-65: F 6, 1 2 3 4 F F F F, F; opens at nibble 61 (byte 30).
  for (uint8_t n : {0xF, 0x6, 0x1, 0x2, 0x3, 0x4, 0xF, 0xF, 0xF, 0xF, 0xF}) e.Nibble(n);
  for (int i = 0; i < 16; ++i) e.Nibble(0xF);
  e.Nibble(0);                            // nibble 82
  for (int i = 0; i < 80; ++i) e.Null();  // room for the in-place path's loads
  const std::vector<uint8_t> b = e.Bytes();
  ASSERT_EQ(b[13], 0x6F);
  ASSERT_EQ(b[16], 0xF5);
  ASSERT_EQ(b[27], 0xF0);
  ASSERT_EQ(b[30], 0xF4);
  // Runs: [0, 13) at 0, [13, 15) at 100, [15, 27) at 105 (a gap of 3), [27, end) at 200.
  const std::vector<coresight::DataRun> runs = {{0, 0}, {13, 100}, {15, 105}, {27, 200}};
  auto feed = [&](StpDecoder* d) {
    d->PushBlock(b.data(), b.size(), runs.data(), runs.size());
    d->Finish();
  };
  ASSERT_EQ(Compare(feed), "");
  for (bool fast : {false, true}) {
    std::vector<uint64_t> asyncs;
    int bad = 0;
    for (const StpPacket& p : Decode(fast, feed).pkts) {
      if (p.type == StpType::kAsync) asyncs.push_back(p.offset);
      bad += p.type == StpType::kBadSequence;
    }
    // (a) the D32TS at 100, + (33 - 26) / 2 = 103; byte 16's index is 106.
    // (b) the D32TS at byte 27's high nibble: 201, + (61 - 55) / 2 = 204;
    // byte 30's index is 203.
    EXPECT_EQ(asyncs, (std::vector<uint64_t>{0, 103, 203})) << (fast ? "fast path" : "nibble path");
    EXPECT_EQ(bad, 2);
  }
}

TEST(StpFastPath, EqualsNibblePathOnFramedCaptures) {
  const fs::path root = fs::path(MABUTRACE_SHARED_DIR) / "data/stm-snapshots";
  if (!fs::exists(root)) GTEST_SKIP() << root << " not found";
  int captures = 0;
  for (const auto& e : fs::directory_iterator(root)) {
    if (!fs::exists(e.path() / "snapshot.ini")) continue;
    ASSERT_EQ(Compare([&](StpDecoder* d) {
                CaptureInfo info;
                std::string error;
                ASSERT_TRUE(FeedCapture(e.path(), CaptureOptions{}, d, &info, &error)) << error;
              }),
              "")
        << e.path();
    ++captures;
  }
  EXPECT_GE(captures, 4);
}

}  // namespace
}  // namespace mabutrace::stm
