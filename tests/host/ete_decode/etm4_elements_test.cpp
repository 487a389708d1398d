// SPDX-License-Identifier: MIT
// etm4_elements_test.cpp: the element decoder configured for an ETMv4
// trace unit: the Exception Return packet gives EXCEPTION_RET (a P0
// element only on Armv7-M), the M-profile Function Return packet is a P0
// element with no output on Armv8-M (OpenCSD 1.8.0's ETMv4 decoder), and
// ERET instructions give no EXCEPTION_RET of their own (they do under ETE).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ete/ete_packet.h"
#include "ete_decode/ete_element_decoder.h"

namespace mabutrace::ete_decode {
namespace {

using ete::EtePacket;
using ete::PacketType;

ete::EteConfig Etm4(bool m_profile, bool v7m, uint32_t maxspec) {
  ete::EteConfig c;
  c.trcidr0 = 0x28000EA1;
  c.trcidr2 = 0x00000488;
  c.trcdevarch = 0x47704A13;  // ETMv4.0
  c.trcidr8 = maxspec;
  c.trctraceidr = 0x10;
  c.m_profile = m_profile;
  c.m_profile_v7 = v7m;
  return c;
}

struct Decoded {
  std::vector<std::string> out, errors;
};

// A-Sync, Trace Info, then `kinds` (Commit(n) for kCommit), one packet each.
Decoded Decode(const ete::EteConfig& cfg, std::vector<PacketType> kinds, uint32_t commit = 1) {
  Decoded r;
  armisa::MemoryImage image;
  EteElementDecoder dec(
      cfg, &image,
      [](void* c, const EteElement& e) {
        std::string s = std::to_string(e.index) + " ";
        FormatElementOcsd(e, &s);
        static_cast<Decoded*>(c)->out.push_back(s);
      },
      &r, [](void* c, uint64_t, const std::string& m) { static_cast<Decoded*>(c)->errors.push_back(m); });
  uint64_t idx = 0;
  kinds.insert(kinds.begin(), {PacketType::kAsync, PacketType::kTraceInfo});
  for (PacketType k : kinds) {
    EtePacket p;
    p.type = k;
    p.index = idx++;
    if (k == PacketType::kCommit) {
      p.commit = commit;
      p.commit_valid = true;
    }
    dec.OnPacket(p);
  }
  return r;
}

bool Has(const std::vector<std::string>& v, const std::string& what) {
  for (const auto& s : v)
    if (s.find(what) != std::string::npos) return true;
  return false;
}

// Mutation: Exception Return pushed as non-P0 on v7-M too -> "commit of more
// P0 elements than are waiting" and no EXCEPTION_RET.
TEST(Etm4Elements, ExceptionReturnIsP0OnlyOnV7M) {
  Decoded v7 = Decode(Etm4(true, true, 4), {PacketType::kExceptionReturn, PacketType::kCommit});
  EXPECT_TRUE(v7.errors.empty()) << v7.errors.front();
  EXPECT_TRUE(Has(v7.out, "2 OCSD_GEN_TRC_ELEM_EXCEPTION_RET()"));
  // A/R and v8-M: not P0, so the commit has nothing to commit.
  Decoded a = Decode(Etm4(false, false, 4), {PacketType::kExceptionReturn, PacketType::kCommit});
  EXPECT_FALSE(a.errors.empty());
}

// Mutation: kFunctionReturn ignored (not P0) -> the commit errors.
TEST(Etm4Elements, FunctionReturnIsP0WithoutOutputOnV8M) {
  Decoded v8 = Decode(Etm4(true, false, 4), {PacketType::kFunctionReturn, PacketType::kCommit});
  EXPECT_TRUE(v8.errors.empty()) << v8.errors.front();
  EXPECT_FALSE(Has(v8.out, "EXCEPTION"));
}

}  // namespace
}  // namespace mabutrace::ete_decode
