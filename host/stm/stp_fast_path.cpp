// SPDX-License-Identifier: MIT
// stp_fast_path.cpp: StpDecoder's whole-packet fast path (see stp_decoder.h).
//
// Why: reading one nibble at a time through the phase machine costs a call,
// a sync check and a switch per nibble (docs/performance.md, STM). Here a
// packet that lies entirely inside the pushed block is decoded in one go:
// its opcode from the table, each field (payload, timestamp) with one 8-byte
// load, the F-run tracking of OpenCSD's ASYNC search per field with bit
// masks. The result is exactly what the nibble path produces (packet, raw
// bytes, offset, stream state); everything else - a packet crossing the
// block end, ASYNC, VERSION, USER, TIME, reserved opcodes, timestamp errors,
// a pending nibble from the previous block - is left to the nibble path.
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

// Types the fast path decodes; the others have side effects or errors of
// their own in the nibble path.
bool FastType(StpType t) {
  switch (t) {
    case StpType::kReserved:
    case StpType::kVersion:
    case StpType::kUser:
    case StpType::kTime: return false;
    default: return true;
  }
}

}  // namespace

// Decodes packets from byte `used` (or its pending high nibble) on while they
// fit in the block; returns the new `used`. pending_valid_ / pending_ then
// describe the last byte, as after ReadNibble.
size_t StpDecoder::FastPackets(const uint8_t* data, size_t n, size_t used) {
  // A pending nibble from the previous block: its byte is not in `data`.
  if (pending_valid_ && used == 0) return 0;
  size_t q = 2 * used - (pending_valid_ ? 1 : 0);  // next nibble, in block nibbles
  // In place while every load stays inside the block (large blocks).
  while (n - q / 2 >= kInPlaceMargin)
    if (!FastPacket(data, 0, 2 * n, &q)) return (q + 1) / 2;
  // The rest (all of a de-formatter run of <= 15 bytes) from a padded copy.
  const size_t base = q / 2;
  const size_t len = n - base;
  if (len == 0 || len > kScratchBytes) return (q + 1) / 2;
  std::memcpy(scratch_, data + base, len);
  std::memset(scratch_ + len, 0, 8);
  size_t qs = q - 2 * base;
  while (FastPacket(scratch_, base, 2 * len, &qs)) {
  }
  return base + (qs + 1) / 2;
}

