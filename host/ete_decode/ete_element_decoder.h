// ete_element_decoder.h: ETE packets -> generic trace elements (R-F2, R-F3).
//
// Input: the EtePackets of ONE trace source, in order (ete_packet_processor.h).
// Output: EteElements through a plain function callback, in trace order.
//
// What it does (arm-trace-facts.md §5, §6):
//   - keeps the speculation window: P0 elements (atoms, exceptions, Q,
//     source addresses, transaction starts when TRCIDR0.COMMTRANS=0) and the
//     non-P0 elements between them wait on a queue until Commit (§5.3),
//     Cancel (§5.4), Mispredict (§5.5), Discard/Overflow (§5.6) resolve
//     them; depth above TRCIDR8.MAXSPEC commits implicitly (§5.2); a Trace
//     Info with SPEC > 0 adds invisible "unseen" P0s (§5.7);
//   - resolves each committed atom into an executed instruction range by
//     following the program image with armisa::InstrFollower (cached, so
//     cost follows branches, §6.3); exceptions walk to the preferred return
//     address (§5.8); Q elements walk COUNT instructions (§5.10); source
//     addresses end a range on a taken P0 (§4.14);
//   - tracks the PE context (EL, security, AArch64/AArch32, VMID,
//     CONTEXTID), the return stack (§5.9, TRCCONFIGR.RS), timestamps and
//     TS markers, cycle counts, events, instrumentation and TME
//     transactions;
//   - on missing memory emits ADDR_NACC and waits for the next address.
//
// Behaviour follows OpenCSD 1.8.0's ETMv4/ETE decoder (the oracle) element
// for element; docs/ete-decode.md lists the deliberate differences.
//
// Bad input never crashes: a packet sequence that cannot be resolved
// (commit with nothing to commit, exception without address...) is
// reported through the error callback with its byte index, the decoder
// emits NO_SYNC [bad-packet] and waits for the next A-Sync + Trace Info.
//
// Memory: the element queue is a ring that grows (doubling) only while the
// speculation window grows; the follower's cache is allocated once. No heap
// per packet or per instruction. Not thread-safe; one decoder per source.
#ifndef MABUTRACE_HOST_ETE_DECODE_ETE_ELEMENT_DECODER_H
#define MABUTRACE_HOST_ETE_DECODE_ETE_ELEMENT_DECODER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ete/ete_config.h"
#include "ete/ete_packet.h"
#include "ete_element.h"
#include "follower.h"
#include "memory_image.h"

namespace mabutrace::ete_decode {

using ElementCallback = void (*)(void* ctx, const EteElement& element);
// A decode error: byte index of the packet and a message ("commit of 3
// elements with only 1 waiting"). Errors are rare; the string is built then.
using DecodeErrorCallback = void (*)(void* ctx, uint64_t index, const std::string& message);

struct DecodeStats {
  uint64_t packets = 0;
  uint64_t elements = 0;
  uint64_t ranges = 0;        // INSTR_RANGE elements
  uint64_t instructions = 0;  // instructions in those ranges
  uint64_t nacc = 0;          // ADDR_NACC elements
  uint64_t errors = 0;        // sequence errors (NO_SYNC bad-packet / bad image)
};

class EteElementDecoder {
 public:
  // `image` may be null or empty (every walk then gives ADDR_NACC) and must
  // outlive the decoder. cache_log2: see armisa::InstrFollower.
  EteElementDecoder(const ete::EteConfig& config, const armisa::MemoryImage* image, ElementCallback on_element,
                    void* ctx, DecodeErrorCallback on_error = nullptr, unsigned cache_log2 = 14);
  ~EteElementDecoder();
  EteElementDecoder(const EteElementDecoder&) = delete;
  EteElementDecoder& operator=(const EteElementDecoder&) = delete;

  // One packet of the source, in order.
  void OnPacket(const ete::EtePacket& packet);
  // End of trace: flush what can be flushed, emit EO_TRACE.
  void Finish();
  // Back to the initial unsynchronised state (NO_SYNC [reset-decoder] next).
  void Reset();

  const DecodeStats& stats() const { return stats_; }
  const armisa::FollowStats& follow_stats() const { return follower_.stats(); }

 private:
  enum class State : uint8_t { kNoSync, kWaitSync, kWaitTraceInfo, kDecode };
  enum class Kind : uint8_t;
  struct Elem;
  class Queue;

  // packet -> queue (OpenCSD decodePacket)
  void DecodePacket(const ete::EtePacket& p);
  void Resolve();
  bool Commit();
  bool Cancel();
  bool Mispredict();
  void Discard();
  void FlushOnEot();
  void TraceInfo(const ete::EtePacket& p);

