// SPDX-License-Identifier: MIT
// ptm_packet_processor.h: PTM (PFT 1.0/1.1) packet processor, bytes -> packets.
//
// Input: the de-formatted byte stream of ONE PTM source, pushed in chunks of
// any size (a CoreSight frame's bytes for one ID, or a raw buffer). Output:
// one PtmPacket per packet through a plain function callback. Encodings:
// IHI0035B chapter 4; behaviour and packet boundaries match OpenCSD 1.8.0's
// PTM processor on valid trace.
//
// Synchronisation: unsynchronised bytes are reported as kNotSync packets,
// one per pushed chunk (at most 16 bytes each), as OpenCSD's lister prints
// them; then A-sync (>= 5 x 00, then 80) starts packet decoding.
//
// Bad input (never fatal, never reads out of bounds, memory bounded):
//   - reserved header              -> kReserved packet + error
//   - bad A-sync (00s not ending in 80, or 16 zeros) -> kBadSequence packet + error
//   - input ends inside a packet   -> kIncompleteEot packet + error (Finish)
// ErrorPolicy::kResync (default): after an error wait for the next A-sync;
// kOpenCsd: carry on at the next byte as a header (oracle comparison).
// Errors carry the byte index of the offending packet.
#ifndef MABUTRACE_HOST_PTM_PTM_PACKET_PROCESSOR_H
#define MABUTRACE_HOST_PTM_PTM_PACKET_PROCESSOR_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "ptm/ptm_packet.h"

namespace mabutrace::ptm {

enum class ErrorPolicy : uint8_t { kResync, kOpenCsd };

struct PtmError {
  uint64_t index;  // byte index of the offending packet
  uint8_t trace_id;
  std::string message;  // "byte 1234: reserved header 0x0a"
};

using PacketCallback = void (*)(void* context, const PtmPacket& packet);
using ErrorCallback = void (*)(void* context, const PtmError& error);

class PtmPacketProcessor {
 public:
  // Longest packet: an A-sync with 15 zeros and 80 is 16 bytes, an I-sync with
  // a 5-byte cycle count and a 4-byte context ID 15.
  static constexpr size_t kMaxPacketBytes = 32;

  PtmPacketProcessor(const PtmConfig& config, PacketCallback on_packet, void* context, ErrorCallback on_error = nullptr,
                     ErrorPolicy policy = ErrorPolicy::kResync);
  PtmPacketProcessor(const PtmPacketProcessor&) = delete;
  PtmPacketProcessor& operator=(const PtmPacketProcessor&) = delete;

  // `n` bytes whose first has byte index `index`.
  void Push(uint64_t index, const uint8_t* data, size_t n);
  // End of trace: a partial packet becomes kIncompleteEot (+ error).
  void Finish();
  // Back to the initial state (unsynchronised, all packet state cleared).
  void Reset();

  bool synced() const { return synced_; }
  uint64_t packets() const { return packets_; }
  uint64_t errors() const { return errors_; }
  const PtmConfig& config() const { return config_; }

 private:
  void Unsynced(uint64_t index, const uint8_t* data, size_t n, size_t* used);
  // The length of the packet in pend_[0..pend_len_) once it is complete, else 0.
  size_t CompleteLength() const;
  void Decode();  // pend_ holds one whole packet: fill packet_ and emit it
  void Emit(const uint8_t* raw, size_t len, uint64_t index);
  void Error(uint64_t index, const std::string& what);
  uint32_t Address(size_t offset, size_t n_bytes, PtmIsa isa, uint8_t* bits) const;
  uint32_t CycleCount(size_t offset) const;

  PtmConfig config_;
  PacketCallback on_packet_;
  void* context_;
  ErrorCallback on_error_;
  ErrorPolicy policy_;

  PtmPacket packet_;  // persistent fields + the packet being built
  bool synced_ = false;
  bool excep_alt_isa_ = false;  // AltISA bit of the last exception byte (persists, as in OpenCSD)
  std::array<uint8_t, kMaxPacketBytes> pend_{};
  size_t pend_len_ = 0;
  uint64_t pend_index_ = 0;
  // unsynchronised scan
  bool zeros_ = false;  // pend_ holds a run of 00 that may be an A-sync
  int async_zeros_ = 0;
  uint64_t packets_ = 0, errors_ = 0;
};

}  // namespace mabutrace::ptm

#endif  // MABUTRACE_HOST_PTM_PTM_PACKET_PROCESSOR_H
