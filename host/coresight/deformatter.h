// SPDX-License-Identifier: MIT
// deformatter.h: CoreSight trace formatter frame de-formatter (R-F5).
//
// CoreSight sinks (ETB/ETF/ETR, TPIU) interleave several trace sources in
// 16-byte frames (arm-trace-facts.md §3):
//
//   byte:  0    1    2    3   ...  12   13   14   15
//         [E0] [D1] [E2] [D3] ... [E12][D13][E14][AUX]
//
//   even byte E(2k), k = 0..7:  bit0 = 1 -> ID byte, new trace ID = bits[7:1]
//                               bit0 = 0 -> data byte, real bit0 = AUX bit k
//   odd byte D(2k+1):           always a full data byte
//   AUX bit k for an ID byte:   1 = byte 2k+1 still belongs to the previous
//                               ID, 0 = it belongs to the new ID
//   byte 14 as ID byte:         switches ID, no data follows in this frame
//
// Trace IDs 0x01-0x6F carry data; 0x00 (null) and 0x70-0x7F are reserved
// (§3): bytes for them are dropped and counted. FSYNC (FF FF FF 7F, 4-byte
// aligned) and HSYNC (FF 7F, 2-byte aligned) only occur in TPIU/DSTREAM
// streams (options has_fsyncs / has_hsyncs). Memory-aligned sinks
// (snapshot format "coresight") have no syncs: every 16 bytes is a frame.
//
// Usage (push-style, any chunking; memory bounded: one partial frame):
//
//   #include "coresight/deformatter.h"     // (host/ is on the include path)
//   struct MySink : coresight::DeformatterSink { ... };
//   coresight::FrameDeformatter dfm(options, &sink);
//   dfm.Push(data, n);  ... dfm.Push(...);   // chunks of any size
//   dfm.Finish();                             // reports a trailing partial frame
//
// Output: for every trace ID, its de-formatted bytes in order, delivered as
// runs (at most 15 bytes, all from one frame) with
//   stream_offset - index of the run's first byte in that ID's de-formatted
//                   stream (0-based, counts only bytes delivered for the ID)
//   input_offset  - where the run starts in the framed input (bytes pushed
//                   since construction/Reset), using OpenCSD's convention so
//                   that indexes equal its lister's "Idx": the first run of a
//                   frame has the frame's offset; a run opened by an ID
//                   change has the offset of that ID byte. Byte k of a run is
//                   reported by packet decoders as input_offset + k.
//   input_offsets - reserved for exact per-byte offsets; currently nullptr.
// Consecutive runs of one ID within a Push() call are handed to the sink
// together, as one block (DeformatterSink::OnBlock: the bytes back to back
// plus a table of where each run starts), so that a decoder can read
// packets across frames in place; the default OnBlock passes each run to
// OnData, in order. A block is handed on before the next ID's data, before
// any OnError/OnReset and at the end of every Push(), so every sink sees
// the same calls in the same order as run by run.
// An ID byte repeating the current ID is ignored (its AUX bit too), as in
// OpenCSD.
// Data before the first ID byte of the input has no owner and is dropped
// (counted in stats().unowned_bytes), as OpenCSD does; bytes of the null ID
// 0x00 are padding (stats().padding_bytes).
//
// Errors are reported through the sink, never thrown; decoding continues:
//   kUnknownId      - data for an ID not in options.known_ids (only when
//                     options.restrict_ids): reported once per ID, bytes dropped
//   kReservedId     - data for a reserved ID 0x70-0x7F: reported once per ID
//   kTruncatedFrame - Finish() with 1..15 bytes of an incomplete frame left
//   kBadSync        - (sync modes) an FSYNC run that is not a whole frame
//                     when reset_on_4x_fsync is set
#ifndef MABUTRACE_HOST_CORESIGHT_DEFORMATTER_H
#define MABUTRACE_HOST_CORESIGHT_DEFORMATTER_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace mabutrace::coresight {

constexpr size_t kFrameBytes = 16;
constexpr uint8_t kMaxDataTraceId = 0x6F;
constexpr int kNumTraceIds = 128;

struct DeformatterOptions {
  bool has_fsyncs = false;         // stream contains FSYNC patterns (TPIU/DSTREAM)
  bool has_hsyncs = false;         // stream contains HSYNC patterns (TPIU)
  bool reset_on_4x_fsync = false;  // a frame of 4 FSYNCs (Linux barrier) resets all streams
  // With restrict_ids, only IDs with known_ids[id] set are delivered; bytes
  // for other IDs are dropped and reported once per ID as kUnknownId.
  // Without it every data ID (0x01-0x6F) is delivered.
  std::array<bool, kNumTraceIds> known_ids{};
  bool restrict_ids = false;
};

enum class DeformatterErrorKind {
  kUnknownId,
  kReservedId,
  kTruncatedFrame,
  kBadSync,
};
const char* DeformatterErrorName(DeformatterErrorKind kind);

struct DeformatterError {
  DeformatterErrorKind kind;
  uint64_t input_offset;  // byte index in the framed input where it was found
  uint8_t trace_id;       // the ID concerned (0 when none)
  std::string message;    // human-readable, includes the offset
};

// One run of a block (DeformatterSink::OnBlock): it starts at the block's
// byte `pos`; its byte k has input offset input_offset + k.
struct DataRun {
  uint32_t pos;
  uint64_t input_offset;
};

