// SPDX-License-Identifier: MIT
// ptm_packet_test.cpp: the PTM packet processor on hand-made packets, one
// test per kind and its boundaries (IHI0035B ch. 4), split pushes, and
// damaged input: the error names the byte offset and decoding resumes at the
// next A-sync.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "ptm/ptm_packet_processor.h"
#include "ptm/ptm_packet_text.h"

namespace {

using mabutrace::ptm::ErrorPolicy;
using mabutrace::ptm::PtmConfig;
using mabutrace::ptm::PtmError;
using mabutrace::ptm::PtmPacket;
using mabutrace::ptm::PtmPacketProcessor;

struct Result {
  std::vector<std::string> lines;
  std::vector<PtmError> errors;
};

const std::vector<uint8_t> kAsync = {0, 0, 0, 0, 0, 0x80};

Result Decode(const std::vector<uint8_t>& bytes, PtmConfig cfg = {}, size_t chunk = 0,
              ErrorPolicy policy = ErrorPolicy::kResync) {
  Result r;
  PtmPacketProcessor proc(
      cfg,
      [](void* c, const PtmPacket& p) {
        std::string s;
        mabutrace::ptm::FormatLine(p, &s);
        static_cast<Result*>(c)->lines.push_back(s);
      },
      &r, [](void* c, const PtmError& e) { static_cast<Result*>(c)->errors.push_back(e); }, policy);
  if (!chunk) chunk = bytes.size() ? bytes.size() : 1;
  for (size_t i = 0; i < bytes.size(); i += chunk) proc.Push(i, bytes.data() + i, std::min(chunk, bytes.size() - i));
  proc.Finish();
  return r;
}

std::vector<uint8_t> Synced(std::vector<uint8_t> tail) {
  std::vector<uint8_t> v = kAsync;
  v.insert(v.end(), tail.begin(), tail.end());
  return v;
}

TEST(PtmPacket, AsyncThenIsyncArm) {
  Result r = Decode(Synced({0x08, 0x58, 0x05, 0x00, 0x80, 0x61}));
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.lines[0], "Idx:0; ID:0; [0x00 0x00 0x00 0x00 0x00 0x80 ];\tASYNC : Alignment Synchronisation Packet; ");
  EXPECT_EQ(r.lines[1],
            "Idx:6; ID:0; [0x08 0x58 0x05 0x00 0x80 0x61 ];\tISYNC : Instruction Synchronisation packet; (Debug Exit); "
            "Addr=0x80000558; S;  ISA=ARM(32); ");
  EXPECT_TRUE(r.errors.empty());
}

TEST(PtmPacket, IsyncThumbWithContextIdAndCycleCount) {
  PtmConfig cfg;
  cfg.etmcr = (1u << 12) | (3u << 14);  // cycle accurate, 4 context ID bytes
  // address 0xc0018dde | T, reason Trace Enable (cycle count present), NS
  Result r = Decode(Synced({0x08, 0xdf, 0x8d, 0x01, 0xc0, 0x29, 0xcc, 0x03, 0x78, 0x56, 0x34, 0x12}), cfg);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_NE(r.lines[1].find("(Trace Enable); Addr=0xc0018dde; NS;  CtxtID=12345678; ISA=Thumb2; Cycles=51; "),
            std::string::npos)
      << r.lines[1];
}

TEST(PtmPacket, AtomFormats) {
  Result r = Decode(Synced({0x84, 0x8c, 0x9c, 0xa0, 0xd0, 0xd2}));
  ASSERT_EQ(r.lines.size(), 7u);
  EXPECT_NE(r.lines[1].find("ATOM : Atom packet; E; "), std::string::npos);
  EXPECT_NE(r.lines[2].find("ATOM : Atom packet; NE; "), std::string::npos) << r.lines[2];
  EXPECT_NE(r.lines[3].find("Atom packet; NNE; "), std::string::npos);
  EXPECT_NE(r.lines[4].find("Atom packet; EEEE; "), std::string::npos) << r.lines[4];
  EXPECT_NE(r.lines[5].find("Atom packet; ENEEE; "), std::string::npos);
  EXPECT_NE(r.lines[6].find("Atom packet; ENEEN; "), std::string::npos);
}

TEST(PtmPacket, CycleAccurateAtomCarriesCount) {
  PtmConfig cfg;
  cfg.etmcr = 1u << 12;
  Result r = Decode(Synced({0xc4, 0x05, 0x86}), cfg);  // E, count continues into the next byte
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_NE(r.lines[1].find("[0xc4 0x05 ];\tATOM : Atom packet; E; Cycles=81; "), std::string::npos) << r.lines[1];
  EXPECT_NE(r.lines[2].find("[0x86 ];\tATOM : Atom packet; N; Cycles=1; "), std::string::npos) << r.lines[2];
}

