// SPDX-License-Identifier: MIT
// Unit tests of the ETE packet processor from hand-made bytes, one group per
// packet type of R-F1 (encodings: arm-trace-facts.md §4), plus ULEB128
// limits (R-F7), resynchronisation after bad input, truncation and chunking.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "ete/ete_packet_processor.h"
#include "ete/ete_packet_text.h"
#include "ete/ete_source.h"
#include "ete/uleb128.h"
#include "shared_data.h"

namespace ete = mabutrace::ete;
using ete::PacketType;
using Bytes = std::vector<uint8_t>;

namespace {

struct Pkt {
  ete::EtePacket p;
  Bytes raw;
  std::string text;
};
struct Decoded {
  std::vector<Pkt> pkts;
  std::vector<ete::EteError> errors;
  // Packets after the A-Sync and Trace Info prologue.
  std::vector<Pkt> body;
};

ete::EteConfig Cfg(bool commopt1 = true, uint32_t maxspec = 0, bool q = true, uint8_t rev = 0) {
  ete::EteConfig c;
  c.trcidr0 = (commopt1 ? 0x28000EA1u : 0x08000EA1u) | (q ? (3u << 15) : 0u);
  c.trcidr2 = 0xD0001088;  // 64-bit VA, 32-bit VMID and CONTEXTID, 20-bit cycle counts
  c.trcidr8 = maxspec;
  c.trcdevarch = 0x47705A13 | (static_cast<uint32_t>(rev) << 16);
  c.trctraceidr = 0x10;
  return c;
}

Bytes Async() {
  Bytes b(11, 0x00);
  b.push_back(0x80);
  return b;
}
Bytes Cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
// A-Sync + Trace Info with CC enabled and CYCT threshold 0x16 (§4.4 example).
Bytes Prologue() { return Cat({Async(), {0x01, 0x09, 0x01, 0x16}}); }

void OnPacket(void* c, const ete::EtePacket& p) {
  Pkt k{p, Bytes(p.raw, p.raw + p.size), {}};
  ete::FormatOcsd(p, &k.text);
  k.p.raw = nullptr;
  static_cast<Decoded*>(c)->pkts.push_back(std::move(k));
}
void OnError(void* c, const ete::EteError& e) { static_cast<Decoded*>(c)->errors.push_back(e); }

Decoded Decode(const Bytes& in, const ete::EteConfig& cfg = Cfg(), ete::ErrorPolicy policy = ete::ErrorPolicy::kResync,
               size_t chunk = 0) {
  Decoded r;
  ete::EtePacketProcessor proc(cfg, &OnPacket, &r, &OnError, policy);
  if (chunk == 0) chunk = in.size() ? in.size() : 1;
  for (size_t i = 0; i < in.size(); i += chunk) proc.Push(i, in.data() + i, std::min(chunk, in.size() - i));
  proc.Finish();
  size_t skip = 0;
  while (skip < r.pkts.size() &&
         (r.pkts[skip].p.type == PacketType::kAsync || r.pkts[skip].p.type == PacketType::kTraceInfo))
    ++skip;
  r.body.assign(r.pkts.begin() + static_cast<std::ptrdiff_t>(skip), r.pkts.end());
  return r;
}

// Decodes prologue + `bytes` and returns the single packet they make.
Pkt One(const Bytes& bytes, const ete::EteConfig& cfg = Cfg()) {
  Decoded r = Decode(Cat({Prologue(), bytes}), cfg);
  EXPECT_EQ(r.body.size(), 1u) << "bytes did not make exactly one packet";
  EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
  if (r.body.empty()) return {};
  EXPECT_EQ(r.body[0].raw, bytes);
  return r.body[0];
}

std::string Atoms(const ete::EtePacket& p) {
  std::string s;
  for (int i = 0; i < p.atom_count; ++i) s += ((p.atom_bits >> i) & 1) ? 'E' : 'N';
  return s;
}

// ---------------------------------------------------------------- ULEB128

TEST(Uleb128, SingleAndMultiByte) {
  const uint8_t a[] = {0x05};
  auto r = ete::ReadUleb(a, 1, 5);
  EXPECT_EQ(r.status, ete::UlebStatus::kOk);
  EXPECT_EQ(r.value, 5u);
  EXPECT_EQ(r.bytes, 1);
  const uint8_t b[] = {0x86, 0xE8, 0x01};  // 6 + 0x68<<7 + 1<<14
  r = ete::ReadUleb(b, 3, 5);
  EXPECT_EQ(r.value, 0x7406u);
  EXPECT_EQ(r.bytes, 3);
}

TEST(Uleb128, LongestThirtyTwoBitValue) {
  const uint8_t a[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
  auto r = ete::ReadUleb(a, 5, ete::UlebMaxBytes(32));
  EXPECT_EQ(r.status, ete::UlebStatus::kOk);
  EXPECT_EQ(r.value, 0xFFFFFFFFu);
  EXPECT_EQ(r.bytes, 5);
  EXPECT_FALSE(r.overflow);
}

TEST(Uleb128, OverlongAndOverflowAndShortInput) {
  const uint8_t a[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
  EXPECT_EQ(ete::ReadUleb(a, 6, 5).status, ete::UlebStatus::kOverlong);
  const uint8_t b[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
  auto r = ete::ReadUleb(b, 5, 5);
  EXPECT_EQ(r.status, ete::UlebStatus::kOk);
  EXPECT_TRUE(r.overflow);
  EXPECT_EQ(ete::ReadUleb(b, 3, 5).status, ete::UlebStatus::kNeedMore);
  const uint8_t c[] = {0x80, 0x80, 0x80};
  EXPECT_EQ(ete::ReadUleb(c, 3, ete::UlebMaxBytes(20)).status, ete::UlebStatus::kOverlong);
  EXPECT_EQ(ete::UlebMaxBytes(20), 3u);
  EXPECT_EQ(ete::UlebMaxBytes(12), 2u);
}

TEST(EtePackets, LongestCommitFieldDecodesAndOneMoreByteIsOverlong) {
  Pkt p = One({0x2D, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F});
  EXPECT_EQ(p.p.type, PacketType::kCommit);
  EXPECT_EQ(p.p.commit, 0xFFFFFFFFu);
  Decoded r = Decode(Cat({Prologue(), {0x2D, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, Async(), {0x04}}));
  ASSERT_FALSE(r.errors.empty());
  EXPECT_EQ(r.errors[0].kind, ete::EteErrorKind::kOverlongField);
  EXPECT_EQ(r.errors[0].index, Prologue().size());
  EXPECT_NE(r.errors[0].message.find("byte " + std::to_string(Prologue().size())), std::string::npos);
  ASSERT_FALSE(r.body.empty());
  EXPECT_EQ(r.body[0].p.type, PacketType::kBadSequence);
  EXPECT_EQ(r.body[0].p.err_type, PacketType::kCommit);
  EXPECT_EQ(r.pkts.back().p.type, PacketType::kTraceOn) << "decoding resumes after the next A-Sync";
}

// ---------------------------------------------------------------- sync

TEST(EtePackets, BytesBeforeTheFirstAsyncAreNotSync) {
  Decoded r = Decode(Cat({{0xF7, 0x95, 0x12, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99}, Async(), {0x01, 0x00}}));
  ASSERT_GE(r.pkts.size(), 4u);
  EXPECT_EQ(r.pkts[0].p.type, PacketType::kNotSync);
  EXPECT_EQ(r.pkts[0].raw.size(), 8u);  // chunks of 8, like OpenCSD
  EXPECT_EQ(r.pkts[1].p.type, PacketType::kNotSync);
  EXPECT_EQ(r.pkts[1].p.index, 8u);
  EXPECT_EQ(r.pkts[2].p.type, PacketType::kAsync);
  EXPECT_EQ(r.pkts[2].p.index, 10u);
  EXPECT_EQ(r.pkts[3].p.type, PacketType::kTraceInfo);
  EXPECT_TRUE(r.pkts[3].p.tinfo_initial);
}

TEST(EtePackets, LongZeroRunBeforeAsync) {
  Bytes in(20, 0x00);
  in.push_back(0x80);
  Decoded r = Decode(in);
  ASSERT_FALSE(r.pkts.empty());
  EXPECT_EQ(r.pkts.back().p.type, PacketType::kAsync);
  EXPECT_EQ(r.pkts.back().raw, Async());
}

TEST(EtePackets, PeriodicAsyncWhileSynced) {
  Decoded r = Decode(Cat({Prologue(), {0xF7}, Async(), {0xF6}}));
  ASSERT_EQ(r.pkts.size(), 5u);
  EXPECT_EQ(r.pkts[3].p.type, PacketType::kAsync);
  EXPECT_EQ(r.pkts[3].p.index, Prologue().size() + 1);
}

TEST(EtePackets, DiscardAndOverflow) {
  EXPECT_EQ(One({0x00, 0x03}).p.type, PacketType::kDiscard);
  EXPECT_EQ(One({0x00, 0x05}).p.type, PacketType::kOverflow);
  ete::EteStats st;
  Decoded r = Decode(Cat({Prologue(), {0x00, 0x05}}));
  EXPECT_EQ(r.pkts.back().text, "I_OVERFLOW : Overflow.");
}

TEST(EtePackets, BadExtensionByteIsBadSequence) {
  Decoded r = Decode(Cat({Prologue(), {0x00, 0x07, 0xF7}}), Cfg(), ete::ErrorPolicy::kOpenCsd);
  ASSERT_EQ(r.body.size(), 2u);
  EXPECT_EQ(r.body[0].p.type, PacketType::kBadSequence);
  EXPECT_EQ(r.body[1].p.type, PacketType::kAtomF1);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, ete::EteErrorKind::kBadSequence);
}

// ---------------------------------------------------------------- trace info

TEST(EtePackets, TraceInfoSections) {
  Decoded r = Decode(Cat({Async(), {0x01, 0x00}}));
  EXPECT_EQ(r.pkts.back().p.info, 0u);
  EXPECT_EQ(r.pkts.back().text, "I_TRACE_INFO : Trace Info.; INFO=0x0 { CC.0, TSTATE.0 }; Decoder Sync point TINFO");
  r = Decode(Cat({Async(), {0x01, 0x09, 0x01, 0x16}}));
  EXPECT_EQ(r.pkts.back().p.cc_threshold, 0x16u);
  EXPECT_EQ(r.pkts.back().p.info & 1, 1u);
  // INFO (TSTATE), KEY, SPEC 300, CYCT 0x123; a second Trace Info is no sync point
  r = Decode(Cat({Async(), {0x01, 0x0F, 0x41, 0x07, 0xAC, 0x02, 0xA3, 0x02}, {0x01, 0x00}}));
  ASSERT_EQ(r.pkts.size(), 3u);
  const auto& t = r.pkts[1].p;
  EXPECT_EQ(t.info, 0x41u);
  EXPECT_EQ(t.key, 7u);
  EXPECT_EQ(t.spec, 300u);
  EXPECT_EQ(t.cc_threshold, 0x123u);
  EXPECT_NE(r.pkts[1].text.find("TSTATE.1"), std::string::npos);
  EXPECT_NE(r.pkts[1].text.find("INIT SPEC DEPTH=300"), std::string::npos);
  EXPECT_FALSE(r.pkts[2].p.tinfo_initial);
}

// ---------------------------------------------------------------- timestamp

TEST(EtePackets, TimestampBitReplacementAndCycleCount) {
  Decoded r = Decode(Cat({Prologue(),
                          {0x02, 0x86, 0xE8, 0x01},
                          {0x02, 0x05},
                          {0x03, 0x7F, 0x85, 0x01},
                          {0x02, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0xAB}}));
  ASSERT_EQ(r.body.size(), 4u);
  EXPECT_EQ(r.body[0].p.timestamp, 0x7406u);
  EXPECT_EQ(r.body[1].p.timestamp, 0x7405u);  // low 7 bits replaced
  EXPECT_EQ(r.body[1].p.ts_bits, 7);
  EXPECT_EQ(r.body[2].p.timestamp, 0x747Fu);
  EXPECT_TRUE(r.body[2].p.cc_valid);
  EXPECT_EQ(r.body[2].p.cycle_count, (0x85u & 0x7F) | (1u << 7));
  EXPECT_EQ(r.body[3].p.timestamp, 0xAB00000000000001ull);  // 9th byte: bits 63:56
  EXPECT_EQ(r.body[3].p.ts_bits, 64);
  EXPECT_EQ(r.body[3].raw.size(), 10u);
}

TEST(EtePackets, TimestampMarker) { EXPECT_EQ(One({0x88}).p.type, PacketType::kTimestampMarker); }

// ---------------------------------------------------------------- simple

TEST(EtePackets, NoPayloadPackets) {
  EXPECT_EQ(One({0x04}).p.type, PacketType::kTraceOn);
  EXPECT_EQ(One({0x0A}).p.type, PacketType::kTransactionStart);
  EXPECT_EQ(One({0x0B}).p.type, PacketType::kTransactionCommit);
  EXPECT_EQ(One({0x70}).p.type, PacketType::kIgnore);
  for (int h = 0x71; h <= 0x7F; ++h) {
    Pkt p = One({static_cast<uint8_t>(h)});
    EXPECT_EQ(p.p.type, PacketType::kEvent);
    EXPECT_EQ(p.p.event, h & 0xF);
  }
}

TEST(EtePackets, Instrumentation) {
  Bytes ite = {0x09, 0x01, 0xFF, 0xFF, 0x0F, 0x00, 0x00, 0x00, 0x00, 0x80};
  Pkt p = One(ite, Cfg(true, 0, true, 3));  // FEAT_ITE needs ETE revision >= 3
  EXPECT_EQ(p.p.type, PacketType::kInstrumentation);
  EXPECT_EQ(p.p.ite_el, 1);
  EXPECT_EQ(p.p.ite_value, 0x80000000000FFFFFull);
  Decoded r = Decode(Cat({Prologue(), {0x09}}), Cfg(true, 0, true, 0));
  ASSERT_FALSE(r.body.empty());
  EXPECT_EQ(r.body[0].p.type, PacketType::kReserved);
}

// ---------------------------------------------------------------- exceptions

TEST(EtePackets, ExceptionThenItsAddressPacket) {
  Decoded r = Decode(Cat({Prologue(), {0x06, 0x05}, {0x95, 0x4E}}));
  ASSERT_EQ(r.body.size(), 2u);
  EXPECT_EQ(r.body[0].p.type, PacketType::kException);
  EXPECT_EQ(r.body[0].p.exception_type, 2);  // Call
  EXPECT_EQ(r.body[0].p.exception_addr_interp, 1);
  EXPECT_EQ(r.body[0].text, "I_EXCEPT : Exception.;  Call; Ret Addr Follows;");
  EXPECT_EQ(r.body[1].p.type, PacketType::kTargetAddrShortIs0);
  Pkt e2 = One({0x06, 0x4E});  // E=10, TYPE 7 (data debug)
  EXPECT_EQ(e2.p.exception_addr_interp, 2);
  EXPECT_EQ(e2.p.exception_type, 7);
}

TEST(EtePackets, PeResetAndTransactionFailureAreThreeBytes) {
  EXPECT_EQ(One({0x06, 0x01, 0x70}).p.type, PacketType::kPeReset);
  EXPECT_EQ(One({0x06, 0x40, 0x70}).p.type, PacketType::kPeReset);
  EXPECT_EQ(One({0x06, 0x31, 0x70}).p.type, PacketType::kTransactionFailure);
  EXPECT_EQ(One({0x06, 0x70, 0x70}).p.type, PacketType::kTransactionFailure);
}

// ---------------------------------------------------------------- cycle counts

TEST(EtePackets, CycleCountsCommitMode0) {
  const auto c = Cfg(false, 0x78);
  Pkt p = One({0x0E, 0x01, 0x21}, c);  // F1: commit 1, count 0x21 + 0x16
  EXPECT_EQ(p.p.type, PacketType::kCycleCountF1);
  EXPECT_EQ(p.p.commit, 1u);
  EXPECT_TRUE(p.p.commit_valid);
  EXPECT_EQ(p.p.cycle_count, 0x37u);
  p = One({0x0E, 0x81, 0x01, 0xFF, 0xFF, 0x3F}, c);  // 2-byte commit, longest (3-byte) count
  EXPECT_EQ(p.p.commit, 0x81u);
  EXPECT_EQ(p.p.cycle_count, 0xFFFFFu + 0x16u);
  p = One({0x0F, 0x03}, c);  // F1 unknown count: commit only
  EXPECT_EQ(p.p.commit, 3u);
  EXPECT_EQ(p.p.cycle_count, 0u);
  p = One({0x0C, 0x50}, c);  // F2 small: commit AAAA+1, count BBBB + threshold
  EXPECT_EQ(p.p.type, PacketType::kCycleCountF2);
  EXPECT_EQ(p.p.commit, 6u);
  EXPECT_EQ(p.p.cycle_count, 0x16u);
  p = One({0x0D, 0x21}, c);  // F2 large: commit MAXSPEC + AAAA - 15
  EXPECT_EQ(p.p.commit, 0x78u + 2 - 15);
  EXPECT_EQ(p.p.cycle_count, 0x17u);
  for (int h = 0x10; h <= 0x1F; ++h) {  // F3: 0001 AA BB
    p = One({static_cast<uint8_t>(h)}, c);
    EXPECT_EQ(p.p.type, PacketType::kCycleCountF3);
    EXPECT_EQ(p.p.commit, static_cast<uint32_t>(((h >> 2) & 3) + 1)) << std::hex << h;
    EXPECT_EQ(p.p.cycle_count, 0x16u + (h & 3));
  }
  Decoded r = Decode(Cat({Prologue(), {0x0E, 0x01, 0x80, 0x80, 0x80}}), c);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_EQ(r.errors[0].kind, ete::EteErrorKind::kOverlongField);  // 4-byte count
}

TEST(EtePackets, CycleCountsCommitMode1) {
  const auto c = Cfg(true);
  Pkt p = One({0x0E, 0x21}, c);
  EXPECT_EQ(p.p.cycle_count, 0x37u);
  EXPECT_FALSE(p.p.commit_valid);
  p = One({0x0F}, c);
  EXPECT_EQ(p.p.cycle_count, 0u);
  EXPECT_EQ(p.text, "I_CCNT_F1 : Cycle Count format 1.; Count=0x0");
  p = One({0x0D, 0xF4}, c);
  EXPECT_EQ(p.p.cycle_count, 0x1Au);
  EXPECT_FALSE(p.p.commit_valid);
  for (int h = 0x10; h <= 0x1F; ++h) {
    p = One({static_cast<uint8_t>(h)}, c);
    EXPECT_FALSE(p.p.commit_valid);
    EXPECT_EQ(p.p.cycle_count, 0x16u + (h & 3));
  }
}

// ---------------------------------------------------------------- speculation

TEST(EtePackets, CommitCancelMispredict) {
  for (bool commopt1 : {false, true}) {
    SCOPED_TRACE(commopt1 ? "COMMOPT=1" : "COMMOPT=0");
    auto One = [&](const Bytes& b) { return ::One(b, Cfg(commopt1, 0x20)); };
    Pkt p = One({0x2D, 0x05});
    EXPECT_EQ(p.p.commit, 5u);
    p = One({0x2E, 0x04});
    EXPECT_EQ(p.p.type, PacketType::kCancelF1);
    EXPECT_EQ(p.p.cancel, 4u);
    p = One({0x2F, 0x82, 0x01});
    EXPECT_EQ(p.p.type, PacketType::kCancelF1Mispredict);
    EXPECT_EQ(p.p.cancel, 130u);
    const char* mis[4] = {"", "E", "EE", "N"};
    for (int h = 0x30; h <= 0x33; ++h) {
      p = One({static_cast<uint8_t>(h)});
      EXPECT_EQ(p.p.type, PacketType::kMispredict);
      EXPECT_EQ(Atoms(p.p), mis[h & 3]);
    }
    for (int h = 0x34; h <= 0x37; ++h) {
      p = One({static_cast<uint8_t>(h)});
      EXPECT_EQ(p.p.type, PacketType::kCancelF2);
      EXPECT_EQ(Atoms(p.p), mis[h & 3]);
      EXPECT_EQ(p.p.cancel, 1u);
    }
    for (int h = 0x38; h <= 0x3F; ++h) {
      p = One({static_cast<uint8_t>(h)});
      EXPECT_EQ(p.p.type, PacketType::kCancelF3);
      EXPECT_EQ(Atoms(p.p), (h & 1) ? "E" : "");
      EXPECT_EQ(p.p.cancel, static_cast<uint32_t>(((h >> 1) & 3) + 2));
    }
  }
}

TEST(EtePackets, PerPacketFieldsDoNotLeakIntoTheNextPacket) {
  Decoded r = Decode(Cat({Prologue(),
                          {0x81, 0xC1, 1, 0, 0, 0, 2, 0, 0, 0},
                          {0x95, 0x05},
                          {0x36},
                          {0x9A, 1, 2, 3, 4},
                          {0x03, 0x01, 0x05},
                          {0x90}}));
  ASSERT_EQ(r.body.size(), 6u);
  EXPECT_TRUE(r.body[0].p.context.updated_vmid);
  EXPECT_FALSE(r.body[1].p.context.updated);  // address packet after a context packet
  EXPECT_FALSE(r.body[1].p.context.updated_vmid);
  EXPECT_EQ(r.body[2].p.atom_count, 2);  // cancel F2 with EE
  EXPECT_EQ(r.body[3].p.atom_count, 0);
  EXPECT_TRUE(r.body[4].p.cc_valid);  // timestamp with cycle count
  EXPECT_FALSE(r.body[5].p.cc_valid);
}

// ---------------------------------------------------------------- atoms

// Expected atom strings (oldest first) from the ETE atom formats (§4.15).
std::string ExpectedAtoms(int h) {
  auto bits = [](int v, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += ((v >> i) & 1) ? 'E' : 'N';
    return s;
  };
  if (h == 0xF6 || h == 0xF7) return bits(h, 1);
  if (h >= 0xD8 && h <= 0xDB) return bits(h, 2);
  if (h >= 0xF8) return bits(h, 3);
  if (h == 0xDC) return "NEEE";
  if (h == 0xDD) return "NNNN";
  if (h == 0xDE) return "NENE";
  if (h == 0xDF) return "ENEN";
  if (h == 0xF5) return "NEEEE";
  if (h == 0xD5) return "NNNNN";
  if (h == 0xD6) return "NENEN";
  if (h == 0xD7) return "ENENE";
  // format 6: (COUNT+3) x E, then E (A=0) or N (A=1)
  return std::string(static_cast<size_t>((h & 0x1F) + 3), 'E') + ((h & 0x20) ? "N" : "E");
}

TEST(EtePackets, EveryAtomPattern) {
  for (int h = 0xC0; h <= 0xFF; ++h) {
    Pkt p = One({static_cast<uint8_t>(h)});
    EXPECT_EQ(Atoms(p.p), ExpectedAtoms(h)) << std::hex << h;
    EXPECT_EQ(p.text.substr(p.text.rfind(' ') + 1), ExpectedAtoms(h));
  }
  EXPECT_EQ(One({0xD4}).p.atom_count, 24);  // longest: 24 x E
  EXPECT_EQ(One({0xF4}).p.atom_count, 24);
}

// ---------------------------------------------------------------- context / addresses

TEST(EtePackets, ContextPackets) {
  Pkt p = One({0x81, 0x31});
  EXPECT_EQ(p.p.context.el, 1);
  EXPECT_TRUE(p.p.context.sf);
  EXPECT_TRUE(p.p.context.ns);
  EXPECT_EQ(p.text, "I_CTXT : Context Packet.; Ctxt: AArch64,EL1, NS; ");
  p = One({0x81, 0xC2, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88});  // VMID then CONTEXTID
  EXPECT_EQ(p.p.context.vmid, 0x44332211u);
  EXPECT_EQ(p.p.context.context_id, 0x88776655u);
  EXPECT_EQ(p.p.context.el, 2);
  EXPECT_FALSE(p.p.context.sf);
  p = One({0x81, 0x39});  // NSE=1, NS=1: Realm
  EXPECT_NE(p.text.find("Realm"), std::string::npos);
  p = One({0x81, 0x1B});  // NSE=1, NS=0: Root
  EXPECT_NE(p.text.find("Root"), std::string::npos);
  p = One({0x80});
  EXPECT_FALSE(p.p.context.updated);
  EXPECT_EQ(p.text, "I_CTXT : Context Packet.; Ctxt: Same");
}

// Trace Info resets VMID and CONTEXTID to 0 (arm-trace-facts.md §4.4): a
// Context packet read from bytes before it (here a VMID/CONTEXTID one) must
// not lend its values to the contexts after it. Mutation: drop the reset in
// PacketFields::TraceInfo -> the V/C-less context reports 0x44332211.
TEST(EtePackets, TraceInfoResetsVmidAndContextId) {
  const Decoded d = Decode(Cat({Prologue(),
                                {0x81, 0xD1, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88},  // V, C, AArch64 EL1
                                {0x01, 0x00},                                                  // Trace Info
                                {0x81, 0x11}}));                                               // AArch64 EL1, no V/C
  ASSERT_TRUE(d.errors.empty());
  ASSERT_EQ(d.body.size(), 3u);
  EXPECT_EQ(d.body[0].p.context.vmid, 0x44332211u);
  EXPECT_EQ(d.body[2].p.context.vmid, 0u);
  EXPECT_EQ(d.body[2].p.context.context_id, 0u);
}

TEST(EtePackets, AddressPacketsAndCompression) {
  Decoded r = Decode(Cat({Prologue(),
                          {0x81, 0x31},
                          {0x9A, 0x4E, 0x4A, 0x06, 0x00},                          // 32-bit IS0 -> 0x69538
                          {0x95, 0xB0, 0x4F},                                      // short IS0, 2 bytes -> 0x69EC0
                          {0x95, 0x05},                                            // short IS0, 1 byte
                          {0x96, 0x85, 0x02},                                      // short IS1
                          {0x9D, 0x00, 0x1A, 0x08, 0x00, 0xC0, 0xFF, 0xFF, 0xFF},  // 64-bit IS0
                          {0x9E, 0x01, 0x34, 0x12, 0, 0, 0, 0, 0},                 // 64-bit IS1
                          {0x9B, 0x01, 0x34, 0x12, 0x00},                          // 32-bit IS1
                          {0x91}}));                                               // exact match AHB[1]
  ASSERT_EQ(r.body.size(), 9u);
  EXPECT_EQ(r.body[1].p.addr.value, 0x69538u);
  EXPECT_EQ(r.body[2].p.addr.value, 0x69EC0u);
  EXPECT_EQ(r.body[2].p.addr.pkt_bits, 17);
  EXPECT_EQ(r.body[3].p.addr.value, 0x69E14u);  // bits [8:2] replaced
  EXPECT_EQ(r.body[4].p.addr.value, (0x69E14u & ~0xFFFFu) | (0x05u << 1) | (0x02u << 8));
  EXPECT_EQ(r.body[4].p.addr.isa, 1);
  EXPECT_EQ(r.body[5].p.addr.value, 0xFFFFFFC000083400ull);
  EXPECT_EQ(r.body[6].p.addr.value, 0x1234 * 0x100ull + 0x02);
  EXPECT_EQ(r.body[7].p.addr.value, 0x123402u);
  EXPECT_EQ(r.body[8].p.type, PacketType::kTargetAddrExact);
  EXPECT_EQ(r.body[8].p.exact_match_idx, 1);
  EXPECT_EQ(r.body[8].p.addr.value, r.body[6].p.addr.value);  // AHB: [0]=#7, [1]=#6
}

TEST(EtePackets, AddressWithContext) {
  Pkt p = One({0x82, 0x21, 0x0A, 0x0C, 0x00, 0x11});
  EXPECT_EQ(p.p.addr.value, 0xC1484u);
  EXPECT_EQ(p.p.context.el, 1);
  EXPECT_FALSE(p.p.context.ns);
  p = One({0x85, 0x00, 0x1A, 0x08, 0x00, 0xC0, 0xFF, 0xFF, 0xFF, 0xF1, 1, 0, 0, 0, 2, 0, 0, 0});
  EXPECT_EQ(p.p.type, PacketType::kTargetAddrCtxtL64Is0);
  EXPECT_EQ(p.p.addr.value, 0xFFFFFFC000083400ull);
  EXPECT_EQ(p.p.context.vmid, 1u);
  EXPECT_EQ(p.p.context.context_id, 2u);
  EXPECT_EQ(One({0x83, 0x01, 0x02, 0x03, 0x04, 0x10}).p.type, PacketType::kTargetAddrCtxtL32Is1);
  EXPECT_EQ(One({0x86, 1, 2, 3, 4, 5, 6, 7, 8, 0x10}).p.addr.isa, 1);
}

TEST(EtePackets, SourceAddressPackets) {
  Decoded r = Decode(Cat({Prologue(),
                          {0x81, 0x31},
                          {0xB6, 0x31, 0x03, 0x06, 0x00},
                          {0xB4, 0x48},
                          {0xB5, 0x42},
                          {0xB7, 1, 2, 3, 4},
                          {0xB8, 0, 0, 0, 0, 0, 0, 0, 1},
                          {0xB9, 2, 0, 0, 0, 0, 0, 0, 0},
                          {0xB0}}));
  ASSERT_EQ(r.body.size(), 8u);
  EXPECT_EQ(r.body[1].p.type, PacketType::kSourceAddrL32Is0);
  EXPECT_EQ(r.body[1].p.addr.value, 0x606C4u);
  EXPECT_EQ(r.body[2].p.type, PacketType::kSourceAddrShortIs0);
  EXPECT_EQ(r.body[3].p.type, PacketType::kSourceAddrShortIs1);
  EXPECT_EQ(r.body[4].p.type, PacketType::kSourceAddrL32Is1);
  EXPECT_EQ(r.body[5].p.type, PacketType::kSourceAddrL64Is0);
  EXPECT_EQ(r.body[5].p.addr.value, 1ull << 56);
  EXPECT_EQ(r.body[6].p.type, PacketType::kSourceAddrL64Is1);
  EXPECT_EQ(r.body[7].p.type, PacketType::kSourceAddrExact);
  EXPECT_EQ(r.body[7].p.addr.value, r.body[6].p.addr.value);
}

TEST(EtePackets, QPackets) {
  Decoded r = Decode(Cat({Prologue(),
                          {0x81, 0x31},
                          {0xAA, 0x34, 0x3F, 0x06, 0x00, 0x03},  // 32-bit IS0
                          {0xA5, 0x86, 0x1C, 0x03},              // short IS0
                          {0xA6, 0x05, 0x02},
                          {0xAB, 1, 2, 3, 4, 0x81, 0x01},
                          {0xA1, 0x07},
                          {0xAC, 0x09},
                          {0xAF}}));
  ASSERT_EQ(r.body.size(), 8u);
  EXPECT_EQ(r.body[1].p.addr.value, 0x67ED0u);
  EXPECT_EQ(r.body[1].p.q_count, 3u);
  EXPECT_EQ(r.body[2].p.q_count, 3u);
  EXPECT_EQ(r.body[2].p.addr.pkt_bits, 17);
  EXPECT_EQ(r.body[3].p.addr.isa, 1);
  EXPECT_EQ(r.body[3].p.q_count, 2u);
  EXPECT_EQ(r.body[4].p.q_count, 129u);
  EXPECT_TRUE(r.body[5].p.q_addr_match);
  EXPECT_EQ(r.body[5].p.addr.value, r.body[3].p.addr.value);  // AHB[1]
  EXPECT_EQ(r.body[5].p.q_count, 7u);
  EXPECT_FALSE(r.body[6].p.q_addr_present);
  EXPECT_EQ(r.body[6].p.q_count, 9u);
  EXPECT_FALSE(r.body[7].p.q_count_present);
  EXPECT_EQ(r.body[7].text, "I_Q : Q Packet.; Count(Unknown)");
  // Q headers are reserved without TRCIDR0.QSUPP, and types 3,4,7,8,9,D,E always
  Decoded nq = Decode(Cat({Prologue(), {0xAC, 0x01}}), Cfg(true, 0, false));
  EXPECT_EQ(nq.body[0].p.type, PacketType::kReserved);
  for (int t : {0x3, 0x4, 0x7, 0x8, 0x9, 0xD, 0xE}) {
    Decoded rr = Decode(Cat({Prologue(), {static_cast<uint8_t>(0xA0 | t)}}));
    EXPECT_EQ(rr.body[0].p.type, PacketType::kReserved) << t;
  }
}

// ---------------------------------------------------------------- bad input

TEST(EtePackets, ReservedHeadersAreReportedAndResyncAtTheNextAsync) {
  for (uint8_t h :
       {0x05, 0x07, 0x08, 0x20, 0x2C, 0x40, 0x6F, 0x84, 0x87, 0x89, 0x93, 0x97, 0x9C, 0x9F, 0xB3, 0xBA, 0xBF}) {
    SCOPED_TRACE(static_cast<int>(h));
    Bytes in = Cat({Prologue(), {h, 0xF7, 0xF7}, Async(), {0xF6}});
    Decoded r = Decode(in);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].kind, ete::EteErrorKind::kReservedHeader);
    EXPECT_EQ(r.errors[0].index, Prologue().size());
    ASSERT_GE(r.body.size(), 3u);
    EXPECT_TRUE(r.body[0].p.type == PacketType::kReserved || r.body[0].p.type == PacketType::kReservedCfg);
    EXPECT_EQ(r.body[1].p.type, PacketType::kNotSync);  // the two atoms are not decoded
    EXPECT_EQ(r.pkts[r.pkts.size() - 2].p.type, PacketType::kAsync);
    EXPECT_EQ(r.pkts.back().p.type, PacketType::kAtomF1);
    // OpenCSD policy: the next byte is a header again
    Decoded o = Decode(in, Cfg(), ete::ErrorPolicy::kOpenCsd);
    ASSERT_GE(o.body.size(), 2u);
    EXPECT_EQ(o.body[1].p.type, PacketType::kAtomF1);
  }
}

TEST(EtePackets, TruncatedPacketAtEndOfTrace) {
  Bytes in = Cat({Prologue(), {0xF7, 0x9A, 0x4E, 0x4A}});
  Decoded r = Decode(in);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, ete::EteErrorKind::kTruncated);
  EXPECT_EQ(r.errors[0].index, Prologue().size() + 1);
  ASSERT_EQ(r.body.size(), 2u);
  EXPECT_EQ(r.body[1].p.type, PacketType::kIncompleteEot);
  EXPECT_EQ(r.body[1].p.err_type, PacketType::kTargetAddrL32Is0);
  EXPECT_EQ(r.body[1].text, "I_INCOMPLETE_EOT : Incomplete packet at end of trace.[I_ADDR_L_32IS0]");
}

TEST(EtePackets, CorruptedCaptureResumesAtNextAsync) {
  // A real capture whose packet header at ~byte 2000 is overwritten with a
  // reserved header, followed by the same capture again (which starts with
  // an A-Sync): an error names the byte, the rest up to the A-Sync is
  // reported as not synchronised, and from the A-Sync on the packets equal
  // the clean decode.
  const auto dir = std::filesystem::path(MABUTRACE_SHARED_DIR) / "data/ete-snapshots/tme_test";
  MABUTRACE_NEEDS_SHARED(dir);
  auto snap = mabutrace::snapshot::ReadSnapshot(dir);
  auto sources = ete::SnapshotSources(snap, snap.buffers[0]);
  auto data = mabutrace::snapshot::ReadBinaryFile(snap.buffers[0].file);
  ASSERT_GT(data.size(), 4000u);
  Decoded clean = Decode(data, sources[0].config);
  ASSERT_TRUE(clean.errors.empty());
  size_t at = 0;  // the header of the first packet after byte 2000
  for (const auto& p : clean.pkts)
    if (p.p.index >= 2000 && p.p.type != PacketType::kAsync) {
      at = p.p.index;
      break;
    }
  ASSERT_GT(at, 0u);
  Bytes bad = data;
  bad[at] = 0x08;  // a reserved header
  bad.insert(bad.end(), data.begin(), data.end());
  Decoded r = Decode(bad, sources[0].config);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].index, at);
  EXPECT_EQ(r.errors[0].kind, ete::EteErrorKind::kReservedHeader);
  size_t b = 0;
  while (b < r.pkts.size() && !(r.pkts[b].p.type == PacketType::kAsync && r.pkts[b].p.index >= data.size())) ++b;
  ASSERT_LT(b, r.pkts.size());
  EXPECT_EQ(r.pkts[b].p.index, data.size());
  for (size_t i = 0; i < b; ++i) {
    if (r.pkts[i].p.index > at) {
      EXPECT_EQ(r.pkts[i].p.type, PacketType::kNotSync) << i;
    }
  }
  ASSERT_EQ(r.pkts.size() - b, clean.pkts.size());
  for (size_t i = 0; i < clean.pkts.size(); ++i) {
    ASSERT_EQ(r.pkts[b + i].p.index - data.size(), clean.pkts[i].p.index);
    ASSERT_EQ(r.pkts[b + i].raw, clean.pkts[i].raw);
    ASSERT_EQ(r.pkts[b + i].p.type, clean.pkts[i].p.type);
  }
}

