// SPDX-License-Identifier: MIT
// speculation_queue.h: the speculation window of an ETE trace stream
// (arm-trace-facts.md §5.1-5.7; Arm ARM D4.3.8; OpenCSD's P0 stack in
// trc_pkt_decode_etmv4i.cpp).
//
// The trace unit may trace instructions before they are known to execute:
// P0 elements (atoms, exceptions, Q, source addresses, and Transaction
// Start when TRCIDR0.COMMTRANS = 0) are speculative until a Commit resolves
// them, and a Cancel or Mispredict may take them back. The elements between
// them (addresses, contexts, timestamps, cycle counts, events...) wait with
// them, in trace order:
//
//   oldest                                                        youngest
//   [TraceOn][Ctxt][Addr][Atom EEN][Ts][Excp][Addr][Atom E][Cc][Atom NE]
//    <- Commit(n) hands out from here        Cancel(n) takes from here ->
//
//   depth    P0 elements waiting (an atom packet of k atoms counts k); an
//            exception or a Q without address counts once the address is
//            pushed. Above TRCIDR8.MAXSPEC the excess commits implicitly
//            (§5.2, Excess()).
//   Commit   the n oldest P0s (§5.3), and every element met on the way
//   Cancel   the n youngest P0s (§5.4); timing elements between them stay
//   Mispredict  flips the youngest atom (§5.5), dropping the addresses after it
//   Discard  drops every P0, hands out the timing elements (§5.6)
//   FlushAtEnd  the timing elements up to the first P0, at the end of the trace
//
// The queue knows nothing about instructions: it hands the committed
// elements, in order, to a consumer (the element decoder), which a template
// parameter names so that the calls inline:
//
//   bool Atoms(uint32_t bits, uint32_t n, uint64_t index)
//            n committed atoms of one packet, oldest in bit 0 (1 = E)
//   bool Element(const QueuedElement& e, const QueuedElement* context,
//                const QueuedElement* address)
//            every other committed element. For an exception or a Q that
//            waited for its address, `address` is the Address element that
//            follows it and `context` the Context element between them
//            (nullptr when there is none: a missing address is a sequence
//            error, the consumer's to report). The queue then drops the
//            address, and the context of an exception; a Q's context stays
//            and is committed next.
//   void Timed(const QueuedElement& e)      an element that survives a Discard
//            (the consumer outputs the timing and transaction elements and
//            skips the others) or the end of the trace (timing elements)
// Atoms and Element return false when the consumer reset the decoder, which
// clears this queue: the queue then returns at once.
//
// Memory: a ring that doubles only while the window grows; Push fails (the
// caller resynchronises) beyond kMaxElements. Counts (SPEC, COMMIT,
// CANCEL) are capped at kMaxCount: bounded work on corrupt input.
#ifndef MABUTRACE_HOST_ETE_DECODE_SPECULATION_QUEUE_H
#define MABUTRACE_HOST_ETE_DECODE_SPECULATION_QUEUE_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ete/ete_packet.h"

