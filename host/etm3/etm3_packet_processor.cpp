// SPDX-License-Identifier: MIT
// etm3_packet_processor.cpp: the ETMv3 byte state machine (see the header).
#include "etm3/etm3_packet_processor.h"

#include <cstdio>
#include <cstring>

namespace mabutrace::etm3 {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kReservedHeader: return "reserved-header";
    case ErrorKind::kBadTraceMode: return "bad-trace-mode";
    case ErrorKind::kBadSequence: return "bad-sequence";
    case ErrorKind::kTruncated: return "truncated";
  }
  return "?";
}

Etm3PacketProcessor::Etm3PacketProcessor(const Etm3Config& config, PacketCallback on_packet, void* context,
                                         ErrorCallback on_error, ErrorPolicy policy)
    : config_(config), on_packet_(on_packet), context_(context), on_error_(on_error), policy_(policy) {
  Reset();
}

void Etm3PacketProcessor::Reset() {
  state_ = State::kWaitSync;
  synced_ = false;
  start_of_sync_ = false;
  wait_entry_ = true;
  len_ = 0;
  ResetPacketState();
}

void Etm3PacketProcessor::ResetPacketState() {
  pkt_ = Etm3Packet{};
  pkt_.trace_id = config_.trace_id();
}

void Etm3PacketProcessor::ClearPacket() {
  pkt_.prev_isa = pkt_.isa;
  pkt_.ctxt_updated = pkt_.ctxt_id_updated = pkt_.vmid_updated = false;
  pkt_.atom_count = 0;
  pkt_.atom_bits = 0;
  pkt_.phdr_format = 0;
  pkt_.cycle_count = 0;
  pkt_.exception = pkt_.exception_cancel = pkt_.v7m_exception = false;
  pkt_.exception_number = 0;
  pkt_.exception_resume = 0;
  pkt_.isync_reason = IsyncReason::kPeriodic;
  pkt_.isync_has_cc = pkt_.isync_lsip = pkt_.isync_no_address = false;
  pkt_.ts_bits = 0;
  pkt_.addr.pkt_bits = 0;
  pkt_.data_addr.pkt_bits = 0;
  pkt_.ooo_tag = 0;
  pkt_.data_value = 0;
  pkt_.data_addr_updated = pkt_.data_value_updated = pkt_.big_endian_updated = false;
  pkt_.err_type = PacketType::kNotSync;
  expected_ = 0;
  isync_info_at_ = 0;
  branch_needs_exception_ = isync_got_cc_ = isync_lsip_ = false;
  expect_data_addr_ = found_data_addr_ = false;
}

void Etm3PacketProcessor::Push(uint64_t index, const uint8_t* data, size_t n) {
  stats_.bytes += n;
  wait_entry_ = true;  // OpenCSD takes each chunk as a new unsynchronised block
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = data[i];
    for (;;) {
      bool consumed = true;
      switch (state_) {
        case State::kWaitSync: consumed = WaitSync(index + i, stream_base_ + i, b, i + 1 == n); break;
        case State::kHeader: Header(index + i, stream_base_ + i, b); break;
        case State::kPayload: consumed = Payload(b); break;
      }
      if (consumed) break;
    }
  }
  stream_base_ += n;
}

void Etm3PacketProcessor::Finish() {
  if (len_ == 0) return;
  if (state_ == State::kWaitSync) {
    Emit(PacketType::kNotSync);
    return;
  }
  const PacketType parsing = pkt_.type;
  pkt_.err_type = parsing;
  const uint64_t at = pkt_index_;
  Emit(PacketType::kIncompleteEot);
  ++stats_.errors;
  if (on_error_) {
    char m[128];
    std::snprintf(m, sizeof m, "byte %llu (trace ID 0x%x): trace ends inside a %s packet",
                  static_cast<unsigned long long>(at), config_.trace_id(), PacketTypeName(parsing));
    on_error_(context_, {ErrorKind::kTruncated, at, config_.trace_id(), m});
  }
}

bool Etm3PacketProcessor::Append(uint8_t b) {
  if (len_ >= data_.size()) return false;
  data_[len_++] = b;
  return true;
}

