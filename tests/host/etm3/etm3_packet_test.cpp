// SPDX-License-Identifier: MIT
// etm3_packet_test.cpp: hand-made ETMv3 packets, one kind at a time
// (IHI0014 encodings, etm3_packet.h), with the boundary cases of each:
// branch addresses of 1-5 bytes with ISA change and exception bytes (both
// encodings), P-headers of every format with and without cycle-accurate
// tracing, I-sync with cycle count and context ID, timestamps of 48 and 64
// bits, and the data-trace packets (TC2 has none).
#include <gtest/gtest.h>

#include "etm3_test_util.h"

namespace mabutrace::etm3 {
namespace {

using test::AfterSync;
using test::Bytes;
using test::Config;

TEST(Etm3Packets, AsyncThenOneByteBranch) {
  test::Run r;
  auto p = AfterSync(Config(), {0x2b}, &r);
  ASSERT_EQ(r.packets.size(), 2u);
  EXPECT_EQ(r.packets[0].packet.type, PacketType::kAsync);
  EXPECT_EQ(r.packets[0].text, "A_SYNC : Alignment Synchronisation.");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].packet.type, PacketType::kBranchAddress);
  // 6 bits << 2 (ISA unknown: ARM alignment) = 8 bits known
  EXPECT_EQ(p[0].packet.addr.value, 0x2Au << 1);
  EXPECT_EQ(p[0].text, "BRANCH_ADDRESS : Branch address.; Addr=0x??????54 (7:0) ~[0x54]; ");
  EXPECT_TRUE(r.errors.empty());
}

TEST(Etm3Packets, FiveByteBranchSetsIsaAndFullAddress) {
  // TC2 Idx:2142 (ID 0x10): ARM, 0xB6C33AAC
  auto p = AfterSync(Config(), {0xd7, 0xba, 0x86, 0xdb, 0x0d});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].packet.isa, Isa::kArm);
  EXPECT_EQ(p[0].text, "BRANCH_ADDRESS : Branch address.; Addr=0xB6C33AAC ~[0xB6C33AAC]; ISA=ARM(32); ");
  // then a 2-byte branch keeps bits [31:14] and the ISA (not printed again)
  auto q = AfterSync(Config(), {0xd7, 0xba, 0x86, 0xdb, 0x0d, 0x81, 0x01});
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[1].packet.addr.value, 0xB6C30100u);  // 0x01 << 6 << 2 over bits [14:0]
  EXPECT_EQ(q[1].text.find("ISA="), std::string::npos);
}

TEST(Etm3Packets, BranchWithExceptionStandardEncoding) {
  // 5 address bytes, byte 5 = Thumb with bit 6 (exception follows), then
  // exception byte 0: NS=1, number 0xE (IRQ), cancel (bit 5).
  auto p = AfterSync(Config(), {0x81, 0x80, 0x80, 0x80, 0x5C, 0x3D});
  ASSERT_EQ(p.size(), 1u);
  const Etm3Packet& b = p[0].packet;
  EXPECT_EQ(p[0].raw.size(), 6u);
  EXPECT_TRUE(b.exception);
  EXPECT_EQ(b.exception_number, 0xE);
  EXPECT_TRUE(b.exception_cancel);
  EXPECT_TRUE(b.ns);
  EXPECT_EQ(b.isa, Isa::kThumb2);
  EXPECT_EQ(b.addr.value, 0xC0000000u);
  EXPECT_EQ(p[0].text,
            "BRANCH_ADDRESS : Branch address.; Addr=0xC0000000 ~[0xC0000000]; ISA=Thumb2; NS; "
            "Exception=IRQ; ; Cancel prev instr");
}

