// SPDX-License-Identifier: MIT
// etm3_element_decoder.cpp: ETMv3 packets -> generic elements (see the header).
#include "etm3/etm3_element_decoder.h"

#include <cstdio>

#include "etm3/etm3_packet_text.h"

namespace mabutrace::etm3 {

using ete_decode::ElemType;
using ete_decode::EteElement;

namespace {

armisa::Isa ToArmIsa(Isa isa) { return isa == Isa::kArm ? armisa::Isa::kA32 : armisa::Isa::kT32; }
// Jazelle bytecode cannot be followed (nor can an unknown ISA).
bool Followable(Isa isa) { return isa == Isa::kArm || isa == Isa::kThumb2 || isa == Isa::kThumbEE; }

// The W count of the current atom and of all remaining atoms (P-header
// formats 1-4, IHI0014; OpenCSD's Etmv3Atoms).
uint32_t AtomCc(uint8_t format, unsigned left, uint32_t cycles) {
  switch (format) {
    case 1: return 1;
    case 2: return left > 1 ? 1 : 0;
    case 3: return cycles;
    default: return 0;
  }
}
uint32_t RemainCc(uint8_t format, unsigned left, uint32_t cycles) {
  return format == 1 ? left : AtomCc(format, left, cycles);
}

}  // namespace

Etm3ElementDecoder::Etm3ElementDecoder(const Etm3Config& config, const armisa::MemoryImage* image,
                                       ete_decode::ElementCallback on_element, void* ctx,
                                       ete_decode::DecodeErrorCallback on_error)
    : config_(config),
      follower_(image, armisa::FollowOptions{}, 4),
      on_element_(on_element),
      ctx_(ctx),
      on_error_(on_error) {
  list_.reserve(16);
}

void Etm3ElementDecoder::Reset() {
  state_ = State::kNoSync;
  NeedAddress(true);
  wait_isync_ = false;
  list_.clear();
  held_ = 0;
}

EteElement& Etm3ElementDecoder::Add(ElemType type) {
  EteElement& e = list_.emplace_back();
  e.type = type;
  e.trace_id = config_.trace_id();
  e.index = index_;
  e.isa = armisa::Isa::kT32;
  e.el_valid = false;
  return e;
}

void Etm3ElementDecoder::Flush() {
  const size_t n = list_.size() - held_;
  for (size_t i = 0; i < n; ++i) {
    const EteElement& e = list_[i];
    stats_.Count(e);
    on_element_(ctx_, e);
  }
  list_.erase(list_.begin(), list_.begin() + static_cast<std::ptrdiff_t>(n));
}

void Etm3ElementDecoder::Cancel() {
  list_.resize(list_.size() - held_);
  held_ = 0;
}

void Etm3ElementDecoder::Fail(const std::string& what) {
  ++stats_.errors;
  if (on_error_) {
    char m[64];
    std::snprintf(m, sizeof m, "byte %llu (trace ID 0x%x): ", static_cast<unsigned long long>(index_),
                  config_.trace_id());
    on_error_(ctx_, index_, m + what + "; waiting for the next A-sync");
  }
  Reset();
}

void Etm3ElementDecoder::SetContext(EteElement* e) const {
  e->el_valid = hyp_;
  e->el = hyp_ ? 2 : 0;
  e->security = ns_ ? ete_decode::Security::kNonSecure : ete_decode::Security::kSecure;
  e->bits64 = false;
  e->vmid_valid = vmid_valid_;
  e->vmid = vmid_;
  e->context_id_valid = ctxt_id_valid_;
  e->context_id = context_id_;
}

void Etm3ElementDecoder::OnPacket(const Etm3Packet& p) {
  ++stats_.packets;
  index_ = p.index;
  switch (state_) {
    case State::kNoSync: {
      EteElement& e = Add(ElemType::kNoSync);
      e.unsync = first_no_sync_ ? ete_decode::UnsyncReason::kInitDecoder : ete_decode::UnsyncReason::kBadPacket;
      first_no_sync_ = false;
      state_ = State::kWaitAsync;
      Flush();
    }
      [[fallthrough]];
    case State::kWaitAsync:
      if (p.type == PacketType::kAsync) state_ = State::kWaitIsync;
      break;
    case State::kWaitIsync:
      wait_isync_ = true;
      if (p.type == PacketType::kIsync || p.type == PacketType::kIsyncCycle) {
        Isync(p, true);
        wait_isync_ = false;
        state_ = State::kDecode;
      } else if (p.type == PacketType::kTimestamp ||
                 (config_.cycle_accurate() && (p.type == PacketType::kCycleCount || p.type == PacketType::kPHeader))) {
        Decode(p);
        // OpenCSD leaves the wait for I-sync only through its send state:
        // a packet without elements ends it.
        if (state_ == State::kWaitIsync && list_.size() == held_) state_ = State::kDecode;
      }
      break;
    case State::kDecode: Decode(p); break;
  }
  Flush();
}

void Etm3ElementDecoder::Decode(const Etm3Packet& p) {
  if (p.type != PacketType::kBranchAddress) Commit();
  switch (p.type) {
    case PacketType::kNotSync: Fail("trace packet synchronisation lost"); return;
    case PacketType::kIncompleteEot:
    case PacketType::kAsync:
    case PacketType::kIgnore: break;
    case PacketType::kCycleCount: {
      EteElement& e = Add(ElemType::kCycleCount);
      e.has_cc = true;
      e.cycle_count = p.cycle_count;
      break;
    }
    case PacketType::kTrigger: {
      EteElement& e = Add(ElemType::kEvent);
      e.event_trigger = true;
      break;
    }
    case PacketType::kBranchAddress: Branch(p); break;
    case PacketType::kIsync:
    case PacketType::kIsyncCycle: Isync(p, false); break;
    case PacketType::kPHeader: PHeader(p); break;
    case PacketType::kContextId: {
      context_id_ = p.context_id;
      ctxt_id_valid_ = true;
      EteElement& e = Add(ElemType::kPeContext);
      SetContext(&e);
      e.isa = ToArmIsa(p.isa);
      break;
    }
    case PacketType::kVmid: {
      vmid_ = p.vmid;
      vmid_valid_ = true;
      EteElement& e = Add(ElemType::kPeContext);
      SetContext(&e);
      e.isa = ToArmIsa(p.isa);
      break;
    }
    case PacketType::kExceptionEntry: Add(ElemType::kException); break;  // v7-M entry marker: number 0
    case PacketType::kExceptionExit: {
      Add(ElemType::kExceptionRet);
      // A/R profile: the exception return instruction's range goes with it.
      const size_t n = list_.size();
      Hold(!config_.v7m && n > 1 && list_[n - 2].type == ElemType::kInstrRange ? 2 : 1);
      break;
    }
    case PacketType::kTimestamp: {
      EteElement& e = Add(ElemType::kTimestamp);
      e.timestamp = p.timestamp;
      break;
    }
    case PacketType::kStoreFail:
    case PacketType::kOooData:
    case PacketType::kOooPlaceholder:
    case PacketType::kNormalData:
    case PacketType::kDataSuppressed:
    case PacketType::kValueNotTraced: break;  // data trace: packets only
    case PacketType::kBadTraceMode: Fail("data packet while data trace is off"); return;
    case PacketType::kBadSequence: Fail("bad packet sequence"); return;
    case PacketType::kReserved:
    case PacketType::kCount: Fail("reserved or unknown packet"); return;
  }
}

void Etm3ElementDecoder::Isync(const Etm3Packet& p, bool first) {
  if (first || p.isync_reason != IsyncReason::kPeriodic) {
    EteElement& e = Add(ElemType::kTraceOn);
    e.trace_on = p.isync_reason == IsyncReason::kRestartOverflow ? ete_decode::TraceOnReason::kOverflow
                 : p.isync_reason == IsyncReason::kDebugExit     ? ete_decode::TraceOnReason::kDebugExit
                                                                 : ete_decode::TraceOnReason::kNormal;
  }
  if (p.ctxt_updated || p.ctxt_id_updated || p.vmid_updated || first) {
    if (first) {
      ctxt_id_valid_ = vmid_valid_ = false;
      ns_ = hyp_ = false;
    }
    if (p.ctxt_id_updated) {
      context_id_ = p.context_id;
      ctxt_id_valid_ = true;
    }
    if (p.vmid_updated) {
      vmid_ = p.vmid;
      vmid_valid_ = true;
    }
    if (p.ctxt_updated) {
      hyp_ = p.hyp;
      ns_ = p.ns;
    }
    EteElement& e = Add(ElemType::kPeContext);
    SetContext(&e);
    e.isa = ToArmIsa(p.isa);
    if (p.isync_has_cc) {
      e.has_cc = true;
      e.cycle_count = p.cycle_count;
    }
  }
  if (!p.isync_no_address) {
    iaddr_ = p.addr.value;
    NeedAddress(false);
  }
}

void Etm3ElementDecoder::Branch(const Etm3Packet& p) {
  if (p.exception && p.exception_cancel)
    Cancel();
  else
    Commit();
  iaddr_ = p.addr.value;
  NeedAddress(false);
  if (!p.exception) return;
  bool changed = false;
  if (p.ctxt_updated) {
    if (p.ns != ns_) {
      ns_ = p.ns;
      changed = true;
    }
    if (p.hyp != hyp_) {
      hyp_ = p.hyp;
      changed = true;
    }
  }
  if (changed) {
    EteElement& e = Add(ElemType::kPeContext);
    SetContext(&e);
    e.isa = ToArmIsa(p.isa);
  }
  if (p.exception_number != 0) {
    EteElement& e = Add(ElemType::kException);
    e.exception_number = p.exception_number;
    e.exception_has_addr = false;
    e.exception_prev_same = false;
  }
}

void Etm3ElementDecoder::PHeader(const Etm3Packet& p) {
  const bool ca = config_.cycle_accurate();
  unsigned left = p.atom_count;
  uint32_t bits = p.atom_bits;
  Isa isa = p.isa;
  const uint8_t space = ns_ ? armisa::kMemN : armisa::kMemS;
  do {
    if (need_addr_ || !Followable(isa)) {
      if (!sent_unknown_ || ca) {
        EteElement& e = Add(sent_unknown_ || !left ? ElemType::kCycleCount : ElemType::kAddrUnknown);
        if (ca) {
          e.has_cc = true;
          e.cycle_count = RemainCc(p.phdr_format, left, p.cycle_count);
        }
        sent_unknown_ = true;
      }
      left = 0;
      break;
    }
    EteElement& e = Add(ElemType::kInstrRange);
    if (ca) {
      if (!left) e.type = ElemType::kCycleCount;
      e.has_cc = true;
      e.cycle_count = AtomCc(p.phdr_format, left, p.cycle_count);
    }
    if (left) {
      const bool taken = bits & 1;
      const armisa::Isa aisa = ToArmIsa(isa);
      std::optional<armisa::InstrInfo> info = follower_.Decode(iaddr_, aisa, space);
      if (!info) {  // no code there: ADDR_NACC, and wait for an address
        e.type = ElemType::kAddrNacc;
        e.start = iaddr_;
        e.mem_space = space;
        NeedAddress(true);
      } else {
        e.start = iaddr_;
        e.end = static_cast<uint32_t>(iaddr_ + info->size);
        e.num_instr = 1;
        e.isa = aisa;
        e.last_type = info->type;
        e.last_subtype = info->subtype;
        e.last_size = info->size;
        e.executed = taken;
        e.last_cond = info->ocsd_conditional;
        iaddr_ = static_cast<uint32_t>(e.end);
        if (taken && info->type == armisa::InstrType::kBranch && info->has_target) {
          iaddr_ = static_cast<uint32_t>(info->target);
          if (info->target_isa != aisa) isa = info->target_isa == armisa::Isa::kA32 ? Isa::kArm : Isa::kThumb2;
        } else if (taken && info->type == armisa::InstrType::kIndirectBranch) {
          NeedAddress(true);
        }
      }
      bits >>= 1;
      --left;
    }
  } while (left);
  if (!list_.empty() && list_.back().type == ElemType::kInstrRange) Hold(1);
}

void Etm3ElementDecoder::Finish() {
  if (!stats_.packets) return;  // no packet for this source: no trace to end
  Add(ElemType::kEoTrace).unsync = ete_decode::UnsyncReason::kEndOfTrace;
  Commit();
  Flush();
}

}  // namespace mabutrace::etm3
