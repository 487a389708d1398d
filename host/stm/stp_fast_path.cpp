// SPDX-License-Identifier: MIT
// stp_fast_path.cpp: StpDecoder's whole-packet fast path (see stp_decoder.h).
//
// Why: reading one nibble at a time through the phase machine costs a call,
// a sync check and a switch per nibble (docs/performance.md, STM). Here a
// packet that lies entirely inside the pushed block is decoded in one go:
// its opcode from the table, each field (payload, timestamp) with one 8-byte
// load, the F-run tracking of OpenCSD's ASYNC search per field with bit
// masks. The result is exactly what the nibble path produces (packet, raw
// bytes, offset, stream state); everything else - ASYNC, VERSION, USER,
// TIME, reserved opcodes, timestamp errors - is left to the nibble path.
// A packet crossing the block end (a de-formatter run is <= 15 bytes, so
// that is one packet in three) is carried: its bytes wait in carry_ until
// the next block completes it; if it then turns out not to be one for the
// fast path, the carried bytes are pushed again through the nibble path,
// block by block with their own indexes, which gives what that path would
// have given on the first push.
// PushBlock (the de-formatter's consecutive runs of one trace ID, back to
// back) reads packets in place across run ends: no copy and no carry; each
// byte's index comes from its run (FastView), as Push once per run gives it.
// The fast path reports packets without the nibble path's per-packet reset
// of pkt_ (it sets every field itself); EndFast() leaves pkt_ as that path
// expects it.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>

#include "stp_decoder.h"
#include "stp_opcodes.h"

namespace mabutrace::stm {

using namespace stp;

namespace {

// Bytes a packet of the fast path can span: 3 opcode + 16 payload + 1 length
// + 16 timestamp nibbles, starting in a high nibble: 19 bytes; its field
// loads read up to 7 bytes past its last byte.
constexpr size_t kInPlaceMargin = 19 + 8;

// raw = src[0, len): resizing keeps the storage, the copy is a few
// overlapping fixed-size moves (a packet's raw bytes are 1..19).
void AssignRaw(std::vector<uint8_t>* raw, const uint8_t* src, size_t len) {
  raw->resize(len);
  uint8_t* dst = raw->data();
  if (len >= 8) {
    for (size_t i = 0; i + 8 < len; i += 8) std::memcpy(dst + i, src + i, 8);
    std::memcpy(dst + len - 8, src + len - 8, 8);
  } else if (len >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + len - 4, src + len - 4, 4);
  } else {
    dst[0] = src[0];
    dst[len / 2] = src[len / 2];
    dst[len - 1] = src[len - 1];
  }
}

// FastPacket writes StpPacketRecord's bytes from `type` on as one word.
static_assert(offsetof(StpPacketRecord, marker) == offsetof(StpPacketRecord, type) + 1);
static_assert(offsetof(StpPacketRecord, has_ts) == offsetof(StpPacketRecord, type) + 2);
static_assert(offsetof(StpPacketRecord, opcode_nibbles) == offsetof(StpPacketRecord, type) + 3);
static_assert(offsetof(StpPacketRecord, payload_bits) == offsetof(StpPacketRecord, type) + 4);
static_assert(offsetof(StpPacketRecord, raw_high) == offsetof(StpPacketRecord, type) + 5);
static_assert(offsetof(StpPacketRecord, ts_bits) == offsetof(StpPacketRecord, type) + 6);
static_assert(offsetof(StpPacketRecord, raw_len) == offsetof(StpPacketRecord, type) + 7);
static_assert(offsetof(FirstByteOp, marker) == 1 && offsetof(FirstByteOp, ts) == 2 &&
              offsetof(FirstByteOp, opcode_nibbles) == 3 && offsetof(FirstByteOp, payload_bits) == 4 &&
              sizeof(FirstByteOp) == 8);

}  // namespace

void StpDecoder::FastView::Seek(size_t k) {
  while (run + 1 < nruns && runs[run + 1].pos <= k) ++run;
  next_pos = run + 1 < nruns ? runs[run + 1].pos : SIZE_MAX;
  base = runs[run].input_offset - runs[run].pos;
}

void StpPacketSink::OnPackets(const StpPacketRecord* records, size_t n) {
  StpPacket p;
  for (size_t i = 0; i < n; ++i) {
    ToPacket(records[i], &p);
    OnPacket(p);
  }
}