// The trace unit of a source (arm-trace-facts.md §8.2): TRCDEVARCH first,
// then TRCIDR1, then the device type.
TEST(TraceUnits, ArchitectureFromTrcdevarchTrcidr1OrType) {
  auto arch = [](const char* type, std::map<std::string, uint64_t> regs) {
    mabutrace::snapshot::Device d;
    d.type = type;
    d.regs = std::move(regs);
    return ete::TraceUnitArch::Of(d).Name();
  };
  EXPECT_EQ(arch("ETE", {{"TRCDEVARCH", 0x47705A13}, {"TRCIDR1", 0x4100FFF0}}), "ETE");
  EXPECT_EQ(arch("ETE", {}), "ETE");                             // OpenCSD's defaults
  EXPECT_EQ(arch("ETE", {{"TRCIDR1", 0x4100F421}}), "ETMv4.2");  // the registers win over the type
  EXPECT_EQ(arch("ETM4", {{"TRCDEVARCH", 0x47714A13}}), "ETMv4.1");
  EXPECT_EQ(arch("ETM4", {{"TRCIDR1", 0x4100F403}}), "ETMv4.0");
  EXPECT_EQ(arch("ETM4.1", {}), "ETMv4.1");
  EXPECT_EQ(arch("ETMv4.3", {}), "ETMv4.3");
  EXPECT_EQ(arch("ETM4", {}), "ETMv4");
  // A TRCIDR1 of 0 (TRCARCHMAJ 0) names no architecture: the type decides,
  // as when it is missing. (Mutation: accept TRCARCHMAJ 0 -> "an unknown
  // trace unit", and the source is not decoded.)
  EXPECT_EQ(arch("ETM4", {{"TRCIDR1", 0}}), "ETMv4");
  EXPECT_EQ(arch("ETE", {{"TRCIDR1", 0}}), "ETE");
}

