// SPDX-License-Identifier: MIT
// etm3_element_decoder.h: ETMv3 packets -> the generic trace elements of
// host/ete_decode (ete_element.h), as OpenCSD 1.8.0's ETMv3 decoder
// produces them.
//
// ETMv3 traces every instruction: each P-header atom is one instruction
// (E executed, N failed its condition), so each atom becomes a one-
// instruction INSTR_RANGE found by reading the memory image at the current
// address (armisa::InstrFollower::Decode); a taken direct branch gives the
// next address, a taken indirect branch needs the next branch-address
// packet. Cycle-accurate P-headers give each range its W count ([CC=n]).
//
// Sequence (IHI0014 "synchronization"; OpenCSD's decoder): NO_SYNC, then
// wait for A-sync, then for I-sync (TRACE_ON + PE_CONTEXT); timestamps and
// cycle-count-only P-headers are decoded while waiting. An I-sync with a
// reason other than periodic gives TRACE_ON; every I-sync gives PE_CONTEXT.
// A branch address with exception information gives PE_CONTEXT (when NS or
// Hyp changed) and EXCEPTION; its "cancel" bit drops the last instruction
// range, which is therefore held back until the next packet decides
// (EXCEPTION_EXIT holds back itself and the range before it).
//
// Bad packets (reserved, bad sequence, NOTSYNC after sync): error callback
// with the packet's byte index, then NO_SYNC at the next packet and a new
// wait for A-sync. Data-trace packets produce no elements (OpenCSD refuses
// data trace altogether).
#ifndef MABUTRACE_HOST_ETM3_ETM3_ELEMENT_DECODER_H
#define MABUTRACE_HOST_ETM3_ETM3_ELEMENT_DECODER_H

#include <cstdint>
#include <string>
#include <vector>

#include "armisa/follower.h"
#include "ete_decode/element_output.h"
#include "ete_decode/ete_element.h"
#include "etm3/etm3_config.h"
#include "etm3/etm3_packet.h"

namespace mabutrace::etm3 {

class Etm3ElementDecoder {
 public:
  // `image` (never null) must outlive the decoder.
  Etm3ElementDecoder(const Etm3Config& config, const armisa::MemoryImage* image, ete_decode::ElementCallback on_element,
                     void* ctx, ete_decode::DecodeErrorCallback on_error = nullptr);
  Etm3ElementDecoder(const Etm3ElementDecoder&) = delete;
  Etm3ElementDecoder& operator=(const Etm3ElementDecoder&) = delete;

  void OnPacket(const Etm3Packet& packet);
  // End of trace: EO_TRACE (after any held-back range).
  void Finish();
  void Reset();
  const ete_decode::DecodeStats& stats() const { return stats_; }

 private:
  enum class State : uint8_t { kNoSync, kWaitAsync, kWaitIsync, kDecode };
  ete_decode::EteElement& Add(ete_decode::ElemType type);
  void Flush();  // hands out every element that is not held back
  void Commit() { held_ = 0; }
  void Cancel();
  void Hold(size_t n) { held_ = n < list_.size() ? n : list_.size(); }
  void Decode(const Etm3Packet& p);
  void Isync(const Etm3Packet& p, bool first);
  void Branch(const Etm3Packet& p);
  void PHeader(const Etm3Packet& p);
  void Fail(const std::string& what);
  void SetContext(ete_decode::EteElement* e) const;
  void NeedAddress(bool need) {
    need_addr_ = need;
    sent_unknown_ = false;
  }

  Etm3Config config_;
  armisa::InstrFollower follower_;
  ete_decode::ElementCallback on_element_;
  void* ctx_;
  ete_decode::DecodeErrorCallback on_error_;
  ete_decode::DecodeStats stats_;

  State state_ = State::kNoSync;
  bool first_no_sync_ = true;
  bool need_addr_ = true;
  bool sent_unknown_ = false;
  bool wait_isync_ = false;
  uint32_t iaddr_ = 0;
  uint64_t index_ = 0;  // byte index of the packet being decoded
  // PE context (persistent between I-syncs)
  bool ns_ = false;
  bool hyp_ = false;
  bool ctxt_id_valid_ = false, vmid_valid_ = false;
  uint32_t context_id_ = 0, vmid_ = 0;
  // Elements not yet handed out; the last held_ of them are held back.
  std::vector<ete_decode::EteElement> list_;
  size_t held_ = 0;
};

}  // namespace mabutrace::etm3

#endif  // MABUTRACE_HOST_ETM3_ETM3_ELEMENT_DECODER_H
