// SPDX-License-Identifier: MIT
// stp_decoder.h: MIPI STPv2 packet decoder (nibbles -> packets), push-style.
//
// Input: the de-formatted byte stream of one STM trace source (after the
// CoreSight / TI TWP frame de-formatter), pushed in blocks. Output: one
// StpPacket per STPv2 packet, through StpPacketSink.
//
// Nibble order (MIPI STPv2 §5, ti-cptracer-facts.md §3.4, verified V): in
// every byte bits[3:0] are the first nibble, bits[7:4] the second. Opcodes
// are 1, 2 (F n) or 3 (F 0 n) nibbles; multi-nibble fields (master,
// channel, data, timestamp, frequency) are sent most-significant nibble
// first. A timestamp field is a length nibble L (0-12 literal, 13 -> 14,
// 14 -> 16 nibbles, 15 invalid) followed by L nibbles that replace the low
// 4*L bits of the running timestamp (natural binary, VERSION 3) or of its
// Gray code (VERSION 4).
//
//   opcode   packet      payload nibbles   TS    side effect
//   0        NULL        0                 -
//   1        M8          2                 -     master <- p, channel <- 0
//   2        MERR        2                 -     channel <- 0
//   3        C8          2                 -     channel[7:0] <- p
//   4..7     D8..D64     2,4,8,16          -
//   8..B     D8..D64 MTS 2,4,8,16          yes   marker
//   C / D    D4 / D4MTS  1                 D:yes D: marker
//   E        FLAG_TS     0                 yes
//   F1       M16         4                 -     master <- p, channel <- 0
//   F2       GERR        2                 -     master <- 0, channel <- 0
//   F3       C16         4                 -     channel <- p
//   F4..F7   D8..D64 TS  2,4,8,16          yes
//   F8..FB   D8..D64 M   2,4,8,16          -     marker
//   FC / FD  D4TS / D4M  1
//   FE       FLAG        0                 -
//   FF       ASYNC       21 x F then 0     -     (re)synchronise
//   F00      VERSION     1                 -     master, channel <- 0; TS coding
//   F01      NULL_TS     0                 yes
//   F02/F03  USER(_TS)   1 + (n+1)         F03
//   F04/F05  TIME(_TS)   2 + TS field      F05
//   F06/F07  TRIG(_TS)   2                 F07
//   F08/F09  FREQ(_TS)   8 (Hz)            F09
//   F0A/F0B  XSYNC(_TS)  2                 F0B
//
// OpenCSD 1.8.0 compatibility (the test oracle): packet offsets, raw bytes
// and synchronisation follow its STM packet processor, so that the lister
// output can be compared 1:1:
//  - offset = block index + bytes of the block consumed when the packet's
//    first nibble was taken (a packet starting in the high nibble of a byte
//    gets the index of the *next* byte);
//  - raw bytes: every byte a nibble was taken from; a packet that starts in
//    a high nibble shows that byte as (byte & 0xF0);
//  - before the first ASYNC (and after a bad packet) each pushed block
//    yields a NOTSYNC packet with the block's bytes (OpenCSD may print up to
//    3 bytes more: it reads past its block; we never do);
//  - an ASYNC found while unsynchronised is indexed at its first F byte at
//    the latest (OpenCSD's formula can overshoot after a broken F run);
//  - M16, USER, TIME and XSYNC are decoded here (MIPI STPv2) where OpenCSD
//    reports a reserved header; VERSION other than 3 (binary) or 4 (Gray)
//    is a bad sequence, as in OpenCSD.
//
// Errors: a reserved opcode, an invalid timestamp length (F), a broken
// ASYNC, a timestamp before any VERSION, or an unsupported VERSION yields a
// packet of type kReserved / kBadSequence carrying the byte offset, counted
// in stats(); the decoder then waits for the next ASYNC. Never throws on
// input, never reads outside the pushed block; memory: one packet.
#ifndef MABUTRACE_HOST_STM_STP_DECODER_H
#define MABUTRACE_HOST_STM_STP_DECODER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "deformatter.h"