// TRCTRACEIDR.TRACEID is bits [6:0]: a value with higher bits set is an
// error naming file, key and value, not masked to another source's ID
// (0x90 would have read as 0x10). Mutation: RequireReg without kTraceIdBits
// -> the config is made, trace ID 0x10.
TEST(TraceUnits, TrctraceidrAboveBit6IsAnErrorNamingFileKeyAndValue) {
  mabutrace::snapshot::Device d;
  d.ini_file = "snap/ETM_0.ini";
  d.type = "ETM4";
  d.regs = {{"TRCCONFIGR", 0x1}, {"TRCTRACEIDR", 0x90}, {"TRCIDR0", 0x28000EA1}, {"TRCIDR2", 0x00001088}};
  try {
    const ete::EteConfig c = ete::EteConfig::FromDevice(d);
    FAIL() << "TRCTRACEIDR 0x90 read as trace ID 0x" << std::hex << int(c.trace_id());
  } catch (const mabutrace::snapshot::SnapshotError& e) {
    EXPECT_STREQ(e.what(), "snap/ETM_0.ini: [regs] TRCTRACEIDR: 0x90 sets bits outside 0x7f");
  }
}

// A snapshot whose trace source is an ETMv4.1 (type "ETM4.1", TRCIDR1 v4.1)
// is decoded by the same packet processor, configured as ETMv4: 0x07 is an
// Exception Return there (reserved in ETE). A trace unit of another
// architecture (here TRCIDR1 says ETMv3.3) is listed, named as not
// supported, and nothing of it is decoded.
// Mutations: SourceSpec::supported() back to "ETE only" -> no packets and the
// "not supported" error; FromDevice() without the TRCIDR1 fallback for
// TRCDEVARCH (ETE v5.0) -> 0x07 is RESERVED_CFG and an error.
TEST(TraceUnits, EtmV4SourcesAreDecodedOthersNamed) {
  const auto dir = std::filesystem::temp_directory_path() / ("mabutrace_etm4_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const char* name, const std::string& text) { std::ofstream(dir / name) << text; };
  write("snapshot.ini", "[snapshot]\nversion=1.0\n[device_list]\ndevice0=ETM_0.ini\n[trace]\nmetadata=trace.ini\n");
  write("trace.ini",
        "[trace_buffers]\nbuffers=buffer1\n[buffer1]\nname=ETB_1\nfile=trace.bin\nformat=source_data\n"
        "[source_buffers]\nETM_0=ETB_1\n");
  const Bytes trace = Cat({Prologue(), {0x07, 0xF7}});  // 0x07: ETMv4 Exception Return, reserved in ETE
  std::ofstream(dir / "trace.bin", std::ios::binary).write(reinterpret_cast<const char*>(trace.data()), trace.size());
  struct Seen {
    std::vector<PacketType> packets;
    std::vector<std::string> errors;
  };
  auto decode = [&](const char* idr1) {
    write("ETM_0.ini", std::string("[device]\nname=ETM_0\nclass=trace_source\ntype=ETM4.1\n[regs]\nTRCCONFIGR=0x1\n"
                                   "TRCTRACEIDR=0x10\nTRCIDR0=0x28000EA1\nTRCIDR2=0x00001088\nTRCIDR1=") +
                           idr1 + "\n");
    auto snap = mabutrace::snapshot::ReadSnapshot(dir);
    const auto sources = ete::SnapshotSources(snap, snap.buffers[0]);
    Seen seen;
    EXPECT_EQ(sources.size(), 1u);
    if (sources.empty()) return std::make_pair(std::string(), seen);
    ete::BufferDecoder dec(
        snap.buffers[0].format, sources,
        [](void* c, size_t, const ete::EtePacket& p) { static_cast<Seen*>(c)->packets.push_back(p.type); },
        [](void* c, size_t, uint64_t, const std::string& m) { static_cast<Seen*>(c)->errors.push_back(m); }, &seen);
    dec.Push(trace.data(), trace.size());
    dec.Finish();
    return std::make_pair(sources[0].Describe(), seen);
  };
  const auto [etm4_describe, etm4] = decode("0x4100F410");
  EXPECT_EQ(etm4_describe.rfind("ETMv4.1 trace_id=0x10", 0), 0u) << etm4_describe;
  EXPECT_TRUE(etm4.errors.empty()) << etm4.errors.front();
  ASSERT_GE(etm4.packets.size(), 2u);
  EXPECT_EQ(etm4.packets[etm4.packets.size() - 2], PacketType::kExceptionReturn);
  EXPECT_EQ(etm4.packets.back(), PacketType::kAtomF1);

  const auto [etm3_describe, etm3] = decode("0x4100F330");
  std::filesystem::remove_all(dir);
  EXPECT_EQ(etm3_describe, "trace unit ETMv3.3: not supported by this decoder (ETE and ETMv4 only), not decoded");
  EXPECT_TRUE(etm3.packets.empty());
  EXPECT_EQ(etm3.errors, (std::vector<std::string>{"source ETM_0 (trace ID 0x10): trace unit ETMv3.3 is not supported "
                                                   "by this decoder (ETE and ETMv4 only); not decoded"}));
}

TEST(EtePackets, TruncatedCaptureReportsTheOffset) {
  const auto dir = std::filesystem::path(MABUTRACE_SHARED_DIR) / "data/ete-snapshots/src_addr";
  MABUTRACE_NEEDS_SHARED(dir);
  auto snap = mabutrace::snapshot::ReadSnapshot(dir);
  auto sources = ete::SnapshotSources(snap, snap.buffers[0]);
  auto data = mabutrace::snapshot::ReadBinaryFile(snap.buffers[0].file);
  Decoded clean = Decode(data, sources[0].config);
  // cut inside the first multi-byte packet after byte 1000
  size_t cut = 0;
  for (const auto& p : clean.pkts)
    if (p.p.index > 1000 && p.raw.size() > 1) {
      cut = p.p.index + 1;
      break;
    }
  ASSERT_GT(cut, 0u);
  Decoded r = Decode(Bytes(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(cut)), sources[0].config);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, ete::EteErrorKind::kTruncated);
  EXPECT_EQ(r.errors[0].index, cut - 1);
  EXPECT_EQ(r.pkts.back().p.type, PacketType::kIncompleteEot);
}

