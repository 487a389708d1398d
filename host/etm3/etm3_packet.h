// SPDX-License-Identifier: MIT
// etm3_packet.h: one decoded ETMv3 trace packet.
//
// Encodings: ETM Architecture Specification v3.x (IHI0014), chapter
// "Trace port / packet formats" (ETMv3 packet headers, P-headers, branch
// address packets with exception information, I-sync, data packets).
// Header byte (b = bit):
//   b0 = 1                 branch address (1-5 address bytes + 0-3 exception bytes)
//   1xxxxxx0               P-header (atoms; cycle-accurate formats 1-4)
//   00000000               A-sync (five 0x00 then 0x80)
//   00000100 / 00001000    cycle count / I-sync;   01110000  I-sync with cycle count
//   00001100               trigger;                00111100  VMID
//   0TT0SS00 (TT != 0)     out-of-order data;      01x1TT00  out-of-order placeholder
//   00A0SS10               normal data;            01010000  store failed
//   01100010               data suppressed;        011x1010  value not traced
//   01100110               ignore;                 01101110  context ID
//   01110110               exception exit;         01111110  exception entry (v7-M)
//   01000x10               timestamp
// Other headers are reserved.
//
// Like ete::EtePacket, a packet carries what its bytes say plus the
// packet-layer state they update (full branch address after compression,
// current ISA, NS/Hyp, context ID, VMID, full timestamp), the way OpenCSD's
// lister prints it. `raw` is valid only during the sink call.
#ifndef MABUTRACE_HOST_ETM3_ETM3_PACKET_H
#define MABUTRACE_HOST_ETM3_ETM3_PACKET_H

#include <cstddef>
#include <cstdint>

namespace mabutrace::etm3 {

enum class PacketType : uint8_t {
  kNotSync,         // bytes before the first A-sync         NOTSYNC
  kIncompleteEot,   // packet cut by the end of the trace     INCOMPLETE_EOT.
  kBranchAddress,   // b0 = 1                                 BRANCH_ADDRESS
  kAsync,           // 00 00 00 00 00 80                      A_SYNC
  kCycleCount,      // 04                                     CYCLE_COUNT
  kIsync,           // 08                                     I_SYNC
  kIsyncCycle,      // 70                                     I_SYNC_CYCLE
  kTrigger,         // 0C                                     TRIGGER
  kPHeader,         // 1xxxxxx0                               P_HDR
  kStoreFail,       // 50                                     STORE_FAIL
  kOooData,         // 0TT0SS00                               OOO_DATA
  kOooPlaceholder,  // 01A1TT00                               OOO_ADDR_PLC
  kNormalData,      // 00A0SS10                               NORM_DATA
  kDataSuppressed,  // 62                                     DATA_SUPPRESSED
  kValueNotTraced,  // 6A / 7A                                VAL_NOT_TRACED
  kIgnore,          // 66                                     IGNORE
  kContextId,       // 6E                                     CONTEXT_ID
  kVmid,            // 3C                                     VMID
  kExceptionEntry,  // 7E                                     EXCEPTION_ENTRY
  kExceptionExit,   // 76                                     EXCEPTION_EXIT
  kTimestamp,       // 42 / 46                                TIMESTAMP
  kReserved,        // reserved header                        I_RESERVED
  kBadSequence,     // malformed payload                      BAD_SEQUENCE
  kBadTraceMode,    // data packet while data trace is off    BAD_TRACEMODE
  kCount
};

// Stable identifier for JSON ("BRANCH_ADDRESS", "P_HDR", ...).
const char* PacketTypeName(PacketType type);
// OpenCSD 1.8.0 lister name and description ("P_HDR", "Atom P-header.").
const char* PacketTypeOcsdName(PacketType type);
const char* PacketTypeOcsdDesc(PacketType type);
inline bool IsErrorPacket(PacketType t) {
  return t == PacketType::kNotSync || t == PacketType::kIncompleteEot || t >= PacketType::kReserved;
}
inline bool IsDataPacket(PacketType t) {
  return t == PacketType::kStoreFail || t == PacketType::kOooData || t == PacketType::kOooPlaceholder ||
         t == PacketType::kNormalData || t == PacketType::kDataSuppressed || t == PacketType::kValueNotTraced;
}

// Instruction set state as ETMv3 traces it.
enum class Isa : uint8_t { kUnknown, kArm, kThumb2, kThumbEE, kJazelle };

// I-sync reason (info byte [6:5]).
enum class IsyncReason : uint8_t { kPeriodic, kTraceEnable, kRestartOverflow, kDebugExit };

struct Address {
  uint32_t value = 0;
  uint8_t valid_bits = 0;  // low bits known (0 before any address)
  uint8_t pkt_bits = 0;    // bits this packet updated
};

struct Etm3Packet {
  PacketType type = PacketType::kNotSync;
  PacketType err_type = PacketType::kNotSync;  // error packets: the kind being parsed
  uint8_t trace_id = 0;
  uint8_t size = 0;
  const uint8_t* raw = nullptr;
  uint64_t index = 0;          // byte index of the first byte (OpenCSD "Idx")
  uint64_t stream_offset = 0;  // offset in this source's de-formatted stream

  // ---- persistent packet-layer state ----
  Address addr;  // instruction address (branch address, I-sync)
  Isa isa = Isa::kUnknown;
  Isa prev_isa = Isa::kUnknown;  // isa before this packet (lister prints ISA when they differ)
  bool ns = false, hyp = false, alt_isa = false;
  uint32_t context_id = 0;
  uint8_t vmid = 0;
  uint64_t timestamp = 0;
  Address data_addr;  // data address; I-sync with LSiP: the main instruction address
  bool big_endian = false;

  // ---- per-packet fields ----
  bool ctxt_updated = false;      // NS / Hyp / AltISA given by this packet
  bool ctxt_id_updated = false;   // context ID given by this packet
  bool vmid_updated = false;      // VMID given by this packet
  uint8_t atom_count = 0;         // P-header atoms
  uint32_t atom_bits = 0;         // bit i = atom i (oldest first): 1 = E, 0 = N
  uint8_t phdr_format = 0;        // P-header format 1-4 (cycle-accurate 3/4)
  uint32_t cycle_count = 0;       // P-header W count, cycle-count packet, I-sync cycle count
  bool exception = false;         // branch address carries exception information
  uint16_t exception_number = 0;  // 4 bits (A/R), 9 bits (v7-M)
  bool exception_cancel = false;  // the previous instruction was cancelled
  uint8_t exception_resume = 0;   // v7-M resume value
  bool v7m_exception = false;     // number is an M-profile one
  IsyncReason isync_reason = IsyncReason::kPeriodic;
  bool isync_has_cc = false;
  bool isync_lsip = false;        // I-sync carries the LSiP address (data_addr = main address)
  bool isync_no_address = false;  // data-only trace: I-sync has no address
  uint8_t ts_bits = 0;            // timestamp bits this packet updated
  uint8_t ooo_tag = 0;            // out-of-order data / placeholder tag
  uint32_t data_value = 0;
  bool data_addr_updated = false;
  bool data_value_updated = false;
  bool big_endian_updated = false;
};

}  // namespace mabutrace::etm3

#endif  // MABUTRACE_HOST_ETM3_ETM3_PACKET_H