namespace mabutrace::stm {

enum class StpType : uint8_t {
  kNotSync,        // bytes seen while not synchronised
  kIncompleteEot,  // a partial packet at the end of the trace (err_type = its type)
  kBadSequence,    // invalid field inside a packet (err_type = its type)
  kReserved,       // reserved / unsupported opcode
  kAsync,
  kVersion,
  kNull,
  kM8,
  kM16,
  kMerr,
  kGerr,
  kC8,
  kC16,
  kD4,
  kD8,
  kD16,
  kD32,
  kD64,
  kFlag,
  kTrig,
  kFreq,
  kUser,
  kTime,
  kXsync,
  kUnknown,  // no type decided yet (only as err_type)
};

// Timestamp coding chosen by VERSION (STPv2 §7: 3 = natural binary, 4 = Gray).
enum class StpTsCoding : uint8_t { kUnknown, kBinary, kGray };

struct StpPacket {
  uint64_t offset = 0;       // OpenCSD-compatible byte index (see above)
  std::vector<uint8_t> raw;  // bytes the packet was read from
  StpType type = StpType::kUnknown;
  StpType err_type = StpType::kUnknown;  // for kIncompleteEot / kBadSequence
  bool marker = false;                   // D*M, D*MTS, D4M
  bool has_ts = false;                   // carries a timestamp field
  uint8_t ts_bits = 0;                   // low bits of `timestamp` this packet updated
  uint64_t timestamp = 0;                // running timestamp after this packet (binary)
  uint64_t payload = 0;                  // data / master / channel / version / Hz / trigger
  uint8_t payload_bits = 0;              // 4, 8, 16, 32, 64 for data packets
  uint16_t master = 0;                   // current master after this packet
  uint16_t channel = 0;                  // current channel after this packet
  uint8_t opcode_nibbles = 0;            // 1, 2 or 3 (0 for NOTSYNC)
  std::string error;                     // kBadSequence / kReserved: why (with offset)
};

// "D32MTS", "FLAG", "ASYNC", ... (OpenCSD's names, so listings compare).
std::string StpTypeName(const StpPacket& p);
const char* StpTypeBaseName(StpType t);

// A packet of the decoder's whole-packet fast path, compact, for batches
// (StpPacketSink::OnPackets): StpPacket's fields, without the error fields
// (such a packet is never an error: err_type kUnknown, error empty), with the
// raw bytes left in place: raw[0, raw_len) of the block being pushed, valid
// only during the OnPackets call; raw_high: the packet starts in raw[0]'s
// high nibble, so StpPacket::raw shows that byte as (raw[0] & 0xF0).
// The eight bytes from `type` on are written as one word (stp_fast_path.cpp).
struct StpPacketRecord {
  uint64_t offset;
  uint64_t payload;
  uint64_t timestamp;
  const uint8_t* raw;
  uint16_t master;
  uint16_t channel;
  StpType type;
  bool marker;
  bool has_ts;
  uint8_t opcode_nibbles;
  uint8_t payload_bits;
  bool raw_high;
  uint8_t ts_bits;
  uint8_t raw_len;  // 1..19
};

// The StpPacket a record stands for (raw bytes copied, error fields cleared).
void ToPacket(const StpPacketRecord& r, StpPacket* p);

class StpPacketSink {
 public:
  virtual ~StpPacketSink() = default;
  virtual void OnPacket(const StpPacket& packet) = 0;
  // `n` packets of the fast path, in stream order, each reported once, either
  // here or through OnPacket (never both), and before any packet after them.
  // Why: one call and no raw-byte copy per packet for sinks that need neither.
  // Default: each one through OnPacket (ToPacket), so a sink that overrides
  // only OnPacket sees every packet as before.
  virtual void OnPackets(const StpPacketRecord* records, size_t n);
};

struct StpStats {
  uint64_t packets = 0;
  uint64_t notsync_bytes = 0;  // bytes reported in NOTSYNC packets
  uint64_t bad_packets = 0;    // kBadSequence + kReserved
  uint64_t asyncs = 0;
};

class StpDecoder {
 public:
  explicit StpDecoder(StpPacketSink* sink) : sink_(sink) {}
  StpDecoder(const StpDecoder&) = delete;
  StpDecoder& operator=(const StpDecoder&) = delete;