// ---------------------------------------------------------------- streaming

TEST(EtePackets, AnyChunkingGivesTheSamePackets) {
  const auto root = std::filesystem::path(MABUTRACE_SHARED_DIR) / "data/ete-snapshots";
  MABUTRACE_NEEDS_SHARED(root);
  for (const char* cap : {"maxspec78_commopt0", "q_elem", "trace_file_cid_vmid", "ete-ite-instr"}) {
    SCOPED_TRACE(cap);
    auto snap = mabutrace::snapshot::ReadSnapshot(root / cap);
    auto sources = ete::SnapshotSources(snap, snap.buffers[0]);
    auto data = mabutrace::snapshot::ReadBinaryFile(snap.buffers[0].file);
    Decoded whole = Decode(data, sources[0].config);
    for (size_t chunk : {1u, 2u, 5u, 13u, 64u}) {
      Decoded r = Decode(data, sources[0].config, ete::ErrorPolicy::kResync, chunk);
      ASSERT_EQ(r.pkts.size(), whole.pkts.size()) << "chunk " << chunk;
      for (size_t i = 0; i < r.pkts.size(); ++i) {
        ASSERT_EQ(r.pkts[i].p.index, whole.pkts[i].p.index);
        ASSERT_EQ(r.pkts[i].raw, whole.pkts[i].raw);
        ASSERT_EQ(r.pkts[i].text, whole.pkts[i].text);
      }
    }
  }
}

