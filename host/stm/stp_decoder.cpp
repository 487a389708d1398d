// SPDX-License-Identifier: MIT
// stp_decoder.cpp: see stp_decoder.h.
#include "stp_decoder.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "stp_opcodes.h"

namespace mabutrace::stm {

using namespace stp;  // the opcode table and helpers (stp_opcodes.h)

const char* StpTypeBaseName(StpType t) {
  switch (t) {
    case StpType::kNotSync: return "NOTSYNC";
    case StpType::kIncompleteEot: return "INCOMPLETE_EOT";
    case StpType::kBadSequence: return "BAD_SEQUENCE";
    case StpType::kReserved: return "RESERVED";
    case StpType::kAsync: return "ASYNC";
    case StpType::kVersion: return "VERSION";
    case StpType::kNull: return "NULL";
    case StpType::kM8: return "M8";
    case StpType::kM16: return "M16";
    case StpType::kMerr: return "MERR";
    case StpType::kGerr: return "GERR";
    case StpType::kC8: return "C8";
    case StpType::kC16: return "C16";
    case StpType::kD4: return "D4";
    case StpType::kD8: return "D8";
    case StpType::kD16: return "D16";
    case StpType::kD32: return "D32";
    case StpType::kD64: return "D64";
    case StpType::kFlag: return "FLAG";
    case StpType::kTrig: return "TRIG";
    case StpType::kFreq: return "FREQ";
    case StpType::kUser: return "USER";
    case StpType::kTime: return "TIME";
    case StpType::kXsync: return "XSYNC";
    case StpType::kUnknown: break;
  }
  return "UNKNOWN";
}

std::string StpTypeName(const StpPacket& p) {
  std::string s = StpTypeBaseName(p.type);
  switch (p.type) {
    case StpType::kD4:
    case StpType::kD8:
    case StpType::kD16:
    case StpType::kD32:
    case StpType::kD64:
    case StpType::kFlag:
    case StpType::kTrig:
      if (p.marker) s += 'M';
      if (p.has_ts) s += "TS";
      break;
    default: break;
  }
  return s;
}

void StpDecoder::Reset() {
  stats_ = {};
  pkt_ = {};
  synced_ = pending_valid_ = suppress_raw_ = false;
  master_ = channel_ = 0;
  timestamp_ = 0;
  ts_coding_ = StpTsCoding::kUnknown;
  ClearSync();
  sync_index_ = 0;
  carrying_ = false;
  carry_len_ = carry_blocks_ = 0;
  StartPacket();
}

void StpDecoder::StartPacket() {
  in_packet_ = false;
  num_nibbles_ = 0;
  phase_ = Phase::kOpcode;
  opcode_ = 0;
  payload_left_ = ts_left_ = ts_len_ = 0;
  ts_value_ = 0;
  needs_ts_ = false;
  time_stage_ = 0;
}

bool StpDecoder::ReadNibble(const uint8_t* data, size_t n, size_t* used, uint8_t* nib) {
  if (pending_valid_) {
    *nib = pending_;
    pending_valid_ = false;
  } else if (*used < n) {
    nibble_byte_index_ = block_index_ + *used;
    const uint8_t b = data[(*used)++];
    if (!suppress_raw_) pkt_.raw.push_back(b);
    *nib = b & 0xF;
    pending_ = b >> 4;
    pending_valid_ = true;
  } else {
    return false;
  }
  ++num_nibbles_;
  CheckSync(*nib);
  return true;
}

// OpenCSD's formula for the index of a run's first F, bounded by the byte
// the nibble came from: the nibble count may include F's of a run that was
// since broken, and a packet may span blocks with gaps between them.
void StpDecoder::CheckSync(uint8_t nib) {
  SyncNibble(nib, std::min<uint64_t>(pkt_.offset + (num_nibbles_ - 1) / 2, nibble_byte_index_));
}

// F runs are tracked on every nibble, across packet boundaries (OpenCSD).
void StpDecoder::SyncNibble(uint8_t nib, uint64_t byte_index) {
  if (nib != 0xF) {
    if (!sync_start_) return;
    if (nib == 0 && f_count_ >= kAsyncFNibbles)
      is_sync_ = true;
    else
      ClearSync();
    return;
  }
  ++f_count_;
  if (!sync_start_) {
    sync_start_ = true;
    sync_index_ = byte_index;
  }
}

void StpDecoder::Push(uint64_t block_index, const uint8_t* data, size_t n) {
  block_index_ = block_index;
  size_t used = 0;
  if (carrying_) {
    used = ContinueCarry(block_index, data, n);
    block_index_ = block_index;  // a replay pushed the carried blocks again
  }
  while (used < n || pending_valid_) {
    if (!synced_) {
      WaitSync(block_index, data, n, &used);
      continue;
    }
    if (!in_packet_) {
      // Whole packets inside the block go the fast way; what it leaves
      // (a packet crossing the block end, ASYNC, errors, rare opcodes)
      // goes on nibble by nibble.
      if (fast_path_) {
        used = FastPackets(data, n, used);
        if (used == n && !pending_valid_) break;
      }
      in_packet_ = true;
      pkt_.offset = block_index + used;
    }
    uint8_t nib;
    if (!ReadNibble(data, n, &used, &nib)) break;
    Step(nib);
  }
}

namespace {

// Up to 16 nibbles of data[0, n) from nibble q on (nibble q: the low nibble
// of data[q / 2] when q is even), nibble q least significant; *avail: how
// many of them are in the block (the rest read as 0, never as F).
uint64_t NibbleWindow(const uint8_t* data, size_t n, size_t q, unsigned* avail) {
  const size_t b = q >> 1;
  const size_t bytes = std::min<size_t>(n - b, 8);
  uint64_t w;
  if (bytes == 8) {
    w = LoadLe64(data + b);
  } else {
    uint8_t tail[8] = {};
    std::memcpy(tail, data + b, bytes);
    w = LoadLe64(tail);
  }
  *avail = static_cast<unsigned>(2 * bytes - (q & 1));
  return w >> ((q & 1) * 4);
}

}  // namespace

// What ReadNibble + CheckSync do to the F-run state, nibble by nibble, up to
// the block end or the 0 after 21 F's: a stretch without F and the rest of
// an open F run are each skipped in one step (trailing F nibbles of a word
// are its trailing ones / 4). Only a run's first F needs its index, and
// here CheckSync's formula is always its byte's index: WaitSync starts the
// count at the carried F's (>= 0) from pkt_.offset = the scan's first
// byte, so the formula's first term is never the smaller. Leaves *used,
// the pending high nibble, num_nibbles_ and nibble_byte_index_ as the
// nibble loop would.
bool StpDecoder::ScanSync(const uint8_t* data, size_t n, size_t* used) {
  const size_t q0 = 2 * *used, qend = 2 * n;
  size_t q = q0;
  while (q < qend) {
    unsigned avail;
    uint64_t w = NibbleWindow(data, n, q, &avail);
    if (!sync_start_) {
      const uint64_t f = FNibbles(w);
      const unsigned no_f = f ? static_cast<unsigned>(std::countr_zero(f)) / 4 : 16;
      if (no_f >= avail) {
        q += avail;
        continue;
      }
      q += no_f;
      sync_start_ = true;
      sync_index_ = block_index_ + q / 2;
      w >>= 4 * no_f;
      avail -= no_f;
    }
    const unsigned run = static_cast<unsigned>(std::countr_one(w)) / 4;
    if (run >= avail) {
      f_count_ += avail;
      q += avail;
      continue;
    }
    f_count_ += run;
    q += run + 1;
    if (((w >> (4 * run)) & 0xF) == 0 && f_count_ >= kAsyncFNibbles) {
      is_sync_ = true;
      break;
    }
    ClearSync();
  }
  if (q != q0) {
    num_nibbles_ += static_cast<uint32_t>(q - q0);
    nibble_byte_index_ = block_index_ + (q - 1) / 2;
  }
  *used = (q + 1) / 2;
  if (q & 1) {
    pending_ = data[q / 2] >> 4;
    pending_valid_ = true;
  }
  return is_sync_;
}

void StpDecoder::WaitSync(uint64_t block_index, const uint8_t* data, size_t n, size_t* used) {
  const size_t start = *used;
  pkt_.offset = block_index + *used;
  num_nibbles_ = is_sync_ ? f_count_ + 1 : f_count_;
  suppress_raw_ = true;
  bool got = true;
  uint8_t nib;
  if (pending_valid_ && !is_sync_) got = ReadNibble(data, n, used, &nib);
  if (got && !is_sync_) got = ScanSync(data, n, used);
  suppress_raw_ = false;
  if (num_nibbles_ == 0) return;
  if (!got || num_nibbles_ > kAsyncNibbles) {
    pkt_.type = StpType::kNotSync;
    const uint32_t send = num_nibbles_ - (is_sync_ ? kAsyncNibbles : f_count_);
    const size_t bytes = (send + 1) / 2;
    for (size_t i = 0; i < bytes && start + i < n; ++i) {
      pkt_.raw.push_back(data[start + i]);
      ++stats_.notsync_bytes;
    }
    // A longer F run than ASYNC needs: the next round reports the ASYNC.
    if (is_sync_) f_count_ = kAsyncFNibbles;
  } else {
    pkt_.type = StpType::kAsync;
    synced_ = true;
    ClearSync();
    pkt_.offset = sync_index_;
    pkt_.raw.insert(pkt_.raw.end(), 10, 0xFF);
    pkt_.raw.push_back(0x0F);
    ++stats_.asyncs;
  }
  Emit();
}

void StpDecoder::Step(uint8_t nib) {
  switch (phase_) {
    case Phase::kOpcode:
      opcode_ = static_cast<uint16_t>((opcode_ << 4) | nib);
      if (num_nibbles_ == 1) {
        if (nib != 0xF) Decide(nib, 1);
      } else if (num_nibbles_ == 2) {
        if (nib == 0xF) {
          pkt_.type = StpType::kAsync;
          pkt_.opcode_nibbles = 2;
          phase_ = Phase::kAsync;
        } else if (nib != 0) {
          Decide(opcode_, 2);
        }
      } else {
        Decide(opcode_, 3);
      }
      return;
    case Phase::kUserLen:
      payload_left_ = static_cast<uint8_t>(nib + 1);
      pkt_.payload_bits = static_cast<uint8_t>(4 * payload_left_);
      phase_ = Phase::kPayload;
      return;
    case Phase::kPayload:
      pkt_.payload = (pkt_.payload << 4) | nib;
      if (--payload_left_ == 0) AfterPayload();
      return;
    case Phase::kTsLen:
      if (nib == 0xF) return Fail(StpType::kBadSequence, "invalid timestamp size 0xF");
      ts_len_ = TsLength(nib);
      ts_left_ = ts_len_;
      ts_value_ = 0;
      phase_ = Phase::kTs;
      if (ts_left_ == 0) ApplyTs();
      return;
    case Phase::kTs:
      ts_value_ = (ts_value_ << 4) | nib;
      if (--ts_left_ == 0) ApplyTs();
      return;
    case Phase::kAsync:
      if (is_sync_) {
        synced_ = true;
        ClearSync();
        ++stats_.asyncs;
        Emit();
      } else if (!sync_start_) {
        Fail(StpType::kBadSequence, "invalid ASYNC sequence");
      }
      return;
  }
}

void StpDecoder::Decide(uint16_t opcode, uint8_t nibbles) {
  const OpSpec& op = nibbles == 1 ? kOps1[opcode & 0xF] : nibbles == 2 ? kOps2[opcode & 0xF] : kOps3[opcode & 0xF];
  pkt_.opcode_nibbles = nibbles;
  if (op.type == StpType::kReserved) {
    pkt_.payload = opcode;
    return Fail(StpType::kReserved, "reserved STPv2 opcode");
  }
  pkt_.type = op.type;
  pkt_.marker = op.marker;
  needs_ts_ = op.ts;
  payload_left_ = op.payload_nibbles;
  pkt_.payload_bits = PayloadBits(op);
  if (op.type == StpType::kUser) {
    phase_ = Phase::kUserLen;
    return;
  }
  phase_ = Phase::kPayload;
  if (payload_left_ == 0) AfterPayload();
}

void StpDecoder::AfterPayload() {
  if (pkt_.type == StpType::kVersion) {
    if (pkt_.payload == 3)
      ts_coding_ = StpTsCoding::kBinary;
    else if (pkt_.payload == 4)
      ts_coding_ = StpTsCoding::kGray;
    else
      return Fail(StpType::kBadSequence, "unsupported VERSION (only 3 and 4)");
  }
  if (pkt_.type == StpType::kTime && time_stage_ == 0) {
    // TIME: clock-id and version nibbles, then a length-coded value.
    time_stage_ = 1;
    pkt_.payload = 0;
    phase_ = Phase::kTsLen;
    return;
  }
  if (needs_ts_) {
    phase_ = Phase::kTsLen;
    return;
  }
  Complete();
}

void StpDecoder::ApplyTs() {
  if (pkt_.type == StpType::kTime && time_stage_ == 1) {
    time_stage_ = 2;
    pkt_.payload = ts_value_;
    pkt_.payload_bits = static_cast<uint8_t>(4 * ts_len_);
    if (needs_ts_) {
      phase_ = Phase::kTsLen;
      return;
    }
    return Complete();
  }
  if (ts_coding_ == StpTsCoding::kUnknown) return Fail(StpType::kBadSequence, "timestamp before any VERSION packet");
  UpdateTimestamp(ts_value_, ts_len_);
  Complete();
}

// The field's `len` nibbles replace the low bits of the running timestamp
// (binary) or of its Gray code; needs a known coding.
void StpDecoder::UpdateTimestamp(uint64_t value, uint8_t len) {
  const unsigned bits = 4u * len;
  const uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  if (ts_coding_ == StpTsCoding::kBinary) {
    timestamp_ = (timestamp_ & ~mask) | (value & mask);
  } else {
    const uint64_t gray = (BinToGray(timestamp_) & ~mask) | (value & mask);
    timestamp_ = GrayToBin(gray);
  }
  pkt_.has_ts = true;
  pkt_.ts_bits = static_cast<uint8_t>(bits);
}

// Master/channel changes of a complete packet (M8/M16, MERR, GERR, C8/C16, VERSION).
void StpDecoder::ApplyIds(StpType type, uint16_t p) {
  switch (type) {
    case StpType::kM8:
    case StpType::kM16:
      master_ = p;
      channel_ = 0;
      break;
    case StpType::kMerr: channel_ = 0; break;
    case StpType::kGerr:
      master_ = 0;
      channel_ = 0;
      break;
    case StpType::kC8: channel_ = static_cast<uint16_t>((channel_ & 0xFF00) | (p & 0xFF)); break;
    case StpType::kC16: channel_ = p; break;
    case StpType::kVersion:
      master_ = 0;
      channel_ = 0;
      break;
    default: break;
  }
}

void StpDecoder::Complete() {
  ApplyIds(pkt_.type, static_cast<uint16_t>(pkt_.payload));
  Emit();
}

void StpDecoder::Fail(StpType kind, const char* why) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "STP %s at byte offset %llu: %s",
                kind == StpType::kReserved ? "reserved header" : "bad sequence",
                static_cast<unsigned long long>(pkt_.offset), why);
  pkt_.error = buf;
  if (kind == StpType::kBadSequence) pkt_.err_type = pkt_.type;
  pkt_.type = kind;
  ++stats_.bad_packets;
  Emit();
  synced_ = false;  // wait for the next ASYNC
}

