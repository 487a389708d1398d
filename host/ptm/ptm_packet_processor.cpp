// SPDX-License-Identifier: MIT
// ptm_packet_processor.cpp: PFT packet boundaries and fields (IHI0035B ch. 4).
#include "ptm/ptm_packet_processor.h"

#include <algorithm>
#include <cstdio>

namespace mabutrace::ptm {
namespace {

constexpr int kAsyncZeros = 5;        // an A-sync is at least 5 zero bytes, then 0x80
constexpr int kAsyncZeroLimit = 16;   // OpenCSD gives up on a run of 16 zeros (11 padding + 5)
constexpr size_t kNotSyncChunk = 16;  // unsynchronised bytes per kNotSync packet at most

enum Header : uint8_t {
  kHdrAsync = 0x00,
  kHdrIsync = 0x08,
  kHdrTrigger = 0x0C,
  kHdrVmid = 0x3C,
  kHdrTs0 = 0x42,
  kHdrTs1 = 0x46,
  kHdrIgnore = 0x66,
  kHdrCtxtId = 0x6E,
  kHdrWaypoint = 0x72,
  kHdrEret = 0x76,
};

PtmPacketType TypeOfHeader(uint8_t h) {
  if (h & 1) return PtmPacketType::kBranchAddress;
  if ((h & 0x81) == 0x80) return PtmPacketType::kAtom;
  switch (h) {
    case kHdrAsync: return PtmPacketType::kAsync;
    case kHdrIsync: return PtmPacketType::kIsync;
    case kHdrTrigger: return PtmPacketType::kTrigger;
    case kHdrVmid: return PtmPacketType::kVmid;
    case kHdrTs0:
    case kHdrTs1: return PtmPacketType::kTimestamp;
    case kHdrIgnore: return PtmPacketType::kIgnore;
    case kHdrCtxtId: return PtmPacketType::kContextId;
    case kHdrWaypoint: return PtmPacketType::kWaypointUpdate;
    case kHdrEret: return PtmPacketType::kExceptionRet;
    default: return PtmPacketType::kReserved;
  }
}

// Reads a cycle count field starting at b[i] (first byte: 4 bits [5:2],
// continue bit 6; then 7 bits per byte, continue bit 7; at most 5 bytes).
// Returns the index after it, or 0 when b[0..n) ends first.
size_t CycleCountEnd(const uint8_t* b, size_t n, size_t i) {
  for (int k = 0; k < 5; ++k) {
    if (i >= n) return 0;
    const uint8_t c = b[i++];
    if (!(c & (k == 0 ? 0x40 : 0x80))) break;
  }
  return i;
}

}  // namespace

PtmPacketProcessor::PtmPacketProcessor(const PtmConfig& config, PacketCallback on_packet, void* context,
                                       ErrorCallback on_error, ErrorPolicy policy)
    : config_(config), on_packet_(on_packet), context_(context), on_error_(on_error), policy_(policy) {
  Reset();
}

void PtmPacketProcessor::Reset() {
  packet_ = PtmPacket{};
  packet_.trace_id = config_.trace_id();
  synced_ = false;
  excep_alt_isa_ = false;
  pend_len_ = 0;
  zeros_ = false;
  async_zeros_ = 0;
}

void PtmPacketProcessor::Error(uint64_t index, const std::string& what) {
  ++errors_;
  if (!on_error_) return;
  char head[64];
  std::snprintf(head, sizeof head, "byte %llu: ", static_cast<unsigned long long>(index));
  on_error_(context_, PtmError{index, config_.trace_id(), head + what});
}

void PtmPacketProcessor::Emit(const uint8_t* raw, size_t len, uint64_t index) {
  packet_.raw = raw;
  packet_.raw_len = static_cast<uint8_t>(len);
  packet_.index = index;
  ++packets_;
  on_packet_(context_, packet_);
}

// The unsynchronised scan of one pushed chunk, with OpenCSD's chunking of
// the kNotSync output: one packet per chunk (or per 16 bytes), zeros that
// might start an A-sync held back until decided.
void PtmPacketProcessor::Unsynced(uint64_t index, const uint8_t* data, size_t n, size_t* used) {
  size_t p = *used;
  // Bytes held from an earlier push (a zero run, or the zeros kept after
  // one was thrown away) begin at pend_index_.
  uint64_t cur = (zeros_ || pend_len_) ? pend_index_ : index + p;
  size_t entry = pend_len_;  // zeros held from the previous chunk, not yet sent
  size_t unsynced = 0, scan_start = p;
  bool send = false, have_async = false, scan = true;
  PtmPacket saved = packet_;
  while (scan) {
    if (zeros_) {
      enum { kMore, kAsync, kNot, kThrow } r = kMore;
      while (r == kMore && p < n) {
        const uint8_t b = data[p++];
        if (pend_len_ < pend_.size()) pend_[pend_len_++] = b;
        if (b == 0) {
          if (++async_zeros_ >= kAsyncZeroLimit) r = kThrow;
        } else {
          r = (b == 0x80 && async_zeros_ >= kAsyncZeros) ? kAsync : kNot;
        }
      }
      switch (r) {
        case kAsync:
          zeros_ = false;
          send = have_async = true;
          scan = false;
          break;
        case kThrow: {  // keep the last 5 zeros, drop the rest as unsynchronised
          const size_t drop = pend_len_ - kAsyncZeros;
          unsynced += drop;
          std::copy(pend_.begin() + drop, pend_.begin() + pend_len_, pend_.begin());
          pend_len_ = kAsyncZeros;
          zeros_ = false;
          break;
        }
        case kNot:
          unsynced += pend_len_;
          pend_len_ = 0;
          zeros_ = false;
          break;
        case kMore:
          send = true;
          scan = false;
          break;
      }
    } else if (p < n) {
      if (data[p++] == 0) {
        zeros_ = true;
        if (pend_len_ < pend_.size()) pend_[pend_len_++] = 0;
        async_zeros_ = 1;
      } else {
        ++unsynced;
      }
    }
    if (unsynced >= kNotSyncChunk) send = true;
    if (p == n) {
      send = true;
      scan = false;
    }
    if (send && unsynced > 0) {
      packet_ = saved;
      packet_.type = PtmPacketType::kNotSync;
      static const uint8_t kZeros[kMaxPacketBytes] = {};
      // The held zeros are counted in `unsynced` too (they came back with
      // this push's bytes as one run): sent once, as their own packet, and
      // taken off what this push's bytes account for.
      const size_t carried = std::min(entry, unsynced);
      if (carried) {
        Emit(kZeros, std::min(carried, kMaxPacketBytes), cur);
        cur += carried;
        unsynced -= carried;
        entry -= carried;
      }
      const size_t avail = scan_start < n ? n - scan_start : 0;
      // Bytes of this push only, at most kMaxPacketBytes a packet (a
      // thrown-away zero run can be longer).
      const size_t len = std::min(unsynced, avail);
      for (size_t at = 0; at < len; at += kMaxPacketBytes)
        Emit(data + scan_start + at, std::min(kMaxPacketBytes, len - at), cur + at);
      scan_start += unsynced;
      cur += unsynced;
      unsynced = 0;
      send = false;
    }
  }
  packet_ = saved;
  pend_index_ = cur;
  if (have_async) {
    synced_ = true;
    packet_.type = PtmPacketType::kAsync;
    packet_.prev_isa = packet_.isa;
    Emit(pend_.data(), pend_len_, cur);
    pend_len_ = 0;
  }
  *used = p;
}

void PtmPacketProcessor::Push(uint64_t index, const uint8_t* data, size_t n) {
  size_t p = 0;
  while (p < n) {
    if (!synced_) {
      Unsynced(index, data, n, &p);
      continue;
    }
    if (pend_len_ == 0) pend_index_ = index + p;
    pend_[pend_len_++] = data[p++];
    if (CompleteLength()) Decode();
  }
}

void PtmPacketProcessor::Finish() {
  if (pend_len_ == 0) return;
  packet_.err_type = synced_ ? TypeOfHeader(pend_[0]) : PtmPacketType::kNotSync;
  packet_.type = PtmPacketType::kIncompleteEot;
  const uint64_t at = pend_index_;
  Emit(pend_.data(), pend_len_, at);
  Error(at, "trace ends inside a packet (" + std::to_string(pend_len_) + " bytes)");
  pend_len_ = 0;
  zeros_ = false;
}

size_t PtmPacketProcessor::CompleteLength() const {
  const uint8_t* b = pend_.data();
  const size_t n = pend_len_;
  const uint8_t h = b[0];
  const bool cc = config_.cycle_accurate();
  switch (TypeOfHeader(h)) {
    case PtmPacketType::kAsync: {
      for (size_t i = 1; i < n; ++i)
        if (b[i] != 0 || i + 1 >= static_cast<size_t>(kAsyncZeroLimit)) return i + 1;
      return 0;
    }
    case PtmPacketType::kIsync: {
      if (n < 6) return 0;
      size_t i = 6;
      const bool need_cc = ((b[5] >> 5) & 3) != 0 && cc;
      if (need_cc && !(i = CycleCountEnd(b, n, i))) return 0;
      i += static_cast<size_t>(config_.context_id_bytes());
      return n >= i ? i : 0;
    }
    case PtmPacketType::kWaypointUpdate: {
      for (size_t i = 1; i <= 5; ++i) {
        if (i >= n) return 0;
        if (i <= 4 && !(b[i] & 0x80)) return i + 1;
        if (i == 5) return (b[5] & 0x40) ? (n > 6 ? 7 : 0) : 6;
      }
      return 0;
    }
    case PtmPacketType::kContextId: {
      const size_t len = 1 + static_cast<size_t>(config_.context_id_bytes());
      return n >= len ? len : 0;
    }
    case PtmPacketType::kVmid: return n >= 2 ? 2 : 0;
    case PtmPacketType::kAtom: {
      if (!cc || !(h & 0x40)) return 1;
      for (size_t i = 1; i < n; ++i)
        if (!(b[i] & 0x80) || i + 1 == 5) return i + 1;
      return 0;
    }
    case PtmPacketType::kTimestamp: {
      const size_t ts_max = config_.ts_64bit() ? 10 : 8;
      size_t i = 1;
      for (;;) {
        if (i >= n) return 0;
        const uint8_t c = b[i++];
        if (!(c & 0x80) || i == ts_max) break;
      }
      if (cc && !(i = CycleCountEnd(b, n, i))) return 0;
      return i;
    }
    case PtmPacketType::kBranchAddress: {
      size_t i = 1;
      bool exc = false;
      if (h & 0x80) {
        for (;; ++i) {
          if (i >= n) return 0;
          if (i < 4 && !(b[i] & 0x80)) {
            exc = b[i] & 0x40;
            ++i;
            break;
          }
          if (i == 4) {
            exc = b[i] & 0x40;
            ++i;
            break;
          }
        }
      }
      if (exc) {
        if (i >= n) return 0;
        if (b[i++] & 0x80) {
          if (i >= n) return 0;
          ++i;
        }
      }
      if (cc && !(i = CycleCountEnd(b, n, i))) return 0;
      return i;
    }
    default: return 1;  // trigger, ignore, exception return, reserved
  }
}

// OpenCSD extractAddress: first byte bits [6:1], then 7 bits a byte, the
// last 6 (a non-5th last byte) or the ISA's share of the 5th; ARM
// addresses are word aligned (one more bit), Jazelle ones byte aligned.
uint32_t PtmPacketProcessor::Address(size_t offset, size_t n_bytes, PtmIsa isa, uint8_t* bits) const {
  uint32_t v = 0;
  int total = 0, shift = 0, next = 0;
  for (size_t i = 0; i < n_bytes; ++i) {
    uint8_t mask = 0x7E;
    int nb = 7;
    if (i == 4) {
      mask = isa == PtmIsa::kJazelle ? 0x1F : isa == PtmIsa::kArm ? 0x07 : 0x0F;
      nb = isa == PtmIsa::kJazelle ? 5 : isa == PtmIsa::kArm ? 3 : 4;
    } else if (i > 0) {
      mask = i == n_bytes - 1 ? 0x3F : 0x7F;
      nb = i == n_bytes - 1 ? 6 : 7;
    }
    shift = next;
    v |= static_cast<uint32_t>(pend_[offset + i] & mask) << shift;
    total += nb;
    if (i == 0) {
      if (isa == PtmIsa::kJazelle) {
        v >>= 1;
        next = 6;
        --total;
      } else {
        next = 7;
      }
    } else {
      next += 7;
    }
  }
  if (isa == PtmIsa::kArm) {
    v <<= 1;
    ++total;
  }
  *bits = static_cast<uint8_t>(total);
  return v;
}

uint32_t PtmPacketProcessor::CycleCount(size_t offset) const {
  uint32_t v = 0;
  int shift = 4;
  for (size_t k = 0; k < 5 && offset + k < pend_len_; ++k) {
    const uint8_t c = pend_[offset + k];
    if (k == 0) {
      v = (c >> 2) & 0xF;
      if (!(c & 0x40)) break;
    } else {
      v |= static_cast<uint32_t>(c & 0x7F) << shift;
      shift += 7;
      if (!(c & 0x80)) break;
    }
  }
  return v;
}

void PtmPacketProcessor::Decode() {
  PtmPacket& k = packet_;
  const uint8_t* b = pend_.data();
  const size_t n = pend_len_;
  const uint8_t h = b[0];
  // per-packet fields; the persistent ones stay
  k.type = TypeOfHeader(h);
  k.err_type = PtmPacketType::kNotSync;
  k.has_cc = false;
  k.context_updated = k.context_id_updated = false;
  k.ts_bits = 0;
  k.atom_bits = 0;
  k.atom_count = 0;
  k.has_exception = false;
  k.prev_isa = k.isa;
  auto update_addr = [&](uint32_t v, uint8_t bits) {
    const uint32_t mask = bits >= 32 ? ~0u : (1u << bits) - 1;
    k.addr = (k.addr & ~mask) | (v & mask);
    k.addr_bits = bits;
    if (bits > k.addr_valid) k.addr_valid = bits;
  };
  auto context_id = [&](size_t at) {
    uint32_t c = 0;
    for (int i = 0; i < config_.context_id_bytes(); ++i) c |= static_cast<uint32_t>(b[at + i]) << (8 * i);
    k.context_id = c;
    k.context_id_updated = true;
  };
  bool bad = false;
  std::string what;
  switch (k.type) {
    case PtmPacketType::kAsync:
      if (b[n - 1] != 0x80 || n - 1 < static_cast<size_t>(kAsyncZeros)) {
        bad = true;
        what = "bad A-sync (" + std::to_string(n) + " bytes)";
      }
      break;
    case PtmPacketType::kIsync: {
      const uint8_t info = b[5];
      k.isync_reason = (info >> 5) & 3;
      k.ns = (info >> 3) & 1;
      k.alt_isa = (info >> 2) & 1;
      k.hyp = (info >> 1) & 1;
      k.context_updated = true;
      k.isa = (b[1] & 1) ? (k.alt_isa ? PtmIsa::kThumbEE : PtmIsa::kThumb2) : PtmIsa::kArm;
      update_addr(static_cast<uint32_t>(b[1] & 0xFE) | static_cast<uint32_t>(b[2]) << 8 |
                      static_cast<uint32_t>(b[3]) << 16 | static_cast<uint32_t>(b[4]) << 24,
                  32);
      size_t at = 6;
      if (k.isync_reason != 0 && config_.cycle_accurate()) {
        k.cycle_count = CycleCount(at);
        k.has_cc = true;
        at = CycleCountEnd(b, n, at);
      }
      if (config_.context_id_bytes()) context_id(at);
      break;
    }
    case PtmPacketType::kBranchAddress:
    case PtmPacketType::kWaypointUpdate: {
      const bool wp = k.type == PtmPacketType::kWaypointUpdate;
      const size_t off = wp ? 1 : 0;
      size_t na = 1;  // address bytes
      if (wp) {
        na = 0;
        while (off + na < n && na < 5) {
          const uint8_t c = b[off + na++];
          if (na < 5 && !(c & 0x80)) break;
        }
      } else if (h & 0x80) {
        while (na < 5 && na < n) {
          const uint8_t c = b[na++];
          if (na < 5 && !(c & 0x80)) break;
        }
      }
      // exception (branch) / waypoint-information (waypoint) bytes
      size_t ne = 0;
      const uint8_t last_addr = b[off + na - 1];
      const bool has_exc = (off + na < n) && (last_addr & 0x40) && (na == 5 || (!wp && na > 1));
      if (has_exc) {
        ne = 1;
        if (!wp && (b[off + na] & 0x80)) ne = 2;
        excep_alt_isa_ = b[off + na] & 0x40;
      }
      PtmIsa isa = k.isa;
      if (na == 5) {
        const uint8_t c = b[off + 4];
        isa = (c & 0x20) ? PtmIsa::kJazelle : ((c & 0x30) == 0x10) ? PtmIsa::kThumb2 : PtmIsa::kArm;
      }
      if (isa == PtmIsa::kThumbEE && !excep_alt_isa_)
        isa = PtmIsa::kThumb2;
      else if (isa == PtmIsa::kThumb2 && excep_alt_isa_)
        isa = PtmIsa::kThumbEE;
      k.isa = isa;
      uint8_t bits = 0;
      const uint32_t v = Address(off, na, isa, &bits);
      update_addr(v, bits);
      if (!wp && ne) {
        const uint8_t e1 = b[na];
        uint16_t num = (e1 >> 1) & 0xF;
        k.ns = e1 & 1;
        k.context_updated = true;
        if (ne > 1) {
          const uint8_t e2 = b[na + 1];
          k.hyp = (e2 >> 5) & 1;
          num |= static_cast<uint16_t>(e2 & 0x1F) << 4;
        }
        k.has_exception = true;
        k.exception_number = num;
      }
      if (!wp && config_.cycle_accurate()) {
        k.cycle_count = CycleCount(na + ne);
        k.has_cc = true;
      }
      break;
    }
    case PtmPacketType::kContextId: context_id(1); break;
    case PtmPacketType::kVmid: k.vmid = b[1]; break;
    case PtmPacketType::kAtom:
      if (config_.cycle_accurate()) {
        k.atom_count = 1;
        k.atom_bits = (h & 2) ? 0 : 1;
        k.cycle_count = CycleCount(0);
        k.has_cc = true;
      } else {
        const uint8_t fmt = h & 0xF0;
        k.atom_count = fmt == 0x80 ? ((h & 0x08) ? 2 : 1) : fmt == 0x90 ? 3 : ((h & 0xE0) == 0xA0 ? 4 : 5);
        // header bit 1 is the newest atom; 0 = E
        uint8_t bits = 0;
        for (int i = 0; i < k.atom_count; ++i)
          bits = static_cast<uint8_t>((bits << 1) | (((h >> (1 + i)) & 1) ? 0 : 1));
        k.atom_bits = bits;
      }
      break;
    case PtmPacketType::kTimestamp: {
      const bool is64 = config_.ts_64bit();
      uint64_t v = 0;
      int bits = 0, shift = 0;
      size_t i = 1;
      for (bool more = true; more && i < n; ++i, shift += 7) {
        uint8_t c = b[i];
        if (i < (is64 ? 9u : 7u)) {
          more = c & 0x80;
          c &= 0x7F;
          bits += 7;
        } else {
          more = false;
          if (!is64) c &= 0x3F;
          bits += is64 ? 8 : 6;
        }
        v |= static_cast<uint64_t>(c) << shift;
      }
      if (config_.cycle_accurate()) {
        k.cycle_count = CycleCount(i);
        k.has_cc = true;
      }
      const uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
      // OpenCSD 1.8.0 takes the value as binary even where ETMCCER says gray code (PFT 1.0)
      k.timestamp = (k.timestamp & ~mask) | (v & mask);
      k.ts_bits = static_cast<uint8_t>(bits);
      break;
    }
    case PtmPacketType::kReserved: {
      char m[48];
      std::snprintf(m, sizeof m, "reserved header 0x%02x", h);
      what = m;
      break;
    }
    default: break;
  }
  if (bad) {
    k.err_type = k.type;
    k.type = PtmPacketType::kBadSequence;
  }
  const uint64_t at = pend_index_;
  Emit(pend_.data(), n, at);
  pend_len_ = 0;
  if (!what.empty()) {
    Error(at, what);
    if (policy_ == ErrorPolicy::kResync) synced_ = false;
  }
}

}  // namespace mabutrace::ptm