  // queue element -> output elements
  bool ProcessAtom(bool taken, uint64_t index);
  void FastAtoms(const ete::EtePacket& p);
  static bool IsAtomPacket(ete::PacketType t) {
    return t >= ete::PacketType::kAtomF1 && t <= ete::PacketType::kAtomF6;
  }
  bool ProcessException(const Elem& e);
  bool ProcessSourceAddress(const Elem& e);
  bool ProcessQ(const Elem& e);
  void ProcessTimed(const Elem& e);
  void UpdateContext(const Elem& c);
  // §5.9: pop the return stack for an indirect branch that got no address.
  bool ReturnStackPop(uint64_t index) { return !pop_pending_ || ReturnStackPopSlow(index); }
  bool ReturnStackPopSlow(uint64_t index);

  bool SequenceError(uint64_t index, const char* what);
  void BadImage(uint64_t index);
  void ResetState();
  void Emit(EteElement& e) {
    ++stats_.elements;
    if (e.type == ElemType::kInstrRange) {
      ++stats_.ranges;
      stats_.instructions += e.num_instr;
    } else if (e.type == ElemType::kAddrNacc) {
      ++stats_.nacc;
    }
    on_element_(ctx_, e);
  }
  EteElement& NewElem(ElemType type, uint64_t index);
  uint8_t MemSpace() const { return space_; }  // of the current context (cached)
  uint8_t ComputeMemSpace() const;
  armisa::Isa CalcIsa(bool is64, uint8_t is) const {
    return is64 ? armisa::Isa::kA64 : (is ? armisa::Isa::kT32 : armisa::Isa::kA32);
  }
  // One instruction at addr (Q / source address walks). false: not readable.
  bool DecodeOne(uint64_t addr, armisa::Isa isa, armisa::InstrInfo* info, uint8_t* size);
  void SetRange(EteElement& out, uint64_t start, uint64_t end, uint32_t n, const armisa::InstrInfo& info,
                uint8_t size, bool executed, armisa::Isa isa);

  // Compact front cache of complete walks (see LookupHop).
  struct alignas(32) Hop {
    uint64_t start = ~uint64_t{0};  // ~0: empty
    uint64_t end = 0;
    uint64_t target = 0;
    uint32_t num_instr = 0;
    armisa::InstrType type = armisa::InstrType::kOther;
    armisa::InstrSubtype subtype = armisa::InstrSubtype::kNone;
    uint8_t flags = 0;  // kHop* bits, target ISA in [5:4], walk ISA in [7:6]
    uint8_t space = 0;
  };
  static_assert(sizeof(Hop) == 32);
  static constexpr uint8_t kHopLink = 1, kHopCond = 2, kHopSize2 = 4;
  static constexpr size_t kHops = 2048;
  const Hop* LookupHop(uint64_t addr, armisa::Isa isa, uint8_t space);
  const Hop* FillHop(Hop* h, uint64_t addr, armisa::Isa isa, uint8_t space);
  std::unique_ptr<Hop[]> hops_;

  ete::EteConfig config_;
  const armisa::MemoryImage* image_;
  armisa::MemoryImage empty_image_;
  armisa::InstrFollower follower_;
  ElementCallback on_element_;
  void* ctx_;
  DecodeErrorCallback on_error_;
  DecodeStats stats_;
  EteElement out_;

  std::unique_ptr<Queue> queue_;
  State state_ = State::kNoSync;
  UnsyncReason unsync_ = UnsyncReason::kInitDecoder;
  uint64_t curr_index_ = 0;

  // resolution requests of the current packet
  int32_t res_commit_ = 0;
  int32_t res_cancel_ = 0;
  bool res_mispredict_ = false;
  bool res_discard_ = false;

  // static config
  uint32_t max_spec_;
  bool ts_marker_mode_;
  bool comm_trans_p0_;
  bool cci_;
  bool ret_stack_active_;

  // dynamic state
  int32_t spec_depth_ = 0;
  bool need_ctxt_ = true;
  bool need_addr_ = true;
  bool elem_pending_addr_ = false;
  bool prev_overflow_ = false;
  bool first_ts_marker_ = false;
  uint8_t last_is_ = 0;
  bool vmid_seen_ = false, cid_seen_ = false;

  // PE state
  bool is64_ = false;
  bool ctxt_valid_ = false;
  uint8_t el_ = 0;
  Security security_ = Security::kSecure;
  uint8_t space_ = armisa::kMemS;

  // instruction-follow state (OpenCSD m_instr_info)
  uint64_t addr_ = 0;
  armisa::Isa isa_ = armisa::Isa::kA32;
  bool next_check_valid_ = false;
  uint64_t next_check_addr_ = 0;

  // return stack (§5.9)
  struct RetEntry {
    uint64_t addr;
    armisa::Isa isa;
  };
  static constexpr unsigned kRetStackSize = 16;
  RetEntry ret_stack_[kRetStackSize] = {};
  unsigned ret_head_ = 0, ret_count_ = 0;
  bool pop_pending_ = false;
  void RetPush(uint64_t addr, armisa::Isa isa);
  void RetFlush() {
    ret_count_ = 0;
    pop_pending_ = false;
  }
};

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_ETE_ELEMENT_DECODER_H
