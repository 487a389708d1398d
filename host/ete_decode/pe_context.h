// SPDX-License-Identifier: MIT
// pe_context.h: the PE state that Context elements set (arm-trace-facts.md
// §4.12, §4.1; OpenCSD's PE context in trc_pkt_decode_etmv4i.cpp).
//
//   EL, security state from (NSE, NS): 00 Secure, 01 Non-secure, 10 Root,
//   11 Realm; AArch64 (SF); and what follows from them:
//   - the instruction set of an address: SF = 1 -> A64, else IS0 -> A32,
//     IS1 -> T32 (§4.1);
//   - the memory space the program image is read in (OpenCSD's
//     getCurrMemSpace: Secure EL3 -> EL3, Realm EL2 -> EL2R, ...).
// Before the first Context element the PE state is unknown: memory space S
// (OpenCSD's default).
#ifndef MABUTRACE_HOST_ETE_DECODE_PE_CONTEXT_H
#define MABUTRACE_HOST_ETE_DECODE_PE_CONTEXT_H

#include <cstdint>

#include "ete/ete_packet.h"
#include "ete_element.h"
#include "instr.h"
#include "memory_image.h"

namespace mabutrace::ete_decode {

class PeContext {
 public:
  // A Context element that changed the PE state; `is` is the sub-ISA of the
  // address that came with it (or the last one). Fills *element (type
  // PE_CONTEXT) with what OpenCSD prints.
  void Apply(const ete::PacketContext& c, uint8_t is, EteElement* element);

  // The instruction set of an address with sub-ISA `is` in this PE state.
  armisa::Isa IsaOf(uint8_t is) const {
    return aarch64_ ? armisa::Isa::kA64 : (is ? armisa::Isa::kT32 : armisa::Isa::kA32);
  }
  bool aarch64() const { return aarch64_; }
  // armisa::MemSpace bit (or kMemS before any context).
  uint8_t mem_space() const { return space_; }

  // OpenCSD's packet context keeps VMID and CONTEXTID valid once they have
  // been traced: a later Context packet without them still reports the
  // values it holds. Returns `c` with its updated_vmid / updated_cid flags
  // saying so (called as packets arrive, before they are queued).
  // Inline: every Context packet asks (a call and a returned copy cost more).
  ete::PacketContext KeepIdsValid(const ete::PacketContext& c) {
    vmid_seen_ |= c.updated_vmid;
    cid_seen_ |= c.updated_cid;
    ete::PacketContext out = c;
    out.updated_vmid = vmid_seen_;
    out.updated_cid = cid_seen_;
    return out;
  }
  // Forgets the traced VMID / CONTEXTID (decoder reset, and Trace Info,
  // which resets them: arm-trace-facts.md §4.4).
  void ForgetIds() { vmid_seen_ = cid_seen_ = false; }

 private:
  static uint8_t MemSpaceOf(Security security, uint8_t el);

  bool aarch64_ = false;
  uint8_t space_ = armisa::kMemS;
  bool vmid_seen_ = false, cid_seen_ = false;
};

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_PE_CONTEXT_H