void ToPacket(const StpPacketRecord& r, StpPacket* p) {
  p->offset = r.offset;
  AssignRaw(&p->raw, r.raw, r.raw_len);
  if (r.raw_high) p->raw[0] &= 0xF0;
  p->type = r.type;
  p->err_type = StpType::kUnknown;
  p->marker = r.marker;
  p->has_ts = r.has_ts;
  p->ts_bits = r.ts_bits;
  p->timestamp = r.timestamp;
  p->payload = r.payload;
  p->payload_bits = r.payload_bits;
  p->master = r.master;
  p->channel = r.channel;
  p->opcode_nibbles = r.opcode_nibbles;
  p->error.clear();
}

// A packet decoded from a copy (scratch_, carry_): reported at once, while
// its bytes are there.
void StpDecoder::EmitFast(const StpPacketRecord& r) {
  FlushBatch();
  ++stats_.packets;
  ToPacket(r, &pkt_);
  sink_->OnPacket(pkt_);
}

void StpDecoder::FlushBatch() {
  if (batch_n_ == 0) return;
  const size_t n = batch_n_;
  batch_n_ = 0;
  stats_.packets += n;
  sink_->OnPackets(batch_, n);
}

// Packets in place from nibble q of v->p while the block (n bytes) has the
// room their loads need, batched; returns the nibble where the first other
// one starts (the batch is given to the sink before that).
size_t StpDecoder::InPlace(FastView* v, size_t n, size_t q) {
  if (n < kInPlaceMargin) return q;
  const size_t q_max = 2 * (n - kInPlaceMargin) + 1;  // n - q / 2 >= kInPlaceMargin
  size_t k = batch_n_;  // a local: the record stores would make a member reload per packet
  while (q <= q_max && FastPacket<false>(v, 2 * n, &q, &batch_[k]) == Fast::kDecoded) {
    if (++k == kBatchPackets) {
      batch_n_ = k;
      FlushBatch();
      k = 0;
    }
  }
  batch_n_ = k;
  FlushBatch();
  return q;
}

// The stream state after fast-path packets that ended at nibble q of v (as
// ReadNibble leaves it: the unread high nibble, the last byte read).
void StpDecoder::AfterFast(FastView v, size_t q) {
  pending_valid_ = (q & 1) != 0;
  if (pending_valid_) pending_ = static_cast<uint8_t>(v.p[q / 2] >> 4);
  nibble_byte_index_ = v.Index((q - 1) / 2);
}

// pkt_ as the nibble path leaves it after a packet: cleared, holding the
// masked byte of an unread high nibble.
void StpDecoder::EndFast() {
  ClearPacket();
  if (pending_valid_) pkt_.raw.push_back(static_cast<uint8_t>(pending_ << 4));
}

void StpDecoder::PushBlock(const uint8_t* data, size_t n, const coresight::DataRun* runs, size_t nruns) {
  size_t r = 0, at = 0;        // run r, from byte `at` on, is next
  size_t not_fast = SIZE_MAX;  // nibble of a carried packet found not to be one for the fast path
  while (r < nruns) {
    size_t q0 = SIZE_MAX;  // in place from this nibble on
    if (fast_path_ && synced_ && !in_packet_ && !carrying_ && !pending_valid_) {
      q0 = 2 * at;
    } else if (fast_path_ && carrying_ && r > 0 && CarriedFromRun(data, n, runs[r - 1], at)) {
      // The packet Push carried out of the previous run is read in place
      // instead; else every packet after a stop (ASYNC, NOTSYNC) would go
      // through the carry until a packet happens to end at a run end. Once
      // per packet: one that is not for the fast path is carried again by
      // Push and then replayed through the nibble path, as before.
      q0 = 2 * (at - carry_len_) + (carry_high_ ? 1 : 0);
      if (q0 == not_fast) {
        q0 = SIZE_MAX;
      } else {
        carrying_ = false;
        carry_len_ = carry_blocks_ = 0;
        --r;
      }
    }
    if (q0 != SIZE_MAX) {
      // In place while the block has room; the rest of the run the next
      // nibble is in goes on below (a byte's unread high nibble too).
      const size_t q = FastBlock(data, n, runs, nruns, q0);
      if (q == q0) not_fast = q0;
      while (r + 1 < nruns && runs[r + 1].pos <= q / 2) ++r;
      at = (q + 1) / 2;
    }
    const size_t end = r + 1 < nruns ? runs[r + 1].pos : n;
    Push(runs[r].input_offset + (at - runs[r].pos), data + at, end - at);
    at = end;
    ++r;
  }
}

