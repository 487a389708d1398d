// SPDX-License-Identifier: MIT
// ete_packet_processor.h: ETE packet processor, bytes -> packets (R-F1, R-F7).
//
// Input: the de-formatted byte stream of ONE trace source (a TRBE/ETR
// "source_data" buffer, or one trace ID out of coresight::FrameDeformatter),
// pushed in chunks of any size. Output: one EtePacket per packet, in order,
// through a plain function callback (no virtual call, no allocation per
// packet). Encodings: arm-trace-facts.md §4; behaviour matches OpenCSD
// 1.8.0's ETMv4/ETE packet processor on valid trace (docs/ete.md lists the
// deliberate differences).
//
// Synchronisation (§4.3): the processor starts unsynchronised and reports
// the bytes before the first A-Sync as kNotSync packets (chunks of at most 8
// bytes, split where a 0x00 could start an A-Sync, exactly as OpenCSD does).
// After an A-Sync (00 x11, 80) it decodes packets.
//
// Bad input (never fatal, never reads out of bounds, memory bounded):
//   - reserved header (§4.2, §4.16)    -> kReserved / kReservedCfg packet + error
//   - malformed or overlong payload    -> kBadSequence packet + error
//     (a ULEB128 field longer than its maximum, uleb128.h; a bad A-Sync)
//   - input ends inside a packet       -> kIncompleteEot packet + error (Finish)
// With ErrorPolicy::kResync (default) the processor then drops back to the
// unsynchronised state and resumes at the next A-Sync; with kOpenCsd it
// carries on with the next byte as a header, like OpenCSD (used by the
// oracle comparison). Errors carry the packet's byte index.
//
// Thread-safety: one processor per stream; no shared state.
#ifndef MABUTRACE_HOST_ETE_ETE_PACKET_PROCESSOR_H
#define MABUTRACE_HOST_ETE_ETE_PACKET_PROCESSOR_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "coresight/deformatter.h"
#include "ete/ete_config.h"
#include "ete/ete_packet.h"
#include "ete/ete_packet_fields.h"

namespace mabutrace::ete {

enum class ErrorPolicy : uint8_t {
  kResync,   // after a reserved header / bad sequence: wait for the next A-Sync
  kOpenCsd,  // continue decoding at the next byte (OpenCSD 1.8.0 behaviour)
};

struct EteError {
  EteErrorKind kind;
  uint64_t index;  // byte index of the offending packet (as EtePacket::index)
  uint8_t trace_id;
  std::string message;  // "byte 1234: reserved header 0x07 ..." (errors are rare)
};

struct EteStats {
  uint64_t bytes = 0;           // bytes pushed
  uint64_t packets = 0;         // packets emitted (all kinds)
  uint64_t not_sync_bytes = 0;  // bytes reported as kNotSync
  uint64_t errors = 0;          // errors reported
  uint64_t overflows = 0;       // Overflow packets (trace unit lost trace)
  uint64_t syncs = 0;           // A-Sync packets
};

using PacketCallback = void (*)(void* context, const EtePacket& packet);
// A packet of source `source` (an index the owner of several processors
// gives each, ete_source.h).
using SourcePacketCallback = void (*)(void* ctx, size_t source, const EtePacket& packet);
using ErrorCallback = void (*)(void* context, const EteError& error);

// Cache-line aligned: its hot fields (the packet, the run pointer's
// table, the stats) then sit at the same place in a line wherever the
// owner puts it. Placed by the heap as it came, a57_single_step's packets
// ran at 585 or 790 MB/s depending on the snapshot path's length.
class alignas(64) EtePacketProcessor {
 public:
  // Size of the buffer that completes a packet split across pushes: every
  // reader decides within this many bytes (the longest, a Trace Info with
  // every section, is 30 bytes).
  static constexpr size_t kMaxPacketBytes = 48;

  // `on_packet` (required) and `on_error` (optional) are called synchronously
  // from Push()/Finish() with `context`.
  EtePacketProcessor(const EteConfig& config, PacketCallback on_packet, void* context, ErrorCallback on_error = nullptr,
                     ErrorPolicy policy = ErrorPolicy::kResync);
  EtePacketProcessor(const EtePacketProcessor&) = delete;
  EtePacketProcessor& operator=(const EtePacketProcessor&) = delete;

  // Feeds `n` bytes whose first byte has byte index `index` (the stream
  // offset for raw streams; the deformatter's input_offset for framed ones).
  void Push(uint64_t index, const uint8_t* data, size_t n);
  // Feeds `n` bytes made of `nruns` (>= 1) runs whose byte indexes are
  // each contiguous (a coresight::FrameDeformatter block: byte k of run i
  // has index runs[i].input_offset + k). The same packets as pushing each
  // run on its own, but packets that straddle runs are read in place.
  void PushBlock(const uint8_t* data, size_t n, const coresight::DataRun* runs, size_t nruns);
  // End of trace: reports a partial packet (kIncompleteEot + kTruncated error).
  void Finish();
  // Back to the initial state: unsynchronised, all packet state cleared.
  void Reset();