  // One block of de-formatted bytes; `block_index` is the index reported for
  // its first byte (OpenCSD: trace-buffer index of the frame/ID run).
  void Push(uint64_t block_index, const uint8_t* data, size_t n);
  // The de-formatter's block (coresight::DeformatterSink::OnBlock): `nruns`
  // runs back to back in data[0, n), run i from byte runs[i].pos on, its
  // byte k indexed runs[i].input_offset + k. The same packets as Push() once
  // per run, in order (tests compare them); faster: while synchronised,
  // packets are decoded in place across run ends.
  void PushBlock(const uint8_t* data, size_t n, const coresight::DataRun* runs, size_t nruns);
  // End of trace: a partial packet is reported as kIncompleteEot.
  void Finish();
  // Back to the power-on state (unsynchronised, no master/channel/TS).
  void Reset();

  const StpStats& stats() const { return stats_; }

  // The whole-packet fast path (on by default). Off, every packet is read a
  // nibble at a time; the output is the same either way (tests compare the
  // two on random and real input).
  void set_fast_path(bool on) { fast_path_ = on; }

 private:
  enum class Phase : uint8_t { kOpcode, kPayload, kTsLen, kTs, kAsync, kUserLen };
  bool ReadNibble(const uint8_t* data, size_t n, size_t* used, uint8_t* nib);
  void CheckSync(uint8_t nib);
  void SyncNibble(uint8_t nib, uint64_t byte_index);
  void ClearSync() {
    f_count_ = 0;
    sync_start_ = false;
    is_sync_ = false;
  }
  bool ScanSync(const uint8_t* data, size_t n, size_t* used);
  void WaitSync(uint64_t block_index, const uint8_t* data, size_t n, size_t* used);
  void Step(uint8_t nib);
  void Decide(uint16_t opcode, uint8_t nibbles);
  void AfterPayload();
  void ApplyTs();
  void Complete();
  void Fail(StpType kind, const char* why);
  void UpdateTimestamp(uint64_t value, uint8_t len);
  void Emit();
  void ClearPacket();
  void StartPacket();
  void ApplyIds(StpType type, uint16_t payload);
  // Fast path (stp_fast_path.cpp).
  enum class Fast : uint8_t { kDecoded, kNeedMore, kNotFast };
  // Bytes the fast path reads: p[k] has index runs[r].input_offset + k -
  // runs[r].pos for the last run r with runs[r].pos <= k; `run` is a cursor
  // (packets are read in order).
  struct FastView {
    FastView(const uint8_t* bytes, const coresight::DataRun* r, size_t n) : p(bytes), runs(r), nruns(n) { Seek(0); }
    const uint8_t* p;
    const coresight::DataRun* runs;
    size_t nruns;
    size_t run = 0;
    size_t next_pos = 0;  // where run + 1 starts (SIZE_MAX for the last run)
    uint64_t base = 0;    // index of p[k] in run `run`: base + k
    uint64_t Index(size_t k) {
      if (k >= next_pos) [[unlikely]]
        Next(k);
      return base + k;
    }
    // Packets are a few bytes and runs up to 15: the next run is almost
    // always the one (a call and a loop per run crossed cost 5 % before).
    void Next(size_t k) {
      ++run;
      base = runs[run].input_offset - runs[run].pos;
      next_pos = run + 1 < nruns ? runs[run + 1].pos : SIZE_MAX;
      if (k >= next_pos) [[unlikely]]
        Seek(k);
    }
    void Seek(size_t k);
  };
  // Where the packet being decoded starts (for OpenCSD's ASYNC index).
  struct FastStart {
    FastView* view;
    size_t q0;
    uint64_t offset;
  };
  size_t FastPackets(const uint8_t* data, size_t n, size_t used);
  size_t FastBlock(const uint8_t* data, size_t n, const coresight::DataRun* runs, size_t nruns, size_t q_start);
  bool CarriedFromRun(const uint8_t* data, size_t n, const coresight::DataRun& run, size_t end) const;
  template <bool kBounded>
  Fast FastPacket(FastView* v, size_t qend, size_t* q, StpPacketRecord* out);
  size_t InPlace(FastView* v, size_t n, size_t q);
  void EmitFast(const StpPacketRecord& r);
  void FlushBatch();
  void AfterFast(FastView v, size_t q);
  void EndFast();
  void TrackSync(FastView* v, size_t q0, size_t q, uint64_t offset, uint8_t last);
  bool SyncPacket(const FastStart& s, size_t q);
  void SyncField(const FastStart& s, uint64_t value, unsigned nibbles, size_t q);
  uint64_t SyncIndex(const FastStart& s, size_t q);
  void StartCarry(const uint8_t* p, uint64_t byte0, size_t q, size_t len);
  size_t ContinueCarry(uint64_t block_index, const uint8_t* data, size_t n);
  void ReplayCarry();

