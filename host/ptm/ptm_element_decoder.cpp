// SPDX-License-Identifier: MIT
// ptm_element_decoder.cpp: PTM packets -> generic elements (see the header).
#include "ptm/ptm_element_decoder.h"

#include <cstdio>

namespace mabutrace::ptm {

using ete_decode::ElemType;
using ete_decode::EteElement;

namespace {

// ETMCCER / ETMCR bits (IHI0035B 3.4): return stack implemented / enabled,
// DSB and DMB are waypoints.
constexpr uint32_t kCcerRetStack = 1u << 23;
constexpr uint32_t kCcerDmbWaypoint = 1u << 24;
constexpr uint32_t kCrRetStackEnable = 1u << 29;

bool Followable(PtmIsa isa) { return isa == PtmIsa::kArm || isa == PtmIsa::kThumb2 || isa == PtmIsa::kThumbEE; }
armisa::Isa ToArmIsa(PtmIsa isa) { return isa == PtmIsa::kArm ? armisa::Isa::kA32 : armisa::Isa::kT32; }

armisa::FollowOptions PtmFollowOptions(const PtmConfig& config) {
  armisa::FollowOptions o;
  o.classify.wfx_waypoints = false;  // PFT: WFI/WFE are not waypoints
  o.classify.dsb_dmb_waypoints = (config.etmccer & kCcerDmbWaypoint) != 0;
  return o;
}

}  // namespace

void PtmElementDecoder::ReturnStack::Push(uint32_t a, armisa::Isa i) {
  head = (head + 1) & 15;
  addr[head] = a;
  isa[head] = i;
  if (++entries > 16) entries = 16;
}

bool PtmElementDecoder::ReturnStack::Pop(uint32_t* a, armisa::Isa* i) {
  if (entries <= 0) {
    entries = 0;
    return false;
  }
  *a = addr[head];
  *i = isa[head];
  head = (head - 1) & 15;
  --entries;
  return true;
}

PtmElementDecoder::PtmElementDecoder(const PtmConfig& config, const armisa::MemoryImage* image,
                                     ete_decode::ElementCallback on_element, void* ctx,
                                     ete_decode::DecodeErrorCallback on_error)
    : config_(config),
      follower_(image, PtmFollowOptions(config), 8),
      on_element_(on_element),
      ctx_(ctx),
      on_error_(on_error),
      ret_stack_on_((config.etmccer & kCcerRetStack) && (config.etmcr & kCrRetStackEnable)) {}

void PtmElementDecoder::Reset() {
  state_ = State::kNoSync;
  need_isync_ = true;
  addr_valid_ = false;
  nacc_pending_ = false;
  ns_ = ctxt_id_valid_ = vmid_valid_ = false;
  ret_stack_ = ReturnStack{};
}

EteElement PtmElementDecoder::Make(ElemType type) const {
  EteElement e;
  e.type = type;
  e.trace_id = config_.trace_id();
  e.index = index_;
  e.isa = isa_;
  e.el_valid = false;
  return e;
}

void PtmElementDecoder::Emit(const EteElement& e) {
  stats_.Count(e);
  on_element_(ctx_, e);
}

void PtmElementDecoder::SetContext(EteElement* e) const {
  e->security = ns_ ? ete_decode::Security::kNonSecure : ete_decode::Security::kSecure;
  e->bits64 = false;
  e->vmid_valid = vmid_valid_;
  e->vmid = vmid_;
  e->context_id_valid = ctxt_id_valid_;
  e->context_id = context_id_;
}

void PtmElementDecoder::Fail(const std::string& what) {
  ++stats_.errors;
  if (on_error_) {
    char m[64];
    std::snprintf(m, sizeof m, "byte %llu (trace ID 0x%x): ", static_cast<unsigned long long>(index_),
                  config_.trace_id());
    on_error_(ctx_, index_, m + what + "; waiting for the next A-sync");
  }
}

void PtmElementDecoder::OnPacket(const PtmPacket& p) {
  ++stats_.packets;
  index_ = p.index;
  switch (state_) {
    case State::kNoSync: {
      EteElement e = Make(ElemType::kNoSync);
      e.unsync = ete_decode::UnsyncReason::kInitDecoder;
      Emit(e);
      state_ = p.type == PtmPacketType::kAsync ? State::kWaitIsync : State::kWaitAsync;
      return;
    }
    case State::kWaitAsync:
      if (p.type == PtmPacketType::kAsync) state_ = State::kWaitIsync;
      return;
    case State::kWaitIsync:
      if (p.type != PtmPacketType::kIsync) return;
      state_ = State::kDecode;
      break;
    case State::kDecode: break;
  }
  Decode(p);
}

void PtmElementDecoder::Decode(const PtmPacket& p) {
  switch (p.type) {
    case PtmPacketType::kNotSync:
    case PtmPacketType::kIncompleteEot:
    case PtmPacketType::kAsync:
    case PtmPacketType::kIgnore: break;
    case PtmPacketType::kBadSequence:
    case PtmPacketType::kReserved: {
      Fail(p.type == PtmPacketType::kReserved ? "reserved packet header" : "bad packet sequence");
      state_ = State::kWaitAsync;
      need_isync_ = true;
      EteElement e = Make(ElemType::kNoSync);
      e.unsync = ete_decode::UnsyncReason::kBadPacket;
      Emit(e);
      break;
    }
    case PtmPacketType::kIsync: Isync(p); break;
    case PtmPacketType::kBranchAddress: Branch(p); break;
    case PtmPacketType::kTrigger: {
      EteElement e = Make(ElemType::kEvent);
      e.event_trigger = true;
      Emit(e);
      break;
    }
    case PtmPacketType::kWaypointUpdate:
      if (addr_valid_) AtomRange(p, true, true, p.addr);
      break;
    case PtmPacketType::kContextId:
      if (!ctxt_id_valid_ || context_id_ != p.context_id) {
        context_id_ = p.context_id;
        ctxt_id_valid_ = true;
        EteElement e = Make(ElemType::kPeContext);
        SetContext(&e);
        Emit(e);
      }
      break;
    case PtmPacketType::kVmid:
      if (!vmid_valid_ || vmid_ != p.vmid) {
        vmid_ = p.vmid;
        vmid_valid_ = true;
        EteElement e = Make(ElemType::kPeContext);
        SetContext(&e);
        Emit(e);
      }
      break;
    case PtmPacketType::kAtom:
      // atom_bits holds 8 atoms at most (PFT packs up to 5)
      for (unsigned i = 0; i < p.atom_count && i < 8 && addr_valid_; ++i) AtomRange(p, (p.atom_bits >> i) & 1);
      break;
    case PtmPacketType::kTimestamp: {
      EteElement e = Make(ElemType::kTimestamp);
      e.timestamp = p.timestamp;
      e.has_cc = p.has_cc;
      e.cycle_count = p.cycle_count;
      Emit(e);
      break;
    }
    case PtmPacketType::kExceptionRet: Emit(Make(ElemType::kExceptionRet)); break;
  }
  if (nacc_pending_) {
    EteElement e = Make(ElemType::kAddrNacc);
    e.start = nacc_addr_;
    e.mem_space = Space();
    Emit(e);
    nacc_pending_ = false;
  }
}

void PtmElementDecoder::Isync(const PtmPacket& p) {
  addr_ = p.addr;
  isa_ = ToArmIsa(p.isa);
  isa_followable_ = Followable(p.isa);
  addr_valid_ = true;
  bool context = p.isa != p.prev_isa;
  if (p.context_id_updated) {
    context_id_ = p.context_id;
    ctxt_id_valid_ = true;
    context = true;
  }
  ns_ = p.ns;
  if (need_isync_ || p.isync_reason != 0) {
    EteElement e = Make(ElemType::kTraceOn);
    e.trace_on = p.isync_reason == 2   ? ete_decode::TraceOnReason::kOverflow
                 : p.isync_reason == 3 ? ete_decode::TraceOnReason::kDebugExit
                                       : ete_decode::TraceOnReason::kNormal;
    e.has_cc = p.has_cc;
    e.cycle_count = p.cycle_count;
    Emit(e);
  } else {
    context = false;  // periodic: no elements
  }
  need_isync_ = false;
  ret_stack_ = ReturnStack{};
  if (context) {
    EteElement e = Make(ElemType::kPeContext);
    SetContext(&e);
    Emit(e);
  }
}

void PtmElementDecoder::Branch(const PtmPacket& p) {
  if (p.has_exception) {
    EteElement e = Make(ElemType::kException);
    e.exception_number = p.exception_number;
    e.exception_has_addr = addr_valid_;
    e.end = addr_;
    e.has_cc = p.has_cc;
    e.cycle_count = p.cycle_count;
    Emit(e);
  } else if (addr_valid_) {
    AtomRange(p, true);  // a branch address implies an E atom on the waypoint
  }
  addr_ = p.addr;
  isa_ = ToArmIsa(p.isa);
  isa_followable_ = Followable(p.isa);
  addr_valid_ = true;
}

void PtmElementDecoder::AtomRange(const PtmPacket& p, bool taken, bool to_match, uint32_t match) {
  if (!isa_followable_) {  // Jazelle: wait for an address in a known ISA
    addr_valid_ = false;
    return;
  }
  const uint8_t space = Space();
  const armisa::Isa isa = isa_;
  armisa::WalkResult r;
  if (!to_match) {
    r = follower_.FindNextP0(addr_, isa, space);
  } else {
    // Waypoint update: every instruction up to and including the one at
    // `match`, branches or not.
    r.start = r.end = addr_;
    r.isa = isa;
    r.status = armisa::WalkStatus::kLimit;
    const uint32_t limit = follower_.options().max_instructions;
    while (r.num_instr < limit) {
      std::optional<armisa::InstrInfo> info = follower_.Decode(r.end, isa, space);
      if (!info) {
        r.status = armisa::WalkStatus::kNotAccessible;
        break;
      }
      const uint32_t at = static_cast<uint32_t>(r.end);
      r.last_address = at;
      r.info = *info;
      r.end = static_cast<uint32_t>(at + info->size);
      ++r.num_instr;
      if (at == match) {
        r.status = armisa::WalkStatus::kP0;
        break;
      }
    }
  }
  EteElement e = Make(ElemType::kInstrRange);
  e.start = r.start;
  e.end = r.end;
  e.num_instr = r.num_instr;
  e.isa = isa;
  if (r.status == armisa::WalkStatus::kP0) {
    const armisa::InstrInfo& info = r.info;
    const uint32_t next = static_cast<uint32_t>(r.end);
    addr_ = next;
    if (info.type == armisa::InstrType::kBranch && info.has_target) {
      if (info.target_isa == armisa::Isa::kA32 || info.target_isa == armisa::Isa::kT32) isa_ = info.target_isa;
      if (taken) {
        addr_ = static_cast<uint32_t>(info.target);
        if (info.is_link && ret_stack_on_) ret_stack_.Push(next, isa);
      }
    } else if (info.type == armisa::InstrType::kIndirectBranch && taken) {
      addr_valid_ = false;  // the branch-address packet that follows gives it
      if (ret_stack_on_ && p.type == PtmPacketType::kAtom) {
        uint32_t a = 0;
        armisa::Isa i = isa;
        if (ret_stack_.Pop(&a, &i)) {
          addr_ = a;
          isa_ = i;
          addr_valid_ = true;
        } else {
          Fail("return stack empty on an E atom for an indirect branch");
        }
      }
      if (info.is_link && ret_stack_on_) ret_stack_.Push(next, isa);
    }
    e.last_type = info.type;
    e.last_subtype = info.subtype;
    e.last_size = info.size;
    e.executed = taken;
    e.last_cond = info.ocsd_conditional;
    e.has_cc = p.has_cc;
    e.cycle_count = p.cycle_count;
    Emit(e);
    return;
  }
  addr_valid_ = false;
  if (r.status == armisa::WalkStatus::kLimit) {
    e.type = ElemType::kInstrLimit;
    Emit(e);
    return;
  }
  // Not accessible: what was walked executed (OpenCSD: E, last instruction
  // a non-waypoint), then ADDR_NACC after the packet's other elements.
  if (r.num_instr) {
    std::optional<armisa::InstrInfo> last = follower_.Decode(r.last_address, isa, space);
    e.last_type = armisa::InstrType::kOther;
    e.last_size = last ? last->size : 4;
    e.last_cond = last && last->ocsd_conditional;
    e.executed = true;
    Emit(e);
  }
  nacc_pending_ = true;
  nacc_addr_ = static_cast<uint32_t>(r.end);
}

void PtmElementDecoder::Finish() {
  EteElement e = Make(ElemType::kEoTrace);
  e.unsync = ete_decode::UnsyncReason::kEndOfTrace;
  Emit(e);
}

}  // namespace mabutrace::ptm
