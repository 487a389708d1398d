// SPDX-License-Identifier: MIT
// ete_element_decoder.h: ETE packets -> generic trace elements (R-F2, R-F3).
//
// Input: the EtePackets of ONE trace source, in order (ete_packet_processor.h).
// Output: EteElements through a plain function callback, in trace order.
//
//   packets ──► EteElementDecoder ──► SpeculationQueue ──commit──► ExecutionWalker ──► ranges
//               sync states,           (speculation_queue.h)        (execution_walker.h)
//               packet -> elements            │                      return stack, hop cache
//                                             ├──► PeContext (pe_context.h): PE_CONTEXT
//                                             └──► timestamps, cycle counts, events,
//                                                  markers, instrumentation, transactions
//
// This class is the conductor (arm-trace-facts.md §5, §6): it synchronises
// (NO_SYNC -> A-Sync -> Trace Info -> decode, §5.11), turns each packet into
// the elements it carries and the resolutions it asks for (commit, cancel,
// mispredict, discard, and the implicit commit above MAXSPEC), hands the
// committed elements to the walker or the context, outputs the timing
// elements (with TS markers, ETE >= 1.1 and TRCIDR0.TSMARK, timestamps are
// dropped until the first marker, as OpenCSD does) and reports errors.
// On missing memory the walker emits ADDR_NACC and decoding waits for the
// next address.
//
// Behaviour follows OpenCSD 1.8.0's ETMv4/ETE decoder (the oracle) element
// for element; docs/ete-decode.md lists the deliberate differences.
//
// Bad input never crashes: a packet sequence that cannot be resolved
// (commit with nothing to commit, exception without address...) is
// reported through the error callback with its byte index, the decoder
// emits NO_SYNC [bad-packet] and waits for the next A-Sync + Trace Info.
// A walk error that loses only where the PE is (return stack empty on a
// taken indirect branch, a range that does not continue the last one:
// NO_SYNC [bad-packet] / [bad-program-image]) keeps decoding everything
// else and resumes the walks at the next 64-bit address or address with
// context (§4.12), also with MAXSPEC 0.
//
// Memory: the element queue is a ring that grows (doubling) only while the
// speculation window grows; the follower's cache is allocated once. No heap
// per packet or per instruction. Not thread-safe; one decoder per source.
#ifndef MABUTRACE_HOST_ETE_DECODE_ETE_ELEMENT_DECODER_H
#define MABUTRACE_HOST_ETE_DECODE_ETE_ELEMENT_DECODER_H

#include <cstddef>
#include <cstdint>
#include <string>

#include "element_output.h"
#include "ete/ete_config.h"
#include "ete/ete_packet.h"
#include "ete_element.h"
#include "execution_walker.h"
#include "memory_image.h"
#include "pe_context.h"
#include "speculation_queue.h"

namespace mabutrace::ete_decode {

class EteElementDecoder {
 public:
  // `image` may be null or empty (every walk then gives ADDR_NACC) and must
  // outlive the decoder. cache_log2: see armisa::InstrFollower.
  EteElementDecoder(const ete::EteConfig& config, const armisa::MemoryImage* image, ElementCallback on_element,
                    void* ctx, DecodeErrorCallback on_error = nullptr, unsigned cache_log2 = 14);
  EteElementDecoder(const EteElementDecoder&) = delete;
  EteElementDecoder& operator=(const EteElementDecoder&) = delete;

  // One packet of the source, in order. Inline: the commonest packets
  // (with MAXSPEC 0, an address then atoms) take no more than this.
  void OnPacket(const ete::EtePacket& p) {
    ++out_.stats().packets;
    curr_index_ = p.index;
    if (state_ == State::kDecode) [[likely]] {
      if (ete::IsAtomPacket(p.type)) {
        // The queue is empty while an address is held, so the atoms commit
        // at once when they are more than MAXSPEC (CanCommitAtOnce).
        if (held_address_) {
          if (p.atom_count > queue_.max_spec()) return CommitAtomsAfterHeldAddress(p);
        } else if (queue_.empty_without_speculation()) {
          if (IgnoresAtomPacket()) return;
          if (p.atom_count > 0) return CommitAtomsAtOnce(p);
        } else {
          return AtomsWithSpeculation(p);
        }
      }
      if (HoldAddress(p)) return;
    }
    OnOtherPacket(p);
  }
  // End of trace: flush what can be flushed, emit EO_TRACE.
  void Finish();
  // Back to the initial unsynchronised state (NO_SYNC [reset-decoder] next).
  void Reset();

  // Elements go to on_element(ctx, source, element) instead of the
  // constructor's callback (ElementOutput::SetSourceSink).
  void SetSourceSink(SourceElementCallback on_element, void* ctx, size_t source) {
    out_.SetSourceSink(on_element, ctx, source);
  }

  const DecodeStats& stats() const { return out_.stats(); }
  // An A-Sync packet came since construction or Reset (BufferElementSession).
  bool seen_async() const { return seen_async_; }
  const armisa::FollowStats& follow_stats() const { return walker_.follow_stats(); }

 private:
  friend class SpeculationQueue;  // calls the consumer methods below
  enum class State : uint8_t { kNoSync, kWaitSync, kWaitTraceInfo, kDecode };

