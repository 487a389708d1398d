// SPDX-License-Identifier: MIT
// pe_context_test.cpp: the PE state from Context elements alone (pe_context.h;
// arm-trace-facts.md §4.12, §4.1) and the memory spaces OpenCSD reads in.
#include <gtest/gtest.h>

#include "ete_decode/pe_context.h"

namespace mabutrace::ete_decode {
namespace {

using armisa::Isa;

ete::PacketContext Ctx(uint8_t el, bool nse, bool ns, bool sf) {
  return ete::PacketContext{.el = el, .sf = sf, .ns = ns, .nse = nse, .updated = true};
}

TEST(PeContext, SecurityAndMemorySpaceFromNseNsAndEl) {
  struct Case {
    uint8_t el;
    bool nse, ns;
    Security security;
    uint8_t space;
  };
  const Case cases[] = {
      {1, false, false, Security::kSecure, armisa::kMemEL1S},
      {3, false, false, Security::kSecure, armisa::kMemEL3},
      {2, false, false, Security::kSecure, armisa::kMemEL2S},
      {0, false, true, Security::kNonSecure, armisa::kMemEL1N},
      {2, false, true, Security::kNonSecure, armisa::kMemEL2N},
      {3, true, false, Security::kRoot, armisa::kMemRoot},
      {1, true, true, Security::kRealm, armisa::kMemEL1R},
      {2, true, true, Security::kRealm, armisa::kMemEL2R},
  };
  for (const Case& c : cases) {
    PeContext pe;
    EteElement e;
    pe.Apply(Ctx(c.el, c.nse, c.ns, true), 0, &e);
    EXPECT_EQ(e.security, c.security) << "EL" << int(c.el) << " NSE " << c.nse << " NS " << c.ns;
    EXPECT_EQ(pe.mem_space(), c.space) << "EL" << int(c.el) << " NSE " << c.nse << " NS " << c.ns;
    EXPECT_EQ(e.el, c.el);
  }
}

TEST(PeContext, BeforeAnyContextTheSpaceIsSecure) { EXPECT_EQ(PeContext().mem_space(), armisa::kMemS); }

TEST(PeContext, InstructionSetFromSfAndIs) {
  PeContext pe;
  EteElement e;
  pe.Apply(Ctx(1, false, true, false), 1, &e);
  EXPECT_EQ(e.isa, Isa::kT32);
  EXPECT_FALSE(e.bits64);
  EXPECT_EQ(pe.IsaOf(0), Isa::kA32);
  pe.Apply(Ctx(1, false, true, true), 1, &e);
  EXPECT_EQ(pe.IsaOf(0), Isa::kA64);
  EXPECT_EQ(pe.IsaOf(1), Isa::kA64) << "SF = 1: A64 whatever the IS";
}

TEST(PeContext, VmidAndContextIdStayValidOnceTraced) {
  PeContext pe;
  ete::PacketContext c = Ctx(1, false, true, true);
  c.vmid = 7;
  c.updated_vmid = true;
  EXPECT_TRUE(pe.KeepIdsValid(c).updated_vmid);
  c.updated_vmid = false;
  const ete::PacketContext later = pe.KeepIdsValid(c);
  EXPECT_TRUE(later.updated_vmid) << "OpenCSD keeps reporting the VMID it holds";
  EXPECT_FALSE(later.updated_cid);
  pe.ForgetIds();
  EXPECT_FALSE(pe.KeepIdsValid(c).updated_vmid);
}

}  // namespace
}  // namespace mabutrace::ete_decode
