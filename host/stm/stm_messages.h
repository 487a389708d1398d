// SPDX-License-Identifier: MIT
// stm_messages.h: STP packets -> STM messages (master, channel, data, marker,
// timestamp), the second decode layer.
//
// One StmMessage per packet that carries something for the software/hardware
// master: data (D4..D64, any marker/timestamp variant), FLAG (a marker
// without data), TRIG, FREQ, MERR/GERR errors and NULL_TS. Master and
// channel are the current ones (M8/M16/C8/C16, reset by VERSION, GERR,
// MERR); `id_valid` is false until an M8/M16 after (re)synchronisation,
// as in OpenCSD's "(Ma:0x??; Ch:0x??)". NOTSYNC and bad packets reset the
// state (ids invalid). Semantics follow OpenCSD 1.8.0's STM packet decoder
// so that its SWTRACE elements are the oracle (tests/host/stm).
//
// Timestamps are the STM's running timestamp (STP units); FREQ gives its
// frequency in Hz (`ts_freq_hz()` keeps the last one, 0 = unknown).
#ifndef MABUTRACE_HOST_STM_STM_MESSAGES_H
#define MABUTRACE_HOST_STM_STM_MESSAGES_H

#include <cstddef>
#include <cstdint>

#include "stp_decoder.h"

namespace mabutrace::stm {

enum class StmMessageKind : uint8_t {
  kData,         // D4..D64
  kFlag,         // FLAG / FLAG_TS: marker only
  kTrigger,      // TRIG: 8-bit trigger data
  kFreq,         // FREQ: data = timestamp frequency in Hz (32 bits)
  kMasterError,  // MERR: data = error code
  kGlobalError,  // GERR: data = error code
  kNullTs,       // NULL with a timestamp
};
const char* StmMessageKindName(StmMessageKind k);

struct StmMessage {
  uint64_t offset = 0;  // byte offset of the packet (StpPacket::offset)
  StmMessageKind kind = StmMessageKind::kData;
  bool id_valid = false;  // master/channel known
  uint16_t master = 0;
  uint16_t channel = 0;
  uint64_t data = 0;
  uint8_t size_bits = 0;  // 0 (no data), 4, 8, 16, 32, 64
  bool marker = false;
  bool has_ts = false;
  uint64_t timestamp = 0;  // valid when has_ts
};

class StmMessageSink {
 public:
  virtual ~StmMessageSink() = default;
  virtual void OnMessage(const StmMessage& m) = 0;
  // `n` messages in stream order, each reported once, either here or through
  // OnMessage (never both), and before any OnSyncLost / OnResync after them.
  // Why: one call per batch of packets instead of one virtual call per
  // message for sinks that override it. Default: each one through OnMessage.
  virtual void OnMessages(const StmMessage* messages, size_t n) {
    for (size_t i = 0; i < n; ++i) OnMessage(messages[i]);
  }
  // The stream lost synchronisation at `offset` (NOTSYNC, bad packet):
  // messages spanning several packets must not continue across it.
  virtual void OnSyncLost(uint64_t /*offset*/) {}
  // The stream (re)synchronised at `offset`: an ASYNC or the VERSION that
  // follows it (MIPI STP: master and channel restart there). A message
  // spanning several packets does not continue across it either.
  virtual void OnResync(uint64_t /*offset*/, StpType /*type*/) {}
};

class StmMessageDecoder final : public StpPacketSink {
 public:
  explicit StmMessageDecoder(StmMessageSink* sink) : sink_(sink) {}
  void OnPacket(const StpPacket& p) override;
  // The fast path's batches, read in place (same messages as OnPacket).
  void OnPackets(const StpPacketRecord* records, size_t n) override;
  uint64_t ts_freq_hz() const { return ts_freq_hz_; }
  uint64_t messages() const { return messages_; }

 private:
  // Inlined into the batch loop: GCC kept it a call per packet, about 9 of
  // the 49 instructions a packet took (callgrind, the real capture).
  template <typename Packet>
  [[gnu::always_inline]] inline void Decode(const Packet& p, size_t* k);
  // Hands batch_[0, n) to the sink; returns 0 (the new count).
  size_t Flush(size_t n);

  StmMessageSink* sink_;
  bool id_valid_ = false;
  uint64_t ts_freq_hz_ = 0;
  uint64_t messages_ = 0;
  // Messages of one OnPacket / OnPackets call not yet given to the sink
  // (OnMessages): handed on at its end, when full, and before OnSyncLost /
  // OnResync.
  static constexpr size_t kBatchMessages = 256;
  StmMessage batch_[kBatchMessages];
};

}  // namespace mabutrace::stm

#endif  // MABUTRACE_HOST_STM_STM_MESSAGES_H