  // ---- packet -> speculation window (OpenCSD decodePacket)
  // An atom packet that commits at once (SpeculationQueue::CanCommitAtOnce);
  // out of line, so that the packets CommitAtomsAfterHeldAddress ends
  // (AtomsIntoNacc) do not pay the atom loop's register saves.
  __attribute__((noinline)) void CommitAtomsAtOnce(const ete::EtePacket& p);
  // The same after the address held for it (HoldAddress): that address
  // first. Needs no stack frame.
  void CommitAtomsAfterHeldAddress(const ete::EtePacket& p);
  // An atom packet that would commit at once (MAXSPEC 0, nothing queued or
  // held) while the walker ignores atoms (it waits for an address: after
  // ADDR_NACC) gives nothing and changes nothing. juno_r1_1: a third of its
  // atom packets, atoms into the kernel code the image lacks, skip here the
  // out-of-line commit and its register saves.
  bool IgnoresAtomPacket() const {
    return walker_.ignores_atoms() && !held_address_ && queue_.empty_without_speculation();
  }
  // An atom packet with MAXSPEC > 0 or elements queued, nothing held:
  // CanCommitAtOnce's other tests and the commit, out of line (the MAXSPEC 0
  // packets that OnPacket takes load none of their fields).
  __attribute__((noinline)) void AtomsWithSpeculation(const ete::EtePacket& p);
  // Every packet that OnPacket does not take itself.
  void OnOtherPacket(const ete::EtePacket& p);
  void QueuePacket(const ete::EtePacket& p);
  // An address packet reaching an idle queue (no element waits, depth 0)
  // is held here instead: the next atom packet that commits at once takes
  // it without the queue's push, pop and element switch (MAXSPEC 0, ETMv4
  // on juno_r1_1: address, atoms, address, atoms...). Holding it stands for
  // the queue holding just this address: every other packet, and the end of
  // the trace, first moves it into the queue (UnholdAddress), so the order
  // of everything that follows is unchanged.
  bool HoldAddress(const ete::EtePacket& p) {
    if (!ete::IsTargetAddressPacket(p.type) || held_address_ || !queue_.idle()) return false;
    held_address_ = true;
    held_ = {p.addr.value, p.index, p.addr.isa,
             p.type == ete::PacketType::kTargetAddrL64Is0 || p.type == ete::PacketType::kTargetAddrL64Is1};
    last_is_ = p.addr.isa;
    return true;
  }
  void UnholdAddress() {
    if (!held_address_) return;
    held_address_ = false;
    queue_.PushAddress(held_.value, held_.is, held_.index).full_addr = held_.full;
  }
  bool QueueElementsOf(const ete::EtePacket& p);  // false: a bad packet reset the decoder
  void QueueContext(const ete::EtePacket& p);
  void TraceInfo(const ete::EtePacket& p);
  void Resolve();
  void Cancel();
  void Mispredict();
  void Discard();

  // ---- committed elements -> output (SpeculationQueue's consumer)
  __attribute__((always_inline)) bool Atoms(uint32_t bits, uint32_t n, uint64_t index) {
    // After an error the walker waits for an address: the rest of the
    // packet's atoms would do nothing.
    return Walked(walker_.Atoms(bits, n, index), index);
  }
  bool Element(const QueuedElement& e, const QueuedElement* context, const QueuedElement* address);
  // A committed Target Address element (queued or held).
  void Address(uint64_t value, uint8_t is, bool full_addr) {
    if (await_full_address_ && !full_addr) return;  // relative to what was lost
    await_full_address_ = false;
    walker_.SetAddress(value, context_.IsaOf(is));
  }
  void Timed(const QueuedElement& e);
  bool Exception(const QueuedElement& e, const QueuedElement* context, const QueuedElement* address);
  void UpdateContext(const QueuedElement& c);
  // The walker's status -> errors; false when the decoder was reset.
  bool Walked(ExecutionWalker::Status status, uint64_t index) {
    return status == ExecutionWalker::Status::kOk || WalkFailed(status, index);
  }
  bool WalkFailed(ExecutionWalker::Status status, uint64_t index);

  // ---- errors and synchronisation
  bool SequenceError(uint64_t index, const char* what);
  void Error(uint64_t index, const std::string& what);
  void Resynchronise(UnsyncReason why, uint64_t index);  // NO_SYNC now, wait for A-Sync
  void EmitNoSync(uint64_t index);
  void ResetState();

  ElementOutput out_;
  void* ctx_;
  DecodeErrorCallback on_error_;
  SpeculationQueue queue_;
  ExecutionWalker walker_;
  PeContext context_;

  State state_ = State::kNoSync;
  UnsyncReason unsync_ = UnsyncReason::kInitDecoder;
  uint64_t curr_index_ = 0;

  // resolutions the current packet asks for
  int32_t res_commit_ = 0;
  int32_t res_cancel_ = 0;
  bool res_mispredict_ = false;
  bool res_discard_ = false;

  const bool ts_marker_mode_;  // timestamps wait for the first TS marker
  const bool cci_;             // TRCCONFIGR.CCI: timestamps carry a cycle count
  const bool m_profile_;       // ETMv4 on an M-profile PE
  const bool v7m_;             // ... an Armv7-M one (Exception Return is P0)
  bool first_ts_marker_ = false;
  bool prev_overflow_ = false;  // the last discard was an Overflow
  // A walk error lost the PE's address: wait for a 64-bit / with-context address.
  bool await_full_address_ = false;
  uint8_t last_is_ = 0;        // sub-ISA of the last address packet
  bool held_address_ = false;  // HoldAddress()
  bool seen_async_ = false;    // seen_async()
  struct HeldAddress {
    uint64_t value;
    uint64_t index;
    uint8_t is;
    bool full;  // a 64-bit address (§4.12)
  } held_{};
};

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_ETE_ELEMENT_DECODER_H
