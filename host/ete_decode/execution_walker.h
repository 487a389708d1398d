// SPDX-License-Identifier: MIT
// execution_walker.h: committed P0 elements -> executed instruction ranges
// (arm-trace-facts.md §6.3, §5.8-5.10, §4.14; OpenCSD's instruction
// following in trc_pkt_decode_etmv4i.cpp).
//
// The walker holds where the PE is (address, instruction set, memory space)
// and turns each committed P0 element into what executed, by walking the
// program image with armisa::InstrFollower:
//
//   Atom E/N       the range from the current address to the next P0
//                  instruction (included); E on a direct branch continues
//                  at its target (BLX changes ISA), E on an indirect branch
//                  needs an address (or the return stack), N and
//                  ISB/WFx/TSTART continue after it
//   Exception      the range up to (not including) the preferred return
//                  address, through any P0s (§5.8)
//   Source Address the range up to and including the instruction at the
//                  source address, which was a taken P0 (§4.14)
//   Q(COUNT)       COUNT instructions, known only if straight-line (§5.10)
//
// Output (ElementOutput): INSTR_RANGE, I_RANGE_NOPATH, ADDR_NACC (then the
// walker waits for an address), INSTR_LIMIT (a walk met no P0 within the
// follower's max_instructions: no range, the walker waits for an address),
// EXCEPTION_RET (an E atom on an ERET-class
// instruction: ETE has no packet for it; not for ETMv4, set_eret_elements). A range that does not start where
// the previous not-taken one ended means the image does not match the trace:
// Status::kBadImage, nothing emitted, the caller resynchronises.
//
// Cost follows the branches, not the instructions: FindNextP0 is cached in
// armisa, and fronted here by a 4096-entry cache of complete walks (Hop, one
// cache line each) indexed by address bits, so that hot loops stay in L1.
// In front of that, a memo of whole atom packets (PacketWalk): a packet
// whose walk was plain is replayed from its start and atoms, one lookup
// for all its ranges.
#ifndef MABUTRACE_HOST_ETE_DECODE_EXECUTION_WALKER_H
#define MABUTRACE_HOST_ETE_DECODE_EXECUTION_WALKER_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "element_output.h"
#include "follower.h"
#include "memory_image.h"
#include "return_stack.h"

namespace mabutrace::ete_decode {

class ExecutionWalker {
 public:
  enum class Status : uint8_t {
    kOk,
    kBadImage,          // the range does not continue the previous one
    kReturnStackEmpty,  // a pop was due and the stack is empty
  };

  // `image` (may be null: every walk gives ADDR_NACC) and `out` must outlive
  // the walker. return_stack: TRCCONFIGR.RS. cache_log2: armisa's cache.
  ExecutionWalker(const armisa::MemoryImage* image, const armisa::FollowOptions& options, bool return_stack,
                  ElementOutput* out, unsigned cache_log2);
  ~ExecutionWalker();
  ExecutionWalker(const ExecutionWalker&) = delete;
  ExecutionWalker& operator=(const ExecutionWalker&) = delete;

  // ---- what the other elements say

  // Target Address element: the PE continues at `address` (a pending
  // return-stack pop is void).
  void SetAddress(uint64_t address, armisa::Isa isa) {
    wait_ &= static_cast<uint8_t>(~(kWaitAddress | kWaitPop));
    addr_ = address;
    isa_ = isa;
  }
  // PE Context element: the instruction set and memory space from now on.
  void SetContext(armisa::Isa isa, uint8_t space) {
    isa_ = isa;
    space_ = space;
    wait_ &= static_cast<uint8_t>(~kWaitContext);
  }
  // Whether an E atom on an ERET-class instruction also gives EXCEPTION_RET:
  // yes for ETE (it has no packet for it), no for ETMv4, whose Exception
  // Return packet (0x07) gives that element (OpenCSD 1.8.0 both ways).
  void set_eret_elements(bool on) { eret_elements_ = on; }
  // The address and context are unknown until elements say them again.
  void Unsync() { wait_ |= kWaitContext | kWaitAddress; }
  // Unsync, no range to continue, empty return stack.
  void Reset() {
    Unsync();
    BreakChain();
    FlushReturnStack();
  }
  // After an error that lost where the PE is (return stack empty, image
  // mismatch): no address, no range to continue, empty return stack; the
  // context is still known.
  void LoseAddress() {
    wait_ |= kWaitAddress;
    BreakChain();
    FlushReturnStack();
  }
  bool need_address() const { return wait_ & kWaitAddress; }
  // Atom() would do nothing (no return-stack pop due, no address or
  // context to walk from), and leave it so.
  bool ignores_atoms() const {  // wait_ is 1..3: an address or a context, no pop (one compare per atom packet)
    static_assert(kWaitAddress == 1 && kWaitContext == 2 && kWaitPop == 4);
    return static_cast<uint8_t>(wait_ - 1) < 3;
  }
  // The next range need not continue the last one (Trace On, exceptions,
  // Q, source addresses, transactions).
  void BreakChain() { next_check_valid_ = false; }
  void FlushReturnStack() {
    return_stack_.Flush();
    wait_ &= static_cast<uint8_t>(~kWaitPop);
  }
  armisa::Isa isa() const { return isa_; }
  const armisa::FollowStats& follow_stats() const { return follower_.stats(); }