TEST(Etm3Packets, BranchWithExceptionAlternativeEncoding) {
  // ETMv3.4+ with ETMIDR bit 20: a last address byte with bit 6 set means
  // exception bytes follow (here after 2 address bytes); exception byte 0
  // with bit 7, byte 1 with Hyp (bit 5).
  const Etm3Config alt = Config(0x10001860, 0x411CF250);
  ASSERT_TRUE(alt.alt_branch());
  auto p = AfterSync(alt, {0x83, 0x41, 0x95, 0x20});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].raw.size(), 4u);
  EXPECT_TRUE(p[0].packet.exception);
  EXPECT_EQ(p[0].packet.exception_number, 0xA);  // SVC
  EXPECT_TRUE(p[0].packet.hyp);
  EXPECT_NE(p[0].text.find("NS; Hyp; Exception=SVC; "), std::string::npos) << p[0].text;
  // the same bytes in the standard encoding: a 2-byte branch, then 0x95 is a P-header
  auto s = AfterSync(Config(), {0x83, 0x41, 0x95, 0x20});
  ASSERT_GE(s.size(), 2u);
  EXPECT_EQ(s[0].raw.size(), 2u);
  EXPECT_FALSE(s[0].packet.exception);
}

TEST(Etm3Packets, PHeadersCycleAccurate) {
  struct Case {
    uint8_t b;
    const char* text;
    unsigned atoms, fmt, cc;
  } cases[] = {
      {0x84, "P_HDR : Atom P-header.; WE; Cycles=1", 1, 1, 1},
      {0xc4, "P_HDR : Atom P-header.; WEWN; Cycles=2", 2, 1, 2},
      {0x82, "P_HDR : Atom P-header.; WEE; Cycles=1", 2, 2, 1},
      {0x8a, "P_HDR : Atom P-header.; WNE; Cycles=1", 2, 2, 1},
      {0xbc, "P_HDR : Atom P-header.; WWWWWWWW; Cycles=8", 0, 3, 8},
      {0xe0, "P_HDR : Atom P-header.; WE; Cycles=1", 1, 3, 1},
      {0x92, "P_HDR : Atom P-header.; E", 1, 4, 0},
      {0x96, "P_HDR : Atom P-header.; N", 1, 4, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.b);
    auto p = AfterSync(Config(), {c.b});
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].text, c.text);
    EXPECT_EQ(p[0].packet.atom_count, c.atoms);
    EXPECT_EQ(p[0].packet.phdr_format, c.fmt);
    EXPECT_EQ(p[0].packet.cycle_count, c.cc);
  }
  // 0x80 (format 1 with no atom) is deprecated in cycle-accurate mode: reserved
  test::Run r;
  AfterSync(Config(), {0x80}, &r);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].index, 6u);
}

TEST(Etm3Packets, PHeadersNotCycleAccurate) {
  const Etm3Config cfg = Config(0x10000860);
  ASSERT_FALSE(cfg.cycle_accurate());
  auto p = AfterSync(cfg, {0xbc, 0xc0, 0x8a, 0x86});
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].text, "P_HDR : Atom P-header.; EEEEEEEEEEEEEEE");  // 15 E: bits [5:2]
  EXPECT_EQ(p[1].text, "P_HDR : Atom P-header.; N");
  EXPECT_EQ(p[2].text, "P_HDR : Atom P-header.; NE");  // format 2: bit 3 = first atom N
  EXPECT_EQ(p[3].text, "P_HDR : Atom P-header.; EN");
}

TEST(Etm3Packets, IsyncAndIsyncCycleWithContextId) {
  // TC2 Idx:884 and Idx:919 (ID 0x10)
  auto p = AfterSync(Config(), {0x08, 0x01, 0x5d, 0x11, 0x02, 0xc0, 0x70, 0x8f, 0x3c, 0x21, 0x99, 0xf6, 0x04, 0xc0});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].text, "I_SYNC : Instruction Packet synchronisation.; (Periodic); Addr=0xc002115c; S;  ISA=Thumb2; ");
  EXPECT_EQ(p[1].text,
            "I_SYNC_CYCLE : Instruction Packet synchronisation with cycle count.; (Trace Enable); "
            "Addr=0xc004f698; S;  ISA=Thumb2; Cycles=7695; ");
  // 4-byte context ID (ETMCR[15:14] = 3), ARM state, NS, Hyp (virtualization)
  auto q = AfterSync(Config(0x1000D860), {0x08, 0x78, 0x56, 0x34, 0x12, 0x4A, 0x00, 0x10, 0x00, 0x80});
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].packet.context_id, 0x12345678u);
  EXPECT_TRUE(q[0].packet.ns);
  EXPECT_TRUE(q[0].packet.hyp);
  EXPECT_EQ(q[0].packet.isync_reason, IsyncReason::kRestartOverflow);
  EXPECT_EQ(q[0].text,
            "I_SYNC : Instruction Packet synchronisation.; (Restart Overflow); Addr=0x80001000; NS; Hyp; "
            "CtxtID=12345678; ISA=ARM(32); ");
}

