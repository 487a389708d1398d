// SPDX-License-Identifier: MIT
// speculation_queue.cpp: see speculation_queue.h.
#include "speculation_queue.h"

namespace mabutrace::ete_decode {

SpeculationQueue::SpeculationQueue(uint32_t max_spec, bool transaction_start_is_p0)
    : max_spec_(max_spec < kMaxCount ? max_spec : kMaxCount),
      tstart_p0_(transaction_start_is_p0),
      buf_(64),
      mask_(63) {}

void SpeculationQueue::Clear() {
  head_ = n_ = 0;
  depth_ = 0;
  awaiting_address_ = false;
}

void SpeculationQueue::Grow() {
  std::vector<QueuedElement> nb(buf_.size() * 2);
  for (size_t i = 0; i < n_; ++i) nb[i] = at(i);
  buf_.swap(nb);
  mask_ = buf_.size() - 1;
  head_ = 0;
}

// Shifts the younger elements down: rare (an exception's or Q's address).
void SpeculationQueue::Erase(size_t i) {
  for (size_t j = i; j + 1 < n_; ++j) at(j) = at(j + 1);
  --n_;
}

QueuedElement& SpeculationQueue::PushSourceAddress(uint64_t address, uint8_t is, uint64_t index) {
  QueuedElement& e = Append(QueuedKind::kSourceAddress, true, index);
  e.value = address;
  e.is = is;
  ++depth_;
  return e;
}

QueuedElement& SpeculationQueue::PushException(uint16_t type, bool prev_same, uint64_t index) {
  QueuedElement& e = Append(QueuedKind::kException, true, index);
  e.number = type;
  e.prev_same = prev_same;
  awaiting_address_ = true;  // P0 once its address packet arrives (§5.2)
  return e;
}

QueuedElement& SpeculationQueue::PushPeReset(uint16_t type, bool prev_same, uint64_t index) {
  QueuedElement& e = Append(QueuedKind::kException, true, index);
  e.number = type;
  e.pe_reset = true;
  e.prev_same = prev_same;
  // A P0 element (§5.1, §4.7). OpenCSD leaves it out of the depth: with
  // MAXSPEC 0 it then waits for the next P0's implicit commit, one element
  // behind, and the last one is lost.
  ++depth_;
  return e;
}

QueuedElement& SpeculationQueue::PushQ(uint32_t count, bool has_address, uint64_t address, uint8_t is, uint64_t index) {
  QueuedElement& e = Append(QueuedKind::kQ, true, index);
  e.q_count = count;
  if (has_address) {
    e.q_has_addr = true;
    e.value = address;
    e.is = is;
    ++depth_;
  } else {
    awaiting_address_ = true;
  }
  return e;
}

QueuedElement& SpeculationQueue::PushTransactionStart(uint64_t index) {
  QueuedElement& e = Append(QueuedKind::kTransStart, tstart_p0_, index);
  if (tstart_p0_) ++depth_;
  return e;
}

void SpeculationQueue::PushUnseen(uint32_t spec, uint64_t index) {
  const uint32_t n = spec < kMaxElements / 2 ? spec : kMaxElements / 2;  // bounded memory on bad input
  for (uint32_t i = 0; i < n; ++i) Append(QueuedKind::kUnseen, true, index);
  depth_ += static_cast<int32_t>(n);
}

bool SpeculationQueue::Cancel(int32_t count) {
  // Timing elements among the cancelled P0s are kept, in order.
  const int32_t requested = count;
  QueuedElement keep[32];
  size_t nkeep = 0;
  while (count > 0) {
    if (n_ == 0) return false;
    QueuedElement& e = back();
    if (e.kind == QueuedKind::kAtom) {  // the youngest atoms are the high bits
      const int32_t k = count < e.atom_num ? count : e.atom_num;
      e.atom_num = static_cast<uint8_t>(e.atom_num - k);
      count -= k;
      if (e.atom_num == 0) PopBack();
      continue;
    }
    if (e.is_p0)
      --count;
    else if (IsTiming(e.kind) && nkeep < sizeof keep / sizeof keep[0])
      keep[nkeep++] = e;
    PopBack();
  }
  while (nkeep) {
    const QueuedElement& kept = keep[--nkeep];
    Append(kept.kind, false, kept.index) = kept;
  }
  depth_ -= requested;
  return true;
}

SpeculationQueue::MispredictResult SpeculationQueue::Mispredict() {
  for (size_t i = n_; i-- > 0;) {
    QueuedElement& e = at(i);
    if (e.kind == QueuedKind::kAtom && e.atom_num) {
      e.atom_bits ^= 1u << (e.atom_num - 1);
      return MispredictResult::kFlipped;
    }
    if (e.kind == QueuedKind::kAddress)
      Erase(i);
    else if (e.kind == QueuedKind::kUnseen)
      return MispredictResult::kBeforeSync;
  }
  return MispredictResult::kNoAtom;
}

}  // namespace mabutrace::ete_decode