// Whether the carried packet is all in `run` of this block, which ends at
// byte `end` (so it can be read again from there), with the room in the
// block that reading it in place needs.
bool StpDecoder::CarriedFromRun(const uint8_t* data, size_t n, const coresight::DataRun& run, size_t end) const {
  if (carry_blocks_ != 1 || carry_len_ > end - run.pos || n - (end - carry_len_) < kInPlaceMargin) return false;
  const size_t first = end - carry_len_;
  return carry_index_[0] == run.input_offset + (first - run.pos) && std::memcmp(carry_, data + first, carry_len_) == 0;
}

// Packets from nibble q_start of the block (a byte's high nibble when it
// starts a carried packet) while they lie in it with the room the field
// loads need; returns the nibble where the first other one starts, with the
// stream state (pending nibble, last byte) as the nibble path reads it.
size_t StpDecoder::FastBlock(const uint8_t* data, size_t n, const coresight::DataRun* runs, size_t nruns,
                             size_t q_start) {
  FastView v(data, runs, nruns);
  const size_t q = InPlace(&v, n, q_start);
  if (q != q_start || (q & 1)) AfterFast(v, q);
  EndFast();
  return q;
}

// Decodes packets from byte `used` (or its pending high nibble) on while they
// fit in the block; returns the new `used`. pending_valid_ / pending_ then
// describe the last byte, as after ReadNibble.
size_t StpDecoder::FastPackets(const uint8_t* data, size_t n, size_t used) {
  // A pending nibble from the previous block (left by the nibble path): its
  // byte is not in `data`.
  if (pending_valid_ && used == 0) return 0;
  size_t q = 2 * used - (pending_valid_ ? 1 : 0);  // next nibble, in block nibbles
  // In place while every load stays inside the block (large blocks).
  const coresight::DataRun block{0, block_index_};
  FastView v(data, &block, 1);
  const size_t q_in = q;
  q = InPlace(&v, n, q);
  if (q != q_in) AfterFast(v, q);
  if (n - q / 2 >= kInPlaceMargin) {  // stopped at a packet for the nibble path
    EndFast();
    return (q + 1) / 2;
  }
  // The rest (all of a de-formatter run of <= 15 bytes) from a padded copy.
  const size_t base = q / 2;
  const size_t len = n - base;
  if (len == 0 || len > kScratchBytes) {
    EndFast();
    return (q + 1) / 2;
  }
  std::memcpy(scratch_, data + base, len);
  std::memset(scratch_ + len, 0, 8);
  size_t qs = q - 2 * base;
  const coresight::DataRun rest{0, block_index_ + base};
  FastView vs(scratch_, &rest, 1);
  const size_t qs_in = qs;
  Fast r;
  StpPacketRecord rec;
  while ((r = FastPacket<true>(&vs, 2 * len, &qs, &rec)) == Fast::kDecoded) EmitFast(rec);
  if (qs != qs_in) AfterFast(vs, qs);
  EndFast();
  if (r == Fast::kNeedMore && qs < 2 * len) {
    StartCarry(scratch_, block_index_ + base, qs, len);
    return n;
  }
  return base + (qs + 1) / 2;
}

// Keeps the bytes of the packet starting at nibble q of p (block byte index
// byte0 + k for p[k]; len bytes) for the next block; the block is consumed.
void StpDecoder::StartCarry(const uint8_t* p, uint64_t byte0, size_t q, size_t len) {
  const size_t first = q / 2;
  carry_len_ = len - first;
  std::memcpy(carry_, p + first, carry_len_);
  for (size_t i = 0; i < carry_len_; ++i) carry_index_[i] = byte0 + first + i;
  carry_high_ = (q & 1) != 0;
  carry_block_start_[0] = 0;
  carry_blocks_ = 1;
  carrying_ = true;
  pending_valid_ = false;  // a starting high nibble is carry_[0]'s
}

