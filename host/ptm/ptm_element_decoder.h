// SPDX-License-Identifier: MIT
// ptm_element_decoder.h: PTM (PFT 1.0/1.1) packets -> the generic trace
// elements of host/ete_decode (ete_element.h), as OpenCSD 1.8.0's PTM
// decoder produces them.
//
// PTM is waypoint trace (IHI0035B chapter 2): an atom says whether the next
// waypoint (a branch; DSB/DMB too when ETMCCER[24] says so) was taken (E)
// or not (N), so each atom becomes one INSTR_RANGE walked through the memory
// image from the current address to that waypoint
// (armisa::InstrFollower::FindNextP0). A taken direct branch gives the next
// address; a taken indirect branch needs the next branch-address packet
// (or the return stack, when ETMCCER[23] and ETMCR[29] enable it). A branch
// address without an exception implies an E atom first; one with an
// exception gives EXCEPTION (preferred return address = the current
// address) instead. A waypoint update walks to its address.
//
// Sequence: NO_SYNC at the first packet, wait for A-sync, then for I-sync
// (TRACE_ON when the first after sync or its reason is not periodic, with
// the I-sync's cycle count; PE_CONTEXT when the ISA, context ID or VMID
// changed). Timestamps give TIMESTAMP (with the cycle count if any),
// context-ID and VMID packets PE_CONTEXT when the value changed, trigger
// EVENT, exception return EXCEPTION_RET. Ranges carry the packet's cycle
// count. Memory the image lacks: the range walked so far (if any), then
// ADDR_NACC, and the decoder waits for the next address.
//
// Bad packets (reserved, bad sequence): error callback with the packet's
// byte index, NO_SYNC at that packet and a new wait for A-sync. NOTSYNC
// packets after sync produce nothing (OpenCSD ignores them).
#ifndef MABUTRACE_HOST_PTM_PTM_ELEMENT_DECODER_H
#define MABUTRACE_HOST_PTM_PTM_ELEMENT_DECODER_H

#include <array>
#include <cstdint>
#include <string>

#include "armisa/follower.h"
#include "ete_decode/element_output.h"
#include "ete_decode/ete_element.h"
#include "ptm/ptm_packet.h"

namespace mabutrace::ptm {

class PtmElementDecoder {
 public:
  // `image` (never null) must outlive the decoder. Elements report the
  // trace ID of `config` (also for a raw buffer, as OpenCSD does).
  PtmElementDecoder(const PtmConfig& config, const armisa::MemoryImage* image, ete_decode::ElementCallback on_element,
                    void* ctx, ete_decode::DecodeErrorCallback on_error = nullptr);
  PtmElementDecoder(const PtmElementDecoder&) = delete;
  PtmElementDecoder& operator=(const PtmElementDecoder&) = delete;

  void OnPacket(const PtmPacket& packet);
  // End of trace: EO_TRACE (also for a source without packets, as OpenCSD).
  void Finish();
  void Reset();
  const ete_decode::DecodeStats& stats() const { return stats_; }

 private:
  enum class State : uint8_t { kNoSync, kWaitAsync, kWaitIsync, kDecode };
  // The 16-entry return stack of PFT 1.1 (IHI0035B 2.4.4; OpenCSD's
  // TrcAddrReturnStack semantics: a pop of an empty stack is an error).
  struct ReturnStack {
    std::array<uint32_t, 16> addr{};
    std::array<armisa::Isa, 16> isa{};
    unsigned head = 0;
    int entries = 0;
    void Push(uint32_t a, armisa::Isa i);
    bool Pop(uint32_t* a, armisa::Isa* i);  // false: empty (overflow)
  };
  ete_decode::EteElement Make(ete_decode::ElemType type) const;
  void Emit(const ete_decode::EteElement& e);
  void Decode(const PtmPacket& p);
  void Isync(const PtmPacket& p);
  void Branch(const PtmPacket& p);
  // Walks one waypoint (or to `match`, inclusive, for a waypoint update)
  // and emits its range; taken = E atom.
  void AtomRange(const PtmPacket& p, bool taken, bool to_match = false, uint32_t match = 0);
  void Fail(const std::string& what);
  void SetContext(ete_decode::EteElement* e) const;
  uint8_t Space() const { return ns_ ? armisa::kMemN : armisa::kMemS; }

  PtmConfig config_;
  armisa::InstrFollower follower_;
  ete_decode::ElementCallback on_element_;
  void* ctx_;
  ete_decode::DecodeErrorCallback on_error_;
  ete_decode::DecodeStats stats_;
  bool ret_stack_on_ = false;
  ReturnStack ret_stack_;

  State state_ = State::kNoSync;
  bool need_isync_ = true;
  bool addr_valid_ = false;  // the current address is known
  uint32_t addr_ = 0;
  armisa::Isa isa_ = armisa::Isa::kA32;
  bool isa_followable_ = true;  // not Jazelle / unknown
  uint64_t index_ = 0;          // byte index of the packet being decoded
  bool nacc_pending_ = false;
  uint32_t nacc_addr_ = 0;
  // PE context
  bool ns_ = false;
  bool ctxt_id_valid_ = false, vmid_valid_ = false;
  uint32_t context_id_ = 0, vmid_ = 0;
};

}  // namespace mabutrace::ptm

#endif  // MABUTRACE_HOST_PTM_PTM_ELEMENT_DECODER_H