namespace mabutrace::ete_decode {

// The elements that wait (OpenCSD's p0_elem_t; §5.1 element classes).
enum class QueuedKind : uint8_t {
  kAtom,
  kAddress,
  kSourceAddress,
  kContext,
  kTraceOn,
  kException,
  kEvent,
  kTimestamp,
  kCycleCount,
  kTimestampCycleCount,
  kMarker,
  kQ,
  kTransInit,
  kTransStart,
  kTransCommit,
  kTransFail,
  kInstrumentation,
  kExceptionReturn,  // ETMv4 Exception Return packet (0x07): P0 only on v7-M
  kFunctionReturn,   // ETMv4-M Function Return packet (0x05, v8-M): a P0 element, no output
  kUnseen,           // a P0 before the Trace Info that synchronised (SPEC > 0, §5.7)
  kTraceInfo,
};

struct QueuedElement {  // 64 bytes
  QueuedKind kind;
  bool is_p0;
  bool pe_reset;       // kException: PE Reset (no address)
  bool prev_same;      // kException: E = 0b10, the return address is also the previous P0's target
  bool q_has_addr;     // kQ: the address came in the Q packet
  uint8_t is;          // address sub-ISA (IS0 / IS1)
  bool full_addr;      // kAddress: from a 64-bit or with-context packet (restores a lost address)
  uint8_t atom_num;    // kAtom: atoms left
  uint8_t ite_el;      // kInstrumentation
  uint16_t number;     // exception type / event mask
  uint32_t atom_bits;  // kAtom: bit 0 = oldest left, 1 = E
  uint32_t q_count;
  uint32_t cc;     // cycle count
  uint64_t index;  // byte index of the packet
  uint64_t value;  // address; timestamp (kTimestamp*); instrumentation value
  ete::PacketContext ctx;
};
static_assert(sizeof(QueuedElement) <= 64, "one cache line per element");

// A timestamp, cycle count, event, marker or instrumentation element: kept
// by Cancel, output by Discard and at the end of the trace.
inline bool IsTiming(QueuedKind k) {
  return k == QueuedKind::kEvent || k == QueuedKind::kTimestamp || k == QueuedKind::kCycleCount ||
         k == QueuedKind::kTimestampCycleCount || k == QueuedKind::kMarker || k == QueuedKind::kInstrumentation;
}

class SpeculationQueue {
 public:
  static constexpr uint32_t kMaxCount = 1u << 20;
  // Valid trace keeps at most MAXSPEC P0s and the few elements between
  // them; more means corrupt input or a stream without P0 elements.
  static constexpr size_t kMaxElements = 1u << 16;

  // max_spec: TRCIDR8.MAXSPEC; transaction_start_is_p0: TRCIDR0.COMMTRANS == 0.
  SpeculationQueue(uint32_t max_spec, bool transaction_start_is_p0);

  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  bool full() const { return n_ > kMaxElements; }
  int32_t depth() const { return depth_; }
  uint32_t max_spec() const { return max_spec_; }
  // P0s beyond MAXSPEC: they commit now (§5.2).
  int32_t Excess() const {
    return depth_ > static_cast<int32_t>(max_spec_) ? depth_ - static_cast<int32_t>(max_spec_) : 0;
  }
  void Clear();
  // Nothing waits: an element pushed now would be the only one, and at depth 0.
  // Two tests, not three (every address packet asks, HoldAddress).
  bool idle() const { return n_ == 0 && (static_cast<uint32_t>(depth_) | awaiting_address_) == 0; }
  // Empty, with MAXSPEC 0: one test (IgnoresAtomPacket).
  bool empty_without_speculation() const { return (n_ | max_spec_) == 0; }

  // ---- the window grows, one packet's elements at a time

  // A non-P0 element.
  QueuedElement& Push(QueuedKind kind, uint64_t index);
  // A P0 element without payload (ETMv4-M: v7-M Exception Return, v8-M
  // Function Return; depth + 1).
  QueuedElement& PushP0(QueuedKind kind, uint64_t index) {
    ++depth_;
    return Append(kind, true, index);
  }
  // Atoms, oldest in bit 0 (depth + count).
  void PushAtoms(uint32_t bits, uint8_t count, uint64_t index);
  // An atom packet with more atoms than MAXSPEC (always so with MAXSPEC =
  // 0) arriving when no P0 waits? Then CommitAtomsAtOnce gives the result
  // of PushAtoms + the implicit commit without queueing them: the elements
  // that wait (addresses, contexts, timestamps: all older, none a P0) are
  // handed out first, as Commit would. With MAXSPEC 0 that is every atom
  // packet (ETMv4 on juno_r1_1: an address, then atoms, over and over).
  bool CanCommitAtOnce(uint8_t count) const {
    return count > max_spec_ && (n_ == 0 || (depth_ == 0 && !awaiting_address_ && n_ < kMaxElements));
  }
  template <class Consumer>
  bool CommitAtomsAtOnce(uint32_t bits, uint8_t count, uint64_t index, Consumer& c);
  // A target address: also completes an exception or Q waiting for it.
  QueuedElement& PushAddress(uint64_t address, uint8_t is, uint64_t index);
  QueuedElement& PushSourceAddress(uint64_t address, uint8_t is, uint64_t index);  // P0
  // An exception (P0 once its address is pushed), a PE Reset (no address;
  // a P0 element, §5.1: it adds to the depth at once). prev_same: E = 0b10.
  QueuedElement& PushException(uint16_t type, bool prev_same, uint64_t index);
  QueuedElement& PushPeReset(uint16_t type, bool prev_same, uint64_t index);
  // Q (§5.10): with its address it counts now, else once the address comes.
  QueuedElement& PushQ(uint32_t count, bool has_address, uint64_t address, uint8_t is, uint64_t index);
  QueuedElement& PushTransactionStart(uint64_t index);  // P0 iff COMMTRANS = 0
  // Trace Info with SPEC > 0 (§5.7): `spec` unseen P0s (capped so that they fit).
  void PushUnseen(uint32_t spec, uint64_t index);

