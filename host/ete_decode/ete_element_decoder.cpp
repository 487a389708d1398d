// ete_element_decoder.cpp: speculation window, commit/cancel/mispredict,
// and instruction following (arm-trace-facts.md §5, §6).
#include "ete_element_decoder.h"

#include <cstring>

namespace mabutrace::ete_decode {

using armisa::InstrInfo;
using armisa::InstrSubtype;
using armisa::InstrType;
using armisa::Isa;
using armisa::WalkResult;
using armisa::WalkStatus;
using ete::PacketType;

// Queue element kinds (OpenCSD's p0_elem_t; §5.1 element classes).
enum class EteElementDecoder::Kind : uint8_t {
  kAtom, kAddr, kSrcAddr, kCtxt, kTraceOn, kExcept, kEvent, kTs, kCc, kTsCc, kMarker, kQ,
  kTransInit, kTransStart, kTransCommit, kTransFail, kIte, kUnseen, kTraceInfo,
};

struct EteElementDecoder::Elem {
  Kind kind;
  bool is_p0;
  bool pe_reset;      // kExcept: PE Reset (no address)
  bool prev_same;     // kExcept: E=0b10
  bool q_has_addr;
  uint8_t is;         // address sub-ISA (IS0/IS1)
  uint8_t atom_num;   // kAtom: atoms left
  uint16_t number;    // exception type / event mask
  uint32_t atom_bits; // kAtom: bit 0 = oldest remaining, 1 = E
  uint32_t q_count;
  uint32_t cc;
  uint64_t index;
  uint64_t addr;      // addresses, timestamp, ITE value
  ete::PacketContext ctx;
  uint8_t ite_el;
};

// Ring of Elems, oldest at front. Grows by doubling (the window is bounded
// by MAXSPEC in valid trace); erase/insert in the middle shift (rare: only
// exception/Q address lookup and mispredict).
class EteElementDecoder::Queue {
 public:
  Queue() : buf_(64), mask_(63) {}
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  Elem& at(size_t i) { return buf_[(head_ + i) & mask_]; }
  Elem& front() { return at(0); }
  Elem& back() { return at(n_ - 1); }
  Elem& push_back() {
    if (n_ == buf_.size()) Grow();
    Elem& e = at(n_++);
    std::memset(static_cast<void*>(&e), 0, sizeof e);
    return e;
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --n_;
  }
  void pop_back() { --n_; }
  void erase(size_t i) {
    for (size_t j = i; j + 1 < n_; ++j) at(j) = at(j + 1);
    --n_;
  }
  void insert(size_t i, const Elem& e) {
    if (n_ == buf_.size()) Grow();
    ++n_;
    for (size_t j = n_ - 1; j > i; --j) at(j) = at(j - 1);
    at(i) = e;
  }
  void clear() { head_ = n_ = 0; }