  // From now on packets go to on_packet(ctx, source, packet) instead of the
  // constructor's callback (errors still go to on_error with `context`):
  // saves an owner of several processors a call per packet.
  void SetSourcePacketCallback(SourcePacketCallback on_packet, void* ctx, size_t source) {
    on_source_packet_ = on_packet;
    source_context_ = ctx;
    source_ = source;
  }

  const EteStats& stats() const { return stats_; }
  const EteConfig& config() const { return config_; }
  bool synced() const { return synced_; }

 private:
  enum class HotKind : uint8_t;
  enum class UnsyncFn : uint8_t { kNotSync, kExtension, kAsync };
  struct TableEntry {  // 3 bytes: what the hot loop reads per header
    PacketType type;
    HotKind hot;
    uint8_t is;  // address packets: the sub-ISA of the address (IS0 / IS1)
  };

  // Headers 0xC0-0xFF are atoms in every configuration (§4.15).
  static constexpr uint8_t kFirstAtomHeader = 0xC0;
  static HotKind HotKindOf(PacketFields::Reader reader, uint8_t is);
  void BuildTable();
  // Reads the packet at p[0..n) (n >= 1) with the reader of its kind and
  // hands it out; returns its length, or 0 (nothing handed out) when
  // p[0..n) does not hold all of it. Inline for the hot kinds.
  // Which callback Emit calls: the one set (a test per packet), or known
  // to be the constructor's or the source one (the hot loop, one copy each).
  enum class Sink : uint8_t { kAny, kPlain, kSource };
  template <Sink kSink = Sink::kAny>
  size_t ReadPacket(uint64_t index, uint64_t stream_offset, const uint8_t* p, size_t n);
  // Hands out the atom packet whose header is p[0] (>= kFirstAtomHeader).
  template <Sink kSink>
  void EmitAtom(uint64_t index, uint64_t stream_offset, const uint8_t* p);
  // ReadPacket over data[pos, n) while synchronised and packets are whole;
  // returns the bytes read. runs[run] holds data[pos].
  size_t ReadPackets(uint64_t stream_offset, const uint8_t* data, size_t pos, size_t n, const coresight::DataRun* runs,
                     size_t nruns, size_t run);
  // Where a run starts and its index bias (index minus address of a byte).
  struct RunStart {
    const uint8_t* start;
    uint64_t index_bias;
  };
  // ReadPackets' loop over the non-empty runs t[0..] (then two sentinels);
  // kOneRun: t[0] holds all of data[pos, n), no run lookups.
  template <bool kOneRun, Sink kSink>
  size_t ReadPacketsOf(uint64_t stream_offset, const uint8_t* data, size_t pos, size_t n, const RunStart* t);
  // ReadPacket for the other kinds; reserved headers and malformed packets
  // go on to ReadReserved / ReadMalformed.
  template <Sink kSink>
  size_t ReadOtherPacket(uint64_t index, uint64_t stream_offset, const uint8_t* p, size_t n);
  void CountExtension(PacketType type);  // an A-Sync or Overflow packet in stats_
  size_t ReadReserved(uint64_t index, uint64_t stream_offset, const uint8_t* p);
  size_t ReadMalformed(uint64_t index, uint64_t stream_offset, const uint8_t* p, PacketExtent x);
  // Hands out fields_.packet() as bytes p[0..len) (its type already set);
  // the caller then clears its per-packet fields.
  template <Sink kSink = Sink::kAny>
  void Emit(uint64_t index, uint64_t stream_offset, const uint8_t* p, size_t len);
  void UnsyncedByte(uint64_t index, uint64_t stream_offset, uint8_t b);
  void DumpUnsynced(size_t n);
  void EmitPending(PacketType type, PacketType err_type, size_t n);
  void Error(EteErrorKind kind, uint64_t index, const std::string& what);
  void ApplyErrorPolicy();

  EteConfig config_;
  PacketFields fields_;  // the packet-layer state; reads config_
  PacketCallback on_packet_;
  void* context_;
  SourcePacketCallback on_source_packet_ = nullptr;  // set: used instead of on_packet_
  void* source_context_ = nullptr;
  size_t source_ = 0;
  ErrorCallback on_error_;
  ErrorPolicy policy_;
  std::array<TableEntry, 256> table_{};
  std::array<PacketFields::Reader, 256> readers_{};  // per header; nullptr: reserved

  EteStats stats_;
  bool synced_ = false;

  // ReadPackets' runs, then a sentinel. Grows to the longest block's runs.
  std::vector<RunStart> run_starts_;

  // Partial packet (synced) or unsynchronised bytes being examined.
  std::array<uint8_t, kMaxPacketBytes> pend_{};
  size_t pend_len_ = 0;
  uint64_t pend_index_ = 0;   // byte index of pend_[0] (OpenCSD packet index)
  uint64_t pend_stream_ = 0;  // stream offset of pend_[0]
  UnsyncFn unsync_fn_ = UnsyncFn::kNotSync;
  PacketType unsync_type_ = PacketType::kNotSync;
  uint64_t update_index_ = 0;     // OpenCSD m_update_on_unsync_packet_index
  bool unsync_continue_ = false;  // unsynced bytes dumped, same "packet" goes on
};

}  // namespace mabutrace::ete

#endif  // MABUTRACE_HOST_ETE_ETE_PACKET_PROCESSOR_H