void Etm3PacketProcessor::Emit(PacketType type) {
  pkt_.type = type;
  pkt_.raw = data_.data();
  pkt_.size = static_cast<uint8_t>(len_);
  pkt_.index = pkt_index_;
  pkt_.stream_offset = pkt_stream_;
  ++stats_.packets;
  if (type == PacketType::kNotSync) stats_.not_sync_bytes += len_;
  if (type == PacketType::kAsync) ++stats_.syncs;
  on_packet_(context_, pkt_);
  len_ = 0;
  state_ = synced_ ? State::kHeader : State::kWaitSync;
  wait_entry_ = true;
}

// Hands out the first n collected bytes as one packet and keeps the rest
// as the start of the next (OpenCSD's part packet).
void Etm3PacketProcessor::EmitPart(size_t n, PacketType type) {
  const State keep = state_;
  const size_t rest = len_ - n;
  std::array<uint8_t, kMaxPacketBytes> tail{};
  std::memcpy(tail.data(), data_.data() + n, rest);
  len_ = n;
  Emit(type);
  std::memcpy(data_.data(), tail.data(), rest);
  len_ = rest;
  pkt_index_ += n;
  pkt_stream_ += n;
  state_ = keep;
}

void Etm3PacketProcessor::Fail(PacketType type, ErrorKind kind, const std::string& what) {
  pkt_.err_type = pkt_.type;
  const uint64_t at = pkt_index_;
  Emit(type);
  ++stats_.errors;
  if (on_error_) {
    char m[64];
    std::snprintf(m, sizeof m, "byte %llu (trace ID 0x%x): ", static_cast<unsigned long long>(at), config_.trace_id());
    on_error_(context_, {kind, at, config_.trace_id(), m + what});
  }
  if (policy_ == ErrorPolicy::kResync) {
    synced_ = false;
    start_of_sync_ = false;
    state_ = State::kWaitSync;
  }
}

bool Etm3PacketProcessor::WaitSync(uint64_t index, uint64_t stream, uint8_t b, bool last) {
  if (wait_entry_) {
    wait_entry_ = false;
    if (!start_of_sync_) {
      pkt_index_ = index;
      pkt_stream_ = stream;
    }
  }
  if (start_of_sync_) {
    Append(b);
    if (b == 0x80 && len_ >= 6) {
      if (len_ > 6) {  // leading extra zeros: hand them out, then take 00 x5 80
        --len_;
        EmitPart(len_ - 5, PacketType::kNotSync);
        return false;
      }
      synced_ = true;
      Emit(PacketType::kAsync);
    } else if (b != 0x00) {
      start_of_sync_ = false;
    } else if (len_ >= 13) {
      EmitPart(8, PacketType::kNotSync);
    }
    return true;
  }
  if (b == 0x00) {
    if (len_ == 0) {
      Append(b);
      start_of_sync_ = true;
      return true;
    }
    Emit(PacketType::kNotSync);  // the 0x00 may start an A-sync: it opens the next block
    return false;
  }
  Append(b);
  if (last || len_ == 16) Emit(PacketType::kNotSync);
  return true;
}

bool Etm3PacketProcessor::PHeader(uint8_t b) {
  pkt_.type = PacketType::kPHeader;
  auto two_atoms = [&] { pkt_.atom_bits = ((b & 0x8) ? 0 : 1) | ((b & 0x4) ? 0 : 2); };
  if (!config_.cycle_accurate()) {
    if ((b & 0x3) == 0x0) {  // format 1: E count [5:2], N flag [6]
      const unsigned e = (b >> 2) & 0xF, n = (b & 0x40) ? 1 : 0;
      pkt_.atom_count = static_cast<uint8_t>(e + n);
      pkt_.atom_bits = (1u << e) - 1;
      pkt_.phdr_format = 1;
      return true;
    }
    if ((b & 0x3) == 0x2) {  // format 2: two atoms, bits [3:2] = N flags
      pkt_.atom_count = 2;
      pkt_.phdr_format = 2;
      two_atoms();
      return true;
    }
    return false;
  }
  switch (b & 0xA3) {
    case 0x80: {  // format 1: E count [4:2], N flag [6], one W per atom
      const unsigned e = (b >> 2) & 0x7, n = (b & 0x40) ? 1 : 0;
      pkt_.phdr_format = 1;
      pkt_.atom_count = static_cast<uint8_t>(e + n);
      if (!pkt_.atom_count) return false;  // 0x80: deprecated
      pkt_.atom_bits = (1u << e) - 1;
      pkt_.cycle_count = e + n;
      return true;
    }
    case 0x82:
      if (b & 0x10) {  // format 4: one atom, no W
        pkt_.phdr_format = 4;
        pkt_.atom_count = 1;
        pkt_.atom_bits = (b & 0x4) ? 0 : 1;
      } else {  // format 2: W then two atoms
        pkt_.phdr_format = 2;
        pkt_.atom_count = 2;
        pkt_.cycle_count = 1;
        two_atoms();
      }
      return true;
    case 0xA0:  // format 3: [4:2]+1 W, optional E [6]
      pkt_.phdr_format = 3;
      pkt_.cycle_count = ((b >> 2) & 7) + 1;
      pkt_.atom_count = (b & 0x40) ? 1 : 0;
      pkt_.atom_bits = pkt_.atom_count;
      return true;
    default: return false;
  }
}

