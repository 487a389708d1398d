// SPDX-License-Identifier: MIT
// ete_packet.h: one decoded ETE trace packet (R-F1).
//
// Encodings: arm-trace-facts.md §4 (Arm ARM D5 "ETE protocol"). The header
// byte selects the packet (§4.2); payloads are little-endian, continuation
// fields are ULEB128 (§4.1, uleb128.h).
//
// A packet carries both what its bytes say and the packet-layer state they
// update, the way OpenCSD's lister shows it: addresses are full values after
// address compression against the 3-entry address history (§4.12),
// timestamps are full values after bit replacement (§4.5), context fields
// persist between packets (§4.12), cycle counts include the Trace Info
// CYCT threshold (§4.9).
//
// Lifetime: `raw` points into the processor's input or its small internal
// buffer and is valid only during the sink call. EtePacket has no heap
// members; the processor reuses one instance.
#ifndef MABUTRACE_HOST_ETE_ETE_PACKET_H
#define MABUTRACE_HOST_ETE_ETE_PACKET_H

#include <cstddef>
#include <cstdint>

namespace mabutrace::ete {

// Packet kinds. Names follow the Arm ETE packet names (D5.3); the comment
// gives the header (§4.2) and OpenCSD's lister name.
enum class PacketType : uint8_t {
  kNotSync,               // (no header) bytes before the first A-Sync   I_NOT_SYNC
  kIncompleteEot,         // (any) packet cut by the end of the trace    I_INCOMPLETE_EOT
  kReserved,              // reserved header (§4.2, §4.16)               I_RESERVED
  kReservedCfg,           // header reserved in this config (0x07...)    I_RESERVED_CFG
  kBadSequence,           // malformed payload / overlong field          I_BAD_SEQUENCE
  kAsync,                 // 00 x11, 80 (§4.3)                           I_ASYNC
  kDiscard,               // 00 03                                       I_DISCARD
  kOverflow,              // 00 05                                       I_OVERFLOW
  kExtension,             // 00 xx while parsing (err_type only)         I_EXTENSION
  kTraceInfo,             // 01 (§4.4)                                   I_TRACE_INFO
  kTimestamp,             // 02/03 (§4.5)                                I_TIMESTAMP
  kTraceOn,               // 04 (§4.6)                                   I_TRACE_ON
  kFunctionReturn,        // 05 (ETMv4-M only; err_type only)            I_FUNC_RET
  kException,             // 06 (§4.7)                                   I_EXCEPT
  kExceptionReturn,       // 07 (ETMv4 only; err_type only)              I_EXCEPT_RTN
  kPeReset,               // 06 with TYPE 0                              I_PE_RESET
  kTransactionFailure,    // 06 with TYPE 0x18                           I_TRANS_FAIL
  kInstrumentation,       // 09 (§4.8, FEAT_ITE)                         I_ITE
  kTransactionStart,      // 0A                                          I_TRANS_ST
  kTransactionCommit,     // 0B                                          I_TRANS_COMMIT
  kCycleCountF1,          // 0E/0F (§4.9)                                I_CCNT_F1
  kCycleCountF2,          // 0C/0D                                       I_CCNT_F2
  kCycleCountF3,          // 10-1F                                       I_CCNT_F3
  kDataSyncMarker,        // 20-2C (ETMv4 only; err_type only)           I_NUM_DS_MKR
  kCommit,                // 2D (§4.10)                                  I_COMMIT
  kCancelF1,              // 2E                                          I_CANCEL_F1
  kCancelF1Mispredict,    // 2F                                          I_CANCEL_F1_MISPRED
  kMispredict,            // 30-33                                       I_MISPREDICT
  kCancelF2,              // 34-37                                       I_CANCEL_F2
  kCancelF3,              // 38-3F                                       I_CANCEL_F3
  kConditional,           // 40-6F (ETMv4 only; err_type only)           I_COND_*
  kIgnore,                // 70 (§4.11)                                  I_IGNORE
  kEvent,                 // 71-7F                                       I_EVENT
  kContext,               // 80/81 (§4.12)                               I_CTXT
  kTargetAddrCtxtL32Is0,  // 82                                       I_ADDR_CTXT_L_32IS0
  kTargetAddrCtxtL32Is1,  // 83                                       I_ADDR_CTXT_L_32IS1
  kTargetAddrCtxtL64Is0,  // 85                                       I_ADDR_CTXT_L_64IS0
  kTargetAddrCtxtL64Is1,  // 86                                       I_ADDR_CTXT_L_64IS1
  kTimestampMarker,       // 88 (§4.5)                                   I_TS_MARKER
  kTargetAddrExact,       // 90-92                                       I_ADDR_MATCH
  kTargetAddrShortIs0,    // 95                                          I_ADDR_S_IS0
  kTargetAddrShortIs1,    // 96                                          I_ADDR_S_IS1
  kTargetAddrL32Is0,      // 9A                                          I_ADDR_L_32IS0
  kTargetAddrL32Is1,      // 9B                                          I_ADDR_L_32IS1
  kTargetAddrL64Is0,      // 9D                                          I_ADDR_L_64IS0
  kTargetAddrL64Is1,      // 9E                                          I_ADDR_L_64IS1
  kQ,                     // A0-AF (§4.13)                               I_Q
  kSourceAddrExact,       // B0-B2 (§4.14)                               I_SRC_ADDR_MATCH
  kSourceAddrShortIs0,    // B4                                          I_SRC_ADDR_S_IS0
  kSourceAddrShortIs1,    // B5                                          I_SRC_ADDR_S_IS1
  kSourceAddrL32Is0,      // B6                                          I_SCR_ADDR_L_32IS0
  kSourceAddrL32Is1,      // B7                                          I_SCR_ADDR_L_32IS1
  kSourceAddrL64Is0,      // B8                                          I_SCR_ADDR_L_64IS0
  kSourceAddrL64Is1,      // B9                                          I_SCR_ADDR_L_64IS1
  kAtomF1,                // F6-F7 (§4.15)                               I_ATOM_F1
  kAtomF2,                // D8-DB                                       I_ATOM_F2
  kAtomF3,                // F8-FF                                       I_ATOM_F3
  kAtomF4,                // DC-DF                                       I_ATOM_F4
  kAtomF5,                // D5-D7, F5                                   I_ATOM_F5
  kAtomF6,                // C0-D4, E0-F4                                I_ATOM_F6
  kCount
};

// Stable identifier for JSON ("TRACE_INFO", "ATOM_F3"...), Arm naming.
const char* PacketTypeName(PacketType type);
// OpenCSD 1.8.0 lister name ("I_TRACE_INFO") and description ("Trace Info.").
const char* PacketTypeOcsdName(PacketType type);
const char* PacketTypeOcsdDesc(PacketType type);
// True for kNotSync .. kBadSequence (and kIncompleteEot).
inline bool IsErrorPacket(PacketType t) {
  return t == PacketType::kNotSync || t == PacketType::kIncompleteEot || t == PacketType::kReserved ||
         t == PacketType::kReservedCfg || t == PacketType::kBadSequence;
}

// Packet families (each contiguous in PacketType).
inline bool IsAtomPacket(PacketType t) { return t >= PacketType::kAtomF1 && t <= PacketType::kAtomF6; }
inline bool IsAddressWithContextPacket(PacketType t) {
  return t >= PacketType::kTargetAddrCtxtL32Is0 && t <= PacketType::kTargetAddrCtxtL64Is1;
}
inline bool IsTargetAddressPacket(PacketType t) {  // without context
  return t >= PacketType::kTargetAddrExact && t <= PacketType::kTargetAddrL64Is1;
}
inline bool IsSourceAddressPacket(PacketType t) {
  return t >= PacketType::kSourceAddrExact && t <= PacketType::kSourceAddrL64Is1;
}

// The address field an address packet carries (§4.12, §4.14). Both families
// list exact match, short IS0/IS1, long 32-bit IS0/IS1, long 64-bit IS0/IS1
// in PacketType order; with-context packets carry long addresses.
enum class AddressField : uint8_t { kNone, kExactMatch, kShort, kLong };
inline AddressField AddressFieldOf(PacketType t) {
  if (IsAddressWithContextPacket(t)) return AddressField::kLong;
  int k;
  if (IsTargetAddressPacket(t))
    k = static_cast<int>(t) - static_cast<int>(PacketType::kTargetAddrExact);
  else if (IsSourceAddressPacket(t))
    k = static_cast<int>(t) - static_cast<int>(PacketType::kSourceAddrExact);
  else
    return AddressField::kNone;
  return k == 0 ? AddressField::kExactMatch : k <= 2 ? AddressField::kShort : AddressField::kLong;
}

// What was wrong with a packet the processor could not decode (EteError).
enum class EteErrorKind : uint8_t {
  kReservedHeader,  // header byte reserved (always or in this configuration)
  kBadSequence,     // malformed payload (bad A-Sync, bad extension byte)
  kOverlongField,   // a continuation field longer than its maximum (R-F7)
  kTruncated,       // input ended inside a packet
};
// "reserved-header", "bad-sequence", "overlong-field", "truncated".
const char* EteErrorKindName(EteErrorKind kind);

// Address value with OpenCSD's bookkeeping (§4.12).
struct PacketAddress {
  uint64_t value = 0;
  uint8_t valid_bits = 0;  // how many low bits are known (0 before any address)
  uint8_t pkt_bits = 0;    // bits this packet updated (short: 9/17 IS0, 8/16 IS1; long 32/64)
  bool is64 = false;       // printed as 64-bit (AArch64 context or 64-bit packet)
  uint8_t isa = 0;         // sub-ISA: 0 = IS0, 1 = IS1
};

struct PacketContext {
  uint8_t el = 0;    // exception level 0..3
  bool sf = false;   // AArch64
  bool ns = false;   // non-secure bit
  bool nse = false;  // FEAT_RME: (NSE,NS) = 00 S, 01 NS, 10 Root, 11 Realm
  uint32_t vmid = 0;
  uint32_t context_id = 0;
  bool updated = false;       // this packet carried an info byte (0x80 = "same": false)
  bool updated_vmid = false;  // this packet carried VMID
  bool updated_cid = false;   // this packet carried CONTEXTID
};

struct EtePacket {
  PacketType type = PacketType::kNotSync;
  PacketType err_type = PacketType::kNotSync;  // error packets: the kind being parsed
  uint8_t trace_id = 0;
  // Produced by an ETMv4 trace unit (same packets; OpenCSD prints a few of
  // them differently, ete_packet_text.h). Constant per processor.
  bool etm4 = false;
  // The traced PE is M-profile (ETMv4-M): exception TYPEs are M-profile
  // exception numbers. Constant per processor.
  bool m_profile = false;
  uint8_t size = 0;              // bytes of the packet (raw)
  const uint8_t* raw = nullptr;  // the packet's bytes (valid during the sink call)
  // Byte index of the first byte: in a single-source stream the offset in
  // that stream; behind a frame deformatter OpenCSD's "Idx" (see
  // coresight/deformatter.h). Units: bytes.
  uint64_t index = 0;
  // Offset of the first byte in this source's de-formatted byte stream
  // (bytes pushed into the processor before it). Equals `index` for raw
  // single-source buffers.
  uint64_t stream_offset = 0;