// Receives de-formatted data. Called synchronously from Push()/Finish().
class DeformatterSink {
 public:
  virtual ~DeformatterSink() = default;
  // `n` bytes of trace ID `trace_id` (0x01-0x6F) from `nruns` (>= 1)
  // consecutive runs: runs[0].pos == 0, positions increasing, run i ends
  // where run i+1 starts (the last at n). stream_offset: that of data[0].
  // Default: OnData once per run.
  virtual void OnBlock(uint8_t trace_id, uint64_t stream_offset, const uint8_t* data, size_t n, const DataRun* runs,
                       size_t nruns) {
    for (size_t i = 0; i < nruns; ++i) {
      const size_t end = i + 1 < nruns ? runs[i + 1].pos : n;
      OnData(trace_id, stream_offset + runs[i].pos, runs[i].input_offset, data + runs[i].pos, end - runs[i].pos,
             nullptr);
    }
  }
  // `n` (1..15) bytes of trace ID `trace_id` (0x01-0x6F); see the file
  // comment for the offsets. `input_offsets` is currently always nullptr.
  virtual void OnData(uint8_t trace_id, uint64_t stream_offset, uint64_t input_offset, const uint8_t* data, size_t n,
                      const uint64_t* input_offsets) = 0;
  // A problem in the framed input; decoding goes on.
  virtual void OnError(const DeformatterError& error) = 0;
  // A reset point (4 x FSYNC barrier with reset_on_4x_fsync): downstream
  // decoders should drop partial packets and resynchronise. Default: ignore.
  virtual void OnReset(uint64_t /*input_offset*/) {}
};

struct DeformatterStats {
  uint64_t frames = 0;         // complete frames processed
  uint64_t data_bytes = 0;     // bytes delivered to OnData
  uint64_t unowned_bytes = 0;  // data before the first ID byte
  uint64_t dropped_bytes = 0;  // bytes for reserved/unknown IDs
  uint64_t padding_bytes = 0;  // bytes for the null ID 0x00 (padding)
  uint64_t sync_bytes = 0;     // FSYNC/HSYNC bytes skipped
  std::array<uint64_t, kNumTraceIds> bytes_per_id{};
};

class FrameDeformatter {
 public:
  // `sink` must outlive the deformatter.
  FrameDeformatter(const DeformatterOptions& options, DeformatterSink* sink);
  FrameDeformatter(const FrameDeformatter&) = delete;
  FrameDeformatter& operator=(const FrameDeformatter&) = delete;

  // Feeds `n` bytes of framed input, continuing where the last call stopped.
  void Push(const uint8_t* data, size_t n);
  // End of input: reports an incomplete trailing frame (kTruncatedFrame).
  void Finish();
  // Forgets all state (current ID, partial frame, stream offsets, counters).
  void Reset();

  const DeformatterStats& stats() const { return stats_; }
  // Bytes pushed so far (the next byte's input offset).
  uint64_t input_offset() const { return input_offset_; }

 private:
  // Bounds of a block: bytes, and runs (a frame adds at most 8 runs).
  static constexpr size_t kBlockBytes = 4096;
  static constexpr size_t kBlockRuns = 512;

  // FastFrames takes frames only onto the current ID's pending block.
  bool FastFramesMayTake() const { return block_len_ != 0 && current_id_ == block_id_; }
  size_t FastFrames(const uint8_t* f, size_t nframes, uint64_t offset);
  void ProcessFrame(const uint8_t* frame, uint64_t frame_offset);
  void SplitAtIds(const uint8_t* frame, uint64_t lo, uint64_t hi, unsigned ids, uint64_t frame_offset);
  void Flush();  // hands the pending block to the sink
  // A run of n (<= 15) bytes of `id`; data[0..16) must be readable.
  void Emit(uint8_t id, const uint8_t* data, size_t n, uint64_t first_offset);
  bool Accepts(uint8_t id, uint64_t offset);

  DeformatterOptions options_;
  DeformatterSink* sink_;
  DeformatterStats stats_;
  std::array<uint8_t, kFrameBytes> partial_{};
  size_t partial_len_ = 0;
  uint64_t partial_start_ = 0;  // input offset of partial_[0]
  uint64_t input_offset_ = 0;
  int current_id_ = -1;  // -1 = no ID seen yet
  std::array<uint64_t, kNumTraceIds> stream_offset_{};
  std::array<bool, kNumTraceIds> reported_{};
  uint32_t sync_ff_run_ = 0;  // sync modes: consecutive 0xFF bytes seen
  // The pending block: block_len_ bytes of ID block_id_ in block_runs_ runs.
  uint8_t block_id_ = 0;
  size_t block_len_ = 0;
  size_t block_nruns_ = 0;
  uint64_t block_stream_ = 0;  // stream offset of block_[0]
  // + 32: a frame is written as 16 bytes, and a repeated ID byte is taken out
  // with 16-byte moves from up to 15 bytes on.
  std::array<uint8_t, kBlockBytes + 32> block_{};
  std::array<DataRun, kBlockRuns> block_runs_{};
};

}  // namespace mabutrace::coresight

#endif  // MABUTRACE_HOST_CORESIGHT_DEFORMATTER_H
