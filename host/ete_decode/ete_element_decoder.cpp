// SPDX-License-Identifier: MIT
// ete_element_decoder.cpp: packets -> speculation window -> elements (see
// ete_element_decoder.h; arm-trace-facts.md §5).
#include "ete_element_decoder.h"

namespace mabutrace::ete_decode {

using armisa::Isa;
using ete::PacketType;

namespace {

// Counts (COMMIT, CANCEL) are 32-bit fields; anything above this is taken as
// this (bounded work on corrupt input).
int32_t Count(uint32_t v) {
  return static_cast<int32_t>(v < SpeculationQueue::kMaxCount ? v : SpeculationQueue::kMaxCount);
}

armisa::FollowOptions FollowOptionsOf(const ete::EteConfig& c) {
  armisa::FollowOptions o;
  o.classify.wfx_waypoints = (c.trcidr2 >> 31) & 1;  // TRCIDR2.WFXMODE
  return o;
}

}  // namespace

EteElementDecoder::EteElementDecoder(const ete::EteConfig& config, const armisa::MemoryImage* image,
                                     ElementCallback on_element, void* ctx, DecodeErrorCallback on_error,
                                     unsigned cache_log2)
    : out_(config.trace_id(), on_element, ctx),
      ctx_(ctx),
      on_error_(on_error),
      queue_(config.max_spec(),
             ((config.trcidr0 >> 30) & 1) == 0),  // TRCIDR0.COMMTRANS = 0: TSTART is P0
      walker_(image, FollowOptionsOf(config), (config.trcconfigr >> 12) & 1 /* TRCCONFIGR.RS */, &out_, cache_log2),
      // OpenCSD: TS markers gate timestamps when ETE >= 1.1 and TRCIDR0.TSMARK (bit 23).
      ts_marker_mode_(config.full_version() >= 0x51 && ((config.trcidr0 >> 23) & 1)),
      cci_((config.trcconfigr >> 4) & 1),
      m_profile_(!config.is_ete() && config.m_profile),
      v7m_(!config.is_ete() && config.m_profile && config.m_profile_v7) {
  walker_.set_eret_elements(config.is_ete());
}

void EteElementDecoder::Reset() {
  ResetState();
  context_.ForgetIds();
  state_ = State::kNoSync;
  unsync_ = UnsyncReason::kResetDecoder;
  seen_async_ = false;
}

void EteElementDecoder::ResetState() {
  queue_.Clear();
  held_address_ = false;
  res_commit_ = res_cancel_ = 0;
  res_mispredict_ = res_discard_ = false;
  walker_.Reset();
  await_full_address_ = false;
  prev_overflow_ = false;
  first_ts_marker_ = false;
}

// ---------------------------------------------------------------- errors

void EteElementDecoder::Error(uint64_t index, const std::string& what) {
  ++out_.stats().errors;
  if (on_error_) on_error_(ctx_, index, "byte " + std::to_string(index) + ": " + what);
}

void EteElementDecoder::EmitNoSync(uint64_t index) {
  EteElement& e = out_.New(ElemType::kNoSync, index);
  e.unsync = unsync_;
  out_.Emit(e);
}

void EteElementDecoder::Resynchronise(UnsyncReason why, uint64_t index) {
  ResetState();
  unsync_ = why;
  EmitNoSync(index);
  state_ = State::kWaitSync;
}

bool EteElementDecoder::SequenceError(uint64_t index, const char* what) {
  Error(index, std::string(what) + "; decoder resynchronises");
  Resynchronise(UnsyncReason::kBadPacket, index);
  return false;
}

bool EteElementDecoder::WalkFailed(ExecutionWalker::Status status, uint64_t index) {
  // Only where the PE is was lost, not the packet stream nor the speculation
  // window: decoding goes on (timing elements, commits), the walks resume at
  // the next packet that gives a whole address (§4.12: a 64-bit address, or
  // an address with context), not at the next A-Sync.
  const bool bad_image = status == ExecutionWalker::Status::kBadImage;
  Error(index, std::string(bad_image ? "executed range does not continue the previous one (program image does not "
                                       "match the trace)"
                                     : "return stack empty on an indirect branch without address") +
                   "; decoding resumes at the next 64-bit address or address with context");
  unsync_ = bad_image ? UnsyncReason::kBadImage : UnsyncReason::kBadPacket;
  EmitNoSync(index);
  walker_.LoseAddress();
  await_full_address_ = true;
  return true;
}

// ---------------------------------------------------------------- packets

void EteElementDecoder::CommitAtomsAfterHeldAddress(const ete::EtePacket& p) {
  held_address_ = false;  // the queue is empty: the held address is the oldest element
  Address(held_.value, held_.is, held_.full);
  // With MAXSPEC 0 the queue would give the walker all the atoms.
  if (queue_.max_spec() == 0 && walker_.AtomsIntoNacc(p.index)) return;
  CommitAtomsAtOnce(p);
}

void EteElementDecoder::CommitAtomsAtOnce(const ete::EtePacket& p) {
  queue_.CommitAtomsAtOnce(p.atom_bits, p.atom_count, p.index, *this);
}

void EteElementDecoder::AtomsWithSpeculation(const ete::EtePacket& p) {
  if (queue_.CanCommitAtOnce(p.atom_count)) return CommitAtomsAtOnce(p);
  OnOtherPacket(p);  // not an address: HoldAddress would refuse it
}

void EteElementDecoder::OnOtherPacket(const ete::EtePacket& p) {
  if (p.type == PacketType::kAsync) seen_async_ = true;  // never an atom or an address: always here
  if (state_ == State::kNoSync) {
    EmitNoSync(p.index);
    state_ = State::kWaitSync;
  }
  switch (state_) {
    case State::kNoSync:
    case State::kWaitSync:
      if (p.type == PacketType::kAsync) state_ = State::kWaitTraceInfo;
      return;
    case State::kWaitTraceInfo:
      walker_.Unsync();
      if (p.type == PacketType::kTraceInfo) {
        TraceInfo(p);
        state_ = State::kDecode;
        walker_.FlushReturnStack();
      } else if (p.type == PacketType::kEvent) {
        QueuePacket(p);  // ETE: events may precede the first Trace Info (§4.11)
      }
      return;
    case State::kDecode:  // OnPacket took the atoms that commit at once and the addresses it holds
      QueuePacket(p);
      if (state_ == State::kDecode && (res_commit_ || res_cancel_ || res_mispredict_ || res_discard_)) {
        Resolve();
        if (state_ == State::kNoSync) {  // discard / overflow: NO_SYNC at this packet
          EmitNoSync(p.index);
          state_ = State::kWaitSync;
        }
      }
      return;
  }
}

void EteElementDecoder::TraceInfo(const ete::EtePacket& p) {
  context_.ForgetIds();                // §4.4: VMID and CONTEXTID reset; valid again once traced
  queue_.PushUnseen(p.spec, p.index);  // §4.4, §5.7: SPEC unseen P0s precede this point
  queue_.Push(QueuedKind::kTraceInfo, p.index);
  if ((p.info >> 6) & 1) queue_.Push(QueuedKind::kTransInit, p.index);  // INFO.T: inside a transaction
}

void EteElementDecoder::QueueContext(const ete::EtePacket& p) {
  QueuedElement& e = queue_.Push(QueuedKind::kContext, p.index);
  e.ctx = context_.KeepIdsValid(p.context);
  e.is = last_is_;
}

void EteElementDecoder::QueuePacket(const ete::EtePacket& p) {
  UnholdAddress();
  if (QueueElementsOf(p)) {
    if (queue_.full()) {
      SequenceError(p.index, "more than 65536 trace elements waiting for commit");
      return;
    }
    if (const int32_t excess = queue_.Excess()) res_commit_ = excess;  // §5.2
  }
}

bool EteElementDecoder::QueueElementsOf(const ete::EtePacket& p) {
  if (ete::IsAtomPacket(p.type)) {
    queue_.PushAtoms(p.atom_bits, p.atom_count, p.index);
    return true;
  }
  if (ete::IsAddressWithContextPacket(p.type) || ete::IsTargetAddressPacket(p.type)) {
    last_is_ = p.addr.isa;
    const bool with_context = ete::IsAddressWithContextPacket(p.type);
    if (with_context) QueueContext(p);  // first: it applies to the address
    queue_.PushAddress(p.addr.value, p.addr.isa, p.index).full_addr =
        with_context || p.type == PacketType::kTargetAddrL64Is0 || p.type == PacketType::kTargetAddrL64Is1;
    return true;
  }
  if (ete::IsSourceAddressPacket(p.type)) {
    last_is_ = p.addr.isa;
    queue_.PushSourceAddress(p.addr.value, p.addr.isa, p.index);
    return true;
  }
  switch (p.type) {
    case PacketType::kTraceInfo:
      context_.ForgetIds();  // §4.4, as TraceInfo()
      queue_.Push(QueuedKind::kTraceInfo, p.index);
      break;
    case PacketType::kTraceOn: queue_.Push(QueuedKind::kTraceOn, p.index); break;
    case PacketType::kExceptionReturn:  // ETMv4 only; a P0 element on v7-M (OpenCSD 1.8.0)
      if (v7m_)
        queue_.PushP0(QueuedKind::kExceptionReturn, p.index);
      else
        queue_.Push(QueuedKind::kExceptionReturn, p.index);
      break;
    case PacketType::kFunctionReturn:  // ETMv4-M on v8-M: a P0 element (a data-trace hint), no output
      if (m_profile_ && !v7m_) queue_.PushP0(QueuedKind::kFunctionReturn, p.index);
      break;
    case PacketType::kContext: QueueContext(p); break;
    case PacketType::kException: queue_.PushException(p.exception_type, p.exception_addr_interp == 2, p.index); break;
    case PacketType::kPeReset: queue_.PushPeReset(p.exception_type, p.exception_addr_interp == 2, p.index); break;
    case PacketType::kQ:
      queue_.PushQ(p.q_count, p.q_addr_present || p.q_addr_match, p.addr.value, p.addr.isa, p.index);
      break;
    case PacketType::kTimestampMarker: queue_.Push(QueuedKind::kMarker, p.index); break;
    case PacketType::kTransactionStart: queue_.PushTransactionStart(p.index); break;
    case PacketType::kTransactionCommit: queue_.Push(QueuedKind::kTransCommit, p.index); break;
    case PacketType::kTransactionFailure: queue_.Push(QueuedKind::kTransFail, p.index); break;
    case PacketType::kInstrumentation: {
      QueuedElement& e = queue_.Push(QueuedKind::kInstrumentation, p.index);
      e.ite_el = p.ite_el;
      e.value = p.ite_value;
      break;
    }
    case PacketType::kEvent: queue_.Push(QueuedKind::kEvent, p.index).number = p.event; break;
    case PacketType::kCycleCountF1:
    case PacketType::kCycleCountF2:
    case PacketType::kCycleCountF3:
      queue_.Push(QueuedKind::kCycleCount, p.index).cc = p.cycle_count;
      if (p.commit_valid) res_commit_ = Count(p.commit);  // commit mode 0 (§4.9)
      break;
    case PacketType::kTimestamp: {
      QueuedElement& e = queue_.Push(cci_ ? QueuedKind::kTimestampCycleCount : QueuedKind::kTimestamp, p.index);
      e.value = p.timestamp;
      e.cc = p.cycle_count;
      break;
    }
    case PacketType::kMispredict:
    case PacketType::kCancelF1Mispredict:
    case PacketType::kCancelF2:
    case PacketType::kCancelF3:
      res_mispredict_ = true;
      if (p.atom_count) queue_.PushAtoms(p.atom_bits, p.atom_count, p.index);  // before the cancel (§4.10)
      res_cancel_ = Count(p.cancel);
      break;
    case PacketType::kCancelF1: res_cancel_ = Count(p.cancel); break;
    case PacketType::kCommit: res_commit_ = Count(p.commit); break;
    case PacketType::kOverflow: prev_overflow_ = true; [[fallthrough]];
    case PacketType::kDiscard:
      queue_.ResetDepth();  // §4.3: depth 0 at once; Discard() then drops the elements
      res_discard_ = true;
      break;
    case PacketType::kReserved:
    case PacketType::kReservedCfg:
    case PacketType::kBadSequence:
      // OpenCSD handleBadPacket: drop everything, NO_SYNC at the next packet.
      Error(p.index, std::string("bad packet (") + ete::PacketTypeName(p.type) + "); element decoder resynchronises");
      ResetState();
      state_ = State::kNoSync;
      unsync_ = UnsyncReason::kBadPacket;
      return false;
    default:  // A-Sync, Ignore, not-sync bytes, incomplete packet at EOT
      break;
  }
  return true;
}

// ---------------------------------------------------------------- resolution

void EteElementDecoder::Resolve() {
  bool ok = true;
  if (res_commit_) {
    uint64_t last = curr_index_;
    switch (queue_.Commit(res_commit_, *this, &last)) {
      case SpeculationQueue::CommitResult::kDone: break;
      case SpeculationQueue::CommitResult::kStopped: ok = false; break;
      case SpeculationQueue::CommitResult::kShort:
        ok = SequenceError(last, "commit of more P0 elements than are waiting");
        break;
    }
  }
  if (ok && state_ == State::kDecode) {
    if (res_cancel_ && !queue_.Cancel(res_cancel_))
      ok = SequenceError(curr_index_, "cancel of more P0 elements than are waiting");
    if (ok && res_mispredict_ && queue_.Mispredict() == SpeculationQueue::MispredictResult::kNoAtom)
      ok = SequenceError(curr_index_, "mispredict with no atom waiting");
    if (ok && res_discard_) Discard();
  }
  res_commit_ = res_cancel_ = 0;
  res_mispredict_ = res_discard_ = false;
}

void EteElementDecoder::Discard() {
  // §5.6: uncommitted P0s are dropped; timing elements are still output.
  queue_.Discard(*this);
  unsync_ = prev_overflow_ ? UnsyncReason::kOverflow : UnsyncReason::kDiscard;
  state_ = State::kNoSync;
  walker_.Unsync();
}

void EteElementDecoder::Finish() {
  UnholdAddress();
  queue_.FlushAtEnd(*this);
  EteElement& e = out_.New(ElemType::kEoTrace, curr_index_);
  e.unsync = prev_overflow_ ? UnsyncReason::kOverflow : UnsyncReason::kEndOfTrace;
  out_.Emit(e);
}

// ---------------------------------------------------------------- committed elements

bool EteElementDecoder::Element(const QueuedElement& e, const QueuedElement* context, const QueuedElement* address) {
  switch (e.kind) {
    case QueuedKind::kTraceOn: {
      walker_.BreakChain();
      EteElement& o = out_.New(ElemType::kTraceOn, e.index);
      o.trace_on = prev_overflow_ ? TraceOnReason::kOverflow : TraceOnReason::kNormal;
      prev_overflow_ = false;
      walker_.FlushReturnStack();
      out_.Emit(o);
      return true;
    }
    case QueuedKind::kAddress: Address(e.value, e.is, e.full_addr); return true;
    case QueuedKind::kContext:
      if (e.ctx.updated) UpdateContext(e);
      return true;
    case QueuedKind::kException: return Exception(e, context, address);
    case QueuedKind::kSourceAddress:
      if (await_full_address_) return true;  // no start to walk from
      walker_.BreakChain();
      walker_.SourceAddress(e.value, e.index);
      return true;
    case QueuedKind::kQ: {
      if (await_full_address_) return true;
      walker_.BreakChain();
      uint64_t target = e.value;
      uint8_t is = e.is;
      if (!e.q_has_addr) {
        if (!address) return SequenceError(e.index, "Q element without its target address");
        target = address->value;
        is = address->is;
      }
      walker_.Q(e.q_count, target, context_.IsaOf(is), e.index);
      return true;
    }
    case QueuedKind::kTransInit:
    case QueuedKind::kTransStart:
    case QueuedKind::kTransCommit:
    case QueuedKind::kTransFail:
      walker_.BreakChain();
      Timed(e);
      return true;
    case QueuedKind::kTraceInfo: walker_.FlushReturnStack(); return true;
    case QueuedKind::kExceptionReturn: out_.Emit(out_.New(ElemType::kExceptionRet, e.index)); return true;
    case QueuedKind::kFunctionReturn: return true;
    case QueuedKind::kAtom:    // the queue hands atoms out one by one (Atom)
    case QueuedKind::kUnseen:  // before the decoder synchronised: nothing to show
      return true;
    default:  // timing elements
      Timed(e);
      return true;
  }
}

bool EteElementDecoder::Exception(const QueuedElement& e, const QueuedElement* context, const QueuedElement* address) {
  // §5.8: the exception's address (and a context before it) followed it.
  // E = 0b10 (§4.7): that address is also the target of the preceding P0,
  // so a taken indirect branch before it got its target here, not from the
  // return stack (OpenCSD pops here, Linaro/OpenCSD#88; we follow the
  // architecture).
  if (e.prev_same)
    walker_.CancelPendingReturn();
  else if (!Walked(walker_.PopPendingReturn(), e.index))
    return false;
  walker_.BreakChain();
  uint64_t per = 0;  // preferred return address
  if (!e.pe_reset) {
    if (!address) return SequenceError(e.index, "exception without its return address");
    per = address->value;
    if (e.prev_same && !await_full_address_) {
      // E = 0b10: the PE is already there. As OpenCSD: IS1 is T32 even in AArch64.
      const bool aarch64 = context ? context->ctx.sf : walker_.isa() == Isa::kA64;
      walker_.SetAddress(per, address->is ? Isa::kT32 : (aarch64 ? Isa::kA64 : Isa::kA32));
    }
  }
  if (context) UpdateContext(*context);
  // While the address is lost there is no start to walk from.
  walker_.WalkToException(per, !e.pe_reset && !await_full_address_, e.index);
  EteElement& o = out_.New(ElemType::kException, e.index);
  o.end = per;
  o.exception_has_addr = true;
  o.exception_prev_same = e.prev_same && !e.pe_reset;  // PE Reset: no address to share
  o.exception_number = e.number;
  out_.Emit(o);
  return true;
}

void EteElementDecoder::UpdateContext(const QueuedElement& c) {
  EteElement& o = out_.New(ElemType::kPeContext, c.index);
  context_.Apply(c.ctx, c.is, &o);
  walker_.SetContext(o.isa, context_.mem_space());
  out_.Emit(o);
}

void EteElementDecoder::Timed(const QueuedElement& e) {
  switch (e.kind) {
    case QueuedKind::kEvent: {
      EteElement& o = out_.New(ElemType::kEvent, e.index);
      o.event = e.number;
      out_.Emit(o);
      break;
    }
    case QueuedKind::kTimestamp:
    case QueuedKind::kTimestampCycleCount:
      if (!ts_marker_mode_ || first_ts_marker_) {
        EteElement& o = out_.New(ElemType::kTimestamp, e.index);
        o.timestamp = e.value;
        if (e.kind == QueuedKind::kTimestampCycleCount) {
          o.has_cc = true;
          o.cycle_count = e.cc;
        }
        out_.Emit(o);
      }
      break;
    case QueuedKind::kCycleCount: {
      EteElement& o = out_.New(ElemType::kCycleCount, e.index);
      o.has_cc = true;
      o.cycle_count = e.cc;
      out_.Emit(o);
      break;
    }
    case QueuedKind::kMarker:
      if (ts_marker_mode_) first_ts_marker_ = true;
      out_.Emit(out_.New(ElemType::kSyncMarker, e.index));
      break;
    case QueuedKind::kInstrumentation: {
      EteElement& o = out_.New(ElemType::kInstrumentation, e.index);
      o.ite_el = e.ite_el;
      o.ite_value = e.value;
      out_.Emit(o);
      break;
    }
    case QueuedKind::kTransInit:
    case QueuedKind::kTransStart:
    case QueuedKind::kTransCommit:
    case QueuedKind::kTransFail: {
      EteElement& o = out_.New(ElemType::kMemTrans, e.index);
      o.mem_trans = e.kind == QueuedKind::kTransInit     ? MemTrans::kTraceInit
                    : e.kind == QueuedKind::kTransStart  ? MemTrans::kStart
                    : e.kind == QueuedKind::kTransCommit ? MemTrans::kCommit
                                                         : MemTrans::kFail;
      out_.Emit(o);
      break;
    }
    default: break;
  }
}

}  // namespace mabutrace::ete_decode