// Adds the block's first bytes to the carried packet; returns how many bytes
// of the block that packet took (all of them while it goes on), or 0 after
// giving the carried bytes to the nibble path.
size_t StpDecoder::ContinueCarry(uint64_t block_index, const uint8_t* data, size_t n) {
  if (n == 0) return 0;
  const size_t old_len = carry_len_;
  const size_t take = std::min(n, kCarryBytes - old_len);
  std::memcpy(carry_ + old_len, data, take);
  std::memset(carry_ + old_len + take, 0, 8);
  for (size_t i = 0; i < take; ++i) carry_index_[old_len + i] = block_index + i;
  carry_len_ = old_len + take;
  size_t q = carry_high_ ? 1 : 0;
  // Offsets: carry_[0]'s index, +1 for a high-nibble start (as in a block).
  const coresight::DataRun first{0, carry_index_[0]};
  FastView v(carry_, &first, 1);
  StpPacketRecord rec;
  const Fast r = FastPacket<true>(&v, 2 * carry_len_, &q, &rec);
  if (r == Fast::kDecoded) {
    EmitFast(rec);
    AfterFast(v, q);
    EndFast();
    carrying_ = false;
    nibble_byte_index_ = carry_index_[(q - 1) / 2];
    return (q + 1) / 2 - old_len;
  }
  if (r == Fast::kNeedMore && take == n && take > 0) {
    carry_block_start_[carry_blocks_++] = static_cast<uint8_t>(old_len);
    return n;
  }
  carry_len_ = old_len;  // this block's bytes are pushed again by Push
  ReplayCarry();
  return 0;
}

// The carried bytes through the nibble path, as the blocks they came from
// (each part with its own index), from the state at the packet's start.
void StpDecoder::ReplayCarry() {
  carrying_ = false;
  const bool fast = fast_path_;
  fast_path_ = false;
  size_t from = 0;
  if (carry_high_) {
    // As when the nibble path goes on with a byte's high nibble: the packet
    // is indexed at the byte after it (Push with no bytes reads it).
    pending_valid_ = true;
    pending_ = static_cast<uint8_t>(carry_[0] >> 4);
    nibble_byte_index_ = carry_index_[0];
    from = 1;
  }
  for (size_t b = 0; b < carry_blocks_; ++b) {
    const size_t start = std::max<size_t>(carry_block_start_[b], from);
    const size_t end = b + 1 < carry_blocks_ ? carry_block_start_[b + 1] : carry_len_;
    const uint64_t index = carry_index_[carry_block_start_[b]] + (start - carry_block_start_[b]);
    Push(index, carry_ + start, end - start);
  }
  fast_path_ = fast;
  carry_len_ = carry_blocks_ = 0;
}