void Etm3PacketProcessor::Header(uint64_t index, uint64_t stream, uint8_t b) {
  ClearPacket();
  len_ = 0;
  Append(b);
  pkt_index_ = index;
  pkt_stream_ = stream;
  state_ = State::kPayload;
  auto data_mode = [&](PacketType t, bool enabled, const char* what) {
    pkt_.type = t;
    if (enabled) return true;
    char m[96];
    std::snprintf(m, sizeof m, "data packet header 0x%02x (%s) while data trace is off", b, what);
    Fail(PacketType::kBadTraceMode, ErrorKind::kBadTraceMode, m);
    return false;
  };
  auto reserved = [&] {
    pkt_.type = PacketType::kReserved;
    char m[48];
    std::snprintf(m, sizeof m, "reserved header 0x%02x", b);
    Fail(PacketType::kReserved, ErrorKind::kReservedHeader, m);
  };
  if (b & 0x01) {
    pkt_.type = PacketType::kBranchAddress;
    if (!(b & 0x80)) BranchDone();  // one byte: no continuation
    return;
  }
  if ((b & 0x81) == 0x80) {
    if (PHeader(b)) {
      Emit(PacketType::kPHeader);
    } else {
      char m[48];
      std::snprintf(m, sizeof m, "invalid P-header 0x%02x", b);
      Fail(PacketType::kReserved, ErrorKind::kReservedHeader, m);
    }
    return;
  }
  if ((b & 0xF3) == 0x00) {
    switch (b) {
      case 0x00: pkt_.type = PacketType::kAsync; return;
      case 0x04: pkt_.type = PacketType::kCycleCount; return;
      case 0x08: pkt_.type = PacketType::kIsync; return;
      default: Emit(PacketType::kTrigger); return;  // 0x0C
    }
  }
  if ((b & 0x03) == 0x00) {
    if ((b & 0x93) == 0x00) {
      if (!data_mode(PacketType::kOooData, config_.data_value_trace(), "out-of-order data")) return;
      const unsigned size = (b >> 2) & 3;
      pkt_.ooo_tag = (b >> 5) & 3;
      if (size == 0) {
        pkt_.data_value_updated = true;
        Emit(PacketType::kOooData);
      } else {
        expected_ = 1 + (size == 3 ? 4 : size);
      }
      return;
    }
    if (b == 0x70) {
      pkt_.type = PacketType::kIsyncCycle;
      return;
    }
    if (b == 0x50) {
      if (data_mode(PacketType::kStoreFail, config_.data_value_trace(), "store failed")) Emit(PacketType::kStoreFail);
      return;
    }
    if ((b & 0xD3) == 0x50) {
      if (!data_mode(PacketType::kOooPlaceholder, config_.data_trace(), "out-of-order placeholder")) return;
      expect_data_addr_ = (b & 0x20) && config_.data_address_trace();
      pkt_.ooo_tag = (b >> 2) & 3;
      if (!expect_data_addr_) Emit(PacketType::kOooPlaceholder);
      return;
    }
    if (b == 0x3C) {
      pkt_.type = PacketType::kVmid;
      return;
    }
    reserved();
    return;
  }
  if ((b & 0xD3) == 0x02) {
    if (!data_mode(PacketType::kNormalData, config_.data_trace(), "normal data")) return;
    const unsigned size = (b >> 2) & 3;
    expect_data_addr_ = (b & 0x20) && config_.data_address_trace();
    expected_ = 1 + (size == 3 ? 4 : size);
    if (!expect_data_addr_ && expected_ == 1) {
      pkt_.data_value_updated = true;
      Emit(PacketType::kNormalData);
    }
    return;
  }
  switch (b) {
    case 0x62:
      if (data_mode(PacketType::kDataSuppressed, config_.data_trace(), "data suppressed"))
        Emit(PacketType::kDataSuppressed);
      return;
    case 0x66: Emit(PacketType::kIgnore); return;
    case 0x6E:
      pkt_.type = PacketType::kContextId;
      expected_ = 1 + config_.context_id_bytes();
      return;
    case 0x76: Emit(PacketType::kExceptionExit); return;
    case 0x7E: Emit(PacketType::kExceptionEntry); return;
    case 0x42:
    case 0x46: pkt_.type = PacketType::kTimestamp; return;
    default: break;
  }
  if ((b & 0xEF) == 0x6A) {
    if (!data_mode(PacketType::kValueNotTraced, config_.data_trace(), "value not traced")) return;
    expect_data_addr_ = (b & 0x20) && config_.data_address_trace();
    if (!expect_data_addr_) Emit(PacketType::kValueNotTraced);
    return;
  }
  reserved();
}