void StpDecoder::Emit() {
  pkt_.master = master_;
  pkt_.channel = channel_;
  pkt_.timestamp = timestamp_;
  ++stats_.packets;
  sink_->OnPacket(pkt_);
  ClearPacket();
  StartPacket();
  // The unread high nibble starts the next packet: show its byte padded.
  if (pending_valid_) pkt_.raw.push_back(static_cast<uint8_t>(pending_ << 4));
}

// pkt_ = StpPacket{} field by field, keeping raw's and error's storage (one
// packet per few bytes: no allocation per packet). Keep in step with StpPacket.
void StpDecoder::ClearPacket() {
  pkt_.offset = 0;
  pkt_.raw.clear();
  pkt_.type = pkt_.err_type = StpType::kUnknown;
  pkt_.marker = pkt_.has_ts = false;
  pkt_.ts_bits = 0;
  pkt_.timestamp = 0;
  pkt_.payload = 0;
  pkt_.payload_bits = 0;
  pkt_.master = pkt_.channel = 0;
  pkt_.opcode_nibbles = 0;
  pkt_.error.clear();
}

void StpDecoder::Finish() {
  if (carrying_) ReplayCarry();  // the nibble path reports the partial packet
  if (num_nibbles_ > 0) {
    pkt_.err_type = pkt_.type;
    pkt_.type = StpType::kIncompleteEot;
    Emit();
  }
}

}  // namespace mabutrace::stm