// One packet at nibble *qp of v->p (nibbles before qend are the stream's,
// and 8 bytes from any of their bytes are readable). Returns kNotFast /
// kNeedMore, having changed nothing, when the packet is not one for the fast
// path / does not end before qend.
// kBounded: check qend (else the caller knows the packet fits). The stream
// state the nibble path reads (pending nibble, last byte's index) is left to
// AfterFast.
template <bool kBounded>
StpDecoder::Fast StpDecoder::FastPacket(FastView* v, size_t qend, size_t* qp, StpPacketRecord* out) {
  const uint8_t* p = v->p;
  const size_t q0 = *qp;
  if (kBounded && q0 >= qend) return Fast::kNeedMore;
  // Opcode: 1 nibble, F n, or F 0 n; one lookup on the first two nibbles.
  // w: the packet's first 15 nibbles (at least), nibble k at bits [4k+3:4k].
  const uint64_t w = LoadLe64(p + (q0 >> 1)) >> ((q0 & 1) * 4);
  FirstByteOp fo = kFirstByteOps.op[w & 0xFF];
  if (kBounded && fo.opcode_nibbles != 1 && q0 + 2 > qend) return Fast::kNeedMore;
  if (fo.rare) [[unlikely]] {
    if (fo.opcode_nibbles == 0) return Fast::kNotFast;  // ASYNC
    if (kBounded && q0 + 3 > qend) return Fast::kNeedMore;
    fo = kThirdNibbleOps.op[(w >> 8) & 0xF];
    if (fo.rare) return Fast::kNotFast;
  }
  const unsigned opn = fo.opcode_nibbles, pn = fo.payload_nibbles;
  size_t q = q0 + opn;
  // Payload: from w unless it is 16 nibbles (D64).
  if (kBounded && q + pn > qend) return Fast::kNeedMore;
  uint64_t payload = 0;
  if (pn == 16)
    payload = FieldAt(p, q, 16);
  else if (pn != 0)
    payload = (ReverseNibbles(w) << (4 * opn)) >> (64 - 4 * pn);
  q += pn;
  // Timestamp: length code, then that many nibbles.
  uint8_t ts_len = 0;
  uint64_t ts = 0;
  if (fo.ts) {
    if (ts_coding_ == StpTsCoding::kUnknown) return Fast::kNotFast;  // an error
    if (kBounded && q + 1 > qend) return Fast::kNeedMore;
    const uint8_t ts_code = opn + pn < 15 ? static_cast<uint8_t>((w >> (4 * (opn + pn))) & 0xF) : NibbleAt(p, q);
    if (ts_code == 0xF) return Fast::kNotFast;  // an error
    ts_len = kTsLengths[ts_code];
    if (kBounded && q + 1 + ts_len > qend) return Fast::kNeedMore;
    if (ts_len) ts = FieldAt(p, q + 1, ts_len);
    q += 1 + ts_len;
  }

  // The packet is complete: report it as the nibble path would.
  const uint64_t offset = v->Index(q0 >> 1) + (q0 & 1);
  out->offset = offset;
  out->raw = p + (q0 >> 1);
  out->payload = payload;
  // type .. payload_bits from the table; raw_high: the packet starts in the
  // high nibble (the byte shown padded).
  const uint64_t raw_len = ((q + 1) >> 1) - (q0 >> 1);
  if constexpr (std::endian::native == std::endian::little) {
    uint64_t fo_bytes;
    std::memcpy(&fo_bytes, &fo, sizeof fo_bytes);
    const uint64_t tail = (fo_bytes & 0xFFFFFFFFFFull) | (static_cast<uint64_t>(q0 & 1) << 40) |
                          (static_cast<uint64_t>(4 * ts_len) << 48) | (raw_len << 56);
    std::memcpy(&out->type, &tail, sizeof tail);
  } else {
    out->type = fo.type;
    out->marker = fo.marker;
    out->has_ts = fo.ts;
    out->opcode_nibbles = fo.opcode_nibbles;
    out->payload_bits = fo.payload_bits;
    out->raw_high = (q0 & 1) != 0;
    out->ts_bits = static_cast<uint8_t>(4 * ts_len);
    out->raw_len = static_cast<uint8_t>(raw_len);
  }
  // F-run tracking. A last nibble other than F ends any run, unless it is a
  // 0 that a run of 21 F's could reach: then the state after the packet is
  // "no run open", whatever its F's were; without a run open before, that
  // is no change (f_count_ and is_sync_ are 0 then).
  const uint8_t last = NibbleAt(p, q - 1);
  if (sync_start_ || last == 0xF || (last == 0 && q - q0 > kAsyncFNibbles)) [[unlikely]]
    TrackSync(v, q0, q, offset, last);
  if (ts_len != 0) {  // a length of 0 changes nothing (in either coding)
    const uint64_t mask = ~0ull >> (64 - 4 * ts_len);
    if (ts_coding_ == StpTsCoding::kBinary)  // UpdateTimestamp, inline, without touching pkt_
      timestamp_ = (timestamp_ & ~mask) | (ts & mask);
    else
      timestamp_ = GrayToBin((BinToGray(timestamp_) & ~mask) | (ts & mask));
  }
  *qp = q;
  if (fo.type >= StpType::kM8 && fo.type <= StpType::kC16) ApplyIds(fo.type, static_cast<uint16_t>(payload));
  out->master = master_;
  out->channel = channel_;
  out->timestamp = timestamp_;
  return Fast::kDecoded;
}

// The F-run state after the fast-path packet at nibbles [q0, q) of v (its
// offset `offset`, its last nibble `last`) when it may change: a run was
// open before it, or it ends in F, or in a 0 that an ASYNC-long run could
// reach. Rare, so out of line, with the packet's fields read again: on the
// way of every packet they kept a dozen values live.
[[gnu::noinline]] void StpDecoder::TrackSync(FastView* v, size_t q0, size_t q, uint64_t offset, uint8_t last) {
  const uint32_t open_run = sync_start_ ? f_count_ : 0;
  if (last != 0xF && (last != 0 || open_run + (q - q0) <= kAsyncFNibbles)) {
    ClearSync();
    return;
  }
  const FastStart s{v, q0, offset};
  if (SyncPacket(s, q)) return;
  // Field by field (a 0 after F's that may complete an ASYNC pattern).
  const uint8_t* p = v->p;
  FirstByteOp fo = kFirstByteOps.op[(LoadLe64(p + (q0 >> 1)) >> ((q0 & 1) * 4)) & 0xFF];
  if (fo.opcode_nibbles == 3) fo = kThirdNibbleOps.op[NibbleAt(p, q0 + 2)];
  const unsigned opn = fo.opcode_nibbles, pn = fo.payload_nibbles;
  SyncField(s, FieldAt(p, q0, opn), opn, q0);
  if (pn) SyncField(s, FieldAt(p, q0 + opn, pn), pn, q0 + opn);
  if (fo.ts) {
    const size_t q_ts = q0 + opn + pn;
    const uint8_t ts_len = kTsLengths[NibbleAt(p, q_ts)];
    SyncField(s, NibbleAt(p, q_ts), 1, q_ts);
    if (ts_len) SyncField(s, FieldAt(p, q_ts + 1, ts_len), ts_len, q_ts + 1);
  }
}