  // ---- resolution

  enum class CommitResult : uint8_t {
    kDone,
    kStopped,  // the consumer reset the decoder
    kShort,    // fewer P0s wait than `count` (the caller reports it and resynchronises)
  };
  // Commits the `count` oldest P0s (§5.3). *last_index: the byte index of
  // the last element handed out (unchanged when none).
  template <class Consumer>
  CommitResult Commit(int32_t count, Consumer& c, uint64_t* last_index);
  // Removes the `count` youngest P0s (§5.4); false when fewer wait.
  bool Cancel(int32_t count);
  enum class MispredictResult : uint8_t { kFlipped, kBeforeSync, kNoAtom };
  // Flips the youngest atom (§5.5); addresses after it are dropped. An
  // unseen P0 (before the synchronising Trace Info) is younger: ignored.
  MispredictResult Mispredict();
  // A Discard or Overflow packet sets the depth to 0 at once (§4.3);
  // Discard() then drops the elements.
  void ResetDepth() { depth_ = 0; }
  template <class Consumer>
  void Discard(Consumer& c);
  template <class Consumer>
  void FlushAtEnd(Consumer& c);

 private:
  QueuedElement& at(size_t i) { return buf_[(head_ + i) & mask_]; }
  QueuedElement& front() { return at(0); }
  QueuedElement& back() { return at(n_ - 1); }
  QueuedElement& Append(QueuedKind kind, bool p0, uint64_t index);
  void PopFront() {
    head_ = (head_ + 1) & mask_;
    --n_;
  }
  void PopBack() { --n_; }
  void Erase(size_t i);
  void Grow();
  // The P0 that waits for its address got it.
  void AddressArrived();