TEST(EtePackets, RandomBytesNeverBreakTheInvariants) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 50; ++round) {
    Bytes in(4096);
    for (auto& b : in) b = static_cast<uint8_t>(byte(rng));
    if (round % 2) in = Cat({Prologue(), in});
    Decoded r = Decode(in, Cfg(round % 3 == 0, 0x20, round % 4 != 0, static_cast<uint8_t>(round % 5)),
                       (round % 2) ? ete::ErrorPolicy::kResync : ete::ErrorPolicy::kOpenCsd, 1 + round % 17);
    size_t total = 0;
    uint64_t last = 0;
    for (const auto& p : r.pkts) {
      ASSERT_GE(p.raw.size(), 1u);
      ASSERT_LE(p.raw.size(), ete::EtePacketProcessor::kMaxPacketBytes);
      ASSERT_GE(p.p.index + 1, last);  // indexes never go backwards (OpenCSD may repeat one)
      last = p.p.index;
      total += p.raw.size();
    }
    EXPECT_EQ(total, in.size()) << "every byte is in exactly one packet";
  }
}

TEST(EtePackets, JsonHasTheCommonKeys) {
  Decoded r = Decode(Cat({Prologue(), {0x9A, 0x4E, 0x4A, 0x06, 0x00}}));
  ete::EtePacket p = r.body[0].p;
  p.raw = r.body[0].raw.data();
  std::string j;
  ete::FormatJson(p, "ETE_0", &j);
  for (const char* key : {"\"source\":\"ETE_0\"", "\"trace_id\":16", "\"offset\":16", "\"raw\":\"9a4e4a0600\"",
                          "\"type\":\"TARGET_ADDR_L_32IS0\"", "\"address\":\"0x69538\""})
    EXPECT_NE(j.find(key), std::string::npos) << key << " in " << j;
}