// OpenCSD's index of the run of F's that starts at nibble q of the packet
// (the nibble path's CheckSync): the packet's offset plus half the nibbles
// before q, at most the index of q's byte.
uint64_t StpDecoder::SyncIndex(const FastStart& s, size_t q) {
  FastView v = *s.view;  // a copy: the view's cursor is at the packet's start
  return std::min<uint64_t>(s.offset + (q - s.q0) / 2, v.Index(q >> 1));
}

// SyncNibble over the nibbles [s.q0, q) of a packet at once, from its last
// non-F nibble: that one ends any open run, unless it is a 0 that a run of
// 21 F's could reach (then returns false: the caller goes field by field),
// and the F's after it open a new run. Also false when the packet's last 15
// nibbles are all F.
bool StpDecoder::SyncPacket(const FastStart& s, size_t q) {
  const size_t k = std::min<size_t>(15, q - s.q0);  // the last k nibbles, from nibble q - k
  const size_t first = q - k;
  const uint64_t w = LoadLe64(s.view->p + (first >> 1)) >> ((first & 1) * 4);
  const uint64_t non_f = ~FNibbles(w) & kNibbleLsbs & ((1ull << (4 * k)) - 1);
  if (non_f == 0) return false;
  const unsigned last = static_cast<unsigned>(63 - std::countl_zero(non_f)) / 4;  // of the k nibbles
  const uint32_t open_run = sync_start_ ? f_count_ : 0;
  if (((w >> (4 * last)) & 0xF) == 0 && open_run + (q - s.q0) > kAsyncFNibbles) return false;
  ClearSync();
  const unsigned trailing_f = static_cast<unsigned>(k) - 1 - last;
  if (trailing_f > 0) {
    sync_start_ = true;
    f_count_ = trailing_f;
    sync_index_ = SyncIndex(s, q - trailing_f);
  }
  return true;
}

// SyncNibble over the `nibbles` nibbles of `value` (most significant first,
// nibble k of the field at nibble q + k of the packet started by s), in O(1)
// unless the field's last non-F nibble is a 0 that could end an ASYNC-long
// run (every other non-F nibble ends the open run). Only the state after the
// field is exact: sync_index_ of a run that starts and breaks inside the
// field is not kept, which nothing can observe (it is read only while a run
// is open, and every opening sets it).
void StpDecoder::SyncField(const FastStart& s, uint64_t value, unsigned nibbles, size_t q) {
  const uint64_t lsbs = nibbles >= 16 ? kNibbleLsbs : kNibbleLsbs & ((1ull << (4 * nibbles)) - 1);
  const uint64_t f = FNibbles(value) & lsbs;
  if (f == lsbs) {  // all F: the run goes on (or starts here)
    if (!sync_start_) {
      sync_start_ = true;
      sync_index_ = SyncIndex(s, q);
    }
    f_count_ += nibbles;
    return;
  }
  const unsigned trailing_f = static_cast<unsigned>(std::countr_zero(~f & lsbs)) / 4;
  const unsigned last = static_cast<unsigned>((value >> (4 * trailing_f)) & 0xF);  // the last non-F nibble
  // A 0 after 21 F's completes an ASYNC pattern; the run reaching it has at
  // most f_count_ + nibbles - 1 F's. Only then nibble by nibble.
  const uint32_t open_run = sync_start_ ? f_count_ : 0;
  if (last == 0 && open_run + nibbles > kAsyncFNibbles) {
    for (unsigned k = 0; k < nibbles; ++k)
      SyncNibble(static_cast<uint8_t>((value >> (4 * (nibbles - 1 - k))) & 0xF), SyncIndex(s, q + k));
    return;
  }
  // Any open run ends at that nibble (a non-F other than an ASYNC's 0).
  ClearSync();
  if (trailing_f > 0) {
    sync_start_ = true;
    f_count_ = trailing_f;
    sync_index_ = SyncIndex(s, q + nibbles - trailing_f);
  }
}

}  // namespace mabutrace::stm
