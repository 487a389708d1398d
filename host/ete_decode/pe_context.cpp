// SPDX-License-Identifier: MIT
// pe_context.cpp: see pe_context.h.
#include "pe_context.h"

namespace mabutrace::ete_decode {

uint8_t PeContext::MemSpaceOf(Security security, uint8_t el) {
  switch (security) {
    case Security::kRoot: return armisa::kMemRoot;
    case Security::kRealm: return el == 2 ? armisa::kMemEL2R : (el < 2 ? armisa::kMemEL1R : armisa::kMemR);
    case Security::kSecure: return el == 3 ? armisa::kMemEL3 : (el == 2 ? armisa::kMemEL2S : armisa::kMemEL1S);
    case Security::kNonSecure: return el == 2 ? armisa::kMemEL2N : (el < 2 ? armisa::kMemEL1N : armisa::kMemN);
  }
  return armisa::kMemAny;
}

void PeContext::Apply(const ete::PacketContext& c, uint8_t is, EteElement* e) {
  const Security security =
      c.nse ? (c.ns ? Security::kRealm : Security::kRoot) : (c.ns ? Security::kNonSecure : Security::kSecure);
  aarch64_ = c.sf;
  space_ = MemSpaceOf(security, c.el);
  e->el = c.el;
  e->security = security;
  e->bits64 = c.sf;
  e->context_id_valid = c.updated_cid;
  e->context_id = c.context_id;
  e->vmid_valid = c.updated_vmid;
  e->vmid = c.vmid;
  e->isa = IsaOf(is);
}

}  // namespace mabutrace::ete_decode
