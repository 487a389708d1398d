// SPDX-License-Identifier: MIT
// deformatter.cpp: CoreSight formatter frame de-formatter (see deformatter.h).
#include "coresight/deformatter.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

namespace mabutrace::coresight {
namespace {

constexpr uint8_t kFsync[4] = {0xFF, 0xFF, 0xFF, 0x7F};

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Bit k of a nibble of the AUX byte moved to bit 0 of byte 2k of a
// little-endian 64-bit word: the real bit 0 of the frame's data bytes E(2k).
constexpr std::array<uint64_t, 16> MakeAuxSpread() {
  std::array<uint64_t, 16> t{};
  for (unsigned v = 0; v < 16; ++v)
    for (unsigned k = 0; k < 4; ++k)
      if ((v >> k) & 1) t[v] |= 1ull << (16 * k);
  return t;
}
constexpr std::array<uint64_t, 16> kAuxSpread = MakeAuxSpread();
// Bit 0 of bytes 0, 2, 4, 6: set where a frame's even byte is an ID byte.
constexpr uint64_t kEvenBit0 = 0x0001000100010001ull;

uint64_t LoadLe64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
void StoreLe64(uint8_t* p, uint64_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}
// Bit 0 of bytes 0, 2, 4, 6 of a little-endian word (set: an ID byte) as
// bits 0-3: the multiplication moves bits 0, 16, 32, 48 to 60-63 (its
// other products land below bit 60 without carries, or above bit 63).
unsigned IdSlots(uint64_t word) { return static_cast<unsigned>(((word & kEvenBit0) * 0x1000200040008000ull) >> 60); }

bool IsFullFsyncFrame(const uint8_t* f) {
  for (int i = 0; i < 16; i += 4)
    if (std::memcmp(f + i, kFsync, 4) != 0) return false;
  return true;
}

}  // namespace

const char* DeformatterErrorName(DeformatterErrorKind kind) {
  switch (kind) {
    case DeformatterErrorKind::kUnknownId: return "unknown-id";
    case DeformatterErrorKind::kReservedId: return "reserved-id";
    case DeformatterErrorKind::kTruncatedFrame: return "truncated-frame";
    case DeformatterErrorKind::kBadSync: return "bad-sync";
  }
  return "?";
}

FrameDeformatter::FrameDeformatter(const DeformatterOptions& options, DeformatterSink* sink)
    : options_(options), sink_(sink) {}

void FrameDeformatter::Reset() {
  stats_ = DeformatterStats{};
  partial_len_ = 0;
  partial_start_ = 0;
  input_offset_ = 0;
  current_id_ = -1;
  stream_offset_.fill(0);
  reported_.fill(false);
  sync_ff_run_ = 0;
  block_len_ = block_nruns_ = 0;
}

void FrameDeformatter::Flush() {
  if (block_len_ == 0) return;
  const size_t n = block_len_, nruns = block_nruns_;
  block_len_ = block_nruns_ = 0;
  sink_->OnBlock(block_id_, block_stream_, block_.data(), n, block_runs_.data(), nruns);
}

bool FrameDeformatter::Accepts(uint8_t id, uint64_t offset) {
  if (id == 0) return false;  // null ID: padding
  if (id > kMaxDataTraceId) {
    if (!reported_[id]) {
      reported_[id] = true;
      Flush();
      sink_->OnError(
          {DeformatterErrorKind::kReservedId, offset, id,
           "reserved trace ID " + Hex(id) + " at input offset " + std::to_string(offset) + "; its bytes are dropped"});
    }
    return false;
  }
  if (options_.restrict_ids && !options_.known_ids[id]) {
    if (!reported_[id]) {
      reported_[id] = true;
      Flush();
      sink_->OnError({DeformatterErrorKind::kUnknownId, offset, id,
                      "data for unknown trace ID " + Hex(id) + " at input offset " + std::to_string(offset) +
                          "; its bytes are dropped"});
    }
    return false;
  }
  return true;
}

void FrameDeformatter::Emit(uint8_t id, const uint8_t* data, size_t n, uint64_t first_offset) {
  if (n == 0) return;
  // The same ID as the pending block (so accepted already) and room: append.
  if (block_len_ == 0 || id != block_id_ || block_len_ + n > kBlockBytes || block_nruns_ == kBlockRuns) {
    if (id == 0xFF) {  // no ID seen yet
      stats_.unowned_bytes += n;
      return;
    }
    if (id == 0) {  // null ID: padding
      stats_.padding_bytes += n;
      return;
    }
    // A data ID with no restriction is accepted without the call.
    if ((id > kMaxDataTraceId || options_.restrict_ids) && !Accepts(id, first_offset)) {
      stats_.dropped_bytes += n;
      return;
    }
    Flush();
    block_id_ = id;
    block_stream_ = stream_offset_[id];
  }
  block_runs_[block_nruns_++] = {static_cast<uint32_t>(block_len_), first_offset};
  std::memcpy(block_.data() + block_len_, data, 16);  // a constant size: no call; n <= 15 kept
  block_len_ += n;
  stream_offset_[id] += n;
  stats_.data_bytes += n;
  stats_.bytes_per_id[id] += n;
}

// Where the one ID byte of a frame is (0, 2, .. 14), from the ID flags (bit
// 0 of each even byte, at least one set) of its two words; kOtherIdBytes
// with more than one.
namespace {
constexpr size_t kNoIdByte = 16, kOtherIdBytes = 17;
size_t RepeatedIdByte(uint64_t ids_lo, uint64_t ids_hi) {
  if (ids_lo != 0 && ids_hi != 0) return kOtherIdBytes;
  const uint64_t ids = ids_lo | ids_hi;
  if ((ids & (ids - 1)) != 0) return kOtherIdBytes;
  return static_cast<size_t>(std::countr_zero(ids)) / 8 + (ids_lo != 0 ? 0 : 8);
}
}  // namespace

// The common frames, from f on (at most nframes, the first at input offset
// `offset`): no ID byte in them but one repeating the current ID, and that
// ID's block pending with room. Each one's 15 data bytes are the frame's first 15 in order, the even
// ones' bit 0 from AUX, written into the block as two words (16 bytes
// written, 15 kept), one run from the frame's offset. A loop over locals: a
// call per frame cost a quarter of the de-formatter, and the byte stores
// into the block made every member reload per frame. FSYNC frames (FF
// bytes: bit 0 set) are never taken here. Returns how many were taken;
// the next one (if any) is ProcessFrame's. Called only where
// FastFramesMayTake(): elsewhere (padding, a block of another ID pending)
// the call alone cost more than the frame.
size_t FrameDeformatter::FastFrames(const uint8_t* f, size_t nframes, uint64_t offset) {
  if constexpr (std::endian::native != std::endian::little) return 0;
  const size_t len0 = block_len_;
  size_t len = len0, nruns = block_nruns_;
  const size_t room = std::min((kBlockBytes - len) / 15, kBlockRuns - nruns);
  const size_t most = std::min(nframes, room);
  uint8_t* const out = block_.data();
  DataRun* const runs = block_runs_.data();
  size_t i = 0;
  for (; i < most; ++i, f += kFrameBytes) {
    uint64_t lo, hi;
    std::memcpy(&lo, f, 8);
    std::memcpy(&hi, f + 8, 8);
    const uint64_t ids_lo = lo & kEvenBit0, ids_hi = hi & kEvenBit0;  // before AUX sets bit 0
    const uint8_t aux = f[15];
    lo |= kAuxSpread[aux & 0xF];
    hi |= kAuxSpread[aux >> 4];
    uint8_t* const d = out + len;
    size_t take = 15;
    if ((ids_lo | ids_hi) != 0) [[unlikely]] {
      // An ID byte repeating the current ID (real STM captures have one in
      // every eighth frame) is ignored, its AUX bit too: the bytes after it
      // move down one, through 16-byte windows (the block has the slack).
      const size_t id_at = RepeatedIdByte(ids_lo, ids_hi);
      if (id_at == kOtherIdBytes || (f[id_at] >> 1) != block_id_) break;
      std::memcpy(d, &lo, 8);
      std::memcpy(d + 8, &hi, 8);
      std::memcpy(&lo, d + id_at + 1, 8);
      std::memcpy(&hi, d + id_at + 9, 8);
      std::memcpy(d + id_at, &lo, 8);
      std::memcpy(d + id_at + 8, &hi, 8);
      take = 14;
    } else {
      std::memcpy(d, &lo, 8);
      std::memcpy(d + 8, &hi, 8);
    }
    runs[nruns++] = {static_cast<uint32_t>(len), offset + kFrameBytes * i};
    len += take;
  }
  if (i == 0) return 0;  // the first frame switches the ID (every such frame comes here first)
  const size_t bytes = len - len0;
  block_len_ = len;
  block_nruns_ = nruns;
  stats_.frames += i;
  stream_offset_[block_id_] += bytes;
  stats_.data_bytes += bytes;
  stats_.bytes_per_id[block_id_] += bytes;
  return i;
}

// Unpacks one 16-byte frame (arm-trace-facts.md §3), emitting runs with
// OpenCSD-compatible input offsets. Word-wide: the frame's 15 data bytes
// are its first 15 bytes in order with the even ones' bit 0 from AUX (an
// ID byte's slot holds junk, skipped), so a frame is cut into runs at its
// ID bytes only, not examined byte pair by byte pair.
void FrameDeformatter::ProcessFrame(const uint8_t* f, uint64_t frame_offset) {
  ++stats_.frames;
  if (options_.reset_on_4x_fsync && IsFullFsyncFrame(f)) {
    stats_.sync_bytes += kFrameBytes;
    Flush();
    sink_->OnReset(frame_offset);
    current_id_ = -1;
    return;
  }
  const uint8_t aux = f[15];
  uint64_t lo = LoadLe64(f), hi = LoadLe64(f + 8);
  const unsigned ids = IdSlots(lo) | IdSlots(hi) << 4;
  lo |= kAuxSpread[aux & 0xF];
  hi |= kAuxSpread[aux >> 4];
  const uint8_t id = current_id_ < 0 ? 0xFF : static_cast<uint8_t>(current_id_);
  if (ids == 0 && block_len_ != 0 && id == block_id_ && block_len_ + 15 <= kBlockBytes && block_nruns_ < kBlockRuns) {
    // No ID byte (the common case) and the pending block is the current
    // ID's: one run from the frame's offset, appended as two words (16
    // bytes written, 15 kept).
    block_runs_[block_nruns_++] = {static_cast<uint32_t>(block_len_), frame_offset};
    StoreLe64(block_.data() + block_len_, lo);
    StoreLe64(block_.data() + block_len_ + 8, hi);
    block_len_ += 15;
    stream_offset_[id] += 15;
    stats_.data_bytes += 15;
    stats_.bytes_per_id[id] += 15;
    return;
  }
  if (ids == 0 && id == 0) {  // null ID (padding), no ID byte: nothing to hand on
    stats_.padding_bytes += 15;
    return;
  }
  SplitAtIds(f, lo, hi, ids, frame_offset);
}

// A frame whose data bytes (lo, hi: as ProcessFrame reads them) do not just
// go on the pending block: at its ID bytes (bit k of `ids`: byte 2k is
// one) the data between them goes to the ID in force, in runs as OpenCSD
// cuts them. Out of line: the common frames need no stack frame for it.
__attribute__((noinline)) void FrameDeformatter::SplitAtIds(const uint8_t* f, uint64_t lo, uint64_t hi, unsigned ids,
                                                            uint64_t frame_offset) {
  uint8_t bytes[32];  // the data bytes, then room for 16-byte copies from any of them
  StoreLe64(bytes, lo);
  StoreLe64(bytes + 8, hi);
  std::memset(bytes + 16, 0, 16);
  const uint8_t aux = f[15];
  uint8_t run[32];  // a run (at most 15 bytes) and room for a 16-byte copy
  size_t run_len = 0;
  uint8_t run_id = current_id_ < 0 ? 0xFF : static_cast<uint8_t>(current_id_);
  uint64_t run_offset = frame_offset;
  size_t from = 0;  // bytes[from, 15) not placed yet
  for (; ids != 0; ids &= ids - 1) {
    const unsigned k = static_cast<unsigned>(std::countr_zero(ids));
    const size_t i = 2 * k;                        // the ID byte
    std::memcpy(run + run_len, bytes + from, 16);  // bytes[from, i) and some after, overwritten later
    run_len += i - from;
    const uint8_t new_id = static_cast<uint8_t>(f[i] >> 1);
    if (i == 14) {  // the last even byte: switches the ID, no data follows
      current_id_ = new_id;
      from = 15;
      break;
    }
    from = i + 1;
    if (new_id == run_id) continue;                      // a repeated ID is ignored, its AUX bit too
    if ((aux >> k) & 1) run[run_len++] = bytes[from++];  // AUX 1: the next byte is still the old ID's
    current_id_ = new_id;
    if (run_len > 0) {
      Emit(run_id, run, run_len, run_offset);
      run_len = 0;
      run_offset = frame_offset + i;
    }
    run_id = new_id;
  }
  std::memcpy(run + run_len, bytes + from, 16);
  run_len += 15 - from;
  Emit(run_id, run, run_len, run_offset);
}

void FrameDeformatter::Push(const uint8_t* data, size_t n) {
  const bool sync_mode = options_.has_fsyncs || options_.has_hsyncs;
  size_t pos = 0;
  if (!sync_mode) {
    // Complete a pending partial frame first.
    if (partial_len_ > 0) {
      size_t take = kFrameBytes - partial_len_;
      if (take > n) take = n;
      std::memcpy(partial_.data() + partial_len_, data, take);
      partial_len_ += take;
      pos = take;
      if (partial_len_ == kFrameBytes) {
        if (!FastFramesMayTake() || FastFrames(partial_.data(), 1, partial_start_) == 0)
          ProcessFrame(partial_.data(), partial_start_);
        partial_len_ = 0;
      }
    }
    // Whole frames straight from the input.
    while (n - pos >= kFrameBytes) {
      if (FastFramesMayTake()) {
        pos += kFrameBytes * FastFrames(data + pos, (n - pos) / kFrameBytes, input_offset_ + pos);
        if (n - pos < kFrameBytes) break;
      }
      ProcessFrame(data + pos, input_offset_ + pos);
      pos += kFrameBytes;
    }
    if (pos < n) {
      if (partial_len_ == 0) partial_start_ = input_offset_ + pos;
      std::memcpy(partial_.data() + partial_len_, data + pos, n - pos);
      partial_len_ += n - pos;
    }
    input_offset_ += n;
    Flush();
    return;
  }
  // TPIU / DSTREAM streams: byte by byte, removing FSYNC (at frame starts)
  // and HSYNC (at even frame positions) patterns.
  for (; pos < n; ++pos) {
    if (partial_len_ == 0) partial_start_ = input_offset_ + pos;
    partial_[partial_len_++] = data[pos];
    if (options_.has_fsyncs && partial_len_ <= 4 && std::memcmp(partial_.data(), kFsync, partial_len_) == 0) {
      if (partial_len_ == 4) {
        partial_len_ = 0;
        stats_.sync_bytes += 4;
        ++sync_ff_run_;
        if (options_.reset_on_4x_fsync && sync_ff_run_ == 4) {
          Flush();
          sink_->OnReset(input_offset_ + pos);
          current_id_ = -1;
          sync_ff_run_ = 0;
        }
      }
      continue;
    }
    if (sync_ff_run_ != 0) {
      if (options_.reset_on_4x_fsync) {
        Flush();
        sink_->OnError({DeformatterErrorKind::kBadSync, input_offset_ + pos, 0,
                        "run of " + std::to_string(sync_ff_run_) +
                            " FSYNCs (not a multiple of 4) before input offset " +
                            std::to_string(input_offset_ + pos)});
      }
      sync_ff_run_ = 0;
    }
    if (options_.has_hsyncs && (partial_len_ % 2) == 0 && partial_[partial_len_ - 2] == 0xFF &&
        partial_[partial_len_ - 1] == 0x7F) {
      partial_len_ -= 2;
      stats_.sync_bytes += 2;
      continue;
    }
    if (partial_len_ == kFrameBytes) {
      ProcessFrame(partial_.data(), partial_start_);
      partial_len_ = 0;
    }
  }
  input_offset_ += n;
  Flush();
}

void FrameDeformatter::Finish() {
  Flush();
  if (partial_len_ > 0) {
    sink_->OnError({DeformatterErrorKind::kTruncatedFrame, partial_start_, 0,
                    "incomplete frame at end of input: " + std::to_string(partial_len_) +
                        " of 16 bytes at input offset " + std::to_string(partial_start_)});
    partial_len_ = 0;
  }
}

}  // namespace mabutrace::coresight
