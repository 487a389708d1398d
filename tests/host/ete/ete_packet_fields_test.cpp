// SPDX-License-Identifier: MIT
// ete_packet_fields_test.cpp: the packet-kind readers alone (ete_packet_fields.h),
// without the processor: the contract every reader keeps.
//
//   - a prefix of a packet reads as "need more bytes" and changes nothing:
//     reading the packet whole afterwards gives what a fresh reader gives
//     (fields, address history, timestamp, context);
//   - the whole packet reads as its length, also with more bytes in hand;
//   - a malformed packet changes nothing and says why.
// Packets: arm-trace-facts.md §4 (the verified examples where there are some).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ete/ete_packet_fields.h"

namespace mabutrace::ete {
namespace {

using Bytes = std::vector<uint8_t>;
using Reader = PacketFields::Reader;

EteConfig Config(bool commopt1) {
  EteConfig c;
  c.trcidr0 = commopt1 ? 0x28000EA1u | (3u << 15) : 0x08000EA1u | (3u << 15);
  c.trcidr2 = 0xD0001088;  // 32-bit VMID and CONTEXTID, 20-bit cycle counts
  c.trcidr8 = 0x20;        // MAXSPEC
  c.trcdevarch = 0x47735A13;
  return c;
}

struct Case {
  const char* what;
  Bytes bytes;
  Reader reader;
  uint8_t is = 0;
  bool commopt1 = true;
};

// Every field of the packet, whatever its type.
std::string Dump(const EtePacket& p) {
  char b[512];
  const PacketContext& c = p.context;
  std::snprintf(b, sizeof b,
                "type %d addr %llx/%u/%u/%d/%u match %u ctxt %d:%u/%d/%d/%d/%x/%x/%d%d%d atoms "
                "%x/%u ts %llx/%u "
                "cc %u/%d commit %u/%d cancel %u tinfo %u/%u/%u/%u/%u/%d exc %u/%u q %u/%u/%d%d%d "
                "ite %u/%llx ev %u\n",
                static_cast<int>(p.type), static_cast<unsigned long long>(p.addr.value), p.addr.valid_bits,
                p.addr.pkt_bits, p.addr.is64, p.addr.isa, p.exact_match_idx, p.context_valid, c.el, c.sf, c.ns, c.nse,
                c.vmid, c.context_id, c.updated, c.updated_vmid, c.updated_cid, p.atom_bits, p.atom_count,
                static_cast<unsigned long long>(p.timestamp), p.ts_bits, p.cycle_count, p.cc_valid, p.commit,
                p.commit_valid, p.cancel, p.info, p.key, p.spec, p.cc_threshold, p.tinfo_sections, p.tinfo_initial,
                p.exception_type, p.exception_addr_interp, p.q_type, p.q_count, p.q_count_present, p.q_addr_present,
                p.q_addr_match, p.ite_el, static_cast<unsigned long long>(p.ite_value), p.event);
  return b;
}

// Everything a later packet can see of the state: the packet after `c` is
// read whole, then the address history, oldest entry first (an exact match
// of entry 2 pushes it again, so three of them show entries 2, 1, 0).
std::string StateAfter(PacketFields& f, const Case& c) {
  EXPECT_EQ((f.*c.reader)(c.bytes.data(), c.bytes.size(), c.is).length, c.bytes.size()) << c.what;
  std::string out = Dump(f.packet());
  for (uint8_t h : {0x92, 0x92, 0x92}) {
    f.ClearPacketFields();
    f.ExactMatchAddress(&h, 1, 0);
    out += Dump(f.packet());
  }
  return out;
}

// A reader with some history: Trace Info (CC, CYCT 0x16), a 64-bit address
// with context (§4.12 example), a timestamp.
void Prime(PacketFields& f) {
  const Bytes tinfo = {0x01, 0x09, 0x01, 0x16};
  const Bytes addr = {0x85, 0x00, 0x1A, 0x08, 0x00, 0xC0, 0xFF, 0xFF, 0xFF, 0xF1, 1, 0, 0, 0, 2, 0, 0, 0};
  const Bytes ts = {0x02, 0x86, 0xE8, 0x01};
  ASSERT_EQ(f.TraceInfo(tinfo.data(), tinfo.size(), 0).length, tinfo.size());
  ASSERT_EQ(f.AddressWithContext64(addr.data(), addr.size(), 0).length, addr.size());
  ASSERT_EQ(f.Timestamp(ts.data(), ts.size(), 0).length, ts.size());
  f.ClearPacketFields();
}

std::vector<Case> Cases() {
  return {
      {"trace info, all sections", {0x01, 0x9F, 0x00, 0x41, 0x05, 0x83, 0x01, 0x10, 0x01}, &PacketFields::TraceInfo},
      {"timestamp with count", {0x03, 0x86, 0xE8, 0x01, 0x85, 0x01}, &PacketFields::Timestamp},
      {"timestamp, 9 bytes", {0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x12}, &PacketFields::Timestamp},
      {"exception", {0x06, 0x05}, &PacketFields::Exception},
      {"PE reset", {0x06, 0x01, 0x70}, &PacketFields::Exception},
      {"instrumentation", {0x09, 0x01, 1, 2, 3, 4, 5, 6, 7, 8}, &PacketFields::Instrumentation},
      {"cycle count F1, commit mode 0", {0x0E, 0x01, 0x21}, &PacketFields::CycleCountF1, 0, false},
      {"cycle count F1, long count", {0x0E, 0xA1, 0x80, 0x01}, &PacketFields::CycleCountF1},
      {"cycle count F2", {0x0C, 0x50}, &PacketFields::CycleCountF2, 0, false},
      {"commit", {0x2D, 0x85, 0x01}, &PacketFields::Commit},
      {"cancel F1", {0x2E, 0x03}, &PacketFields::CancelF1},
      {"context with VMID and CONTEXTID", {0x81, 0xF1, 1, 0, 0, 0, 2, 0, 0, 0}, &PacketFields::Context},
      {"address + context, 32-bit", {0x82, 0x21, 0x0A, 0x0C, 0x00, 0x11}, &PacketFields::AddressWithContext32},
      {"address + context, 64-bit",
       {0x86, 0x00, 0x1A, 0x08, 0x00, 0xC0, 0xFF, 0xFF, 0xFF, 0x31},
       &PacketFields::AddressWithContext64,
       1},
      {"short address, 2 bytes", {0x95, 0xB0, 0x4F}, &PacketFields::ShortAddress},
      {"short address IS1, 1 byte", {0x96, 0x12}, &PacketFields::ShortAddress, 1},
      {"long address 32-bit", {0x9A, 0x4E, 0x4A, 0x06, 0x00}, &PacketFields::LongAddress32},
      {"long address 64-bit", {0x9D, 0x4E, 0x4A, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00}, &PacketFields::LongAddress64},
      {"Q, 32-bit address", {0xAA, 0x34, 0x3F, 0x06, 0x00, 0x03}, &PacketFields::Q},
      {"Q, short address", {0xA5, 0x86, 0x1C, 0x03}, &PacketFields::Q},
      {"Q, exact match", {0xA1, 0x84, 0x01}, &PacketFields::Q},
      {"A-Sync", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80}, &PacketFields::Extension},
  };
}

TEST(PacketFields, APrefixNeedsMoreBytesAndChangesNothing) {
  for (const Case& c : Cases()) {
    const EteConfig cfg = Config(c.commopt1);
    PacketFields a(cfg), b(cfg);
    Prime(a);
    Prime(b);
    for (size_t n = 1; n < c.bytes.size(); ++n) {
      const PacketExtent x = (b.*c.reader)(c.bytes.data(), n, c.is);
      EXPECT_EQ(x.length, 0u) << c.what << ": " << n << " of " << c.bytes.size() << " bytes";
      EXPECT_FALSE(x.malformed) << c.what;
    }
    EXPECT_EQ(StateAfter(a, c), StateAfter(b, c)) << c.what << ": the prefixes changed the state";
  }
}

TEST(PacketFields, TheWholePacketWithMoreBytesInHand) {
  for (const Case& c : Cases()) {
    const EteConfig cfg = Config(c.commopt1);
    PacketFields f(cfg);
    Prime(f);
    Bytes more = c.bytes;
    more.insert(more.end(), 48, 0xFF);
    EXPECT_EQ((f.*c.reader)(more.data(), more.size(), c.is).length, c.bytes.size()) << c.what;
  }
}

TEST(PacketFields, MalformedPacketsChangeNothingAndSayWhy) {
  const EteConfig cfg = Config(true);
  struct Bad {
    Bytes bytes;
    Reader reader;
    EteErrorKind error;
    size_t length;
  };
  const Bad bad[] = {
      {{0x2D, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, &PacketFields::Commit, EteErrorKind::kOverlongField, 6},
      {{0x01, 0x80, 0x80, 0x80, 0x80, 0x00}, &PacketFields::TraceInfo, EteErrorKind::kOverlongField, 5},
      {{0x03, 0x01, 0xFF, 0xFF, 0xFF}, &PacketFields::Timestamp, EteErrorKind::kOverlongField, 5},
      {{0x00, 0x07}, &PacketFields::Extension, EteErrorKind::kBadSequence, 2},
      {{0x00, 0x00, 0x00, 0x01}, &PacketFields::Extension, EteErrorKind::kBadSequence, 4},
  };
  for (const Bad& c : bad) {
    PacketFields a(cfg), b(cfg);
    Prime(a);
    Prime(b);
    const PacketExtent x = (b.*c.reader)(c.bytes.data(), c.bytes.size(), 0);
    EXPECT_TRUE(x.malformed);
    EXPECT_EQ(x.error, c.error);
    EXPECT_EQ(x.length, c.length);
    const Case probe{"exact match", {0x90}, &PacketFields::ExactMatchAddress};
    EXPECT_EQ(StateAfter(a, probe), StateAfter(b, probe)) << "a malformed packet changed the state";
  }
}

}  // namespace
}  // namespace mabutrace::ete