TEST(Etm3Packets, Timestamps48And64Bits) {
  // TC2 Idx:865: 9 payload bytes, the 9th gives 8 bits (64-bit timestamps)
  auto p = AfterSync(Config(), {0x42, 0xbd, 0x9a, 0xc3, 0xce, 0xaf, 0x90, 0x80, 0x80, 0x00, 0x46, 0xdf, 0x1e});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].text, "TIMESTAMP : Timestamp Value.; TS=0x82f9d0cd3d (562536959293) ");
  EXPECT_EQ(p[1].text, "TIMESTAMP : Timestamp Value.; TS=0x82f9d0cf5f (562536959839) ");
  EXPECT_EQ(p[1].packet.ts_bits, 14);
  // 48-bit: at most 7 payload bytes, the 7th gives 6 bits
  const Etm3Config ts48 = Config(0x10001860, 0x410CF250, 0x144008F2);
  auto q = AfterSync(ts48, {0x42, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x84});
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].packet.timestamp, 0xFFFFFFFFFFFFull);
  EXPECT_EQ(q[0].packet.ts_bits, 48);
  EXPECT_EQ(q[1].packet.type, PacketType::kPHeader);
}

TEST(Etm3Packets, SmallPackets) {
  auto p = AfterSync(Config(0x1000D860),
                     {0x0c, 0x66, 0x76, 0x7e, 0x3c, 0x05, 0x6e, 0x01, 0x02, 0x03, 0x04, 0x04, 0x81, 0x01});
  ASSERT_EQ(p.size(), 7u);
  EXPECT_EQ(p[0].text, "TRIGGER : Trace Trigger Event.");
  EXPECT_EQ(p[1].text, "IGNORE : Packet ignored.");
  EXPECT_EQ(p[2].text, "EXCEPTION_EXIT : Exception return.");
  EXPECT_EQ(p[3].text, "EXCEPTION_ENTRY : Exception entry data marker.");
  EXPECT_EQ(p[4].text, "VMID : VMID change.; VMID=0x5");
  EXPECT_EQ(p[5].text, "CONTEXT_ID : Context ID change.; CtxtID=0x4030201");
  EXPECT_EQ(p[6].text, "CYCLE_COUNT : Cycle Count.; Cycles=129");  // 0x01 | 0x01 << 7
}

