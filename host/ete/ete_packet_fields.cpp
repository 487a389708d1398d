// SPDX-License-Identifier: MIT
// ete_packet_fields.cpp: the packet kinds off the hot path (see ete_packet_fields.h).
#include "ete/ete_packet_fields.h"

#include <bit>
#include <cstddef>
#include <cstring>

#include "ete/uleb128.h"

namespace mabutrace::ete {
namespace {

constexpr unsigned kMaxPlctlBytes = 4;              // Trace Info control bytes accepted (docs/ete.md, difference 3)
constexpr unsigned kCountBytes = UlebMaxBytes(32);  // COMMIT, CANCEL, SPEC, CYCT, Q COUNT fields: 5
constexpr unsigned kCycleBytes = UlebMaxBytes(20);  // cycle count COUNT fields: 3
constexpr unsigned kTimestampBytes = 9;             // 8 x 7 bits, then bits[63:56] whole

PacketExtent Malformed(size_t length, EteErrorKind error) { return {static_cast<uint8_t>(length), true, error}; }

uint64_t LittleEndian(const uint8_t* f, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(f[i]) << (8 * i);
  return v;
}

using internal::LoadLe;

// A context info byte's EL, SF, NS and NSE (§4.12: bits [1:0], 4, 5, 3) as
// PacketContext holds them, by info[5:0]: four byte stores in one copy.
struct ContextFlags {
  uint8_t el;
  bool sf, ns, nse;
};
static_assert(offsetof(PacketContext, sf) == offsetof(PacketContext, el) + 1 &&
              offsetof(PacketContext, ns) == offsetof(PacketContext, el) + 2 &&
              offsetof(PacketContext, nse) == offsetof(PacketContext, el) + 3);
constexpr std::array<ContextFlags, 64> MakeContextFlags() {
  std::array<ContextFlags, 64> t{};
  for (unsigned i = 0; i < 64; ++i)
    t[i] = {static_cast<uint8_t>(i & 3), ((i >> 4) & 1) != 0, ((i >> 5) & 1) != 0, ((i >> 3) & 1) != 0};
  return t;
}
constexpr std::array<ContextFlags, 64> kContextFlags = MakeContextFlags();

// A VMID or CONTEXTID field: 0, 1, 2 or 4 bytes (EteConfig::vmid_bytes()).
uint32_t ContextIdField(const uint8_t* f, unsigned bytes) {
  switch (bytes) {
    case 1: return f[0];
    case 2: return LoadLe<uint16_t>(f);
    case 4: return LoadLe<uint32_t>(f);
    default: return 0;
  }
}

// One ULEB128 field at p[*at..n): its value, *at moved past it. Returns false
// with *extent set when the field is incomplete ({0}) or overlong.
bool Field(const uint8_t* p, size_t n, size_t* at, unsigned max_bytes, uint32_t* value, PacketExtent* extent) {
  const UlebResult r = ReadUleb(p + *at, n - *at, max_bytes);
  if (r.status == UlebStatus::kNeedMore) {
    *extent = {0};
    return false;
  }
  if (r.status == UlebStatus::kOverlong) {
    *extent = Malformed(*at + r.bytes, EteErrorKind::kOverlongField);
    return false;
  }
  *value = r.value;
  *at += r.bytes;
  return true;
}

}  // namespace

void PacketFields::Reset() {
  const uint8_t trace_id = config_.trace_id();
  pkt_ = EtePacket{};
  pkt_.trace_id = trace_id;
  pkt_.etm4 = !config_.is_ete();
  pkt_.m_profile = config_.m_profile;
  older_addrs_ = {};
  for (auto& a : older_addrs_) a.is64 = true;  // OpenCSD initialises the history as 64-bit
  // ... and prints addresses 64 bits wide from the start, even a first
  // 32-bit address under an AArch32 context (armv8_1m_branches, Cortex-M55).
  pkt_.addr.is64 = true;
  first_tinfo_ = false;
  ts_valid_ = false;
  cc_thresh_valid_ = false;
}

PacketExtent PacketFields::Extension(const uint8_t* p, size_t n, uint8_t /*is*/) {
  if (n < 2) return {0};
  if (p[1] == 0x03) {
    pkt_.type = PacketType::kDiscard;
    return {2};
  }
  if (p[1] == 0x05) {
    pkt_.type = PacketType::kOverflow;
    return {2};
  }
  if (p[1] != 0x00) return Malformed(2, EteErrorKind::kBadSequence);
  // A-Sync: OpenCSD takes exactly 11 zero bytes, then 0x80. Whole in hand
  // (the common case): bytes 2-9 as one word; else byte by byte.
  if (n >= 12 && LoadLe<uint64_t>(p + 2) == 0 && LoadLe<uint16_t>(p + 10) == 0x8000) {
    pkt_.type = PacketType::kAsync;
    return {12};
  }
  for (size_t i = 2; i < 12; ++i) {
    if (i >= n) return {0};
    if (p[i] == 0) continue;
    if (i != 11 || p[i] != 0x80) return Malformed(i + 1, EteErrorKind::kBadSequence);
    pkt_.type = PacketType::kAsync;
    return {12};
  }
  return Malformed(12, EteErrorKind::kBadSequence);  // the 12th byte is still zero
}

PacketExtent PacketFields::TraceInfo(const uint8_t* p, size_t n, uint8_t /*is*/) {
  if (n < 2) return {0};
  // PLCTL 0 (one byte, no section), as the captures mostly have: the
  // sections' loop and its stack frame are out of line.
  if (p[1] == 0) {
    SetTraceInfo(0, {});
    return {2};
  }
  return TraceInfoWithSections(p, n);
}

__attribute__((noinline)) PacketExtent PacketFields::TraceInfoWithSections(const uint8_t* p, size_t n) {
  size_t at = 1;
  for (;; ++at) {  // PLCTL
    if (at >= n) return {0};
    if ((p[at] & 0x80) == 0) break;
    if (at >= kMaxPlctlBytes) return Malformed(at + 1, EteErrorKind::kOverlongField);
  }
  ++at;
  // Sections in PLCTL bit order: INFO, KEY, SPEC, CYCT, commit window. Absent ones read as 0.
  const uint8_t present = p[1] & 0x1F;
  std::array<uint32_t, 5> section{};
  PacketExtent extent;
  for (unsigned rest = present; rest != 0; rest &= rest - 1)
    if (const unsigned s = static_cast<unsigned>(__builtin_ctz(rest));
        !Field(p, n, &at, kCountBytes, &section[s], &extent))
      return extent;
  SetTraceInfo(present, section);
  return {static_cast<uint8_t>(at)};
}

void PacketFields::SetTraceInfo(uint8_t present, const std::array<uint32_t, 5>& section) {
  pkt_.tinfo_sections = present;
  pkt_.info = section[0];
  pkt_.key = section[1];
  pkt_.spec = section[2];
  cc_thresh_valid_ = present & 0x08;
  if (cc_thresh_valid_) pkt_.cc_threshold = section[3];
  ts_valid_ = false;
  // Trace Info resets VMID and CONTEXTID to 0 (§4.4): a VMID read from
  // earlier (maybe garbage) bytes must not show in the contexts after it.
  pkt_.context.vmid = 0;
  pkt_.context.context_id = 0;
  // Trace Info resets the address history to (0, IS0), all bits known.
  pkt_.addr.value = 0;
  pkt_.addr.valid_bits = 64;
  pkt_.addr.isa = 0;
  older_addrs_[0] = older_addrs_[1] = pkt_.addr;  // (fill() made a memmove call)
  pkt_.tinfo_initial = !first_tinfo_;
  first_tinfo_ = true;
}

// The low 7 bits of each byte of w, packed: 8 bytes give 56 bits.
uint64_t Pack7(uint64_t w) {
  uint64_t x = w & 0x7F7F7F7F7F7F7F7Full;
  x = ((x & 0x7F007F007F007F00ull) >> 1) | (x & 0x007F007F007F007Full);  // 14 bits per half-word
  x = ((x & 0x3FFF00003FFF0000ull) >> 2) | (x & 0x00003FFF00003FFFull);  // 28 bits per word
  return ((x & 0x0FFFFFFF00000000ull) >> 4) | (x & 0x000000000FFFFFFFull);
}

PacketExtent PacketFields::Timestamp(const uint8_t* p, size_t n, uint8_t /*is*/) {
  // TS: bytes 1..8 carry 7 bits each while bit 7 is set; a 9th carries bits[63:56].
  uint64_t value = 0;
  size_t ts_bytes = 0;
  if (n >= 1 + kTimestampBytes) {
    // All nine in hand (the common case): bytes 1-8 as one word, the
    // field's end from its first byte with bit 7 clear, no byte loop.
    const uint64_t w = LoadLe<uint64_t>(p + 1);
    const uint64_t ends = ~w & 0x8080808080808080ull;
    if (ends != 0) {
      ts_bytes = static_cast<size_t>(std::countr_zero(ends)) / 8 + 1;
      value = Pack7(w & (ends ^ (ends - 1)));  // the bytes up to the first end
    } else {
      ts_bytes = kTimestampBytes;
      value = Pack7(w) | static_cast<uint64_t>(p[kTimestampBytes]) << 56;
    }
  } else {
    for (;;) {
      if (1 + ts_bytes >= n) return {0};
      const uint8_t b = p[1 + ts_bytes];
      if (ts_bytes == kTimestampBytes - 1) {
        value |= static_cast<uint64_t>(b) << 56;
        ++ts_bytes;
        break;
      }
      value |= static_cast<uint64_t>(b & 0x7F) << (7 * ts_bytes);
      ++ts_bytes;
      if ((b & 0x80) == 0) break;
    }
  }
  size_t at = 1 + ts_bytes;
  uint32_t count = 0;
  const bool has_count = p[0] & 1;
  PacketExtent extent;
  if (has_count && !Field(p, n, &at, kCycleBytes, &count, &extent)) return extent;

  // Bit replacement; the first timestamp after a Trace Info is taken whole.
  unsigned bits = ts_bytes < kTimestampBytes ? static_cast<unsigned>(7 * ts_bytes) : 64;
  if (!ts_valid_ && first_tinfo_) bits = 64;
  const uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  pkt_.timestamp = (pkt_.timestamp & ~mask) | (value & mask);
  pkt_.ts_bits = static_cast<uint8_t>(bits);
  ts_valid_ = true;
  if (has_count) {
    const unsigned ccb = config_.cc_size_bits();
    SetCycleCount(ccb < 32 ? count & ((1u << ccb) - 1) : count);
  }
  return {static_cast<uint8_t>(at)};
}

PacketExtent PacketFields::Event(const uint8_t* p, size_t /*n*/, uint8_t /*is*/) {
  pkt_.event = p[0] & 0xF;
  return {1};
}

PacketExtent PacketFields::Exception(const uint8_t* p, size_t n, uint8_t /*is*/) {
  if (n < 2) return {0};
  const uint8_t info = p[1];
  const uint16_t type = (info >> 1) & 0x1F;
  size_t length = (info & 0x80) ? 3 : 2;
  // OpenCSD reads ETE's PE Reset and Transaction Failure as 3 bytes (their
  // address header is part of the packet).
  const bool ete_special = config_.is_ete() && (type == 0 || type == 0x18);
  if (ete_special) length = 3;
  if (n < length) return {0};
  pkt_.exception_addr_interp = static_cast<uint8_t>(((info & 0x40) >> 5) | (info & 1));
  // ETMv4 (M-profile): info bit 7 = a 3rd byte follows with TYPE[9:5] in
  // bits [4:0] and FAULT_PENDING in bit 5 (exception numbers up to 0x3EF).
  pkt_.exception_type = (info & 0x80) ? static_cast<uint16_t>(type | ((p[2] & 0x1F) << 5)) : type;
  pkt_.exception_fault_pending = (info & 0x80) && ((p[2] >> 5) & 1);
  if (config_.is_ete() && (pkt_.exception_type == 0 || pkt_.exception_type == 0x18)) {
    SetAddress64(0, 0);
    pkt_.type = pkt_.exception_type == 0x18 ? PacketType::kTransactionFailure : PacketType::kPeReset;
  }
  return {static_cast<uint8_t>(length)};
}

PacketExtent PacketFields::Instrumentation(const uint8_t* p, size_t n, uint8_t /*is*/) {
  if (n < 10) return {0};
  pkt_.ite_el = p[1];
  pkt_.ite_value = LittleEndian(p + 2, 8);
  return {10};
}

PacketExtent PacketFields::CycleCountF1(const uint8_t* p, size_t n, uint8_t /*is*/) {
  size_t at = 1;
  uint32_t commit = 0, count = 0;
  PacketExtent extent;
  const bool has_commit = !config_.commit_opt1();
  const bool known = (p[0] & 1) == 0;  // 0x0F: count unknown, no COUNT field
  if (has_commit && !Field(p, n, &at, kCountBytes, &commit, &extent)) return extent;
  if (known && !Field(p, n, &at, kCycleBytes, &count, &extent)) return extent;
  if (has_commit) SetCommit(commit);
  SetCycleCount(known ? count + CycleThreshold() : 0);  // 0 = unknown
  return {static_cast<uint8_t>(at)};
}

PacketExtent PacketFields::Commit(const uint8_t* p, size_t n, uint8_t /*is*/) {
  size_t at = 1;
  uint32_t commit = 0;
  PacketExtent extent;
  if (!Field(p, n, &at, kCountBytes, &commit, &extent)) return extent;
  SetCommit(commit);
  return {static_cast<uint8_t>(at)};
}

PacketExtent PacketFields::CancelF1(const uint8_t* p, size_t n, uint8_t /*is*/) {
  size_t at = 1;
  PacketExtent extent;
  if (!Field(p, n, &at, kCountBytes, &pkt_.cancel, &extent)) return extent;
  return {static_cast<uint8_t>(at)};
}

PacketExtent PacketFields::MispredictOrCancelF2(const uint8_t* p, size_t /*n*/, uint8_t /*is*/) {
  switch (p[0] & 3) {                                        // AA: the atoms before the mispredict
    case 1: pkt_.atom_bits = 1, pkt_.atom_count = 1; break;  // E
    case 2: pkt_.atom_bits = 3, pkt_.atom_count = 2; break;  // E E
    case 3: pkt_.atom_bits = 0, pkt_.atom_count = 1; break;  // N
    default: break;
  }
  pkt_.cancel = (p[0] & 4) ? 1 : 0;  // 0x34-0x37: Cancel F2 cancels one
  return {1};
}

PacketExtent PacketFields::CancelF3(const uint8_t* p, size_t /*n*/, uint8_t /*is*/) {
  if (p[0] & 1) {  // A: one E atom before the cancel
    pkt_.atom_bits = 1;
    pkt_.atom_count = 1;
  }
  pkt_.cancel = ((p[0] >> 1) & 3) + 2u;
  return {1};
}

size_t PacketFields::ContextBytes(uint8_t info) const {
  return 1 + ((info & 0x40) ? vmid_bytes_ : 0) + ((info & 0x80) ? cid_bytes_ : 0);
}

// Inline in its three readers: a call of its own cost some eight instructions per context.
__attribute__((always_inline)) inline void PacketFields::ContextField(const uint8_t* f) {
  const uint8_t info = f[0];
  PacketContext& c = pkt_.context;
  pkt_.context_valid = true;
  c.updated = true;
  std::memcpy(&c.el, &kContextFlags[info & 0x3F], sizeof(ContextFlags));
  size_t at = 1;
  if (info & 0x40) {  // V: VMID follows
    c.vmid = ContextIdField(f + at, vmid_bytes_);
    c.updated_vmid = true;
    at += vmid_bytes_;
  }
  if (info & 0x80) {  // C: CONTEXTID follows
    c.context_id = ContextIdField(f + at, cid_bytes_);
    c.updated_cid = true;
  }
}

PacketExtent PacketFields::Context(const uint8_t* p, size_t n, uint8_t /*is*/) {
  if ((p[0] & 1) == 0) {  // 0x80: context unchanged
    pkt_.context_valid = true;
    return {1};
  }
  if (n < 2) return {0};
  const size_t length = 1 + ContextBytes(p[1]);
  if (n < length) return {0};
  ContextField(p + 1);
  return {static_cast<uint8_t>(length)};
}

// The length once: ContextField's stores may alias p, so a second
// ContextBytes(p[5]) after it was computed again.
PacketExtent PacketFields::AddressWithContext32(const uint8_t* p, size_t n, uint8_t is) {
  if (n < 6) return {0};
  const size_t length = 5 + ContextBytes(p[5]);
  if (n < length) return {0};
  ContextField(p + 5);  // first: its SF decides the address width
  SetAddress32(Long32(p + 1, is), is);
  return {static_cast<uint8_t>(length)};
}

PacketExtent PacketFields::AddressWithContext64(const uint8_t* p, size_t n, uint8_t is) {
  if (n < 10) return {0};
  const size_t length = 9 + ContextBytes(p[9]);
  if (n < length) return {0};
  ContextField(p + 9);
  SetAddress64(Long64(p + 1, is), is);
  return {static_cast<uint8_t>(length)};
}

PacketExtent PacketFields::Q(const uint8_t* p, size_t n, uint8_t /*is*/) {
  const uint8_t type = p[0] & 0xF;
  if (type == 0xF) {  // count unknown, no address
    pkt_.q_type = type;
    pkt_.q_count = 0;
    pkt_.q_count_present = pkt_.q_addr_present = pkt_.q_addr_match = false;
    return {1};
  }
  // The address field: none (0-2 exact match, 0xC), short (5, 6) or 32-bit (0xA, 0xB).
  const bool short_addr = type == 0x5 || type == 0x6;
  const bool long_addr = type == 0xA || type == 0xB;
  size_t at = 1;
  if (short_addr) {
    if (n < 2) return {0};
    at += ShortAddressBytes(p[1]);
  } else if (long_addr) {
    at += 4;
  }
  if (n < at) return {0};
  uint32_t count = 0;
  PacketExtent extent;
  if (!Field(p, n, &at, kCountBytes, &count, &extent)) return extent;

  pkt_.q_type = type;
  pkt_.q_addr_match = type <= 2;
  pkt_.q_addr_present = type <= 2 || short_addr || long_addr;
  if (type <= 2) ExactMatch(type);
  if (short_addr) ShortAddressField(p + 1, type == 0x6 ? 1 : 0);
  if (long_addr) SetAddress32(Long32(p + 1, type & 1), type & 1);
  pkt_.q_count = count;
  pkt_.q_count_present = true;
  return {static_cast<uint8_t>(at)};
}

}  // namespace mabutrace::ete
