// SPDX-License-Identifier: MIT
// execution_walker.cpp: see execution_walker.h.
#include "execution_walker.h"

namespace mabutrace::ete_decode {

using armisa::InstrInfo;
using armisa::InstrType;
using armisa::Isa;
using armisa::WalkResult;
using armisa::WalkStatus;

ExecutionWalker::ExecutionWalker(const armisa::MemoryImage* image, const armisa::FollowOptions& options,
                                 bool return_stack, ElementOutput* out, unsigned cache_log2)
    : follower_(image ? image : &empty_image_, options, cache_log2),
      out_(out),
      hops_(std::make_unique<Hop[]>(kHops)),
      memo_(std::make_unique<PacketWalk[]>(kMemoWalks)),
      exception_walks_(std::make_unique<ExceptionWalk[]>(kExceptionWalks)),
      return_stack_(return_stack) {}

ExecutionWalker::~ExecutionWalker() = default;

ExecutionWalker::Status ExecutionWalker::PopReturn() {
  wait_ &= static_cast<uint8_t>(~kWaitPop);
  uint64_t address;
  Isa isa;
  if (!return_stack_.Pop(&address, &isa)) return Status::kReturnStackEmpty;
  addr_ = address;
  isa_ = isa;
  wait_ &= static_cast<uint8_t>(~kWaitAddress);
  return Status::kOk;
}

const ExecutionWalker::Hop* ExecutionWalker::FillHop(Hop* hp, uint64_t addr, Isa isa, uint8_t space) {
  const WalkResult w = follower_.FindNextP0(addr, isa, space);
  if (w.start != addr) return nullptr;
  Hop& h = *hp;
  if (w.status == WalkStatus::kNotAccessible) {
    h.start = w.start;
    h.end = w.end;
    h.shape = {w.num_instr, isa, InstrType::kOther, armisa::InstrSubtype::kNone,
               static_cast<uint8_t>(w.end - w.last_address)};  // the last instruction's size
    h.target = w.end;
    h.space = space;
    h.flags = kHopNacc;
    h.target_isa = isa;
    nacc_hops_ = true;
    return &h;
  }
  if (w.status != WalkStatus::kP0) return nullptr;
  const InstrInfo& i = w.info;
  const bool branch = i.type == InstrType::kBranch || i.type == InstrType::kIndirectBranch;
  const bool indirect = i.type == InstrType::kIndirectBranch;
  h.start = w.start;
  h.end = w.end;
  h.shape = {w.num_instr, isa, i.type, i.subtype, static_cast<uint8_t>(i.size == 2 ? 2 : 4)};
  // Taken: a direct branch continues at its target, everything else after the P0.
  const bool direct = branch && !indirect;
  h.target = direct ? i.target : w.end;
  h.target_isa = direct ? i.target_isa : isa;
  h.space = space;
  h.flags = static_cast<uint8_t>((branch && i.is_link ? kHopLink : 0) | (i.ocsd_conditional ? kHopCond : 0) |
                                 (indirect ? kHopIndirect : 0) |
                                 (indirect && i.subtype == armisa::InstrSubtype::kV8Eret ? kHopEret : 0));
  return &h;
}

ExecutionWalker::Status ExecutionWalker::WalkAndRemember(uint32_t bits, uint32_t n, uint64_t index, PacketWalk* m) {
  return WalkAtoms<true>(bits, n, index, m);
}

void ExecutionWalker::Remember(PacketWalk* m, uint64_t key, const MemoTail& tail) {
  if (!m) return;
  m->key = key;
  m->end = addr_;
  m->end_isa = isa_;
  m->wait = wait_;
  m->check_addr = next_check_addr_;
  m->flags = static_cast<uint8_t>(tail.flags | (next_check_valid_ ? kMemoCheck : 0));
  m->push = tail.push;
  m->push_isa = tail.push_isa;
  m->instructions = tail.instructions;
  m->n_ranges = static_cast<uint8_t>(tail.n_ranges);
}

void ExecutionWalker::ReplayTail(const PacketWalk& m, uint64_t index) {
  if (m.flags & kMemoPush) return_stack_.Push(m.push, m.push_isa);
  if (m.flags & kMemoEret) out_->Emit(out_->New(ElemType::kExceptionRet, index));
  if (m.flags & kMemoNacc) EmitNacc(m.end, index);
}

void ExecutionWalker::EmitRange(uint64_t start, uint64_t end, uint32_t n, const InstrInfo& info, uint8_t size,
                                bool executed, Isa isa, uint64_t index) {
  EteElement& o = out_->New(ElemType::kInstrRange, index);
  o.start = start;
  o.end = end;
  o.num_instr = n;
  o.last_type = info.type;
  o.last_subtype = info.subtype;
  o.last_size = size;
  o.last_cond = info.ocsd_conditional;
  o.executed = executed;
  o.isa = isa;
  out_->Emit(o);
}

void ExecutionWalker::EmitLimit(const WalkResult& w, uint64_t index) {
  EteElement& o = out_->New(ElemType::kInstrLimit, index);
  o.start = w.start;
  o.end = w.end;
  o.num_instr = w.num_instr;
  o.isa = w.isa;
  out_->Emit(o);
}

ExecutionWalker::Status ExecutionWalker::AtomNacc(const Hop& h, uint64_t index) {
  wait_ |= kWaitAddress;
  next_check_valid_ = false;
  addr_ = h.end;
  if (h.shape.num_instr) EmitRange(h.start, h.end, h.shape.num_instr, InstrInfo{}, h.shape.size, true, isa_, index);
  EmitNacc(h.end, index);
  return Status::kOk;
}

ExecutionWalker::Status ExecutionWalker::AtomWithoutP0(uint64_t index) {
  const WalkResult w = follower_.FindNextP0(addr_, isa_, space_);
  wait_ |= kWaitAddress;
  next_check_valid_ = false;
  addr_ = w.end;
  if (w.status == WalkStatus::kLimit) {
    // The atom says a P0 comes; none within the limit: no range is known.
    EmitLimit(w, index);
    return Status::kOk;
  }
  if (w.num_instr)
    EmitRange(w.start, w.end, w.num_instr, InstrInfo{}, static_cast<uint8_t>(w.end - w.last_address), true, isa_,
              index);
  if (w.status == WalkStatus::kNotAccessible) EmitNacc(w.end, index);
  return Status::kOk;
}

const ExecutionWalker::ExceptionWalk& ExecutionWalker::WalkToReturn(uint64_t per) {
  static_assert(kExceptionWalks == size_t{1} << 9);
  ExceptionWalk& e = exception_walks_[((addr_ ^ per << 16) * 0x9E3779B97F4A7C15ull) >> 55];
  if (e.start == addr_ && e.per == per && e.isa == isa_ && e.space == space_) return e;
  // To (not including) the preferred return address. OpenCSD walks through
  // P0 instructions here; chain armisa walks to do the same.
  uint64_t cur = addr_;
  uint32_t n = 0;
  WalkResult w;
  for (;;) {
    w = follower_.WalkTo(cur, isa_, per, space_);
    n += w.num_instr;
    if (w.status != WalkStatus::kP0 || w.end == per || !w.num_instr) break;
    cur = w.end;
  }
  e = {addr_, per, isa_, space_, n, w};
  return e;
}

void ExecutionWalker::WalkToException(uint64_t per, bool has_return, uint64_t index) {
  if (isa_ != Isa::kA64) addr_ &= 0xFFFFFFFFu;
  if (!has_return || addr_ >= per) return;
  const ExceptionWalk& walk = WalkToReturn(per);
  const WalkResult& w = walk.w;
  const uint32_t n = walk.n;
  const bool found = w.status == WalkStatus::kStopReached || (w.status == WalkStatus::kP0 && w.end == per);
  if (!found) wait_ |= kWaitAddress;
  if (w.status == WalkStatus::kLimit) {
    // Not at the return address within the limit: the path is not known.
    WalkResult limit = w;
    limit.start = addr_;
    limit.num_instr = n;
    EmitLimit(limit, index);
    addr_ = w.end;
    return;
  }
  if (n) {
    if (w.status == WalkStatus::kP0)
      EmitRange(addr_, w.end, n, w.info, w.info.size, true, isa_, index);
    else
      EmitRange(addr_, w.end, n, InstrInfo{}, static_cast<uint8_t>(w.num_instr ? w.end - w.last_address : 4), true,
                isa_, index);
  }
  if (w.status == WalkStatus::kNotAccessible) EmitNacc(w.end, index);
  addr_ = w.end;
}

void ExecutionWalker::SourceAddress(uint64_t src, uint64_t index) {
  // Executed up to and including the P0 at the source address, which was
  // taken; earlier P0s since the last P0 element were not (§4.14).
  const std::optional<InstrInfo> at_src = follower_.Decode(src, isa_, space_);
  if (!at_src) {
    EmitNacc(src, index);
    return;
  }
  const InstrInfo& info = *at_src;
  const Isa range_isa = isa_;
  uint64_t start = ((wait_ & kWaitAddress) || addr_ > src) ? src : addr_;
  wait_ &= static_cast<uint8_t>(~kWaitAddress);
  const uint64_t end = src + info.size;
  uint32_t n = 1;
  if (end - start > info.size) {
    if (const std::optional<uint32_t> count = follower_.CountInstructions(start, end, range_isa, space_)) {
      n = *count;
    } else {
      EmitNacc(src, index);
      start = src;
    }
  }
  if (info.type == InstrType::kBranch || info.type == InstrType::kIndirectBranch)
    TakeBranch(info.type, info.is_link, info.target, info.target_isa, end, range_isa);
  else
    addr_ = end;
  EmitRange(start, end, n, info, info.size, true, range_isa, index);
}

void ExecutionWalker::Q(uint32_t count, uint64_t target, Isa target_isa, uint64_t index) {
  // Q(COUNT): COUNT instructions from the current address; the path is
  // known only if it is straight-line and lands on the target (§5.10).
  const uint64_t start = addr_;
  uint64_t a = addr_;
  uint32_t n = 0;
  bool is_branch = false;
  InstrInfo last;
  constexpr uint32_t kMaxWalk = 1u << 20;  // COUNT is a 32-bit field: bounded work on corrupt input
  const uint32_t walk = count < kMaxWalk ? count : kMaxWalk;
  for (uint32_t i = 0; i < walk; ++i) {
    const std::optional<InstrInfo> info = follower_.Decode(a, isa_, space_);
    if (!info) break;
    last = *info;
    a += info->size;
    ++n;
    is_branch = info->type == InstrType::kBranch || info->type == InstrType::kIndirectBranch;
    if (is_branch) break;
  }
  if (count > 0 && n == count && (a == target || is_branch)) {
    EmitRange(start, a, n, last, last.size, true, isa_, index);
  } else {
    EteElement& o = out_->New(ElemType::kInstrRangeNoPath, index);
    o.start = start;
    o.end = target;
    o.num_instr = count;
    o.isa = target_isa;
    out_->Emit(o);
  }
  addr_ = target;
  isa_ = target_isa;
  wait_ &= static_cast<uint8_t>(~kWaitAddress);
}

}  // namespace mabutrace::ete_decode