// Data trace (ETMCR bit 2 value, bit 3 address): built by hand, TC2 has none.
TEST(Etm3Packets, DataTracePackets) {
  const Etm3Config data = Config(0x1000186C);
  ASSERT_TRUE(data.data_value_trace() && data.data_address_trace());
  auto p = AfterSync(data, {
                               0x2e, 0x84, 0x01, 0x44, 0x33, 0x22, 0x11,  // normal data, address 0x84, 4-byte value
                               0x06, 0xaa,                                // normal data, no address, 1 byte
                               0x02,                                      // normal data, value 0
                               0x68,                                      // out-of-order data tag 3, 2 bytes
                               0xbb, 0xcc,                                //
                               0x74, 0x10,                                // OOO placeholder with address, tag 1
                               0x7a, 0x20,                                // value not traced with address
                               0x62, 0x50,                                // suppressed, store failed
                           });
  ASSERT_EQ(p.size(), 8u);
  EXPECT_EQ(p[0].packet.type, PacketType::kNormalData);
  EXPECT_EQ(p[0].packet.data_addr.value, 0x84u);
  EXPECT_EQ(p[0].packet.data_value, 0x11223344u);
  EXPECT_EQ(p[0].text, "NORM_DATA : Data trace packet.; Addr=0x????0084 (13:0) ~[0x84]; Val=0x11223344");
  EXPECT_EQ(p[1].text, "NORM_DATA : Data trace packet.; Val=0xaa");
  EXPECT_EQ(p[2].text, "NORM_DATA : Data trace packet.; Val=0x0");
  EXPECT_EQ(p[3].text, "OOO_DATA : Out of Order data value packet.; Val=0xccbb; OO_Tag=0x3");
  EXPECT_EQ(p[4].packet.type, PacketType::kOooPlaceholder);
  EXPECT_EQ(p[4].packet.ooo_tag, 1);
  EXPECT_EQ(p[4].packet.data_addr.value, 0x90u);  // 7 bits over the previous 0x84
  EXPECT_EQ(p[5].packet.type, PacketType::kValueNotTraced);
  EXPECT_EQ(p[5].packet.data_addr.value, 0xA0u);
  EXPECT_EQ(p[6].text, "DATA_SUPPRESSED : Data trace suppressed.");
  EXPECT_EQ(p[7].text, "STORE_FAIL : Data Store Failed.");
  // With data trace off the same headers are errors, each at its byte.
  test::Run r;
  AfterSync(Config(), {0x06, 0x62}, &r);
  ASSERT_EQ(r.errors.size(), 1u);  // then resync: 0x62 is unsynchronised
  EXPECT_EQ(r.errors[0].kind, ErrorKind::kBadTraceMode);
  EXPECT_EQ(r.errors[0].index, 6u);
  EXPECT_EQ(r.packets[1].text, "BAD_TRACEMODE : Invalid packet type for this trace mode.[NORM_DATA]");
}

TEST(Etm3Packets, NotSyncBlocksAndLeadingZeros) {
  // 3 bytes of junk, then 7 zeros and 0x80: the junk and the 2 extra zeros
  // are NOTSYNC, then the A-sync is 00 x5 80.
  test::Run r = test::Process(Config(), {0x11, 0x22, 0x33, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x84});
  ASSERT_EQ(r.packets.size(), 4u);
  EXPECT_EQ(r.packets[0].raw, (Bytes{0x11, 0x22, 0x33}));
  EXPECT_EQ(r.packets[1].packet.type, PacketType::kNotSync);
  EXPECT_EQ(r.packets[1].raw, (Bytes{0, 0}));
  EXPECT_EQ(r.packets[1].packet.index, 3u);
  EXPECT_EQ(r.packets[2].packet.type, PacketType::kAsync);
  EXPECT_EQ(r.packets[2].packet.index, 5u);
  EXPECT_EQ(r.packets[3].packet.type, PacketType::kPHeader);
  // at most 16 bytes per NOTSYNC block, and a chunk boundary closes one
  Bytes junk(40, 0x84);
  r = test::Process(Config(), junk, ErrorPolicy::kResync, 20);
  ASSERT_EQ(r.packets.size(), 4u);
  EXPECT_EQ(r.packets[0].raw.size(), 16u);
  EXPECT_EQ(r.packets[1].raw.size(), 4u);
  EXPECT_EQ(r.packets[2].packet.index, 20u);
}

TEST(Etm3Packets, SplitAcrossPushesGivesTheSamePackets) {
  const Bytes body = {0x42, 0xbd, 0x9a, 0xc3, 0xce, 0xaf, 0x90, 0x80, 0x80, 0x00, 0xd7, 0xba, 0x86,
                      0xdb, 0x0d, 0x70, 0x8f, 0x3c, 0x21, 0x99, 0xf6, 0x04, 0xc0, 0x84, 0xbc};
  Bytes in = test::kAsync;
  in.insert(in.end(), body.begin(), body.end());
  const test::Run whole = test::Process(Config(), in);
  for (size_t chunk : {1u, 2u, 3u, 7u}) {
    const test::Run split = test::Process(Config(), in, ErrorPolicy::kResync, chunk);
    ASSERT_EQ(split.packets.size(), whole.packets.size()) << chunk;
    for (size_t i = 0; i < whole.packets.size(); ++i) {
      EXPECT_EQ(split.packets[i].text, whole.packets[i].text) << chunk;
      EXPECT_EQ(split.packets[i].packet.index, whole.packets[i].packet.index) << chunk;
    }
  }
}

}  // namespace
}  // namespace mabutrace::etm3