  StpPacketSink* sink_;
  StpStats stats_;
  StpPacket pkt_;
  // Stream state.
  bool synced_ = false;
  bool pending_valid_ = false;  // the high nibble of the last byte is unread
  uint8_t pending_ = 0;
  bool suppress_raw_ = false;
  uint16_t master_ = 0, channel_ = 0;
  uint64_t timestamp_ = 0;
  StpTsCoding ts_coding_ = StpTsCoding::kUnknown;
  // Sync search (OpenCSD semantics: F runs are counted across packets).
  uint32_t f_count_ = 0;
  bool sync_start_ = false, is_sync_ = false;
  uint64_t sync_index_ = 0;
  uint64_t block_index_ = 0;        // index of the block being pushed
  uint64_t nibble_byte_index_ = 0;  // index of the byte the last nibble came from
  // Current packet.
  bool in_packet_ = false;
  uint32_t num_nibbles_ = 0;
  Phase phase_ = Phase::kOpcode;
  uint16_t opcode_ = 0;
  uint8_t payload_left_ = 0;
  uint8_t ts_left_ = 0, ts_len_ = 0;
  uint64_t ts_value_ = 0;
  bool needs_ts_ = false;
  uint8_t time_stage_ = 0;  // TIME: 0 clock-id nibble, 1 version nibble
  // Fast path.
  bool fast_path_ = true;
  // A block's last bytes, zero padded so that 8-byte loads stay inside.
  static constexpr size_t kScratchBytes = 64;
  uint8_t scratch_[kScratchBytes + 8] = {};
  // A packet crossing block ends (the de-formatter's runs are <= 15 bytes):
  // its bytes so far, each one's index, where each pushed block's part
  // starts, and whether it starts in the high nibble of carry_[0].
  static constexpr size_t kCarryBytes = 24;  // > the longest fast-path packet (19)
  bool carrying_ = false;
  bool carry_high_ = false;
  size_t carry_len_ = 0, carry_blocks_ = 0;
  uint8_t carry_[kCarryBytes + 8] = {};
  uint64_t carry_index_[kCarryBytes] = {};
  uint8_t carry_block_start_[kCarryBytes] = {};
  // Packets decoded in place, not yet given to the sink (OnPackets).
  static constexpr size_t kBatchPackets = 256;
  size_t batch_n_ = 0;
  StpPacketRecord batch_[kBatchPackets];
};

}  // namespace mabutrace::stm

#endif  // MABUTRACE_HOST_STM_STP_DECODER_H