void Etm3PacketProcessor::UpdateAddress(Address* a, uint32_t value, int bits) {
  const uint32_t mask = bits >= 32 ? ~0u : ((1u << bits) - 1);
  a->value = (a->value & ~mask) | (value & mask);
  a->pkt_bits = static_cast<uint8_t>(bits);
  if (bits > a->valid_bits) a->valid_bits = static_cast<uint8_t>(bits);
}

bool Etm3PacketProcessor::ReadException(size_t* pos) {
  if (*pos >= len_) return false;
  uint8_t b = data_[(*pos)++];
  uint16_t num = (b >> 1) & 0xF;
  pkt_.ns = b & 1;
  pkt_.alt_isa = (b >> 6) & 1;
  pkt_.ctxt_updated = true;
  pkt_.exception_cancel = (b & 0x20) != 0;
  pkt_.exception_resume = 0;
  if (b & 0x80) {
    if (*pos >= len_) return false;
    b = data_[(*pos)++];
    bool byte2 = (b & 0x40) != 0;  // info byte 1 skipped
    if (!byte2) {
      if (config_.v7m) num |= static_cast<uint16_t>((b & 0x1F) << 4);
      pkt_.hyp = (b >> 5) & 1;
      if (b & 0x80) {
        if (*pos >= len_) return false;
        b = data_[(*pos)++];
        byte2 = true;
      }
    }
    if (byte2) pkt_.exception_resume = b & 0xF;
  }
  pkt_.exception = true;
  pkt_.v7m_exception = config_.v7m;
  pkt_.exception_number = config_.v7m ? (num & 0x1FF) : (num & 0xF);
  return true;
}