  // ---- fields; which ones are meaningful depends on `type` ----
  PacketAddress addr;           // address packets, Q, exception-less AH, PE reset
  uint8_t exact_match_idx = 0;  // exact-match packets and Q types 0-2
  bool context_valid = false;   // a context has been seen since reset
  PacketContext context;        // persistent context (+ per-packet updated flags)
  uint32_t atom_bits = 0;       // bit i = atom i (oldest first): 1 = E, 0 = N
  // Side by side so that clearing them after a packet is one store.
  uint8_t atom_count = 0;     // atoms in this packet (also in mispredict/cancel)
  bool cc_valid = false;      // this packet has a cycle count (timestamp 0x03, CCNT)
  bool commit_valid = false;  // this packet has a commit count (CCNT in commit mode 0, Commit)
  uint64_t timestamp = 0;     // full value after bit replacement
  uint8_t ts_bits = 0;        // timestamp bits this packet updated
  uint32_t cycle_count = 0;   // cycle-count packets: count incl. threshold; 0 = unknown (F1 0x0F)
  uint32_t commit = 0;        // elements committed
  uint32_t cancel = 0;        // elements cancelled
  // Trace Info (§4.4)
  uint32_t info = 0;  // INFO section (bit0 CC enabled, bit6 TSTATE)
  uint32_t key = 0, spec = 0, cc_threshold = 0;
  uint8_t tinfo_sections = 0;  // PLCTL bits: 1 INFO, 2 KEY, 4 SPEC, 8 CYCT, 0x10 commit window
  bool tinfo_initial = false;  // first Trace Info since reset (OpenCSD "Decoder Sync point")
  // Exception (§4.7)
  uint16_t exception_type = 0;           // TYPE (extended with a 3rd byte on ETMv4-M)
  bool exception_fault_pending = false;  // ETMv4-M 3rd byte bit 5: a fault is pending
  uint8_t exception_addr_interp = 0;     // E[1:0]: 1 = return address follows, 2 = same as prev target
  // Q (§4.13)
  uint8_t q_type = 0;
  uint32_t q_count = 0;
  bool q_count_present = false, q_addr_present = false, q_addr_match = false;
  // Instrumentation (§4.8)
  uint8_t ite_el = 0;
  uint64_t ite_value = 0;
  // Event (§4.11): the 4-bit mask of the header
  uint8_t event = 0;
};

}  // namespace mabutrace::ete

#endif  // MABUTRACE_HOST_ETE_ETE_PACKET_H