  // ---- committed P0 elements; `index` is the packet's, for the output

  // A taken indirect branch got no address before this P0: the return
  // stack gives it (§5.9). Atoms() does it itself; exceptions call it first.
  Status PopPendingReturn() { return (wait_ & kWaitPop) ? PopReturn() : Status::kOk; }
  // The pending pop is void: an Exception with E = 0b10 gives that target.
  void CancelPendingReturn() { wait_ &= static_cast<uint8_t>(~kWaitPop); }
  // `n` atoms of one packet, oldest in bit 0 of `bits` (1 = E). Stops at the
  // first error, and once the walker ignores atoms (it waits for an address
  // or a context with no return-stack pop due: the rest would be no-ops).
  Status Atoms(uint32_t bits, uint32_t n, uint64_t index);
  Status Atom(bool taken, uint64_t index) { return Atoms(taken ? 1 : 0, 1, index); }
  // Atoms() of a packet whose walk starts at an address just set, when the
  // hop kept for that address walks into memory the image lacks: whatever
  // the atoms, the first one gives the range before it and ADDR_NACC, and
  // the rest do nothing; false (nothing done) otherwise. One hop lookup
  // instead of the memo's key and replay: juno_r1_1's commonest packet
  // (an address into the kernel code the image lacks, then atoms).
  bool AtomsIntoNacc(uint64_t index);
  // Exception (§5.8): walks to `return_address` (with has_return; PE Reset
  // has none), the caller emits the EXCEPTION element after it.
  void WalkToException(uint64_t return_address, bool has_return, uint64_t index);
  void SourceAddress(uint64_t source, uint64_t index);
  // Q (§5.10): `count` instructions, then the PE is at `target` in `target_isa`.
  void Q(uint32_t count, uint64_t target, armisa::Isa target_isa, uint64_t index);

 private:
  // What the walker waits for before it can walk (wait_ bits); 0 on the hot path.
  static constexpr uint8_t kWaitAddress = 1, kWaitContext = 2;
  // A taken indirect branch waits for its address: the return stack gives
  // it at the next P0 (set with kWaitAddress).
  static constexpr uint8_t kWaitPop = 4;

  // The INSTR_RANGE fields a walk fixes, in EteElement's order from
  // num_instr on: the hot path copies them as one 8-byte word.
  struct RangeShape {
    uint32_t num_instr = 0;
    armisa::Isa isa = armisa::Isa::kA64;  // the walk's ISA: part of the key
    armisa::InstrType type = armisa::InstrType::kOther;
    armisa::InstrSubtype subtype = armisa::InstrSubtype::kNone;
    uint8_t size = 4;
  };
  static_assert(sizeof(RangeShape) == 8);
  static_assert(offsetof(EteElement, isa) == offsetof(EteElement, num_instr) + 4 &&
                offsetof(EteElement, last_type) == offsetof(EteElement, num_instr) + 5 &&
                offsetof(EteElement, last_subtype) == offsetof(EteElement, num_instr) + 6 &&
                offsetof(EteElement, last_size) == offsetof(EteElement, num_instr) + 7);