// Branch address: bytes 1-4 carry 6, 7, 7, 7 address bits (alternative
// encoding: a last byte 2-4 carries 6 bits, bit 6 = exception bytes
// follow); byte 5 carries the top bits and the ISA (0b0001xxxx Thumb,
// 0b00001xxx ARM, 0b001xxxxx Jazelle; bit 6 = exception bytes follow; bit 7
// = the deprecated ARM-only exception encoding). The value is shifted by
// the instruction alignment of the (new) ISA.
bool Etm3PacketProcessor::ReadBranchAddress(size_t* pos, uint32_t* value_out, int* bits_out) {
  static constexpr int kShift[] = {2, 1, 1, 0};
  static constexpr uint8_t kMask5[] = {0x7, 0xF, 0xF, 0x1F};
  static constexpr int kBits5[] = {3, 4, 4, 5};
  bool cont = true;
  int bytes = 0, bits = 0;
  uint32_t value = 0;
  uint8_t b = 0;
  while (cont && bytes < 4) {
    if (*pos >= len_) return false;
    b = data_[(*pos)++];
    cont = (b & 0x80) != 0;
    const int shift = bits;
    if (bytes == 0) {
      b = static_cast<uint8_t>((b & ~0x81) >> 1);
      bits += 6;
    } else if (config_.alt_branch() && !cont) {
      if ((b & 0x40) && !ReadException(pos)) return false;
      b &= 0x3F;
      bits += 6;
    } else {
      b &= 0x7F;
      bits += 7;
    }
    value |= static_cast<uint32_t>(b) << shift;
    ++bytes;
  }
  bool byte5 = false;
  if (cont) {
    if (*pos >= len_) return false;
    b = data_[(*pos)++];
    if (b & 0x80) {  // deprecated: exception in byte 5, ARM state only
      pkt_.isa = Isa::kArm;
      pkt_.exception = true;
      pkt_.exception_number = (b >> 3) & 0x7;
      pkt_.exception_cancel = (b & 0x40) != 0;
      pkt_.v7m_exception = config_.v7m;
    } else {
      if ((b & 0x40) && !ReadException(pos)) return false;
      if ((b & 0xB8) == 0x08)
        pkt_.isa = Isa::kArm;
      else if ((b & 0xB0) == 0x10)
        pkt_.isa = pkt_.alt_isa ? Isa::kThumbEE : Isa::kThumb2;
      else if ((b & 0xA0) == 0x20)
        pkt_.isa = Isa::kJazelle;
      else
        return false;
    }
    byte5 = true;
  }
  int k = 0;
  if (pkt_.isa == Isa::kThumb2) k = 1;
  if (pkt_.isa == Isa::kThumbEE) k = 2;
  if (pkt_.isa == Isa::kJazelle) k = 3;
  if (byte5) {
    value |= static_cast<uint32_t>(b & kMask5[k]) << bits;
    bits += kBits5[k];
  }
  *value_out = value << kShift[k];
  *bits_out = bits + kShift[k];
  return true;
}

bool Etm3PacketProcessor::BranchDone() {
  size_t pos = 0;
  uint32_t value = 0;
  int bits = 0;
  if (!ReadBranchAddress(&pos, &value, &bits) || pos != len_) {
    Fail(PacketType::kBadSequence, ErrorKind::kBadSequence, "malformed branch address packet");
    return false;
  }
  UpdateAddress(&pkt_.addr, value, bits);
  Emit(PacketType::kBranchAddress);
  return true;
}

// Up to 5 bytes, 7 bits each with bit 7 = continuation; the 5th gives 4 bits.
bool Etm3PacketProcessor::ReadCycleCount(size_t* pos, uint32_t* value) {
  *value = 0;
  for (int i = 0; i < 5; ++i) {
    if (*pos >= len_) return false;
    const uint8_t b = data_[(*pos)++];
    *value |= static_cast<uint32_t>(b & (i == 4 ? 0x0F : 0x7F)) << (7 * i);
    if (!(b & 0x80)) break;
  }
  return true;
}

// Data address: 7 bits per byte (bit 7 = continuation) for bytes 1-4; a
// 5th byte gives address bits [31:28] and bit 4 the endianness (E).
bool Etm3PacketProcessor::ReadDataAddress(size_t* pos) {
  uint32_t value = 0;
  int bits = 0;
  for (int i = 0; i < 5; ++i) {
    if (*pos >= len_) return false;
    const uint8_t b = data_[(*pos)++];
    if (i == 4) {
      value |= static_cast<uint32_t>(b & 0x0F) << 28;
      bits += 4;
      pkt_.big_endian = (b >> 4) & 1;
      pkt_.big_endian_updated = true;
      break;
    }
    value |= static_cast<uint32_t>(b & 0x7F) << (7 * i);
    bits += 7;
    if (!(b & 0x80)) break;
  }
  UpdateAddress(&pkt_.data_addr, value, bits);
  pkt_.data_addr_updated = true;
  return true;
}