  uint32_t max_spec_;
  bool tstart_p0_;
  int32_t depth_ = 0;
  bool awaiting_address_ = false;
  std::vector<QueuedElement> buf_;
  size_t mask_;
  size_t head_ = 0, n_ = 0;
};

// ---- per packet, inline

inline QueuedElement& SpeculationQueue::Append(QueuedKind kind, bool p0, uint64_t index) {
  if (n_ > mask_) Grow();  // full: buf_.size() is mask_ + 1 (no division by sizeof per push)
  QueuedElement& e = at(n_++);
  std::memset(static_cast<void*>(&e), 0, sizeof e);
  e.kind = kind;
  e.is_p0 = p0;
  e.index = index;
  return e;
}

inline QueuedElement& SpeculationQueue::Push(QueuedKind kind, uint64_t index) { return Append(kind, false, index); }

inline void SpeculationQueue::PushAtoms(uint32_t bits, uint8_t count, uint64_t index) {
  QueuedElement& e = Append(QueuedKind::kAtom, true, index);
  e.atom_bits = bits;
  e.atom_num = count;
  depth_ += count;
}

inline void SpeculationQueue::AddressArrived() {
  if (!awaiting_address_) return;
  ++depth_;
  awaiting_address_ = false;
}

inline QueuedElement& SpeculationQueue::PushAddress(uint64_t address, uint8_t is, uint64_t index) {
  QueuedElement& e = Append(QueuedKind::kAddress, false, index);
  e.value = address;
  e.is = is;
  AddressArrived();
  return e;
}

// ---- templates

template <class Consumer>
bool SpeculationQueue::CommitAtomsAtOnce(uint32_t bits, uint8_t count, uint64_t index, Consumer& c) {
  for (; n_; PopFront())
    if (!c.Element(front(), nullptr, nullptr)) return false;
  const uint32_t now = count - max_spec_;
  if (!c.Atoms(bits, now, index)) return false;
  if (max_spec_)
    PushAtoms(now < 32 ? bits >> now : 0, static_cast<uint8_t>(max_spec_), index);  // the youngest stay speculative
  return true;
}

template <class Consumer>
SpeculationQueue::CommitResult SpeculationQueue::Commit(int32_t count, Consumer& c, uint64_t* last_index) {
  const int32_t requested = count;
  while (count > 0) {
    if (n_ == 0) return CommitResult::kShort;
    QueuedElement& e = front();
    *last_index = e.index;
    if (e.kind == QueuedKind::kAtom) {
      const int32_t k = count < e.atom_num ? count : e.atom_num;
      const uint32_t bits = e.atom_bits;
      e.atom_bits = k < 32 ? bits >> k : 0;
      e.atom_num = static_cast<uint8_t>(e.atom_num - k);
      count -= k;
      if (!c.Atoms(bits, static_cast<uint32_t>(k), e.index)) return CommitResult::kStopped;
      if (e.atom_num) break;  // the rest stays speculative
    } else if ((e.kind == QueuedKind::kException && !e.pe_reset) || (e.kind == QueuedKind::kQ && !e.q_has_addr)) {
      // Its address (and a context before it) follow it (§5.8, §5.10).
      size_t i = 1;
      const QueuedElement* context = nullptr;
      if (i < n_ && at(i).kind == QueuedKind::kContext) context = &at(i++);
      const QueuedElement* address = i < n_ && at(i).kind == QueuedKind::kAddress ? &at(i) : nullptr;
      if (!c.Element(e, context, address)) return CommitResult::kStopped;
      if (address) {
        Erase(i);
        if (context && e.kind == QueuedKind::kException) Erase(1);
      }
      --count;
    } else {
      if (!c.Element(e, nullptr, nullptr)) return CommitResult::kStopped;
      if (e.is_p0) --count;
    }
    PopFront();
  }
  depth_ -= requested - count;
  return CommitResult::kDone;
}

template <class Consumer>
void SpeculationQueue::Discard(Consumer& c) {
  for (; n_; PopFront()) c.Timed(front());
  depth_ = 0;
  awaiting_address_ = false;
}

template <class Consumer>
void SpeculationQueue::FlushAtEnd(Consumer& c) {
  // OpenCSD commitElemOnEOT: the timing elements up to the first
  // uncommitted P0 are output; the P0s themselves are lost.
  for (; n_; PopFront()) {
    const QueuedElement& e = front();
    switch (e.kind) {
      case QueuedKind::kTraceOn:
      case QueuedKind::kAtom:
      case QueuedKind::kException:
      case QueuedKind::kExceptionReturn:  // OpenCSD: P0 or not
      case QueuedKind::kQ:
      case QueuedKind::kUnseen: Clear(); return;
      case QueuedKind::kTransStart:
        if (tstart_p0_) {
          Clear();
          return;
        }
        break;
      case QueuedKind::kTransFail:
      case QueuedKind::kTransCommit:
        if (max_spec_ == 0 || depth_ == 0) c.Timed(e);
        break;
      default:
        if (IsTiming(e.kind)) c.Timed(e);
        break;
    }
  }
}

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_SPECULATION_QUEUE_H