  // A walk that ended on a P0 or on memory the image lacks (kHopNacc:
  // `end` is the unreadable address, shape.size the last instruction's
  // size), one cache line. An E atom on it continues at `target` in
  // `target_isa`: a direct branch's target, else `end` in the walk's ISA;
  // kHopLink and kHopIndirect ask for more (TakeSpecial).
  struct alignas(64) Hop {
    uint64_t start = ~uint64_t{0};  // ~0: empty
    uint64_t end = 0;
    RangeShape shape;
    uint64_t target = 0;
    uint8_t space = 0;
    uint8_t flags = 0;  // kHop* bits
    armisa::Isa target_isa = armisa::Isa::kA64;
  };
  static_assert(sizeof(Hop) == 64);
  // kHopLink: a branch with link. kHopIndirect: an indirect branch (its
  // target comes from the trace or the return stack). kHopEret: an indirect
  // ERET-class branch (EXCEPTION_RET when taken).
  static constexpr uint8_t kHopLink = 1, kHopCond = 2, kHopIndirect = 4, kHopEret = 8, kHopNacc = 16;
  static constexpr uint8_t kHopSpecial = kHopLink | kHopIndirect | kHopEret;  // when taken
  static constexpr size_t kHops = 4096;
  static_assert(kHops == size_t{1} << 12);

  // A whole atom packet's walk, kept when it was plain: every atom on a
  // kept hop that continues the last range, no return-stack pop and no walk
  // without a P0. It may end early: an E atom on a branch with link, an
  // indirect branch or an ERET (the push, the wait, EXCEPTION_RET), or a
  // walk into memory the image lacks (ADDR_NACC); the atoms after such an
  // end do nothing unless a pop is due (then it is not plain). Such a walk
  // depends only on where it starts (address, ISA, space) and on the atoms,
  // so replaying it gives the same elements and the same state after it,
  // with one lookup instead of one per atom. The first range's chain check
  // is the caller's. juno_r1_1: address, atoms into the missing kernel
  // code, ADDR_NACC, over and over; 001-ack_test: calls and returns end
  // most packets.
  static constexpr uint32_t kMemoAtoms = 5;  // longer packets walk (001-ack_test: 2.9 atoms on average)
  static constexpr size_t kMemoWalks = 4096;
  // An INSTR_RANGE element's fields from `start` to `last_cond`, in
  // EteElement's order.
  struct MemoRange {
    uint64_t start, end;
    RangeShape shape;
    bool executed, cond;
  };
  static_assert(offsetof(EteElement, end) == offsetof(EteElement, start) + offsetof(MemoRange, end) &&
                offsetof(EteElement, num_instr) == offsetof(EteElement, start) + offsetof(MemoRange, shape) &&
                offsetof(EteElement, executed) == offsetof(EteElement, start) + offsetof(MemoRange, executed) &&
                offsetof(EteElement, last_cond) == offsetof(EteElement, start) + offsetof(MemoRange, cond));
  static constexpr uint8_t kMemoPush = 1, kMemoEret = 2, kMemoNacc = 4, kMemoCheck = 8;  // PacketWalk::flags
  struct PacketWalk {
    uint64_t start = 0;         // key: the first atom's address (AArch32: masked)
    uint64_t key = 0;           // key: MemoKey(), 0 when empty (n is never 0); | kNotPlain: walk it
    uint64_t end = 0;           // addr_ after the packet (ADDR_NACC: its address)
    uint64_t check_addr = 0;    // next_check_addr_ after it
    uint64_t push = 0;          // kMemoPush: the return address pushed
    uint32_t instructions = 0;  // in all the ranges
    uint8_t n_ranges = 0;
    uint8_t flags = 0;  // kMemo* bits; kMemoCheck: next_check_valid_ after it
    armisa::Isa end_isa = armisa::Isa::kA64;
    armisa::Isa push_isa = armisa::Isa::kA64;
    uint8_t wait = 0;  // wait_ after it (it was 0 before)
    MemoRange ranges[kMemoAtoms];
  };
  static constexpr uint64_t kNotPlain = uint64_t{1} << 63;  // a walk that cannot be replayed: no new record
  static uint64_t MemoKey(uint32_t bits, uint32_t n, armisa::Isa isa, uint8_t space) {
    return bits | uint64_t{n} << 32 | uint64_t{static_cast<uint8_t>(isa)} << 40 | uint64_t{space} << 48;
  }
  PacketWalk& MemoSlot(uint64_t addr, uint64_t key) {
    return memo_[((addr ^ key << 20) * 0x9E3779B97F4A7C15ull) >> 52];  // the top 12 bits
  }
  static_assert(kMemoWalks == size_t{1} << 12);
  // The atom loop; kRecord: also into *m (left empty unless the walk was plain).
  template <bool kRecord>
  __attribute__((always_inline)) Status WalkAtoms(uint32_t bits, uint32_t n, uint64_t index, PacketWalk* m);
  // WalkAtoms<true>, out of line (a memo miss).
  Status WalkAndRemember(uint32_t bits, uint32_t n, uint64_t index, PacketWalk* m);
  // What a recorded walk gathers besides its ranges.
  struct MemoTail {
    uint32_t n_ranges = 0;
    uint32_t instructions = 0;
    uint8_t flags = 0;
    uint64_t push = 0;
    armisa::Isa push_isa = armisa::Isa::kA64;
    void Range(PacketWalk* m, const Hop& h, bool executed_bit, bool cond_bit) {
      if (m) m->ranges[n_ranges] = {h.start, h.end, h.shape, executed_bit, cond_bit};
      instructions += h.shape.num_instr;
      ++n_ranges;
    }
  };
  void Remember(PacketWalk* m, uint64_t key, const MemoTail& tail);
  __attribute__((always_inline)) void Replay(const PacketWalk& m, uint64_t index);
  // The push, EXCEPTION_RET or ADDR_NACC that ends a replayed walk.
  void ReplayTail(const PacketWalk& m, uint64_t index);