TEST(PtmPacket, BranchAddressShortAndWithException) {
  Result r = Decode(Synced({0x08, 0x58, 0x05, 0x00, 0x80, 0x61, 0x2f, 0x81, 0x80, 0x80, 0x80, 0x48, 0x02}));
  ASSERT_EQ(r.lines.size(), 4u);
  EXPECT_NE(r.lines[2].find("BRANCH_ADDRESS : Branch address packet; Addr=0x8000055C ~[0x5C]; "), std::string::npos)
      << r.lines[2];
  EXPECT_NE(r.lines[3].find("Addr=0x00000000 ~[0x0]; S; Excep=Debug Halt [01]; "), std::string::npos) << r.lines[3];
}

TEST(PtmPacket, BranchToThumbNamesTheIsaChange) {
  PtmConfig cfg;
  cfg.etmcr = 1u << 12;
  Result r = Decode(Synced({0xb7, 0xb0, 0x8f, 0xb2, 0x1b, 0x78, 0x01}), cfg);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_NE(r.lines[1].find("Addr=0xB643D836 ~[0xB643D836]; ISA=Thumb2; Cycles=30; "), std::string::npos) << r.lines[1];
}

TEST(PtmPacket, WaypointContextVmidTimestampAndSingleBytes) {
  PtmConfig cfg;
  cfg.etmcr = 1u << 14;     // 1 context ID byte
  cfg.etmidr = 0x411CF312;  // PFT 1.1
  cfg.etmccer = 1u << 28;   // natural binary timestamps, 48 bits
  Result r = Decode(Synced({0x72, 0x79, 0x6e, 0x42, 0x3c, 0x07, 0x42, 0x81, 0x15, 0x0c, 0x66, 0x76}), cfg);
  ASSERT_EQ(r.lines.size(), 8u);
  EXPECT_NE(r.lines[1].find("WP_UPDATE : Waypoint update packet; Addr=0x??????78 (6:0) ~[0x78]; "), std::string::npos)
      << r.lines[1];  // no I-sync yet: ISA unknown, so not word-aligned
  EXPECT_NE(r.lines[2].find("CTXTID : Context ID packet; CtxtID=0x00000042; "), std::string::npos) << r.lines[2];
  EXPECT_NE(r.lines[3].find("VMID : VM ID packet; VMID=0x07; "), std::string::npos);
  EXPECT_NE(r.lines[4].find("TIMESTAMP : Timestamp packet; TS=0x0000000000000A81 ~[0xA81](2689); "), std::string::npos)
      << r.lines[4];
  EXPECT_NE(r.lines[5].find("TRIGGER"), std::string::npos);
  EXPECT_NE(r.lines[6].find("IGNORE"), std::string::npos);
  EXPECT_NE(r.lines[7].find("ERET : Exception return packet; "), std::string::npos);
}

TEST(PtmPacket, Pft10TimestampIsTakenAsBinary) {
  // Snowball (PFT 1.0, ETMCCER without natural binary): 42 e7 f0 ae c8 8e 8b 00 -> 0x58E90BB867, as OpenCSD 1.8.0
  PtmConfig cfg;
  cfg.etmcr = 1u << 12;
  Result r = Decode(Synced({0x42, 0xe7, 0xf0, 0xae, 0xc8, 0x8e, 0x8b, 0x00, 0x0c}), cfg);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_NE(r.lines[1].find("TS=0x00000058E90BB867 ~[0x58E90BB867](381866981479); Cycles=3; "), std::string::npos)
      << r.lines[1];
}

TEST(PtmPacket, Full64BitTimestampTakesAllEightBitsOfItsLastByte) {
  PtmConfig cfg;
  cfg.etmidr = 0x411CF312;
  cfg.etmccer = (1u << 28) | (1u << 29);  // PFT 1.1, 64-bit natural binary
  Result r = Decode(Synced({0x42, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x84}), cfg);
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_NE(r.lines[1].find("TS=0x81FFFFFFFFFFFFFF ~[0x81FFFFFFFFFFFFFF](9367487224930631679); "), std::string::npos)
      << r.lines[1];
  EXPECT_NE(r.lines[2].find("ATOM"), std::string::npos);
}

TEST(PtmPacket, SplitPushesGiveTheSamePackets) {
  PtmConfig cfg;
  cfg.etmcr = (1u << 12) | (2u << 14);
  std::vector<uint8_t> v =
      Synced({0x08, 0xdf, 0x8d, 0x01, 0xc0, 0x29, 0xcc, 0x03, 0x11, 0x22, 0xb7, 0xb0, 0x8f, 0xb2, 0x1b, 0x78, 0x01});
  Result whole = Decode(v, cfg);
  Result bytes = Decode(v, cfg, 1);
  ASSERT_EQ(whole.lines.size(), 3u);
  EXPECT_EQ(bytes.lines, whole.lines);
}

