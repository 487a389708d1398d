// SPDX-License-Identifier: MIT
// etm3_packet_processor.h: ETMv3 packet processor, bytes -> packets.
//
// Input: the de-formatted byte stream of ONE ETMv3 trace source, pushed in
// chunks of any size (behind a CoreSight formatter: one chunk per
// deformatter run, whose boundaries also bound the NOTSYNC blocks, as in
// OpenCSD). Output: one Etm3Packet per packet through a plain callback.
// Encodings: etm3_packet.h (IHI0014). On valid trace the packets, their
// byte indexes and the lister text equal OpenCSD 1.8.0's (docs/arm-trace.md
// lists the deliberate differences, all on malformed input).
//
// Synchronisation: the processor starts unsynchronised; bytes before the
// first A-sync (at least five 0x00 then 0x80) are NOTSYNC packets of at
// most 16 bytes, cut where a 0x00 run starts and at the end of each pushed
// chunk. Then packets are decoded.
//
// Bad input (never fatal, never reads out of bounds, memory bounded: a
// packet longer than kMaxPacketBytes is malformed):
//   - reserved header                       -> kReserved packet + error
//   - data packet with data trace disabled  -> kBadTraceMode packet + error
//   - malformed payload                     -> kBadSequence packet + error
//   - input ends inside a packet            -> kIncompleteEot packet + error (Finish)
// Errors carry the packet's byte index. ErrorPolicy::kResync (default):
// then wait for the next A-sync; kOpenCsd: the next byte is a header.
#ifndef MABUTRACE_HOST_ETM3_ETM3_PACKET_PROCESSOR_H
#define MABUTRACE_HOST_ETM3_ETM3_PACKET_PROCESSOR_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "etm3/etm3_config.h"
#include "etm3/etm3_packet.h"

namespace mabutrace::etm3 {

enum class ErrorPolicy : uint8_t { kResync, kOpenCsd };

enum class ErrorKind : uint8_t { kReservedHeader, kBadTraceMode, kBadSequence, kTruncated };
// "reserved-header", "bad-trace-mode", "bad-sequence", "truncated".
const char* ErrorKindName(ErrorKind kind);

struct Etm3Error {
  ErrorKind kind;
  uint64_t index;  // byte index of the offending packet
  uint8_t trace_id;
  std::string message;  // "byte 1234 (trace ID 0x10): reserved header 0x14"
};

struct Etm3Stats {
  uint64_t bytes = 0, packets = 0, not_sync_bytes = 0, errors = 0, syncs = 0;
};

using PacketCallback = void (*)(void* context, const Etm3Packet& packet);
using ErrorCallback = void (*)(void* context, const Etm3Error& error);

class Etm3PacketProcessor {
 public:
  static constexpr size_t kMaxPacketBytes = 32;

  Etm3PacketProcessor(const Etm3Config& config, PacketCallback on_packet, void* context,
                      ErrorCallback on_error = nullptr, ErrorPolicy policy = ErrorPolicy::kResync);
  Etm3PacketProcessor(const Etm3PacketProcessor&) = delete;
  Etm3PacketProcessor& operator=(const Etm3PacketProcessor&) = delete;

  // `n` bytes whose first byte has byte index `index`.
  void Push(uint64_t index, const uint8_t* data, size_t n);
  // End of trace: a partial packet becomes kIncompleteEot (+ kTruncated error).
  void Finish();
  // Back to the initial state (unsynchronised, packet state cleared).
  void Reset();

  const Etm3Stats& stats() const { return stats_; }
  const Etm3Config& config() const { return config_; }
  bool synced() const { return synced_; }

 private:
  enum class State : uint8_t { kWaitSync, kHeader, kPayload };
  // Each returns false when byte `b` must be processed again (as a header).
  bool WaitSync(uint64_t index, uint64_t stream, uint8_t b, bool last);
  void Header(uint64_t index, uint64_t stream, uint8_t b);
  bool Payload(uint8_t b);
  bool Append(uint8_t b);
  void ClearPacket();
  void ResetPacketState();
  void Emit(PacketType type);
  void EmitPart(size_t n, PacketType type);
  void Fail(PacketType type, ErrorKind kind, const std::string& what);
  bool PHeader(uint8_t b);
  bool BranchDone();
  bool IsyncDone();
  // Readers over data_[pos..len_); false when the bytes run out or are malformed.
  bool ReadBranchAddress(size_t* pos, uint32_t* value, int* bits);
  bool ReadException(size_t* pos);
  bool ReadCycleCount(size_t* pos, uint32_t* value);
  bool ReadDataAddress(size_t* pos);
  bool ReadDataValue(size_t* pos, unsigned size_code);
  void UpdateAddress(Address* a, uint32_t value, int bits);

  Etm3Config config_;
  PacketCallback on_packet_;
  void* context_;
  ErrorCallback on_error_;
  ErrorPolicy policy_;
  Etm3Stats stats_;
  Etm3Packet pkt_;

  State state_ = State::kWaitSync;
  bool synced_ = false;
  bool start_of_sync_ = false;  // a 0x00 run (A-sync candidate) is being collected
  bool wait_entry_ = true;      // first unsynced byte of a chunk / after a packet: it opens a block
  std::array<uint8_t, kMaxPacketBytes> data_{};
  size_t len_ = 0;
  uint64_t pkt_index_ = 0, pkt_stream_ = 0;
  uint64_t stream_base_ = 0;  // bytes pushed before the current chunk
  // payload bookkeeping of the packet being read
  size_t expected_ = 0;
  size_t isync_info_at_ = 0;
  bool branch_needs_exception_ = false;
  bool isync_got_cc_ = false;
  bool isync_lsip_ = false;
  bool expect_data_addr_ = false;
  bool found_data_addr_ = false;
};

}  // namespace mabutrace::etm3

#endif  // MABUTRACE_HOST_ETM3_ETM3_PACKET_PROCESSOR_H