  // An exception's walk (WalkToException): the chained walks from where the
  // PE is to the preferred return address, kept by (start, ISA, space,
  // return address): a trace takes the same exceptions from the same places
  // (001-ack_test: some 430 instructions each, uncached).
  struct ExceptionWalk {
    uint64_t start = ~uint64_t{0};  // ~0: empty
    uint64_t per = 0;
    armisa::Isa isa = armisa::Isa::kA64;
    uint8_t space = 0;
    uint32_t n = 0;        // instructions in all the walks
    armisa::WalkResult w;  // the last walk
  };
  static constexpr size_t kExceptionWalks = 512;
  const ExceptionWalk& WalkToReturn(uint64_t per);

  static size_t HopIndex(uint64_t addr) { return ((addr >> 1) ^ (addr >> 13)) & (kHops - 1); }
  const Hop* LookupHop(uint64_t addr, armisa::Isa isa, uint8_t space);
  const Hop* FillHop(Hop* h, uint64_t addr, armisa::Isa isa, uint8_t space);
  // One atom on a hop that ends on a P0: the range, the branch; false when
  // the range does not continue the last one.
  bool AtomRange(const Hop& h, bool taken, uint64_t index);
  void TakeSpecial(const Hop& h);
  Status PopReturn();
  // An atom whose walk found no P0 within the limit (INSTR_LIMIT).
  Status AtomWithoutP0(uint64_t index);
  // An atom whose walk met memory the image lacks: the range before it, ADDR_NACC.
  Status AtomNacc(const Hop& h, uint64_t index);
  // A taken branch at the end of a range that ended at `next`.
  void TakeBranch(armisa::InstrType type, bool link, uint64_t target, armisa::Isa target_isa, uint64_t next,
                  armisa::Isa range_isa);
  void EmitNacc(uint64_t address, uint64_t index);
  // INSTR_LIMIT: the walk `w` met no P0 within the follower's limit.
  void EmitLimit(const armisa::WalkResult& w, uint64_t index);
  void EmitRange(uint64_t start, uint64_t end, uint32_t n, const armisa::InstrInfo& info, uint8_t size, bool executed,
                 armisa::Isa isa, uint64_t index);

  const armisa::MemoryImage empty_image_;
  armisa::InstrFollower follower_;
  ElementOutput* out_;
  std::unique_ptr<Hop[]> hops_;
  std::unique_ptr<PacketWalk[]> memo_;
  std::unique_ptr<ExceptionWalk[]> exception_walks_;
  ReturnStack return_stack_;