// A device name comes from a snapshot .ini and may hold any byte: the line
// must still parse, with the name escaped (JsonEscape: quote, control
// character, invalid UTF-8 as U+FFFD).
TEST(EtePackets, JsonEscapesTheSourceName) {
  Decoded r = Decode(Cat({Prologue(), {0xF7}}));
  ete::EtePacket p = r.body[0].p;
  p.raw = r.body[0].raw.data();
  std::string j;
  ete::FormatJson(p, "ETE \"0\"\n\xff", &j);
  nlohmann::json parsed;
  ASSERT_NO_THROW(parsed = nlohmann::json::parse(j)) << j;
  EXPECT_EQ(parsed["source"], "ETE \"0\"\n\xEF\xBF\xBD");
  EXPECT_EQ(parsed["atoms"], "E");
}

}  // namespace

namespace {

struct StreamCheck {
  std::map<uint8_t, uint64_t> next;  // per trace ID: expected next stream offset
  uint64_t packets = 0;
  bool raw = true;
  std::string failure;
};

void CheckStream(void* c, size_t, const ete::EtePacket& p) {
  auto* s = static_cast<StreamCheck*>(c);
  ++s->packets;
  if (!s->failure.empty()) return;
  if (s->raw && p.index != p.stream_offset) s->failure = "raw stream: index != stream_offset";
  if (s->next[p.trace_id] != p.stream_offset)
    s->failure = "ID " + std::to_string(p.trace_id) + ": gap at stream offset " + std::to_string(p.stream_offset);
  s->next[p.trace_id] = p.stream_offset + p.size;
}

TEST(EtePackets, StreamOffsetsTileEachSourceStream) {
  const auto root = std::filesystem::path(MABUTRACE_SHARED_DIR) / "data/ete-snapshots";
  MABUTRACE_NEEDS_SHARED(root);
  for (const char* cap : {"infrastructure", "texit-poe2"}) {
    SCOPED_TRACE(cap);
    auto snap = mabutrace::snapshot::ReadSnapshot(root / cap);
    const auto& buf = snap.buffers[0];
    StreamCheck s;
    s.raw = buf.format == mabutrace::snapshot::BufferFormat::kSourceData;
    ete::BufferDecoder dec(buf.format, ete::SnapshotSources(snap, buf), &CheckStream, nullptr, &s);
    auto data = mabutrace::snapshot::ReadBinaryFile(buf.file);
    dec.Push(data.data(), data.size());
    dec.Finish();
    EXPECT_GT(s.packets, 1000u);
    EXPECT_EQ(s.failure, "");
  }
}

}  // namespace