// One packet at nibble *qp of p (p[0] is block byte `base`; nibbles before
// qend are the block's, and 8 bytes from any of their bytes are readable).
// Returns false, having changed nothing, when the packet is not one for the
// fast path or does not end before qend.
bool StpDecoder::FastPacket(const uint8_t* p, size_t base, size_t qend, size_t* qp) {
  const size_t q0 = *qp;
  if (q0 >= qend) return false;
  // Opcode: 1 nibble, F n, or F 0 n.
  size_t q = q0;
  const uint8_t n0 = NibbleAt(p, q);
  OpSpec op = kOps1[n0 & 0xF];
  uint8_t opn = 1;
  uint16_t opcode = n0;
  if (n0 == 0xF) {
    if (q + 2 > qend) return false;
    const uint8_t n1 = NibbleAt(p, q + 1);
    if (n1 == 0xF) return false;  // ASYNC
    if (n1 != 0) {
      op = kOps2[n1];
      opn = 2;
    } else {
      if (q + 3 > qend) return false;
      op = kOps3[NibbleAt(p, q + 2)];
      opn = 3;
    }
    opcode = static_cast<uint16_t>(FieldAt(p, q, opn));
  }
  if (!FastType(op.type)) return false;
  q += opn;
  // Payload.
  const size_t q_payload = q;
  if (q + op.payload_nibbles > qend) return false;
  const uint64_t payload = op.payload_nibbles ? FieldAt(p, q, op.payload_nibbles) : 0;
  q += op.payload_nibbles;
  // Timestamp: length code, then that many nibbles.
  uint8_t ts_code = 0, ts_len = 0;
  uint64_t ts = 0;
  const size_t q_ts = q;
  if (op.ts) {
    if (ts_coding_ == StpTsCoding::kUnknown || q + 1 > qend) return false;
    ts_code = NibbleAt(p, q);
    if (ts_code == 0xF) return false;
    ts_len = TsLength(ts_code);
    if (q + 1 + ts_len > qend) return false;
    if (ts_len) ts = FieldAt(p, q + 1, ts_len);
    q += 1 + ts_len;
  }

  // The packet is complete: commit it as the nibble path would.
  const uint64_t byte0 = block_index_ + base;  // index of p[0]
  pkt_.offset = byte0 + (q0 + 1) / 2;
  // Emit() already put the byte of a starting high nibble (masked) in raw.
  pkt_.raw.insert(pkt_.raw.end(), p + (q0 + 1) / 2, p + (q + 1) / 2);
  pkt_.type = op.type;
  pkt_.marker = op.marker;
  pkt_.opcode_nibbles = opn;
  pkt_.payload = payload;
  pkt_.payload_bits = PayloadBits(op);
  SyncField(opcode, opn, byte0, q0);
  if (op.payload_nibbles) SyncField(payload, op.payload_nibbles, byte0, q_payload);
  if (op.ts) {
    SyncField(ts_code, 1, byte0, q_ts);
    if (ts_len) SyncField(ts, ts_len, byte0, q_ts + 1);
    UpdateTimestamp(ts, ts_len);
  }
  pending_valid_ = (q & 1) != 0;
  if (pending_valid_) pending_ = static_cast<uint8_t>(p[q / 2] >> 4);
  nibble_byte_index_ = byte0 + (q - 1) / 2;
  *qp = q;
  Complete();  // master/channel updates, Emit()
  return true;
}

// SyncNibble over the `nibbles` nibbles of `value` (most significant first,
// nibble k of the field at block nibble q + k; byte0 = index of byte 0 of the
// view), in O(1) unless the field's last non-F nibble is a 0 that could end
// an ASYNC-long run. Only the state after the field is exact: sync_index_ of
// a run that starts and breaks inside the field is not kept, which nothing
// can observe (it is read only while a run is open, and every opening sets it).
void StpDecoder::SyncField(uint64_t value, unsigned nibbles, uint64_t byte0, size_t q) {
  const uint64_t lsbs = nibbles >= 16 ? kNibbleLsbs : kNibbleLsbs & ((1ull << (4 * nibbles)) - 1);
  const uint64_t f = FNibbles(value) & lsbs;
  if (f == lsbs) {  // all F: the run goes on (or starts here)
    if (!sync_start_) {
      sync_start_ = true;
      sync_index_ = byte0 + q / 2;
    }
    f_count_ += nibbles;
    return;
  }
  const unsigned trailing_f = static_cast<unsigned>(std::countr_zero(~f & lsbs)) / 4;
  const unsigned last = static_cast<unsigned>((value >> (4 * trailing_f)) & 0xF);  // the last non-F nibble
  const uint64_t earlier_f = trailing_f + 1 < 16 ? f >> (4 * (trailing_f + 1)) : 0;
  if (last == 0 && (sync_start_ || earlier_f != 0)) {
    // A 0 after F's may complete an ASYNC pattern: nibble by nibble.
    for (unsigned k = 0; k < nibbles; ++k)
      SyncNibble(static_cast<uint8_t>((value >> (4 * (nibbles - 1 - k))) & 0xF), byte0 + (q + k) / 2);
    return;
  }
  // Any open run ends at that nibble (a non-F other than an ASYNC's 0).
  ClearSync();
  if (trailing_f > 0) {
    sync_start_ = true;
    f_count_ = trailing_f;
    sync_index_ = byte0 + (q + nibbles - trailing_f) / 2;
  }
}

}  // namespace mabutrace::stm