TEST(PtmPacket, NotSyncBytesBeforeTheFirstAsync) {
  std::vector<uint8_t> v = {0x11, 0x22, 0x00, 0x33};
  v.insert(v.end(), kAsync.begin(), kAsync.end());
  v.push_back(0x84);
  Result r = Decode(v);
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_EQ(r.lines[0], "Idx:0; ID:0; [0x11 0x22 0x00 0x33 ];\tNOTSYNC : PTM Not Synchronised; ");
  EXPECT_EQ(r.lines[1].rfind("Idx:4; ID:0; [0x00 0x00 0x00 0x00 0x00 0x80 ];\tASYNC", 0), 0u) << r.lines[1];
  EXPECT_EQ(r.lines[2].rfind("Idx:10; ", 0), 0u);
}

TEST(PtmPacket, ExtraZerosBeforeAsyncAreOneAsync) {
  Result r = Decode({0, 0, 0, 0, 0, 0, 0, 0x80});
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_NE(r.lines[0].find("[0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x80 ];\tASYNC"), std::string::npos);
}

// Each line's index and byte count: the packets must tile the input.
void ExpectContiguous(const Result& r, size_t total) {
  size_t next = 0;
  for (const std::string& line : r.lines) {
    const size_t idx = std::stoul(line.substr(4));
    const size_t bytes = size_t(std::count(line.begin() + line.find('['), line.begin() + line.find(']'), 'x'));
    EXPECT_EQ(idx, next) << line;
    next = idx + bytes;
  }
  EXPECT_EQ(next, total);
}

TEST(PtmPacket, NotSyncZeroRunsAreIndexedAtTheirBytesHoweverPushed) {
  // A zero run too long for an A-sync (thrown away 16 at a time, the last 5
  // kept), a byte, and the A-sync: the held-back zeros once counted twice
  // when they came back in a later push.
  std::vector<uint8_t> v(40, 0x00);
  v.push_back(0x33);
  v.insert(v.end(), kAsync.begin(), kAsync.end());
  v.push_back(0x84);
  for (size_t chunk : {size_t(0), size_t(1), size_t(3), size_t(7), size_t(16)}) {
    SCOPED_TRACE(chunk);
    const Result r = Decode(v, {}, chunk);
    ExpectContiguous(r, v.size());
    ASSERT_GE(r.lines.size(), 2u);
    EXPECT_EQ(r.lines[r.lines.size() - 2].rfind("Idx:41; ID:0; [0x00 0x00 0x00 0x00 0x00 0x80 ];\tASYNC", 0), 0u)
        << r.lines[r.lines.size() - 2];
  }
}

TEST(PtmDamaged, ReservedHeaderErrorAtItsOffsetThenResyncAtNextAsync) {
  std::vector<uint8_t> v = Synced({0x84, 0x0a, 0x84, 0x84});  // 0x0a is reserved
  v.insert(v.end(), kAsync.begin(), kAsync.end());
  v.push_back(0x9c);
  Result r = Decode(v);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].index, 7u);
  EXPECT_EQ(r.errors[0].message, "byte 7: reserved header 0x0a");
  // ASYNC, ATOM, RESERVED, NOTSYNC (84 84), ASYNC, ATOM NNE
  ASSERT_EQ(r.lines.size(), 6u);
  EXPECT_NE(r.lines[2].find("RESERVED : Reserved Packet Header; "), std::string::npos);
  EXPECT_NE(r.lines[3].find("NOTSYNC"), std::string::npos);
  EXPECT_EQ(r.lines[4].rfind("Idx:10; ", 0), 0u) << r.lines[4];
  EXPECT_NE(r.lines[5].find("NNE"), std::string::npos);
}

TEST(PtmDamaged, OpenCsdPolicyCarriesOnAfterAReservedHeader) {
  Result r = Decode(Synced({0x0a, 0x84}), {}, 0, ErrorPolicy::kOpenCsd);
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_NE(r.lines[2].find("ATOM"), std::string::npos);
}

TEST(PtmDamaged, BadAsyncIsABadSequence) {
  Result r = Decode(Synced({0x00, 0x00, 0x84, 0x84}));
  ASSERT_GE(r.lines.size(), 2u);
  EXPECT_NE(r.lines[1].find("[0x00 0x00 0x84 ];\tBAD_SEQUENCE : Invalid sequence in packet; [ASYNC]; "),
            std::string::npos)
      << r.lines[1];
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].index, 6u);
}

TEST(PtmDamaged, TruncatedBufferEndsInIncompleteEotWithItsOffset) {
  Result r = Decode(Synced({0x84, 0x08, 0x58, 0x05}));  // I-sync cut after 3 of its 6 bytes
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_EQ(r.lines[2],
            "Idx:7; ID:0; [0x08 0x58 0x05 ];\tINCOMPLETE_EOT : Incomplete packet flushed at end of trace; ");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].index, 7u);
}

}  // namespace