  uint64_t addr_ = 0;
  armisa::Isa isa_ = armisa::Isa::kA32;
  uint8_t space_ = armisa::kMemS;
  uint8_t wait_ = kWaitAddress | kWaitContext;
  bool eret_elements_ = true;      // set_eret_elements()
  bool next_check_valid_ = false;  // the next range must start at next_check_addr_
  uint64_t next_check_addr_ = 0;
  // A hop into missing memory was kept (they stay): AtomsIntoNacc looks
  // only then (an image that holds all the code walked never misses).
  bool nacc_hops_ = false;
};

// ---- the hot path, inline

// Entries indexed by address bits (nearby ranges share pages); walks to a
// P0 and to unreadable memory are kept (a trace whose image lacks a region
// walks into it at every atom there: juno_r1_1 has more ADDR_NACC elements
// than ranges), runaway walks are not.
inline const ExecutionWalker::Hop* ExecutionWalker::LookupHop(uint64_t addr, armisa::Isa isa, uint8_t space) {
  Hop& h = hops_[HopIndex(addr)];
  if (h.start == addr && h.shape.isa == isa && h.space == space) [[likely]]
    return &h;
  return FillHop(&h, addr, isa, space);
}

// A packet that the walker can walk (no wait) and that is short enough is
// looked up in the memo: replayed when there, else walked and recorded.
__attribute__((always_inline)) inline ExecutionWalker::Status ExecutionWalker::Atoms(uint32_t bits, uint32_t n,
                                                                                     uint64_t index) {
  if (!wait_ && n - 2 < kMemoAtoms - 1) [[likely]] {      // one atom: the hop is the memo
    if (isa_ != armisa::Isa::kA64) addr_ &= 0xFFFFFFFFu;  // AArch32: address[63:32] = 0
    bits &= (1u << n) - 1;
    const uint64_t key = MemoKey(bits, n, isa_, space_);
    PacketWalk& m = MemoSlot(addr_, key);
    if (m.start == addr_ && m.key == key && (!next_check_valid_ || next_check_addr_ == addr_)) [[likely]] {
      Replay(m, index);
      return Status::kOk;
    }
    if (m.start == addr_ && m.key == (key | kNotPlain)) return WalkAtoms<false>(bits, n, index, nullptr);
    return WalkAndRemember(bits, n, index, &m);
  }
  return WalkAtoms<false>(bits, n, index, nullptr);
}

inline bool ExecutionWalker::AtomsIntoNacc(uint64_t index) {
  if (wait_ || !nacc_hops_) return false;
  if (isa_ != armisa::Isa::kA64) addr_ &= 0xFFFFFFFFu;  // AArch32: address[63:32] = 0
  const Hop& h = hops_[HopIndex(addr_)];
  if (!(h.flags & kHopNacc) || h.start != addr_ || h.shape.isa != isa_ || h.space != space_) return false;
  if (h.shape.num_instr) {
    AtomNacc(h, index);
    return true;
  }
  wait_ = kWaitAddress;  // AtomNacc without a range, inline
  next_check_valid_ = false;
  addr_ = h.end;
  EmitNacc(h.end, index);
  return true;
}

// The atom loop. kRecord: the walk also goes into the memo slot *m, kept
// (Remember) when it proves plain; m becomes null once it cannot be.
template <bool kRecord>
inline ExecutionWalker::Status ExecutionWalker::WalkAtoms(uint32_t bits, uint32_t n, uint64_t index, PacketWalk* m) {
  [[maybe_unused]] const uint64_t key = kRecord ? MemoKey(bits, n, isa_, space_) : 0;
  [[maybe_unused]] MemoTail tail;
  if constexpr (kRecord) {
    m->start = addr_;
    m->key = key | kNotPlain;  // until the walk proves plain
  }
  for (uint32_t i = 0; i < n; ++i, bits >>= 1) {
    if (wait_) [[unlikely]] {
      if (!(wait_ & kWaitPop)) {  // nothing to walk from: this atom and the rest do nothing
        if constexpr (kRecord) Remember(m, key, tail);
        return Status::kOk;
      }
      if constexpr (kRecord) m = nullptr;  // a return-stack pop: not plain
      if (PopReturn() != Status::kOk) return Status::kReturnStackEmpty;
      if (wait_) return Status::kOk;  // still no context: the pop was all
    }
    if (isa_ != armisa::Isa::kA64) addr_ &= 0xFFFFFFFFu;  // AArch32: address[63:32] = 0
    const Hop* h = LookupHop(addr_, isa_, space_);
    // Both wait for an address afterwards: the rest of the atoms do nothing.
    if (!h) [[unlikely]]
      return AtomWithoutP0(index);
    if (h->flags & kHopNacc) [[unlikely]] {
      AtomNacc(*h, index);
      if constexpr (kRecord) {
        if (h->shape.num_instr) tail.Range(m, *h, true, false);
        tail.flags |= kMemoNacc;
        Remember(m, key, tail);
      }
      return Status::kOk;
    }
    if (!AtomRange(*h, bits & 1, index)) return Status::kBadImage;
    if constexpr (kRecord) {
      tail.Range(m, *h, bits & 1, h->flags & kHopCond);
      if ((bits & 1) && (h->flags & kHopLink)) {
        if (tail.flags & kMemoPush) m = nullptr;  // a second push: not kept
        tail.flags |= kMemoPush;
        tail.push = h->end;
        tail.push_isa = h->shape.isa;
      }
      if ((bits & 1) && (h->flags & kHopEret) && eret_elements_) {
        if (i + 1 != n) m = nullptr;  // EXCEPTION_RET before other ranges: not kept
        tail.flags |= kMemoEret;
      }
    }
  }
  if constexpr (kRecord) Remember(m, key, tail);
  return Status::kOk;
}

// The elements and the state of a plain walk (PacketWalk), as the atom
// loop gave them; the ranges counted at once.
inline void ExecutionWalker::Replay(const PacketWalk& m, uint64_t index) {
  out_->EmitRanges(m.n_ranges, m.instructions, index, [&m](EteElement& o, uint32_t i) {
    // Field by field: the sink reads them at once, and GCC copies one
    // 26-byte block as two overlapping 16-byte stores, which those loads
    // wait for (store forwarding): 10 % slower.
    const MemoRange& r = m.ranges[i];
    o.start = r.start;
    o.end = r.end;
    std::memcpy(&o.num_instr, &r.shape, sizeof r.shape);
    std::memcpy(&o.executed, &r.executed, 2);
  });
  addr_ = m.end;
  isa_ = m.end_isa;
  wait_ = m.wait;
  next_check_valid_ = m.flags & kMemoCheck;
  next_check_addr_ = m.check_addr;
  if (m.flags & (kMemoPush | kMemoEret | kMemoNacc)) [[unlikely]] {
    // ADDR_NACC alone (juno_r1_1: most tails) without the call.
    if (m.flags & (kMemoPush | kMemoEret))
      ReplayTail(m, index);
    else
      EmitNacc(m.end, index);
  }
}

inline void ExecutionWalker::EmitNacc(uint64_t address, uint64_t index) {
  EteElement& o = out_->New(ElemType::kAddrNacc, index);
  o.start = address;
  o.mem_space = space_;
  out_->EmitNacc(o);
}

__attribute__((always_inline)) inline bool ExecutionWalker::AtomRange(const Hop& h, bool taken, uint64_t index) {
  const uint8_t special = taken ? h.flags & kHopSpecial : 0;
  if (special) [[unlikely]]
    TakeSpecial(h);
  addr_ = taken ? h.target : h.end;
  isa_ = taken ? h.target_isa : h.shape.isa;
  EteElement& o = out_->New(ElemType::kInstrRange, index);
  o.start = h.start;
  o.end = h.end;
  std::memcpy(&o.num_instr, &h.shape, sizeof h.shape);
  o.executed = taken;
  o.last_cond = h.flags & kHopCond;
  if (next_check_valid_ && next_check_addr_ != h.start) return false;
  next_check_valid_ = !taken;
  next_check_addr_ = h.end;
  out_->EmitRange(o);
  if ((special & kHopEret) && eret_elements_) [[unlikely]]  // ETE: no exception-return packet (§5.8)
    out_->Emit(out_->New(ElemType::kExceptionRet, index));
  return true;
}

// E on a branch with link: it pushes its return address. E on an indirect
// branch: the next address comes from the trace or the return stack.
inline void ExecutionWalker::TakeSpecial(const Hop& h) {
  if (h.flags & kHopLink) return_stack_.Push(h.end, h.shape.isa);
  if (h.flags & kHopIndirect) wait_ |= return_stack_.enabled() ? kWaitAddress | kWaitPop : kWaitAddress;
}

// E on a branch: direct ones continue at the target (and may change ISA),
// indirect ones need the next address or the return stack. A branch with
// link pushes its return address.
inline void ExecutionWalker::TakeBranch(armisa::InstrType type, bool link, uint64_t target, armisa::Isa target_isa,
                                        uint64_t next, armisa::Isa range_isa) {
  if (link) return_stack_.Push(next, range_isa);
  if (type == armisa::InstrType::kBranch) {
    addr_ = target;
    isa_ = target_isa;
    return;
  }
  wait_ |= return_stack_.enabled() ? kWaitAddress | kWaitPop : kWaitAddress;
  addr_ = next;
}

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_EXECUTION_WALKER_H