bool Etm3PacketProcessor::ReadDataValue(size_t* pos, unsigned size_code) {
  static constexpr unsigned kBytes[] = {0, 1, 2, 4};
  uint32_t v = 0;
  for (unsigned i = 0; i < kBytes[size_code & 3]; ++i) {
    if (*pos >= len_) return false;
    v |= static_cast<uint32_t>(data_[(*pos)++]) << (8 * i);
  }
  pkt_.data_value = v;
  pkt_.data_value_updated = true;
  return true;
}

bool Etm3PacketProcessor::IsyncDone() {
  size_t pos = 1;
  if (isync_got_cc_) {
    if (!ReadCycleCount(&pos, &pkt_.cycle_count)) return false;
    pkt_.isync_has_cc = true;
  }
  const unsigned cid = config_.context_id_bytes();
  if (cid) {
    if (pos + cid > len_) return false;
    uint32_t v = 0;
    for (unsigned i = 0; i < cid; ++i) v |= static_cast<uint32_t>(data_[pos++]) << (8 * i);
    pkt_.context_id = v;
    pkt_.ctxt_id_updated = true;
  }
  if (pos >= len_) return false;
  const uint8_t info = data_[pos++];
  pkt_.isync_reason = static_cast<IsyncReason>((info >> 5) & 3);
  const bool j = (info >> 4) & 1;
  const bool alt = config_.minor() >= 3 && ((info >> 2) & 1);
  pkt_.ns = (info >> 3) & 1;
  pkt_.ctxt_updated = true;
  if (config_.virtualization()) pkt_.hyp = (info >> 1) & 1;
  if (!config_.instr_trace()) {
    pkt_.isync_no_address = true;
    return true;
  }
  if (pos + 4 > len_) return false;
  uint32_t a = 0;
  for (int i = 0; i < 4; ++i) a |= static_cast<uint32_t>(data_[pos++]) << (8 * i);
  const bool t = a & 1;
  a &= ~1u;
  UpdateAddress(&pkt_.addr, a, 32);
  pkt_.isa = j ? Isa::kJazelle : t ? (alt ? Isa::kThumbEE : Isa::kThumb2) : Isa::kArm;
  if (isync_lsip_) {  // LSiP address: compressed against the main address
    uint32_t v = 0;
    int bits = 0;
    if (!ReadBranchAddress(&pos, &v, &bits)) return false;
    UpdateAddress(&pkt_.data_addr, a, 32);
    UpdateAddress(&pkt_.data_addr, v, bits);
    pkt_.isync_lsip = true;
  }
  return true;
}

