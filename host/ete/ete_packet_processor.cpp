// ete_packet_processor.cpp: ETE packet processor (see ete_packet_processor.h).
#include "ete/ete_packet_processor.h"

#include <cstdio>
#include <cstring>

#include "ete/uleb128.h"

namespace mabutrace::ete {

enum class EtePacketProcessor::Handler : uint8_t {
  kReserved,
  kReservedCfg,
  kExtension,
  kTraceInfo,
  kTimestamp,
  kNoPayload,
  kException,
  kIte,
  kCcntF1,
  kCcntF2,
  kCcntF3,
  kCommitCancelF1,
  kSpecRes,  // mispredict, cancel F2/F3: header only
  kContext,
  kAddrCtxt32,
  kAddrCtxt64,
  kExactMatch,
  kShortAddr,
  kLong32,
  kLong64,
  kQ,
  kAtom,
};

const char* EteErrorKindName(EteErrorKind kind) {
  switch (kind) {
    case EteErrorKind::kReservedHeader: return "reserved-header";
    case EteErrorKind::kBadSequence: return "bad-sequence";
    case EteErrorKind::kOverlongField: return "overlong-field";
    case EteErrorKind::kTruncated: return "truncated";
  }
  return "?";
}

EtePacketProcessor::EtePacketProcessor(const EteConfig& config, PacketCallback on_packet,
                                       void* context, ErrorCallback on_error, ErrorPolicy policy)
    : config_(config), on_packet_(on_packet), context_(context), on_error_(on_error), policy_(policy) {
  BuildTable();
  Reset();
}

void EtePacketProcessor::Reset() {
  stats_ = EteStats{};
  pkt_ = EtePacket{};
  pkt_.trace_id = config_.trace_id();
  addr_stack_ = {};
  for (auto& a : addr_stack_) a.is64 = true;  // OpenCSD initialises the stack as 64-bit
  synced_ = false;
  first_tinfo_ = false;
  ts_valid_ = false;
  cc_thresh_valid_ = false;
  pend_len_ = 0;
  pend_index_ = 0;
  unsync_fn_ = UnsyncFn::kNotSync;
  unsync_type_ = PacketType::kNotSync;
  update_index_ = 0;
  unsync_continue_ = false;
}

// Header table (arm-trace-facts.md §4.2, §4.16), built from the configuration
// as OpenCSD does.
void EtePacketProcessor::BuildTable() {
  for (auto& e : table_) e = {PacketType::kReserved, Handler::kReserved};
  auto set = [&](int h, PacketType t, Handler f) { table_[static_cast<size_t>(h)] = {t, f}; };
  const bool ete = config_.is_ete();
  set(0x00, PacketType::kExtension, Handler::kExtension);
  set(0x01, PacketType::kTraceInfo, Handler::kTraceInfo);
  set(0x02, PacketType::kTimestamp, Handler::kTimestamp);
  set(0x03, PacketType::kTimestamp, Handler::kTimestamp);
  set(0x04, PacketType::kTraceOn, Handler::kNoPayload);
  set(0x05, PacketType::kFunctionReturn, Handler::kReserved);  // ETMv4-M only
  set(0x06, PacketType::kException, Handler::kException);
  set(0x07, PacketType::kExceptionReturn, ete ? Handler::kReservedCfg : Handler::kNoPayload);
  if (ete) {
    set(0x0A, PacketType::kTransactionStart, Handler::kNoPayload);
    set(0x0B, PacketType::kTransactionCommit, Handler::kNoPayload);
    if (config_.minor_version() >= 3) set(0x09, PacketType::kInstrumentation, Handler::kIte);
  }
  set(0x0C, PacketType::kCycleCountF2, Handler::kCcntF2);
  set(0x0D, PacketType::kCycleCountF2, Handler::kCcntF2);
  set(0x0E, PacketType::kCycleCountF1, Handler::kCcntF1);
  set(0x0F, PacketType::kCycleCountF1, Handler::kCcntF1);
  for (int i = 0x10; i <= 0x1F; ++i) set(i, PacketType::kCycleCountF3, Handler::kCcntF3);
  for (int i = 0x20; i <= 0x2C; ++i) set(i, PacketType::kDataSyncMarker, Handler::kReservedCfg);
  set(0x2D, PacketType::kCommit, Handler::kCommitCancelF1);
  set(0x2E, PacketType::kCancelF1, Handler::kCommitCancelF1);
  set(0x2F, PacketType::kCancelF1Mispredict, Handler::kCommitCancelF1);
  for (int i = 0x30; i <= 0x33; ++i) set(i, PacketType::kMispredict, Handler::kSpecRes);
  for (int i = 0x34; i <= 0x37; ++i) set(i, PacketType::kCancelF2, Handler::kSpecRes);
  for (int i = 0x38; i <= 0x3F; ++i) set(i, PacketType::kCancelF3, Handler::kSpecRes);
  for (int i = 0x40; i <= 0x6F; ++i) {
    // conditional trace: ETMv4 only (TRCIDR0.TRCCOND is RES0 in ETE)
    if (i == 0x6C || i == 0x6D || (i >= 0x40 && i <= 0x4E && i != 0x47 && i != 0x4B) ||
        (i >= 0x50 && i <= 0x5F) || (i >= 0x68 && i <= 0x6B) || i == 0x6E || i == 0x6F)
      set(i, PacketType::kConditional, Handler::kReservedCfg);
  }
  if (config_.full_version() >= 0x43) set(0x70, PacketType::kIgnore, Handler::kNoPayload);
  for (int i = 0x71; i <= 0x7F; ++i) set(i, PacketType::kEvent, Handler::kNoPayload);
  set(0x80, PacketType::kContext, Handler::kContext);
  set(0x81, PacketType::kContext, Handler::kContext);
  set(0x82, PacketType::kTargetAddrCtxtL32Is0, Handler::kAddrCtxt32);
  set(0x83, PacketType::kTargetAddrCtxtL32Is1, Handler::kAddrCtxt32);
  set(0x85, PacketType::kTargetAddrCtxtL64Is0, Handler::kAddrCtxt64);
  set(0x86, PacketType::kTargetAddrCtxtL64Is1, Handler::kAddrCtxt64);
  if (config_.full_version() >= 0x46) set(0x88, PacketType::kTimestampMarker, Handler::kNoPayload);
  for (int i = 0x90; i <= 0x92; ++i) set(i, PacketType::kTargetAddrExact, Handler::kExactMatch);
  set(0x95, PacketType::kTargetAddrShortIs0, Handler::kShortAddr);
  set(0x96, PacketType::kTargetAddrShortIs1, Handler::kShortAddr);
  set(0x9A, PacketType::kTargetAddrL32Is0, Handler::kLong32);
  set(0x9B, PacketType::kTargetAddrL32Is1, Handler::kLong32);
  set(0x9D, PacketType::kTargetAddrL64Is0, Handler::kLong64);
  set(0x9E, PacketType::kTargetAddrL64Is1, Handler::kLong64);
  for (int i = 0; i < 16; ++i) {
    switch (i) {
      case 0x3: case 0x4: case 0x7: case 0x8: case 0x9: case 0xD: case 0xE:
        set(0xA0 + i, PacketType::kQ, Handler::kReserved);
        break;
      default:
        set(0xA0 + i, PacketType::kQ, config_.has_q() ? Handler::kQ : Handler::kReserved);
    }
  }
  if (config_.full_version() >= 0x50) {
    for (int i = 0xB0; i <= 0xB2; ++i) set(i, PacketType::kSourceAddrExact, Handler::kExactMatch);
    set(0xB4, PacketType::kSourceAddrShortIs0, Handler::kShortAddr);
    set(0xB5, PacketType::kSourceAddrShortIs1, Handler::kShortAddr);
    set(0xB6, PacketType::kSourceAddrL32Is0, Handler::kLong32);
    set(0xB7, PacketType::kSourceAddrL32Is1, Handler::kLong32);
    set(0xB8, PacketType::kSourceAddrL64Is0, Handler::kLong64);
    set(0xB9, PacketType::kSourceAddrL64Is1, Handler::kLong64);
  }
  for (int i = 0xC0; i <= 0xD4; ++i) set(i, PacketType::kAtomF6, Handler::kAtom);
  for (int i = 0xD5; i <= 0xD7; ++i) set(i, PacketType::kAtomF5, Handler::kAtom);
  for (int i = 0xD8; i <= 0xDB; ++i) set(i, PacketType::kAtomF2, Handler::kAtom);
  for (int i = 0xDC; i <= 0xDF; ++i) set(i, PacketType::kAtomF4, Handler::kAtom);
  for (int i = 0xE0; i <= 0xF4; ++i) set(i, PacketType::kAtomF6, Handler::kAtom);
  set(0xF5, PacketType::kAtomF5, Handler::kAtom);
  set(0xF6, PacketType::kAtomF1, Handler::kAtom);
  set(0xF7, PacketType::kAtomF1, Handler::kAtom);
  for (int i = 0xF8; i <= 0xFF; ++i) set(i, PacketType::kAtomF3, Handler::kAtom);
  // Atom patterns (§4.15), oldest atom in bit 0.
  static constexpr uint32_t kF4[4] = {0xE, 0x0, 0xA, 0x5};
  for (int h = 0xC0; h <= 0xFF; ++h) {
    uint32_t bits = 0;
    uint8_t count = 0;
    switch (table_[static_cast<size_t>(h)].type) {
      case PacketType::kAtomF1: bits = h & 1; count = 1; break;
      case PacketType::kAtomF2: bits = h & 3; count = 2; break;
      case PacketType::kAtomF3: bits = h & 7; count = 3; break;
      case PacketType::kAtomF4: bits = kF4[h & 3]; count = 4; break;
      case PacketType::kAtomF5:
        switch (((h & 0x20) >> 3) | (h & 3)) {
          case 5: bits = 0x1E; break;
          case 1: bits = 0x00; break;
          case 2: bits = 0x0A; break;
          default: bits = 0x15; break;
        }
        count = 5;
        break;
      default: {  // F6: (COUNT+3) x E, then E (A=0) or N (A=1)
        const unsigned n = (h & 0x1F) + 3u;
        bits = (1u << n) - 1;
        if ((h & 0x20) == 0) bits |= 1u << n;
        count = static_cast<uint8_t>(n + 1);
        break;
      }
    }
    atom_bits_[static_cast<size_t>(h)] = bits;
    atom_count_[static_cast<size_t>(h)] = count;
  }
}

namespace {

// Delimits one ULEB128 field at p[0..n) starting at `at`; returns the index
// after it, 0 when more bytes are needed, or sets *overlong.
inline size_t UlebEnd(const uint8_t* p, size_t n, size_t at, unsigned max_bytes, bool* overlong) {
  for (unsigned i = 0; i < max_bytes; ++i) {
    if (at + i >= n) return 0;
    if ((p[at + i] & 0x80) == 0) return at + i + 1;
  }
  *overlong = true;
  return at + max_bytes;
}

inline uint32_t Uleb(const uint8_t* p, unsigned max_bytes) {
  uint32_t v = 0;
  for (unsigned i = 0; i < max_bytes; ++i) {
    v |= static_cast<uint32_t>(p[i] & 0x7F) << (7 * i);
    if ((p[i] & 0x80) == 0) break;
  }
  return v;
}

inline uint32_t Long32(const uint8_t* p, uint8_t is) {
  uint32_t v = is == 0 ? (static_cast<uint32_t>(p[0] & 0x7F) << 2) | (static_cast<uint32_t>(p[1] & 0x7F) << 9)
                       : (static_cast<uint32_t>(p[0] & 0x7F) << 1) | (static_cast<uint32_t>(p[1]) << 8);
  return v | (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

inline uint64_t Long64(const uint8_t* p, uint8_t is) {
  uint64_t v = Long32(p, is);
  for (int i = 4; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

constexpr unsigned kMaxCtrlBytes = 4;  // Trace Info PLCTL bytes we accept

}  // namespace

size_t EtePacketProcessor::Delimit(const uint8_t* p, size_t n, EteErrorKind* bad_kind, bool* bad) const {
  const uint8_t h = p[0];
  const TableEntry& e = table_[h];
  bool overlong = false;
  size_t end = 0;
  switch (e.handler) {
    case Handler::kReserved:
    case Handler::kReservedCfg:
    case Handler::kNoPayload:
    case Handler::kCcntF3:
    case Handler::kSpecRes:
    case Handler::kExactMatch:
    case Handler::kAtom:
      return 1;
    case Handler::kExtension: {
      if (n < 2) return 0;
      if (p[1] == 0x03 || p[1] == 0x05) return 2;
      if (p[1] != 0x00) {
        *bad = true;
        *bad_kind = EteErrorKind::kBadSequence;
        return 2;
      }
      for (size_t i = 2; i < 12; ++i) {
        if (i >= n) return 0;
        if (p[i] != 0) {
          if (!(i == 11 && p[i] == 0x80)) {
            *bad = true;
            *bad_kind = EteErrorKind::kBadSequence;
          }
          return i + 1;
        }
      }
      *bad = true;  // 12th byte still zero
      *bad_kind = EteErrorKind::kBadSequence;
      return 12;
    }
    case Handler::kTraceInfo: {
      size_t i = 1;
      for (;;) {
        if (i >= n) return 0;
        if ((p[i] & 0x80) == 0) break;
        if (i >= kMaxCtrlBytes) {
          *bad = true;
          *bad_kind = EteErrorKind::kOverlongField;
          return i + 1;
        }
        ++i;
      }
      end = i + 1;
      if (n < 2) return 0;
      const uint8_t present = p[1] & 0x1F;
      for (int s = 0; s < 5; ++s) {
        if (!(present & (1 << s))) continue;
        end = UlebEnd(p, n, end, 5, &overlong);
        if (overlong) break;
        if (end == 0) return 0;
      }
      break;
    }
    case Handler::kTimestamp: {
      size_t i = 1;
      for (;;) {
        if (i >= n) return 0;
        if (i == 9 || (p[i] & 0x80) == 0) break;
        ++i;
      }
      end = i + 1;
      if (h & 1) {
        end = UlebEnd(p, n, end, 3, &overlong);
        if (end == 0 && !overlong) return 0;
      }
      break;
    }
    case Handler::kException: {
      if (n < 2) return 0;
      size_t len = (p[1] & 0x80) ? 3 : 2;
      if (config_.is_ete()) {
        const uint8_t t = (p[1] >> 1) & 0x1F;
        if (t == 0 || t == 0x18) len = 3;
      }
      return n >= len ? len : 0;
    }
    case Handler::kIte:
      return n >= 10 ? 10 : 0;
    case Handler::kCcntF2:
      return n >= 2 ? 2 : 0;
    case Handler::kCcntF1: {
      end = 1;
      if (!config_.commit_opt1()) {
        end = UlebEnd(p, n, end, 5, &overlong);
        if (overlong) break;
        if (end == 0) return 0;
      }
      if (!(h & 1)) {
        end = UlebEnd(p, n, end, 3, &overlong);
        if (end == 0 && !overlong) return 0;
      }
      break;
    }
    case Handler::kCommitCancelF1:
      end = UlebEnd(p, n, 1, 5, &overlong);
      if (end == 0 && !overlong) return 0;
      break;
    case Handler::kContext: {
      if (!(h & 1)) return 1;
      if (n < 2) return 0;
      size_t len = 2 + ((p[1] & 0x40) ? config_.vmid_bytes() : 0) + ((p[1] & 0x80) ? config_.cid_bytes() : 0);
      return n >= len ? len : 0;
    }
    case Handler::kAddrCtxt32:
    case Handler::kAddrCtxt64: {
      const size_t info = e.handler == Handler::kAddrCtxt32 ? 5 : 9;
      if (n <= info) return 0;
      size_t len = info + 1 + ((p[info] & 0x40) ? config_.vmid_bytes() : 0) +
                   ((p[info] & 0x80) ? config_.cid_bytes() : 0);
      return n >= len ? len : 0;
    }
    case Handler::kShortAddr: {
      if (n < 2) return 0;
      size_t len = (p[1] & 0x80) ? 3 : 2;
      return n >= len ? len : 0;
    }
    case Handler::kLong32:
      return n >= 5 ? 5 : 0;
    case Handler::kLong64:
      return n >= 9 ? 9 : 0;
    case Handler::kQ: {
      const uint8_t t = h & 0xF;
      end = 1;
      if (t == 0xF) return 1;
      if (t == 0x5 || t == 0x6) {
        if (n < 2) return 0;
        end = (p[1] & 0x80) ? 3 : 2;
      } else if (t == 0xA || t == 0xB) {
        end = 5;
      }
      if (n < end) return 0;
      end = UlebEnd(p, n, end, 5, &overlong);
      if (end == 0 && !overlong) return 0;
      break;
    }
  }
  if (overlong) {
    *bad = true;
    *bad_kind = EteErrorKind::kOverlongField;
  }
  return end;
}

// Address updates build the new value in a local and store it whole: the
// packet field and the history entry are written from registers (writing the
// bytes one by one and then copying the struct stalls store forwarding).
void EtePacketProcessor::PushAddr() {
  addr_stack_[2] = addr_stack_[1];
  addr_stack_[1] = addr_stack_[0];
  addr_stack_[0] = pkt_.addr;
}

void EtePacketProcessor::SetAddr64(uint64_t v, uint8_t isa) {
  PacketAddress a;
  a.value = v;
  a.valid_bits = 64;
  a.pkt_bits = 64;
  a.is64 = true;
  a.isa = isa;
  addr_stack_[2] = addr_stack_[1];
  addr_stack_[1] = addr_stack_[0];
  addr_stack_[0] = a;
  pkt_.addr = a;
}

void EtePacketProcessor::SetAddr32(uint32_t v, uint8_t isa) {
  PacketAddress a = pkt_.addr;
  a.pkt_bits = 32;
  // OpenCSD 1.8.0 keeps the printed width once 64-bit; outside AArch64 the
  // upper half is cleared.
  if (pkt_.context_valid && pkt_.context.sf) a.is64 = true;
  else a.value &= 0xFFFFFFFFull;
  if (a.valid_bits < 32) a.valid_bits = 32;
  a.value = (a.value & ~0xFFFFFFFFull) | v;
  a.isa = isa;
  addr_stack_[2] = addr_stack_[1];
  addr_stack_[1] = addr_stack_[0];
  addr_stack_[0] = a;
  pkt_.addr = a;
}

void EtePacketProcessor::SetAddrShort(uint32_t v, uint8_t isa, uint8_t bits) {
  const uint64_t mask = (1ull << bits) - 1;
  PacketAddress a = pkt_.addr;
  a.pkt_bits = bits;
  if (a.valid_bits < bits) a.valid_bits = bits;
  a.value = (a.value & ~mask) | (v & mask);
  a.isa = isa;
  addr_stack_[2] = addr_stack_[1];
  addr_stack_[1] = addr_stack_[0];
  addr_stack_[0] = a;
  pkt_.addr = a;
}

void EtePacketProcessor::SetExactMatch(uint8_t idx) {
  pkt_.exact_match_idx = idx;
  const PacketAddress a = addr_stack_[idx < 3 ? idx : 0];
  if (idx < 3) pkt_.addr = a;
  addr_stack_[2] = addr_stack_[1];
  addr_stack_[1] = addr_stack_[0];
  addr_stack_[0] = idx < 3 ? a : pkt_.addr;
}

void EtePacketProcessor::SetContextFromInfo(const uint8_t* p) {
  const uint8_t info = p[0];
  pkt_.context_valid = true;
  pkt_.context.updated = true;
  pkt_.context.el = info & 3;
  pkt_.context.ns = (info >> 5) & 1;
  pkt_.context.sf = (info >> 4) & 1;
  pkt_.context.nse = (info >> 3) & 1;
  size_t at = 1;
  const unsigned vb = (info & 0x40) ? config_.vmid_bytes() : 0;
  const unsigned cb = (info & 0x80) ? config_.cid_bytes() : 0;
  if (vb) {
    uint32_t v = 0;
    for (unsigned i = 0; i < vb; ++i) v |= static_cast<uint32_t>(p[at + i]) << (8 * i);
    at += vb;
    pkt_.context.vmid = v;
    pkt_.context.updated_vmid = true;
  }
  if (cb) {
    uint32_t v = 0;
    for (unsigned i = 0; i < cb; ++i) v |= static_cast<uint32_t>(p[at + i]) << (8 * i);
    pkt_.context.context_id = v;
    pkt_.context.updated_cid = true;
  }
}

void EtePacketProcessor::StartPacket() {
  pkt_.cc_valid = false;
  pkt_.commit_valid = false;
  pkt_.atom_count = 0;
  pkt_.atom_bits = 0;
  pkt_.context.updated = false;
  pkt_.context.updated_vmid = false;
  pkt_.context.updated_cid = false;
  pkt_.tinfo_initial = false;
  pkt_.err_type = PacketType::kNotSync;
}

void EtePacketProcessor::Emit() {
  ++stats_.packets;
  on_packet_(context_, pkt_);
}

// Emits and clears the per-packet fields, so that the hot path (which only
// sets the fields of its packet kinds) always starts from a clean packet.
void EtePacketProcessor::EmitAndClear() {
  Emit();
  StartPacket();
}

void EtePacketProcessor::Error(EteErrorKind kind, uint64_t index, const std::string& what) {
  ++stats_.errors;
  if (!on_error_) return;
  char head[96];
  std::snprintf(head, sizeof head, "byte %llu (trace ID 0x%x): ", static_cast<unsigned long long>(index),
                config_.trace_id());
  on_error_(context_, EteError{kind, index, config_.trace_id(), head + what});
}

void EtePacketProcessor::ApplyErrorPolicy() {
  if (policy_ == ErrorPolicy::kResync) {
    synced_ = false;
    unsync_continue_ = false;
    unsync_fn_ = UnsyncFn::kNotSync;
    unsync_type_ = PacketType::kNotSync;
    update_index_ = 0;
  }
}

static std::string HexBytes(const uint8_t* p, size_t n) {
  std::string s;
  char b[8];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, i ? " %02x" : "%02x", p[i]);
    s += b;
  }
  return s;
}

// Decodes a delimited packet (arm-trace-facts.md §4), updates the packet
// state and emits it.
void EtePacketProcessor::Decode(uint64_t index, uint64_t stream_offset, const uint8_t* p, size_t len, bool bad,
                                EteErrorKind bad_kind) {
  StartPacket();
  const uint8_t h = p[0];
  const TableEntry& e = table_[h];
  pkt_.index = index;
  pkt_.stream_offset = stream_offset;
  pkt_.raw = p;
  pkt_.size = static_cast<uint8_t>(len);
  pkt_.type = e.type;
  if (bad) {
    PacketType err = e.type;
    if (e.handler == Handler::kExtension) err = (len >= 3) ? PacketType::kAsync : PacketType::kExtension;
    pkt_.err_type = err;
    pkt_.type = PacketType::kBadSequence;
    EmitAndClear();
    Error(bad_kind, index,
          std::string(bad_kind == EteErrorKind::kOverlongField ? "overlong continuation field in "
                                                               : "malformed ") +
              PacketTypeName(err) + " packet [" + HexBytes(p, len) + "]");
    ApplyErrorPolicy();
    return;
  }
  switch (e.handler) {
    case Handler::kReserved:
    case Handler::kReservedCfg: {
      pkt_.err_type = e.type == PacketType::kReserved ? PacketType::kReserved : e.type;
      pkt_.type = e.handler == Handler::kReserved ? PacketType::kReserved : PacketType::kReservedCfg;
      EmitAndClear();
      char what[96];
      std::snprintf(what, sizeof what, "reserved header 0x%02x%s", h,
                    e.handler == Handler::kReservedCfg ? " (not valid for this trace unit configuration)" : "");
      Error(EteErrorKind::kReservedHeader, index, what);
      ApplyErrorPolicy();
      return;
    }
    case Handler::kExtension:
      if (p[1] == 0x03) {
        pkt_.type = PacketType::kDiscard;
      } else if (p[1] == 0x05) {
        pkt_.type = PacketType::kOverflow;
        ++stats_.overflows;
      } else {
        pkt_.type = PacketType::kAsync;
        ++stats_.syncs;
      }
      break;
    case Handler::kTraceInfo: {
      size_t i = 1;
      while (p[i] & 0x80) ++i;
      size_t at = i + 1;
      const uint8_t present = p[1] & 0x1F;
      pkt_.tinfo_sections = present;
      ts_valid_ = false;
      cc_thresh_valid_ = false;
      pkt_.info = 0;
      pkt_.key = 0;
      pkt_.spec = 0;
      auto field = [&]() {
        uint32_t v = Uleb(p + at, 5);
        while (p[at] & 0x80) ++at;
        ++at;
        return v;
      };
      if (present & 0x01) pkt_.info = field();
      if (present & 0x02) pkt_.key = field();
      if (present & 0x04) pkt_.spec = field();
      if (present & 0x08) {
        pkt_.cc_threshold = field();
        cc_thresh_valid_ = true;
      }
      if (present & 0x10) (void)field();  // commit window: not used by ETE
      // Trace Info resets the address history to (0, IS0) (§4.4): all bits known.
      pkt_.addr.value = 0;
      pkt_.addr.valid_bits = 64;
      pkt_.addr.isa = 0;
      for (auto& a : addr_stack_) a = pkt_.addr;
      pkt_.tinfo_initial = !first_tinfo_;
      first_tinfo_ = true;
      break;
    }
    case Handler::kTimestamp: {
      uint64_t v = 0;
      size_t i = 0;
      for (;; ++i) {
        const uint8_t b = p[1 + i];
        if (i == 8) {
          v |= static_cast<uint64_t>(b) << 56;
          break;
        }
        v |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
        if ((b & 0x80) == 0) break;
      }
      const size_t ts_bytes = i + 1;
      unsigned bits = ts_bytes < 9 ? static_cast<unsigned>(7 * ts_bytes) : 64;
      if (!ts_valid_ && first_tinfo_) bits = 64;
      const uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
      pkt_.timestamp = (pkt_.timestamp & ~mask) | (v & mask);
      pkt_.ts_bits = static_cast<uint8_t>(bits);
      ts_valid_ = true;
      if (h & 1) {
        uint32_t c = Uleb(p + 1 + ts_bytes, 3);
        const unsigned ccb = config_.cc_size_bits();
        if (ccb < 32) c &= (1u << ccb) - 1;
        pkt_.cycle_count = c;
        pkt_.cc_valid = true;
      }
      break;
    }
    case Handler::kNoPayload:
      if (e.type == PacketType::kEvent) pkt_.event = h & 0xF;
      break;
    case Handler::kException: {
      uint16_t t = (p[1] >> 1) & 0x1F;
      pkt_.exception_addr_interp = static_cast<uint8_t>(((p[1] & 0x40) >> 5) | (p[1] & 1));
      if (p[1] & 0x80) t |= static_cast<uint16_t>((p[2] & 0x1F) << 5);
      pkt_.exception_type = t;
      if (config_.is_ete() && (t == 0 || t == 0x18)) {
        SetAddr64(0, 0);
        pkt_.type = t == 0x18 ? PacketType::kTransactionFailure : PacketType::kPeReset;
      }
      break;
    }
    case Handler::kIte: {
      pkt_.ite_el = p[1];
      uint64_t v = 0;
      for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[2 + i]) << (8 * i);
      pkt_.ite_value = v;
      break;
    }
    case Handler::kCcntF3: {
      const uint32_t thr = cc_thresh_valid_ ? pkt_.cc_threshold : 0;
      if (!config_.commit_opt1()) {
        pkt_.commit = ((h >> 2) & 3) + 1;
        pkt_.commit_valid = true;
      }
      pkt_.cycle_count = thr + (h & 3);
      pkt_.cc_valid = true;
      break;
    }
    case Handler::kCcntF2: {
      const uint32_t thr = cc_thresh_valid_ ? pkt_.cc_threshold : 0;
      if (!config_.commit_opt1()) {
        const int base = (h & 1) ? static_cast<int>(config_.max_spec()) - 15 : 1;
        pkt_.commit = static_cast<uint32_t>(((p[1] >> 4) & 0xF) + base);
        pkt_.commit_valid = true;
      }
      pkt_.cycle_count = thr + (p[1] & 0xF);
      pkt_.cc_valid = true;
      break;
    }
    case Handler::kCcntF1: {
      const uint32_t thr = cc_thresh_valid_ ? pkt_.cc_threshold : 0;
      size_t at = 1;
      if (!config_.commit_opt1()) {
        pkt_.commit = Uleb(p + at, 5);
        pkt_.commit_valid = true;
        while (p[at] & 0x80) ++at;
        ++at;
      }
      pkt_.cycle_count = (h & 1) ? 0 : Uleb(p + at, 3) + thr;  // 0 = unknown
      pkt_.cc_valid = true;
      break;
    }
    case Handler::kCommitCancelF1:
      if (e.type == PacketType::kCommit) {
        pkt_.commit = Uleb(p + 1, 5);
        pkt_.commit_valid = true;
      } else {
        pkt_.cancel = Uleb(p + 1, 5);
      }
      break;
    case Handler::kSpecRes:
      if (e.type == PacketType::kCancelF3) {
        if (h & 1) {
          pkt_.atom_bits = 1;
          pkt_.atom_count = 1;
        }
        pkt_.cancel = ((h >> 1) & 3) + 2;
      } else {
        switch (h & 3) {
          case 1: pkt_.atom_bits = 1; pkt_.atom_count = 1; break;
          case 2: pkt_.atom_bits = 3; pkt_.atom_count = 2; break;
          case 3: pkt_.atom_bits = 0; pkt_.atom_count = 1; break;
          default: break;
        }
        pkt_.cancel = e.type == PacketType::kCancelF2 ? 1 : 0;
      }
      break;
    case Handler::kContext:
      if (h & 1) {
        SetContextFromInfo(p + 1);
      } else {
        pkt_.context_valid = true;  // context unchanged
      }
      break;
    case Handler::kAddrCtxt32: {
      const uint8_t is = h & 1;
      SetContextFromInfo(p + 5);  // context first: its SF decides the address width
      SetAddr32(Long32(p + 1, is), is);
      break;
    }
    case Handler::kAddrCtxt64: {
      const uint8_t is = (h == 0x86) ? 1 : 0;
      SetContextFromInfo(p + 9);
      SetAddr64(Long64(p + 1, is), is);
      break;
    }
    case Handler::kExactMatch:
      SetExactMatch(h & 3);
      break;
    case Handler::kShortAddr: {
      const uint8_t is = (h == 0x96 || h == 0xB5) ? 1 : 0;
      const unsigned shift = is == 0 ? 2 : 1;
      uint32_t v = static_cast<uint32_t>(p[1] & 0x7F) << shift;
      unsigned bits = 7;
      if (p[1] & 0x80) {
        v |= static_cast<uint32_t>(p[2]) << (7 + shift);
        bits += 8;
      }
      SetAddrShort(v, is, static_cast<uint8_t>(bits + shift));
      break;
    }
    case Handler::kLong32: {
      const uint8_t is = (h == 0x9B || h == 0xB7) ? 1 : 0;
      SetAddr32(Long32(p + 1, is), is);
      break;
    }
    case Handler::kLong64: {
      const uint8_t is = (h == 0x9E || h == 0xB9) ? 1 : 0;
      SetAddr64(Long64(p + 1, is), is);
      break;
    }
    case Handler::kQ: {
      const uint8_t t = h & 0xF;
      pkt_.q_type = t;
      pkt_.q_addr_match = false;
      pkt_.q_addr_present = false;
      size_t at = 1;
      if (t <= 2) {
        pkt_.q_addr_match = true;
        pkt_.q_addr_present = true;
        SetExactMatch(t);
      } else if (t == 0x5 || t == 0x6) {
        const uint8_t is = t == 0x6 ? 1 : 0;
        const unsigned shift = is == 0 ? 2 : 1;
        uint32_t v = static_cast<uint32_t>(p[1] & 0x7F) << shift;
        unsigned bits = 7;
        at = 2;
        if (p[1] & 0x80) {
          v |= static_cast<uint32_t>(p[2]) << (7 + shift);
          bits += 8;
          at = 3;
        }
        SetAddrShort(v, is, static_cast<uint8_t>(bits + shift));
        pkt_.q_addr_present = true;
      } else if (t == 0xA || t == 0xB) {
        SetAddr32(Long32(p + 1, t & 1), t & 1);
        pkt_.q_addr_present = true;
        at = 5;
      }
      if (t != 0xF) {
        pkt_.q_count = Uleb(p + at, 5);
        pkt_.q_count_present = true;
      } else {
        pkt_.q_count = 0;
        pkt_.q_count_present = false;
        pkt_.q_addr_present = false;
      }
      break;
    }
    case Handler::kAtom:
      pkt_.atom_bits = atom_bits_[h];
      pkt_.atom_count = atom_count_[h];
      break;
  }
  EmitAndClear();
}


// The hot path: fused delimit + decode for the frequent packets, with at
// least kMaxPacketBytes of input available (no "need more" checks). Rare or
// bad packets go through Delimit() + Decode().
__attribute__((always_inline)) inline size_t EtePacketProcessor::DecodeFast(uint64_t index, uint64_t stream_offset,
                                                                            const uint8_t* p) {
  const uint8_t h = p[0];
  const TableEntry& e = table_[h];
  size_t len;
  switch (e.handler) {
    case Handler::kAtom:
      pkt_.atom_bits = atom_bits_[h];
      pkt_.atom_count = atom_count_[h];
      len = 1;
      break;
    case Handler::kShortAddr: {
      const uint8_t is = (h == 0x96 || h == 0xB5) ? 1 : 0;
      const unsigned shift = 2u - is;
      uint32_t v = static_cast<uint32_t>(p[1] & 0x7F) << shift;
      unsigned bits = 7 + shift;
      len = 2;
      if (p[1] & 0x80) {
        v |= static_cast<uint32_t>(p[2]) << (7 + shift);
        bits += 8;
        len = 3;
      }
      SetAddrShort(v, is, static_cast<uint8_t>(bits));
      break;
    }
    case Handler::kLong32: {
      const uint8_t is = (h == 0x9B || h == 0xB7) ? 1 : 0;
      SetAddr32(Long32(p + 1, is), is);
      len = 5;
      break;
    }
    case Handler::kLong64: {
      const uint8_t is = (h == 0x9E || h == 0xB9) ? 1 : 0;
      SetAddr64(Long64(p + 1, is), is);
      len = 9;
      break;
    }
    case Handler::kExactMatch:
      SetExactMatch(h & 3);
      len = 1;
      break;
    case Handler::kCcntF3:
    case Handler::kCcntF2: {
      const uint32_t thr = cc_thresh_valid_ ? pkt_.cc_threshold : 0;
      if (e.handler == Handler::kCcntF3) {
        if (!config_.commit_opt1()) {
          pkt_.commit = ((h >> 2) & 3) + 1;
          pkt_.commit_valid = true;
        }
        pkt_.cycle_count = thr + (h & 3);
        len = 1;
      } else {
        if (!config_.commit_opt1()) {
          const int base = (h & 1) ? static_cast<int>(config_.max_spec()) - 15 : 1;
          pkt_.commit = static_cast<uint32_t>(((p[1] >> 4) & 0xF) + base);
          pkt_.commit_valid = true;
        }
        pkt_.cycle_count = thr + (p[1] & 0xF);
        len = 2;
      }
      pkt_.cc_valid = true;
      pkt_.type = e.type;
      pkt_.index = index;
      pkt_.stream_offset = stream_offset;
      pkt_.raw = p;
      pkt_.size = static_cast<uint8_t>(len);
      Emit();
      pkt_.cc_valid = false;
      pkt_.commit_valid = false;
      return len;
    }
    case Handler::kNoPayload:
      if (e.type == PacketType::kEvent) {
        return 0;  // generic path (sets the event mask)
      }
      len = 1;
      break;
    default:
      return 0;  // generic path
  }
  pkt_.type = e.type;
  pkt_.index = index;
  pkt_.stream_offset = stream_offset;
  pkt_.raw = p;
  pkt_.size = static_cast<uint8_t>(len);
  Emit();
  pkt_.atom_count = 0;
  return len;
}

// ---- unsynchronised state: OpenCSD's iNotSync / iPktExtension / iPktASync ----

void EtePacketProcessor::EmitPending(PacketType type, PacketType err_type, size_t n) {
  StartPacket();
  pkt_.type = type;
  pkt_.err_type = err_type;
  pkt_.index = pend_index_;
  pkt_.stream_offset = pend_stream_;
  pkt_.raw = pend_.data();
  pkt_.size = static_cast<uint8_t>(n);
  EmitAndClear();
}

void EtePacketProcessor::DumpUnsynced(size_t n) {
  stats_.not_sync_bytes += n;
  EmitPending(PacketType::kNotSync, PacketType::kNotSync, n);
  std::memmove(pend_.data(), pend_.data() + n, pend_len_ - n);
  pend_len_ -= n;
  pend_stream_ += n;
  unsync_continue_ = true;  // OpenCSD stays in PROC_DATA after dumping
  if (update_index_ != 0) {
    pend_index_ = update_index_;
    update_index_ = 0;
  }
}

void EtePacketProcessor::UnsyncedByte(uint64_t index, uint64_t stream_offset, uint8_t b) {
  if (pend_len_ == 0) pend_stream_ = stream_offset;
  if (pend_len_ == 0 && !unsync_continue_) {  // OpenCSD PROC_HDR
    pend_index_ = index;
    unsync_fn_ = UnsyncFn::kNotSync;
    unsync_type_ = PacketType::kNotSync;
  }
  pend_[pend_len_++] = b;
  switch (unsync_fn_) {
    case UnsyncFn::kNotSync:
      if (b == 0x00) {
        if (pend_len_ > 1) {
          update_index_ = index;
          DumpUnsynced(pend_len_ - 1);
        } else {
          pend_index_ = index;
        }
        unsync_fn_ = UnsyncFn::kExtension;
      } else if (pend_len_ >= 8) {
        update_index_ = index + 1;
        DumpUnsynced(pend_len_);
      }
      break;
    case UnsyncFn::kExtension:
      if (pend_len_ == 2) {
        if (b != 0x00) {
          unsync_fn_ = UnsyncFn::kNotSync;
          unsync_type_ = PacketType::kNotSync;
        } else {
          unsync_fn_ = UnsyncFn::kAsync;
          unsync_type_ = PacketType::kAsync;
        }
      }
      break;
    case UnsyncFn::kAsync:
      if (b != 0x00) {
        if (pend_len_ != 12) {
          unsync_fn_ = UnsyncFn::kNotSync;
          unsync_type_ = PacketType::kNotSync;
          return;
        }
        if (b == 0x80) {
          synced_ = true;
          ++stats_.syncs;
          EmitPending(PacketType::kAsync, PacketType::kNotSync, 12);
        } else {
          EmitPending(PacketType::kBadSequence, PacketType::kAsync, 12);
          Error(EteErrorKind::kBadSequence, pend_index_, "bad A-Sync sequence");
        }
        pend_len_ = 0;
        unsync_continue_ = false;
        unsync_fn_ = UnsyncFn::kNotSync;
        unsync_type_ = PacketType::kNotSync;
      } else if (pend_len_ == 12) {
        DumpUnsynced(1);  // extra leading zero; OpenCSD keeps the packet index
      }
      break;
  }
}

void EtePacketProcessor::Push(uint64_t index, const uint8_t* data, size_t n) {
  const uint64_t base = stats_.bytes;  // stream offset of data[0]
  stats_.bytes += n;
  size_t pos = 0;
  while (pos < n) {
    if (!synced_) {
      UnsyncedByte(index + pos, base + pos, data[pos]);
      ++pos;
      continue;
    }
    bool bad = false;
    EteErrorKind bad_kind = EteErrorKind::kBadSequence;
    if (pend_len_ == 0) {
      // Hot loop: frequent packets with enough input left for any packet.
      while (synced_ && n - pos >= kMaxPacketBytes) {
        const size_t len = DecodeFast(index + pos, base + pos, data + pos);
        if (len == 0) break;
        pos += len;
      }
      if (!synced_ || pos >= n) continue;
      // Decode straight from the input.
      const size_t len = Delimit(data + pos, n - pos, &bad_kind, &bad);
      if (len > 0) {
        Decode(index + pos, base + pos, data + pos, len, bad, bad_kind);
        pos += len;
        continue;
      }
      const size_t rest = n - pos;  // < kMaxPacketBytes: Delimit decides within that
      pend_index_ = index + pos;
      pend_stream_ = base + pos;
      std::memcpy(pend_.data(), data + pos, rest);
      pend_len_ = rest;
      return;
    }
    // A packet split across pushes: complete it in pend_.
    size_t take = kMaxPacketBytes - pend_len_;
    if (take > n - pos) take = n - pos;
    std::memcpy(pend_.data() + pend_len_, data + pos, take);
    const size_t len = Delimit(pend_.data(), pend_len_ + take, &bad_kind, &bad);
    if (len == 0) {
      pend_len_ += take;
      pos += take;
      continue;
    }
    const size_t used = len - pend_len_;
    pend_len_ = 0;
    Decode(pend_index_, pend_stream_, pend_.data(), len, bad, bad_kind);
    pos += used;
  }
}

void EtePacketProcessor::Finish() {
  if (pend_len_ == 0) return;
  const PacketType err = synced_ ? table_[pend_[0]].type : unsync_type_;
  const size_t n = pend_len_;
  EmitPending(PacketType::kIncompleteEot, err, n);
  pend_len_ = 0;
  unsync_continue_ = false;
  Error(EteErrorKind::kTruncated, pend_index_,
        std::string("trace ends inside a ") + PacketTypeName(err) + " packet (" + std::to_string(n) +
            " bytes [" + HexBytes(pend_.data(), n) + "])");
  unsync_fn_ = UnsyncFn::kNotSync;
}

}  // namespace mabutrace::ete