 private:
  void Grow() {
    std::vector<Elem> nb(buf_.size() * 2);
    for (size_t i = 0; i < n_; ++i) nb[i] = at(i);
    buf_.swap(nb);
    mask_ = buf_.size() - 1;
    head_ = 0;
  }
  std::vector<Elem> buf_;
  size_t mask_;
  size_t head_ = 0, n_ = 0;
};

namespace {

// Counts (SPEC, COMMIT, CANCEL, Q COUNT) are 32-bit fields; anything above
// this is treated as this (bounded work and memory on corrupt input).
constexpr uint32_t kMaxCount = 1u << 20;
// Elements waiting for resolution. Valid trace keeps at most MAXSPEC P0s and
// the few non-P0 elements between them; more means corrupt input (or a
// stream without any P0 element), and the decoder resynchronises rather
// than grow without bound (64 bytes per element).
constexpr size_t kMaxQueue = 1u << 16;
int32_t Count(uint32_t v) { return static_cast<int32_t>(v < kMaxCount ? v : kMaxCount); }

armisa::FollowOptions FollowOpts(const ete::EteConfig& c) {
  armisa::FollowOptions o;
  o.classify.wfx_waypoints = (c.trcidr2 >> 31) & 1;  // TRCIDR2.WFXMODE
  return o;
}

}  // namespace

EteElementDecoder::EteElementDecoder(const ete::EteConfig& config, const armisa::MemoryImage* image,
                                     ElementCallback on_element, void* ctx, DecodeErrorCallback on_error,
                                     unsigned cache_log2)
    : config_(config),
      image_(image),
      follower_(image ? image : &empty_image_, FollowOpts(config), cache_log2),
      on_element_(on_element),
      ctx_(ctx),
      on_error_(on_error),
      queue_(std::make_unique<Queue>()) {
  hops_ = std::make_unique<Hop[]>(kHops);
  max_spec_ = config.max_spec() < kMaxCount ? config.max_spec() : kMaxCount;
  // OpenCSD: TS markers gate timestamps when ETE >= 1.1 and TRCIDR0.TSMARK (bit 23).
  ts_marker_mode_ = config.full_version() >= 0x51 && ((config.trcidr0 >> 23) & 1);
  comm_trans_p0_ = ((config.trcidr0 >> 30) & 1) == 0;  // TRCIDR0.COMMTRANS = 0: TSTART is P0
  cci_ = (config.trcconfigr >> 4) & 1;                 // TRCCONFIGR.CCI
  ret_stack_active_ = (config.trcconfigr >> 12) & 1;   // TRCCONFIGR.RS
  out_.trace_id = config.trace_id();
}

EteElementDecoder::~EteElementDecoder() = default;

void EteElementDecoder::Reset() {
  ResetState();
  vmid_seen_ = cid_seen_ = false;
  state_ = State::kNoSync;
  unsync_ = UnsyncReason::kResetDecoder;
}

void EteElementDecoder::ResetState() {
  queue_->clear();
  res_commit_ = res_cancel_ = 0;
  res_mispredict_ = res_discard_ = false;
  spec_depth_ = 0;
  need_ctxt_ = need_addr_ = true;
  elem_pending_addr_ = false;
  prev_overflow_ = false;
  first_ts_marker_ = false;
  next_check_valid_ = false;
  RetFlush();
}

// ---------------------------------------------------------------- output

EteElement& EteElementDecoder::NewElem(ElemType type, uint64_t index) {
  // Hot path: no full re-initialisation. Every producer below sets all the
  // fields its element type carries (the ones FormatElement* read for that
  // type); only the type-independent ones are reset here.
  out_.type = type;
  out_.index = index;
  out_.has_cc = false;
  return out_;
}

void EteElementDecoder::SetRange(EteElement& out, uint64_t start, uint64_t end, uint32_t n, const InstrInfo& info,
                                 uint8_t size, bool executed, Isa isa) {
  out.type = ElemType::kInstrRange;
  out.start = start;
  out.end = end;
  out.num_instr = n;
  out.last_type = info.type;
  out.last_subtype = info.subtype;
  out.last_size = size;
  out.last_cond = info.ocsd_conditional;
  out.executed = executed;
  out.isa = isa;
}

uint8_t EteElementDecoder::ComputeMemSpace() const {
  // OpenCSD getCurrMemSpace: security state + EL -> ocsd_mem_space_acc_t.
  if (!ctxt_valid_) return armisa::kMemS;
  switch (security_) {
    case Security::kRoot: return armisa::kMemRoot;
    case Security::kRealm: return el_ == 2 ? armisa::kMemEL2R : (el_ < 2 ? armisa::kMemEL1R : armisa::kMemR);
    case Security::kSecure: return el_ == 3 ? armisa::kMemEL3 : (el_ == 2 ? armisa::kMemEL2S : armisa::kMemEL1S);
    case Security::kNonSecure: return el_ == 2 ? armisa::kMemEL2N : (el_ < 2 ? armisa::kMemEL1N : armisa::kMemN);
  }
  return armisa::kMemAny;
}

bool EteElementDecoder::SequenceError(uint64_t index, const char* what) {
  ++stats_.errors;
  if (on_error_) on_error_(ctx_, index, "byte " + std::to_string(index) + ": " + what + "; decoder resynchronises");
  ResetState();
  unsync_ = UnsyncReason::kBadPacket;
  EteElement& e = NewElem(ElemType::kNoSync, index);
  e.unsync = unsync_;
  Emit(e);
  state_ = State::kWaitSync;
  return false;
}

void EteElementDecoder::BadImage(uint64_t index) {
  ++stats_.errors;
  if (on_error_)
    on_error_(ctx_, index,
              "byte " + std::to_string(index) + ": executed range does not continue the previous one "
              "(program image does not match the trace); decoder resynchronises");
  ResetState();
  unsync_ = UnsyncReason::kBadImage;
  EteElement& e = NewElem(ElemType::kNoSync, index);
  e.unsync = unsync_;
  Emit(e);
  state_ = State::kWaitSync;
}

// ---------------------------------------------------------------- packets

void EteElementDecoder::OnPacket(const ete::EtePacket& p) {
  ++stats_.packets;
  curr_index_ = p.index;
  if (state_ == State::kNoSync) {
    EteElement& e = NewElem(ElemType::kNoSync, p.index);
    e.unsync = unsync_;
    Emit(e);
    state_ = State::kWaitSync;
  }
  switch (state_) {
    case State::kNoSync:
    case State::kWaitSync:
      if (p.type == PacketType::kAsync) state_ = State::kWaitTraceInfo;
      return;
    case State::kWaitTraceInfo:
      need_ctxt_ = need_addr_ = true;
      if (p.type == PacketType::kTraceInfo) {
        TraceInfo(p);
        state_ = State::kDecode;
        RetFlush();
      } else if (p.type == PacketType::kEvent) {
        DecodePacket(p);  // ETE: events may precede the first Trace Info (§4.11)
      }
      return;
    case State::kDecode:
      if (p.atom_count && queue_->empty() && p.atom_count > max_spec_ && IsAtomPacket(p.type)) {
        FastAtoms(p);
        return;
      }
      DecodePacket(p);
      if (state_ == State::kDecode && (res_commit_ || res_cancel_ || res_mispredict_ || res_discard_)) {
        Resolve();
        if (state_ == State::kNoSync) {  // discard / overflow: NO_SYNC at this packet
          EteElement& e = NewElem(ElemType::kNoSync, p.index);
          e.unsync = unsync_;
          Emit(e);
          state_ = State::kWaitSync;
        }
      }
      return;
  }
}

// Atom packet with nothing waiting, whose atoms are (partly) committed at
// once because the depth exceeds MAXSPEC (always with MAXSPEC = 0): the same
// result as queue + implicit commit (§5.2, §5.3) without the queue.
void EteElementDecoder::FastAtoms(const ete::EtePacket& p) {
  const uint32_t now = p.atom_count - max_spec_;
  uint32_t bits = p.atom_bits;
  for (uint32_t i = 0; i < now; ++i, bits >>= 1) {
    if (!ReturnStackPop(p.index)) return;
    if (!need_ctxt_ && !need_addr_ && !ProcessAtom(bits & 1, p.index)) return;
  }
  if (max_spec_) {  // the youngest MAXSPEC atoms stay speculative
    Elem& e = queue_->push_back();
    e.kind = Kind::kAtom;
    e.is_p0 = true;
    e.index = p.index;
    e.atom_bits = bits;
    e.atom_num = static_cast<uint8_t>(max_spec_);
    spec_depth_ = static_cast<int32_t>(max_spec_);
  }
}

void EteElementDecoder::TraceInfo(const ete::EtePacket& p) {
  // §4.4, §5.7: SPEC unseen P0 elements precede this point.
  const uint32_t spec = p.spec < kMaxQueue / 2 ? p.spec : kMaxQueue / 2;  // bounded memory on bad input
  spec_depth_ = static_cast<int32_t>(spec);
  for (uint32_t i = 0; i < spec; ++i) {
    Elem& u = queue_->push_back();
    u.kind = Kind::kUnseen;
    u.is_p0 = true;
    u.index = p.index;
  }
  Elem& t = queue_->push_back();
  t.kind = Kind::kTraceInfo;
  t.index = p.index;
  if ((p.info >> 6) & 1) {  // INFO.T: trace starts inside a transaction
    Elem& x = queue_->push_back();
    x.kind = Kind::kTransInit;
    x.index = p.index;
  }
}

void EteElementDecoder::DecodePacket(const ete::EtePacket& p) {
  bool is_addr = false;
  auto push = [&](Kind k, bool p0) -> Elem& {
    Elem& e = queue_->push_back();
    e.kind = k;
    e.is_p0 = p0;
    e.index = p.index;
    return e;
  };
  auto push_addr = [&](Kind k) {
    Elem& e = push(k, false);
    e.addr = p.addr.value;
    e.is = p.addr.isa;
    last_is_ = p.addr.isa;
  };
  auto push_ctxt = [&] {
    Elem& e = push(Kind::kCtxt, false);
    e.ctx = p.context;
    e.is = last_is_;
    // OpenCSD's packet context keeps VMID/CONTEXTID "valid" once they
    // have been traced: a later context packet without them still reports
    // the values it holds.
    vmid_seen_ |= p.context.updated_vmid;
    cid_seen_ |= p.context.updated_cid;
    e.ctx.updated_vmid = vmid_seen_;
    e.ctx.updated_cid = cid_seen_;
  };
  switch (p.type) {
    case PacketType::kTraceInfo:
      push(Kind::kTraceInfo, false);
      break;
    case PacketType::kTraceOn:
      push(Kind::kTraceOn, false);
      break;
    case PacketType::kAtomF1:
    case PacketType::kAtomF2:
    case PacketType::kAtomF3:
    case PacketType::kAtomF4:
    case PacketType::kAtomF5:
    case PacketType::kAtomF6: {
      Elem& e = push(Kind::kAtom, true);
      e.atom_bits = p.atom_bits;
      e.atom_num = p.atom_count;
      spec_depth_ += p.atom_count;
      break;
    }
    case PacketType::kContext:
      push_ctxt();
      break;
    case PacketType::kTargetAddrExact:
      push_addr(Kind::kAddr);
      is_addr = true;
      break;
    case PacketType::kTargetAddrCtxtL32Is0:
    case PacketType::kTargetAddrCtxtL32Is1:
    case PacketType::kTargetAddrCtxtL64Is0:
    case PacketType::kTargetAddrCtxtL64Is1:
      last_is_ = p.addr.isa;
      push_ctxt();
      [[fallthrough]];
    case PacketType::kTargetAddrShortIs0:
    case PacketType::kTargetAddrShortIs1:
    case PacketType::kTargetAddrL32Is0:
    case PacketType::kTargetAddrL32Is1:
    case PacketType::kTargetAddrL64Is0:
    case PacketType::kTargetAddrL64Is1:
      push_addr(Kind::kAddr);
      is_addr = true;
      break;
    case PacketType::kSourceAddrExact:
    case PacketType::kSourceAddrShortIs0:
    case PacketType::kSourceAddrShortIs1:
    case PacketType::kSourceAddrL32Is0:
    case PacketType::kSourceAddrL32Is1:
    case PacketType::kSourceAddrL64Is0:
    case PacketType::kSourceAddrL64Is1:
      push_addr(Kind::kSrcAddr);
      queue_->back().is_p0 = true;
      ++spec_depth_;
      break;
    case PacketType::kException: {
      Elem& e = push(Kind::kExcept, true);
      e.prev_same = p.exception_addr_interp == 2;
      e.number = p.exception_type;
      elem_pending_addr_ = true;  // P0 once its address packet arrives (§5.2)
      break;
    }
    case PacketType::kPeReset: {
      Elem& e = push(Kind::kExcept, true);
      e.pe_reset = true;
      e.number = p.exception_type;
      break;
    }
    case PacketType::kQ: {
      Elem& e = push(Kind::kQ, true);
      e.q_count = p.q_count;
      if (p.q_addr_present || p.q_addr_match) {
        e.q_has_addr = true;
        e.addr = p.addr.value;
        e.is = p.addr.isa;
        ++spec_depth_;
      } else {
        elem_pending_addr_ = true;
      }
      break;
    }
    case PacketType::kTimestampMarker:
      push(Kind::kMarker, false);
      break;
    case PacketType::kTransactionStart:
      push(Kind::kTransStart, comm_trans_p0_);
      if (comm_trans_p0_) ++spec_depth_;
      break;
    case PacketType::kTransactionCommit:
      push(Kind::kTransCommit, false);
      break;
    case PacketType::kTransactionFailure:
      push(Kind::kTransFail, false);
      break;
    case PacketType::kInstrumentation: {
      Elem& e = push(Kind::kIte, false);
      e.ite_el = p.ite_el;
      e.addr = p.ite_value;
      break;
    }
    case PacketType::kEvent:
      push(Kind::kEvent, false).number = p.event;
      break;
    case PacketType::kCycleCountF1:
    case PacketType::kCycleCountF2:
    case PacketType::kCycleCountF3:
      push(Kind::kCc, false).cc = p.cycle_count;
      if (p.commit_valid) res_commit_ = Count(p.commit);
      break;
    case PacketType::kTimestamp: {
      Elem& e = push(cci_ ? Kind::kTsCc : Kind::kTs, false);
      e.addr = p.timestamp;
      e.cc = p.cycle_count;
      break;
    }
    case PacketType::kMispredict:
    case PacketType::kCancelF1Mispredict:
    case PacketType::kCancelF2:
    case PacketType::kCancelF3:
      res_mispredict_ = true;
      if (p.atom_count) {
        Elem& e = push(Kind::kAtom, true);
        e.atom_bits = p.atom_bits;
        e.atom_num = p.atom_count;
        spec_depth_ += p.atom_count;
      }
      res_cancel_ = Count(p.cancel);
      break;
    case PacketType::kCancelF1:
      res_cancel_ = Count(p.cancel);
      break;
    case PacketType::kCommit:
      res_commit_ = Count(p.commit);
      break;
    case PacketType::kOverflow:
      prev_overflow_ = true;
      [[fallthrough]];
    case PacketType::kDiscard:
      spec_depth_ = 0;
      res_discard_ = true;
      break;
    case PacketType::kReserved:
    case PacketType::kReservedCfg:
    case PacketType::kBadSequence:
      // OpenCSD handleBadPacket: drop everything, NO_SYNC at the next packet.
      ++stats_.errors;
      if (on_error_)
        on_error_(ctx_, p.index,
                  "byte " + std::to_string(p.index) + ": bad packet (" + ete::PacketTypeName(p.type) +
                      "); element decoder resynchronises");
      ResetState();
      state_ = State::kNoSync;
      unsync_ = UnsyncReason::kBadPacket;
      return;
    default:  // A-Sync, Ignore, not-sync bytes, incomplete packet at EOT
      break;
  }
  if (is_addr && elem_pending_addr_) {
    ++spec_depth_;
    elem_pending_addr_ = false;
  }
  if (queue_->size() > kMaxQueue) {
    SequenceError(p.index, "more than 65536 trace elements waiting for commit");
    return;
  }
  if (spec_depth_ > static_cast<int32_t>(max_spec_)) res_commit_ = spec_depth_ - static_cast<int32_t>(max_spec_);
}

// ---------------------------------------------------------------- resolution

void EteElementDecoder::Resolve() {
  bool ok = true;
  if (res_commit_) ok = Commit();
  if (ok && state_ == State::kDecode) {
    if (res_cancel_) ok = Cancel();
    if (ok && res_mispredict_) ok = Mispredict();
    if (ok && res_discard_) Discard();
  }
  res_commit_ = res_cancel_ = 0;
  res_mispredict_ = res_discard_ = false;
}

bool EteElementDecoder::ReturnStackPopSlow(uint64_t index) {
  pop_pending_ = false;
  if (ret_count_ == 0) return SequenceError(index, "return stack empty on an indirect branch without address");
  const RetEntry& r = ret_stack_[ret_head_];
  ret_head_ = (ret_head_ + kRetStackSize - 1) % kRetStackSize;
  --ret_count_;
  addr_ = r.addr;
  isa_ = r.isa;
  need_addr_ = false;
  return true;
}

void EteElementDecoder::RetPush(uint64_t addr, Isa isa) {
  if (!ret_stack_active_) return;
  ret_head_ = (ret_head_ + 1) % kRetStackSize;
  ret_stack_[ret_head_] = {isa == Isa::kA64 ? addr : (addr & 0xFFFFFFFFu), isa};
  if (ret_count_ < kRetStackSize) ++ret_count_;  // else the oldest falls off
}

bool EteElementDecoder::Commit() {
  // §5.3: resolve the res_commit_ oldest P0 elements, emitting the non-P0
  // elements met on the way.
  const int32_t requested = res_commit_;
  uint64_t err_index = curr_index_;
  bool ok = true;
  while (res_commit_ > 0 && ok) {
    if (queue_->empty()) {
      ok = SequenceError(err_index, "commit of more P0 elements than are waiting");
      break;
    }
    Elem& e = queue_->front();
    err_index = e.index;
    bool pop = true;
    switch (e.kind) {
      case Kind::kTraceOn: {
        next_check_valid_ = false;
        EteElement& o = NewElem(ElemType::kTraceOn, e.index);
        o.trace_on = prev_overflow_ ? TraceOnReason::kOverflow : TraceOnReason::kNormal;
        prev_overflow_ = false;
        RetFlush();
        Emit(o);
        break;
      }
      case Kind::kAddr:
        pop_pending_ = false;  // an address replaces the return-stack pop
        addr_ = e.addr;
        isa_ = CalcIsa(is64_, e.is);
        need_addr_ = false;
        break;
      case Kind::kCtxt:
        if (e.ctx.updated) UpdateContext(e);
        break;
      case Kind::kEvent:
      case Kind::kTs:
      case Kind::kCc:
      case Kind::kTsCc:
      case Kind::kMarker:
      case Kind::kIte:
        ProcessTimed(e);
        break;
      case Kind::kAtom:
        while (e.atom_num && res_commit_ > 0 && ok) {
          const bool taken = e.atom_bits & 1;
          e.atom_bits >>= 1;
          --e.atom_num;
          ok = ReturnStackPop(e.index);
          if (ok && !need_ctxt_ && !need_addr_) ok = ProcessAtom(taken, e.index);
          if (ok) --res_commit_;
        }
        if (ok && e.atom_num) pop = false;
        break;
      case Kind::kExcept:
        ok = ReturnStackPop(e.index);
        next_check_valid_ = false;
        if (ok) ok = ProcessException(e);
        --res_commit_;
        break;
      case Kind::kSrcAddr:
        next_check_valid_ = false;
        ok = ProcessSourceAddress(e);
        --res_commit_;
        break;
      case Kind::kQ:
        next_check_valid_ = false;
        ok = ProcessQ(e);
        --res_commit_;
        break;
      case Kind::kTransStart:
        if (comm_trans_p0_) --res_commit_;
        [[fallthrough]];
      case Kind::kTransCommit:
      case Kind::kTransFail:
      case Kind::kTransInit:
        next_check_valid_ = false;
        ProcessTimed(e);
        break;
      case Kind::kUnseen:
        --res_commit_;
        break;
      case Kind::kTraceInfo:
        RetFlush();
        break;
    }
    if (!ok) break;  // the queue was reset
    if (pop) queue_->pop_front();
  }
  if (ok) spec_depth_ -= requested - res_commit_;
  return ok;
}

bool EteElementDecoder::Cancel() {
  // §5.4: remove the res_cancel_ youngest P0 elements; timing elements
  // (timestamps, cycle counts, events, markers, instrumentation) between
  // them are kept in order.
  const int32_t requested = res_cancel_;
  Elem keep[32];
  size_t nkeep = 0;
  while (res_cancel_ > 0) {
    if (queue_->empty()) return SequenceError(curr_index_, "cancel of more P0 elements than are waiting");
    Elem& e = queue_->back();
    if (e.is_p0) {
      if (e.kind == Kind::kAtom) {
        const int32_t n = res_cancel_ < e.atom_num ? res_cancel_ : e.atom_num;
        e.atom_num = static_cast<uint8_t>(e.atom_num - n);
        res_cancel_ -= n;
        if (e.atom_num == 0) queue_->pop_back();
      } else {
        --res_cancel_;
        queue_->pop_back();
      }
    } else {
      switch (e.kind) {
        case Kind::kEvent:
        case Kind::kTs:
        case Kind::kCc:
        case Kind::kTsCc:
        case Kind::kMarker:
        case Kind::kIte:
          if (nkeep < sizeof keep / sizeof keep[0]) keep[nkeep++] = e;
          break;
        default:
          break;
      }
      queue_->pop_back();
    }
  }
  while (nkeep) {
    Elem& e = queue_->push_back();
    e = keep[--nkeep];
  }
  spec_depth_ -= requested - res_cancel_;
  return true;
}

bool EteElementDecoder::Mispredict() {
  // §5.5: flip the newest atom; address elements after it are dropped.
  for (size_t i = queue_->size(); i-- > 0;) {
    Elem& e = queue_->at(i);
    if (e.kind == Kind::kAtom && e.atom_num) {
      e.atom_bits ^= 1u << (e.atom_num - 1);
      return true;
    }
    if (e.kind == Kind::kAddr) {
      queue_->erase(i);
    } else if (e.kind == Kind::kUnseen) {
      return true;  // mispredict of an element before sync: ignored (§5.7)
    }
  }
  return SequenceError(curr_index_, "mispredict with no atom waiting");
}

void EteElementDecoder::Discard() {
  // §5.6: uncommitted P0s are dropped; timing elements are still output.
  while (!queue_->empty()) {
    ProcessTimed(queue_->front());
    queue_->pop_front();
  }
  spec_depth_ = 0;
  unsync_ = prev_overflow_ ? UnsyncReason::kOverflow : UnsyncReason::kDiscard;
  state_ = State::kNoSync;
  need_ctxt_ = need_addr_ = true;
  elem_pending_addr_ = false;
}

void EteElementDecoder::Finish() {
  FlushOnEot();
  EteElement& e = NewElem(ElemType::kEoTrace, curr_index_);
  e.unsync = prev_overflow_ ? UnsyncReason::kOverflow : UnsyncReason::kEndOfTrace;
  Emit(e);
}

void EteElementDecoder::FlushOnEot() {
  // OpenCSD commitElemOnEOT: output the timing elements up to the first
  // uncommitted P0; the P0s themselves are lost.
  while (!queue_->empty()) {
    Elem& e = queue_->front();
    switch (e.kind) {
      case Kind::kTraceOn:
      case Kind::kAtom:
      case Kind::kExcept:
      case Kind::kQ:
      case Kind::kUnseen:
        queue_->clear();
        return;
      case Kind::kTransStart:
        if (comm_trans_p0_) {
          queue_->clear();
          return;
        }
        break;
      case Kind::kTransFail:
      case Kind::kTransCommit:
        if (max_spec_ == 0 || spec_depth_ == 0) ProcessTimed(e);
        break;
      case Kind::kEvent:
      case Kind::kTs:
      case Kind::kCc:
      case Kind::kTsCc:
      case Kind::kMarker:
      case Kind::kIte:
        ProcessTimed(e);
        break;
      default:
        break;
    }
    queue_->pop_front();
  }
}

// ---------------------------------------------------------------- elements

void EteElementDecoder::ProcessTimed(const Elem& e) {
  switch (e.kind) {
    case Kind::kEvent: {
      EteElement& o = NewElem(ElemType::kEvent, e.index);
      o.event = e.number;
      Emit(o);
      break;
    }
    case Kind::kTs:
    case Kind::kTsCc:
      if (!ts_marker_mode_ || first_ts_marker_) {
        EteElement& o = NewElem(ElemType::kTimestamp, e.index);
        o.timestamp = e.addr;
        if (e.kind == Kind::kTsCc) {
          o.has_cc = true;
          o.cycle_count = e.cc;
        }
        Emit(o);
      }
      break;
    case Kind::kCc: {
      EteElement& o = NewElem(ElemType::kCycleCount, e.index);
      o.has_cc = true;
      o.cycle_count = e.cc;
      Emit(o);
      break;
    }
    case Kind::kMarker:
      if (ts_marker_mode_) first_ts_marker_ = true;
      Emit(NewElem(ElemType::kSyncMarker, e.index));
      break;
    case Kind::kIte: {
      EteElement& o = NewElem(ElemType::kInstrumentation, e.index);
      o.ite_el = e.ite_el;
      o.ite_value = e.addr;
      Emit(o);
      break;
    }
    case Kind::kTransInit:
    case Kind::kTransStart:
    case Kind::kTransCommit:
    case Kind::kTransFail: {
      EteElement& o = NewElem(ElemType::kMemTrans, e.index);
      o.mem_trans = e.kind == Kind::kTransInit    ? MemTrans::kTraceInit
                    : e.kind == Kind::kTransStart ? MemTrans::kStart
                    : e.kind == Kind::kTransCommit ? MemTrans::kCommit
                                                   : MemTrans::kFail;
      Emit(o);
      break;
    }
    default:
      break;
  }
}

void EteElementDecoder::UpdateContext(const Elem& c) {
  const ete::PacketContext& x = c.ctx;
  EteElement& o = NewElem(ElemType::kPeContext, c.index);
  is64_ = x.sf;
  ctxt_valid_ = true;
  el_ = x.el;
  security_ = x.nse ? (x.ns ? Security::kRealm : Security::kRoot) : (x.ns ? Security::kNonSecure : Security::kSecure);
  o.el = x.el;
  o.security = security_;
  o.bits64 = x.sf;
  o.context_id_valid = x.updated_cid;
  o.context_id = x.context_id;
  o.vmid_valid = x.updated_vmid;
  o.vmid = x.vmid;
  o.isa = CalcIsa(is64_, c.is);
  isa_ = o.isa;
  need_ctxt_ = false;
  space_ = ComputeMemSpace();
  Emit(o);
}

// Compact front cache over armisa's follower cache: 32-byte entries indexed
// by address bits (nearby ranges share cache lines), so the hot loops' walks
// stay in L1. Only complete walks (ending on a P0) are kept.
inline const EteElementDecoder::Hop* EteElementDecoder::LookupHop(uint64_t addr, Isa isa, uint8_t space) {
  Hop& h = hops_[((addr >> 1) ^ (addr >> 13)) & (kHops - 1)];
  const uint8_t isa_bits = static_cast<uint8_t>(static_cast<uint8_t>(isa) << 6);
  if (h.start == addr && h.space == space && (h.flags & 0xC0) == isa_bits) [[likely]]
    return &h;
  return FillHop(&h, addr, isa, space);
}

const EteElementDecoder::Hop* EteElementDecoder::FillHop(Hop* hp, uint64_t addr, Isa isa, uint8_t space) {
  Hop& h = *hp;
  const uint8_t isa_bits = static_cast<uint8_t>(static_cast<uint8_t>(isa) << 6);
  const WalkResult w = follower_.FindNextP0(addr, isa, space);
  if (w.status != WalkStatus::kP0 || w.start != addr) return nullptr;
  h.start = w.start;
  h.end = w.end;
  h.target = w.info.target;
  h.num_instr = w.num_instr;
  h.type = w.info.type;
  h.subtype = w.info.subtype;
  h.flags = static_cast<uint8_t>((w.info.is_link ? kHopLink : 0) | (w.info.ocsd_conditional ? kHopCond : 0) |
                                 (w.info.size == 2 ? kHopSize2 : 0) |
                                 (static_cast<uint8_t>(w.info.target_isa) << 4) | isa_bits);
  h.space = space;
  return &h;
}

bool EteElementDecoder::ProcessAtom(bool taken, uint64_t index) {
  // §6.3: walk to the next P0 instruction; the atom says whether it was taken.
  if (isa_ != Isa::kA64) addr_ &= 0xFFFFFFFFu;  // AArch32: address[63:32] = 0
  if (const Hop* h = LookupHop(addr_, isa_, MemSpace())) {
    const uint64_t next = h->end;
    bool eret = false;
    const Isa range_isa = isa_;
    const bool link = h->flags & kHopLink;
    if (h->type == InstrType::kBranch) {
      if (taken) {
        addr_ = h->target;
        isa_ = static_cast<Isa>((h->flags >> 4) & 3);
        if (link) RetPush(next, range_isa);
      } else {
        addr_ = next;
      }
    } else if (h->type == InstrType::kIndirectBranch && taken) {
      need_addr_ = true;
      if (link) RetPush(next, range_isa);
      if (ret_stack_active_) pop_pending_ = true;
      eret = h->subtype == InstrSubtype::kV8Eret;  // ETE has no exception-return packet (§5.8)
      addr_ = next;
    } else {
      addr_ = next;
    }
    EteElement& o = NewElem(ElemType::kInstrRange, index);
    o.start = h->start;
    o.end = h->end;
    o.num_instr = h->num_instr;
    o.last_type = h->type;
    o.last_subtype = h->subtype;
    o.last_size = (h->flags & kHopSize2) ? 2 : 4;
    o.last_cond = h->flags & kHopCond;
    o.executed = taken;
    o.isa = range_isa;
    const uint64_t w_start = h->start;
    if (next_check_valid_ && next_check_addr_ != w_start) {
      BadImage(index);
      return false;
    }
    next_check_valid_ = !taken;
    next_check_addr_ = next;
    Emit(o);
    if (eret) Emit(NewElem(ElemType::kExceptionRet, index));
    return true;
  }
  // No P0 found: memory missing (ADDR_NACC) or runaway walk.
  const WalkResult w = follower_.FindNextP0(addr_, isa_, MemSpace());
  need_addr_ = true;
  next_check_valid_ = false;
  if (w.num_instr) {
    EteElement& o = NewElem(ElemType::kInstrRange, index);
    SetRange(o, w.start, w.end, w.num_instr, InstrInfo{}, static_cast<uint8_t>(w.end - w.last_address), true, isa_);
    Emit(o);
  }
  if (w.status == WalkStatus::kNotAccessible) {
    EteElement& o = NewElem(ElemType::kAddrNacc, index);
    o.start = w.end;
    o.mem_space = MemSpace();
    Emit(o);
  }
  addr_ = w.end;
  return true;
}

bool EteElementDecoder::ProcessException(const Elem& ex) {
  // §5.8. The queue front is the exception; its address (and optional
  // context) follow it.
  const Elem* ctxt = nullptr;
  const Elem* addr = nullptr;
  size_t idx = 1;
  uint64_t per = 0;
  if (!ex.pe_reset) {
    if (idx < queue_->size() && queue_->at(idx).kind == Kind::kCtxt) ctxt = &queue_->at(idx++);
    if (idx >= queue_->size() || queue_->at(idx).kind != Kind::kAddr)
      return SequenceError(ex.index, "exception without its return address");
    addr = &queue_->at(idx);
    per = addr->addr;
    if (ex.prev_same) {
      const bool b64 = ctxt ? ctxt->ctx.sf : isa_ == Isa::kA64;
      addr_ = per;
      isa_ = addr->is ? Isa::kT32 : (b64 ? Isa::kA64 : Isa::kA32);
      need_addr_ = false;
    }
  }
  if (ctxt) UpdateContext(*ctxt);
  if (isa_ != Isa::kA64) addr_ &= 0xFFFFFFFFu;
  if (!ex.pe_reset && addr_ < per) {
    // Walk to (not including) the preferred return address. OpenCSD walks
    // through P0 instructions here; chain armisa walks to do the same.
    uint64_t cur = addr_;
    uint32_t n = 0;
    WalkResult w;
    for (;;) {
      w = follower_.WalkTo(cur, isa_, per, MemSpace());
      n += w.num_instr;
      if (w.status == WalkStatus::kP0 && w.end != per && w.num_instr) {
        cur = w.end;
        continue;
      }
      break;
    }
    const bool found = w.status == WalkStatus::kStopReached || (w.status == WalkStatus::kP0 && w.end == per);
    if (!found) need_addr_ = true;
    if (n) {
      EteElement& o = NewElem(ElemType::kInstrRange, ex.index);
      if (w.status == WalkStatus::kP0)
        SetRange(o, addr_, w.end, n, w.info, w.info.size, true, isa_);
      else
        SetRange(o, addr_, w.end, n, InstrInfo{}, static_cast<uint8_t>(w.num_instr ? w.end - w.last_address : 4),
                 true, isa_);
      Emit(o);
    }
    if (w.status == WalkStatus::kNotAccessible) {
      EteElement& o = NewElem(ElemType::kAddrNacc, ex.index);
      o.start = w.end;
      o.mem_space = MemSpace();
      Emit(o);
    }
    addr_ = w.end;
  }
  EteElement& o = NewElem(ElemType::kException, ex.index);
  o.end = per;
  o.exception_has_addr = true;
  o.exception_prev_same = ex.prev_same;
  o.exception_number = ex.number;
  Emit(o);
  if (addr) {
    for (size_t i = idx; i >= 1; --i) queue_->erase(i);
  }
  return true;
}

bool EteElementDecoder::DecodeOne(uint64_t addr, Isa isa, InstrInfo* info, uint8_t* size) {
  const armisa::MemoryImage* img = image_ ? image_ : &empty_image_;
  uint8_t b[4];
  if (isa == Isa::kT32) {
    addr &= 0xFFFFFFFFu;
    if (img->Read(addr, 2, b, MemSpace()) < 2) return false;
    const uint16_t hw1 = static_cast<uint16_t>(b[0] | b[1] << 8);
    uint16_t hw2 = 0;
    *size = static_cast<uint8_t>(armisa::T32Size(hw1));
    if (*size == 4) {
      if (img->Read(addr + 2, 2, b + 2, MemSpace()) < 2) return false;
      hw2 = static_cast<uint16_t>(b[2] | b[3] << 8);
    }
    *info = armisa::ClassifyT32(armisa::T32Opcode(hw1, hw2), static_cast<uint32_t>(addr), follower_.options().classify);
    return true;
  }
  if (img->Read(addr, 4, b, MemSpace()) < 4) return false;
  const uint32_t op = static_cast<uint32_t>(b[0]) | b[1] << 8 | b[2] << 16 | static_cast<uint32_t>(b[3]) << 24;
  *size = 4;
  *info = armisa::Classify(isa, op, addr, follower_.options().classify);
  return true;
}

bool EteElementDecoder::ProcessSourceAddress(const Elem& e) {
  // §4.14: executed up to and including the P0 at the source address,
  // which was taken; earlier P0s since the last P0 element were not.
  const uint64_t src = e.addr;
  InstrInfo info;
  uint8_t size = 4;
  if (!DecodeOne(src, isa_, &info, &size)) {
    EteElement& o = NewElem(ElemType::kAddrNacc, e.index);
    o.start = src;
    o.mem_space = MemSpace();
    Emit(o);
    return true;
  }
  const Isa range_isa = isa_;
  uint64_t start = (need_addr_ || addr_ > src) ? src : addr_;
  need_addr_ = false;
  const uint64_t end = src + size;
  uint32_t n = 1;
  if (end - start > size) {
    if (range_isa != Isa::kT32) {
      n = static_cast<uint32_t>((end - start) / 4);
    } else {
      n = 0;
      for (uint64_t a = start; a < end;) {
        InstrInfo i2;
        uint8_t s2;
        if (!DecodeOne(a, range_isa, &i2, &s2)) {
          EteElement& o = NewElem(ElemType::kAddrNacc, e.index);
          o.start = src;
          o.mem_space = MemSpace();
          Emit(o);
          n = 1;
          start = src;
          break;
        }
        a += s2;
        ++n;
      }
    }
  }
  const uint64_t next = end;
  if (info.type == InstrType::kBranch) {
    if (info.is_link) RetPush(next, range_isa);
    addr_ = info.target;
    isa_ = info.target_isa;
  } else if (info.type == InstrType::kIndirectBranch) {
    need_addr_ = true;
    if (info.is_link) RetPush(next, range_isa);
    if (ret_stack_active_) pop_pending_ = true;
    addr_ = next;
  } else {
    addr_ = next;
  }
  EteElement& o = NewElem(ElemType::kInstrRange, e.index);
  SetRange(o, start, end, n, info, size, true, range_isa);
  Emit(o);
  return true;
}

bool EteElementDecoder::ProcessQ(const Elem& q_in) {
  const Elem q = q_in;  // the queue may grow below (insert)
  // §5.10: Q(COUNT) executed COUNT instructions from the current address;
  // the path is known only if it is straight-line.
  uint64_t qaddr;
  uint8_t qis;
  if (!q.q_has_addr) {
    size_t idx = 1;
    bool has_ctxt = false;
    Elem ctxt{};
    if (idx < queue_->size() && queue_->at(idx).kind == Kind::kCtxt) {
      ctxt = queue_->at(idx++);
      has_ctxt = true;
    }
    if (idx >= queue_->size() || queue_->at(idx).kind != Kind::kAddr)
      return SequenceError(q.index, "Q element without its target address");
    qaddr = queue_->at(idx).addr;
    qis = queue_->at(idx).is;
    for (size_t i = idx; i >= 1; --i) queue_->erase(i);
    if (has_ctxt) queue_->insert(1, ctxt);
  } else {
    qaddr = q.addr;
    qis = q.is;
  }
  const uint64_t start = addr_;
  uint64_t a = addr_;
  uint32_t n = 0;
  bool is_branch = false;
  InstrInfo info;
  uint8_t size = 4;
  const uint32_t count = q.q_count < kMaxCount ? q.q_count : kMaxCount;
  for (uint32_t i = 0; i < count; ++i) {
    if (!DecodeOne(a, isa_, &info, &size)) break;
    a += size;
    ++n;
    is_branch = info.type == InstrType::kBranch || info.type == InstrType::kIndirectBranch;
    if (is_branch) break;
  }
  EteElement& o = NewElem(ElemType::kInstrRange, q.index);
  if (q.q_count > 0 && n == q.q_count && (a == qaddr || is_branch)) {
    SetRange(o, start, a, n, info, size, true, isa_);
  } else {
    o.type = ElemType::kInstrRangeNoPath;
    o.start = start;
    o.end = qaddr;
    o.num_instr = q.q_count;
    o.isa = CalcIsa(is64_, qis);
  }
  Emit(o);
  addr_ = qaddr;
  isa_ = CalcIsa(is64_, qis);
  need_addr_ = false;
  return true;
}

}  // namespace mabutrace::ete_decode