bool Etm3PacketProcessor::Payload(uint8_t b) {
  if (!Append(b)) {
    Fail(PacketType::kBadSequence, ErrorKind::kBadSequence, "packet longer than 32 bytes");
    return true;
  }
  const bool top = (b & 0x80) != 0;
  switch (pkt_.type) {
    case PacketType::kBranchAddress: {
      bool done = false;
      if (config_.alt_branch()) {
        if (!top) {
          if (!branch_needs_exception_ && (b & 0xC0) == 0x40)
            branch_needs_exception_ = true;
          else
            done = true;
        }
      } else if (len_ == 5) {
        if ((b & 0xC0) == 0x40)
          branch_needs_exception_ = true;
        else
          done = true;
      } else if (!top) {
        done = true;
      }
      if (done) BranchDone();
      return true;
    }
    case PacketType::kAsync:
      if (b == 0x00) {
        if (len_ > 5) {  // 0x00 beyond the five: drop the first, keep looking
          pkt_.err_type = PacketType::kAsync;
          EmitPart(1, PacketType::kBadSequence);
          pkt_.type = PacketType::kAsync;
          ++stats_.errors;
          if (policy_ == ErrorPolicy::kResync) {
            synced_ = false;
            start_of_sync_ = true;
            state_ = State::kWaitSync;
          }
          if (on_error_) {
            char m[96];
            std::snprintf(m, sizeof m, "byte %llu (trace ID 0x%x): A-sync with an extra 0x00",
                          static_cast<unsigned long long>(pkt_index_ - 1), config_.trace_id());
            on_error_(context_, {ErrorKind::kBadSequence, pkt_index_ - 1, config_.trace_id(), m});
          }
        }
      } else if (b == 0x80 && len_ == 6) {
        synced_ = true;
        Emit(PacketType::kAsync);
      } else {
        --len_;  // the byte starts the next packet
        Fail(PacketType::kBadSequence, ErrorKind::kBadSequence, "A-sync: unexpected byte in the 0x00 run");
        return false;
      }
      return true;
    case PacketType::kCycleCount:
      if (!top || len_ >= 6) {
        size_t pos = 1;
        ReadCycleCount(&pos, &pkt_.cycle_count);
        Emit(PacketType::kCycleCount);
      }
      return true;
    case PacketType::kIsyncCycle:
      if (!isync_got_cc_) {
        if (!top || len_ >= 6) isync_got_cc_ = true;
        return true;
      }
      [[fallthrough]];
    case PacketType::kIsync: {
      if (expected_ == 0) {
        const size_t cc_bytes = len_ - 2;
        const size_t cid = config_.context_id_bytes();
        expected_ = config_.instr_trace() ? cc_bytes + 6 + cid : 2 + cid;
        isync_info_at_ = 1 + cc_bytes + cid;
      }
      if (len_ - 1 == isync_info_at_) isync_lsip_ = (data_[isync_info_at_] & 0x80) != 0;
      if (len_ >= expected_ && (!isync_lsip_ || !top)) {
        if (IsyncDone())
          Emit(pkt_.type);
        else
          Fail(PacketType::kBadSequence, ErrorKind::kBadSequence, "malformed I-sync packet");
      }
      return true;
    }
    case PacketType::kNormalData:
      if (expect_data_addr_ && !found_data_addr_) {
        // the address ends at a byte without continuation, or after 5 bytes
        if (top && len_ < 6) return true;
        found_data_addr_ = true;
        expected_ += len_ - 1;
      }
      if (len_ == expected_) {
        size_t pos = 1;
        if (expect_data_addr_) ReadDataAddress(&pos);
        ReadDataValue(&pos, (data_[0] >> 2) & 3);
        Emit(PacketType::kNormalData);
      }
      return true;
    case PacketType::kOooData:
      if (len_ == expected_) {
        size_t pos = 1;
        ReadDataValue(&pos, (data_[0] >> 2) & 3);
        Emit(PacketType::kOooData);
      }
      return true;
    case PacketType::kValueNotTraced:
    case PacketType::kOooPlaceholder:
      if (!top || len_ >= 6) {
        size_t pos = 1;
        ReadDataAddress(&pos);
        Emit(pkt_.type);
      }
      return true;
    case PacketType::kContextId:
      if (len_ == expected_) {
        uint32_t v = 0;
        for (size_t i = 1; i < len_; ++i) v |= static_cast<uint32_t>(data_[i]) << (8 * (i - 1));
        pkt_.context_id = v;
        pkt_.ctxt_id_updated = true;
        Emit(PacketType::kContextId);
      } else if (len_ > expected_) {
        Fail(PacketType::kBadSequence, ErrorKind::kBadSequence, "context ID packet with no context ID configured");
      }
      return true;
    case PacketType::kTimestamp: {
      // 7 bits per byte; the last of 9 (64-bit) gives 8 bits, of 7 (48-bit) 6.
      const size_t max = config_.ts_64bit() ? 9 : 7;
      if (top && len_ - 1 < max) return true;
      uint64_t ts = 0;
      int bits = 0;
      for (size_t i = 1; i < len_; ++i) {
        const bool last = i == max;
        const uint8_t mask = last ? (config_.ts_64bit() ? 0xFF : 0x3F) : 0x7F;
        ts |= static_cast<uint64_t>(data_[i] & mask) << (7 * (i - 1));
        bits += last ? (config_.ts_64bit() ? 8 : 6) : 7;
      }
      const uint64_t m = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
      pkt_.timestamp = (pkt_.timestamp & ~m) | (ts & m);
      pkt_.ts_bits = static_cast<uint8_t>(bits);
      Emit(PacketType::kTimestamp);
      return true;
    }
    case PacketType::kVmid:
      pkt_.vmid = b;
      pkt_.vmid_updated = true;
      Emit(PacketType::kVmid);
      return true;
    default: Fail(PacketType::kBadSequence, ErrorKind::kBadSequence, "payload for a packet without one"); return true;
  }
}

}  // namespace mabutrace::etm3
