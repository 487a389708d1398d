// SPDX-License-Identifier: MIT
// speculation_queue_test.cpp: the speculation window alone (speculation_queue.h),
// with a consumer that writes down what it is handed (arm-trace-facts.md §5.2-5.7).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ete_decode/speculation_queue.h"

namespace mabutrace::ete_decode {
namespace {

// Writes "E@5" / "N@5" per atom, "<kind>@<index>" per element (+ "+ctx",
// "+addr=0x.." for what follows an exception or Q), "timed:<kind>@<index>".
struct Log {
  std::vector<std::string> calls;
  int stop_after = -1;  // Atoms/Element return false at this call (the decoder reset)

  static const char* Name(QueuedKind k) {
    switch (k) {
      case QueuedKind::kAtom: return "atom";
      case QueuedKind::kAddress: return "addr";
      case QueuedKind::kContext: return "ctxt";
      case QueuedKind::kException: return "exception";
      case QueuedKind::kQ: return "q";
      case QueuedKind::kTimestamp: return "ts";
      case QueuedKind::kCycleCount: return "cc";
      case QueuedKind::kEvent: return "event";
      case QueuedKind::kTraceOn: return "trace_on";
      case QueuedKind::kSourceAddress: return "src";
      case QueuedKind::kTransStart: return "tstart";
      case QueuedKind::kUnseen: return "unseen";
      default: return "other";
    }
  }
  bool Next() { return stop_after < 0 || static_cast<int>(calls.size()) <= stop_after; }
  bool Atoms(uint32_t bits, uint32_t n, uint64_t index) {
    for (; n; --n, bits >>= 1) {
      calls.push_back(std::string(bits & 1 ? "E@" : "N@") + std::to_string(index));
      if (!Next()) return false;
    }
    return true;
  }
  bool Element(const QueuedElement& e, const QueuedElement* context, const QueuedElement* address) {
    std::string s = std::string(Name(e.kind)) + "@" + std::to_string(e.index);
    if (context) s += "+ctx";
    if (address) s += "+addr=" + std::to_string(address->value);
    calls.push_back(s);
    return Next();
  }
  void Timed(const QueuedElement& e) {
    calls.push_back(std::string("timed:") + Name(e.kind) + "@" + std::to_string(e.index));
  }
  std::vector<std::string> Take() {
    std::vector<std::string> r;
    r.swap(calls);
    return r;
  }
};

using Calls = std::vector<std::string>;

uint32_t Bits(const char* en) {  // "EEN", oldest first
  uint32_t b = 0;
  for (int i = 0; en[i]; ++i) b |= (en[i] == 'E' ? 1u : 0u) << i;
  return b;
}

SpeculationQueue::CommitResult Commit(SpeculationQueue& q, int32_t n, Log& log, uint64_t* last = nullptr) {
  uint64_t unused = 0;
  return q.Commit(n, log, last ? last : &unused);
}

TEST(SpeculationQueue, CommitHandsOutTheOldestInTraceOrder) {
  SpeculationQueue q(8, false);
  Log log;
  q.Push(QueuedKind::kTraceOn, 1);
  q.PushAddress(0x1000, 0, 2);
  q.PushAtoms(Bits("EEN"), 3, 3);
  q.Push(QueuedKind::kTimestamp, 4);
  q.PushAtoms(Bits("E"), 1, 5);
  EXPECT_EQ(q.depth(), 4);
  EXPECT_EQ(Commit(q, 2, log), SpeculationQueue::CommitResult::kDone);
  EXPECT_EQ(log.Take(), (Calls{"trace_on@1", "addr@2", "E@3", "E@3"}));
  EXPECT_EQ(q.depth(), 2);
}

TEST(SpeculationQueue, CommitStopsInsideAnAtomPacket) {
  SpeculationQueue q(8, false);
  Log log;
  q.Push(QueuedKind::kTraceOn, 1);
  q.PushAtoms(Bits("EEN"), 3, 3);
  q.Push(QueuedKind::kTimestamp, 4);
  q.PushAtoms(Bits("E"), 1, 5);
  ASSERT_EQ(Commit(q, 2, log), SpeculationQueue::CommitResult::kDone);
  EXPECT_EQ(log.Take(), (Calls{"trace_on@1", "E@3", "E@3"}));
  EXPECT_EQ(q.depth(), 2);
  ASSERT_EQ(Commit(q, 2, log), SpeculationQueue::CommitResult::kDone);
  EXPECT_EQ(log.Take(), (Calls{"N@3", "ts@4", "E@5"}));
  EXPECT_EQ(q.depth(), 0);
  EXPECT_TRUE(q.empty());
}

TEST(SpeculationQueue, CommittingMoreThanWaitsIsShort) {
  SpeculationQueue q(8, false);
  Log log;
  q.PushAtoms(Bits("E"), 1, 7);
  q.Push(QueuedKind::kEvent, 9);
  uint64_t last = 0;
  EXPECT_EQ(Commit(q, 3, log, &last), SpeculationQueue::CommitResult::kShort);
  EXPECT_EQ(last, 9u) << "the last element handed out";
}

TEST(SpeculationQueue, ConsumerResetStopsTheCommit) {
  SpeculationQueue q(8, false);
  Log log;
  log.stop_after = 0;
  q.PushAtoms(Bits("EEE"), 3, 1);
  EXPECT_EQ(Commit(q, 3, log), SpeculationQueue::CommitResult::kStopped);
  EXPECT_EQ(log.calls.size(), 1u);
}

TEST(SpeculationQueue, DepthAboveMaxSpecIsExcess) {
  SpeculationQueue q(2, false);
  q.PushAtoms(Bits("EE"), 2, 1);
  EXPECT_EQ(q.Excess(), 0);
  q.PushAtoms(Bits("E"), 1, 2);
  EXPECT_EQ(q.Excess(), 1);
}

TEST(SpeculationQueue, ExceptionCountsOnceItsAddressArrivesAndTakesIt) {
  SpeculationQueue q(8, false);
  Log log;
  ete::PacketContext c;
  q.PushException(0x0E, false, 1);
  EXPECT_EQ(q.depth(), 0) << "P0 only once its address is known (§5.2)";
  q.Push(QueuedKind::kContext, 2).ctx = c;
  q.PushAddress(0x1018, 0, 3);
  EXPECT_EQ(q.depth(), 1);
  q.Push(QueuedKind::kEvent, 4);
  ASSERT_EQ(Commit(q, 1, log), SpeculationQueue::CommitResult::kDone);
  EXPECT_EQ(log.Take(), (Calls{"exception@1+ctx+addr=4120"})) << "its context and address go with it";
  EXPECT_EQ(q.size(), 1u) << "the event stays";
}

TEST(SpeculationQueue, QWithoutAddressLeavesItsContextToBeCommittedNext) {
  SpeculationQueue q(8, false);
  Log log;
  q.PushQ(3, false, 0, 0, 1);
  q.Push(QueuedKind::kContext, 2);
  q.PushAddress(0x2000, 0, 3);
  q.PushAtoms(Bits("E"), 1, 4);
  EXPECT_EQ(q.depth(), 2);
  ASSERT_EQ(Commit(q, 2, log), SpeculationQueue::CommitResult::kDone);
  EXPECT_EQ(log.Take(), (Calls{"q@1+ctx+addr=8192", "ctxt@2", "E@4"}));
}

TEST(SpeculationQueue, CancelTakesTheYoungestAndKeepsTimingElements) {
  SpeculationQueue q(8, false);
  Log log;
  q.PushAtoms(Bits("EN"), 2, 1);
  q.Push(QueuedKind::kTimestamp, 2);
  q.PushAtoms(Bits("EEE"), 3, 3);
  q.Push(QueuedKind::kCycleCount, 4);
  q.PushAddress(0x1000, 0, 5);  // not timing: cancelled with the atoms
  ASSERT_TRUE(q.Cancel(4));     // the 3 atoms of packet 3 and the N of packet 1
  EXPECT_EQ(q.depth(), 1);
  ASSERT_EQ(Commit(q, 1, log), SpeculationQueue::CommitResult::kDone);
  EXPECT_EQ(log.Take(), (Calls{"E@1"}));
  q.FlushAtEnd(log);
  EXPECT_EQ(log.Take(), (Calls{"timed:ts@2", "timed:cc@4"})) << "kept, in trace order";
  EXPECT_FALSE(q.Cancel(1)) << "nothing waits";
}

TEST(SpeculationQueue, MispredictFlipsTheYoungestAtomAndDropsAddressesAfterIt) {
  SpeculationQueue q(8, false);
  Log log;
  q.PushAtoms(Bits("NE"), 2, 1);
  q.PushAddress(0x1000, 0, 2);
  EXPECT_EQ(q.Mispredict(), SpeculationQueue::MispredictResult::kFlipped);
  ASSERT_EQ(Commit(q, 2, log), SpeculationQueue::CommitResult::kDone);
  EXPECT_EQ(log.Take(), (Calls{"N@1", "N@1"}));
  EXPECT_TRUE(q.empty()) << "the address after the atom went";
  EXPECT_EQ(q.Mispredict(), SpeculationQueue::MispredictResult::kNoAtom);
  q.PushUnseen(1, 3);
  EXPECT_EQ(q.Mispredict(), SpeculationQueue::MispredictResult::kBeforeSync);
}

TEST(SpeculationQueue, AtomsCommitAtOnceWhenNothingWaits) {
  SpeculationQueue q(2, false);
  Log log;
  ASSERT_TRUE(q.CanCommitAtOnce(5));
  ASSERT_TRUE(q.CommitAtomsAtOnce(Bits("EENEN"), 5, 1, log));
  EXPECT_EQ(log.Take(), (Calls{"E@1", "E@1", "N@1"}));
  EXPECT_EQ(q.depth(), 2) << "the youngest MAXSPEC stay speculative";
  EXPECT_FALSE(q.CanCommitAtOnce(5)) << "now something waits";
  ASSERT_EQ(Commit(q, 2, log), SpeculationQueue::CommitResult::kDone);
  EXPECT_EQ(log.Take(), (Calls{"E@1", "N@1"}));
}

TEST(SpeculationQueue, AtomsCommitAtOnceAfterTheNonP0sThatWait) {
  // MAXSPEC 0 (ETMv4 on juno_r1_1): an address and a timestamp wait for
  // the next P0; an atom packet hands them out first, then its atoms.
  SpeculationQueue q(0, false);
  Log log;
  q.PushAddress(0x1000, 0, 1);
  q.Push(QueuedKind::kTimestamp, 2);
  ASSERT_TRUE(q.CanCommitAtOnce(2));
  ASSERT_TRUE(q.CommitAtomsAtOnce(Bits("EN"), 2, 3, log));
  EXPECT_EQ(log.Take(), (Calls{"addr@1", "ts@2", "E@3", "N@3"}));
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.depth(), 0);
}

TEST(SpeculationQueue, AtomsWaitWhileAP0Waits) {
  SpeculationQueue q(0, false);
  q.PushException(3, false, 1);  // a P0 once its address comes
  EXPECT_FALSE(q.CanCommitAtOnce(1)) << "the exception waits for its address";
  SpeculationQueue r(4, false);
  r.PushAtoms(Bits("E"), 1, 1);
  r.Push(QueuedKind::kTimestamp, 2);
  EXPECT_FALSE(r.CanCommitAtOnce(5)) << "an older atom is still speculative";
}

TEST(SpeculationQueue, DiscardHandsOutEverythingAndEmpties) {
  SpeculationQueue q(8, true);
  Log log;
  q.PushAtoms(Bits("E"), 1, 1);
  q.Push(QueuedKind::kEvent, 2);
  q.PushTransactionStart(3);
  EXPECT_EQ(q.depth(), 2) << "TSTART is P0 when TRCIDR0.COMMTRANS = 0";
  q.Discard(log);
  EXPECT_EQ(log.Take(), (Calls{"timed:atom@1", "timed:event@2", "timed:tstart@3"}));
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.depth(), 0);
}

TEST(SpeculationQueue, EndOfTraceOutputsTimingUpToTheFirstP0) {
  SpeculationQueue q(8, false);
  Log log;
  q.Push(QueuedKind::kTimestamp, 1);
  q.Push(QueuedKind::kEvent, 2);
  q.PushAtoms(Bits("E"), 1, 3);
  q.Push(QueuedKind::kCycleCount, 4);
  q.FlushAtEnd(log);
  EXPECT_EQ(log.Take(), (Calls{"timed:ts@1", "timed:event@2"}));
  EXPECT_TRUE(q.empty());
}

TEST(SpeculationQueue, UnseenElementsAreBounded) {
  SpeculationQueue q(8, false);
  q.PushUnseen(0xFFFFFFFFu, 1);
  EXPECT_EQ(q.size(), SpeculationQueue::kMaxElements / 2);
  EXPECT_FALSE(q.full());
}

}  // namespace
}  // namespace mabutrace::ete_decode
