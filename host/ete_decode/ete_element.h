// SPDX-License-Identifier: MIT
// ete_element.h: the generic trace elements of a full ETE decode (R-F2, R-F3).
//
// One EteElement is what the element generator (ete_element_decoder.h)
// hands out: an executed instruction range, an exception, a context
// change, a timestamp... The kinds and their values are OpenCSD's generic
// output elements (OCSD_GEN_TRC_ELEM_*, arm-trace-facts.md §5.12) because
// the oracle listings print those; the comments give the Arm ETE element
// (Arm ARM D4.3, ARM-K10) each one comes from.
//
// EteElement is plain data (no heap); the decoder reuses one instance per
// callback, so copy what you keep. `index` is the byte index of the packet
// that produced the element (for an instruction range: the atom / Q /
// exception / source-address packet, not the commit that resolved it).
#ifndef MABUTRACE_HOST_ETE_DECODE_ETE_ELEMENT_H
#define MABUTRACE_HOST_ETE_DECODE_ETE_ELEMENT_H

#include <cstdint>
#include <string>
#include <string_view>

#include "instr.h"
#include "memory_image.h"

namespace mabutrace::ete_decode {

enum class ElemType : uint8_t {
  kNoSync,            // OCSD_GEN_TRC_ELEM_NO_SYNC: decoder lost / has no sync (reason)
  kTraceOn,           // TRACE_ON: Trace On element (§4.6), reason begin/overflow
  kEoTrace,           // EO_TRACE: end of the trace data
  kPeContext,         // PE_CONTEXT: Context element (§4.12) that changed the PE state
  kInstrRange,        // INSTR_RANGE: executed range from an atom/exception/source address (§6.3)
  kInstrRangeNoPath,  // I_RANGE_NOPATH: Q element whose path cannot be followed (§5.10)
  kAddrNacc,          // ADDR_NACC: the program image has no code at `start`
  kException,         // EXCEPTION: Exception element (§4.7, §5.8)
  kExceptionRet,      // EXCEPTION_RET: ERET-class instruction executed (E atom, §5.8)
  kTimestamp,         // TIMESTAMP: Timestamp element (§4.5)
  kCycleCount,        // CYCLE_COUNT: Cycle Count element (§4.9)
  kEvent,             // EVENT: Event element (§4.11)
  kSyncMarker,        // SYNC_MARKER: Timestamp Marker element (§4.5)
  kMemTrans,          // MEMTRANS: Transaction Start/Commit/Failure (§4.8, §5.10)
  kInstrumentation,   // INSTRUMENTATION: Instrumentation element (§4.8)
  // Not an OpenCSD element: a walk from `start` met no P0 instruction within
  // armisa::FollowOptions::max_instructions (`num_instr`), `end` = where it
  // stopped. Nothing is reported as executed (the image most likely does not
  // match the trace); decoding waits for the next address.
  kInstrLimit,
  // ADDR_UNKNOWN: atoms while the decoder has no address (ETMv3, after an
  // indirect branch whose branch-address packet has not come yet).
  kAddrUnknown,
  kCount
};

// Why the decoder is not synchronised (NO_SYNC) or ended (EO_TRACE).
enum class UnsyncReason : uint8_t {
  kInitDecoder,
  kResetDecoder,
  kOverflow,
  kDiscard,
  kBadPacket,
  kBadImage,
  kEndOfTrace
};

enum class TraceOnReason : uint8_t { kNormal, kOverflow, kDebugExit };

enum class MemTrans : uint8_t { kTraceInit, kStart, kCommit, kFail };

// Security state from (NSE, NS) (arm-trace-facts.md §4.12).
enum class Security : uint8_t { kSecure, kNonSecure, kRoot, kRealm };

struct EteElement {
  ElemType type = ElemType::kNoSync;
  uint8_t trace_id = 0;
  uint64_t index = 0;  // byte index of the producing packet

  // kInstrRange / kInstrRangeNoPath / kInstrLimit: [start, end), num_instr. kAddrNacc:
  // start = missing address. kException: end = preferred return address.
  uint64_t start = 0;
  uint64_t end = 0;
  uint32_t num_instr = 0;
  armisa::Isa isa = armisa::Isa::kA64;  // range / context ISA
  armisa::InstrType last_type = armisa::InstrType::kOther;
  armisa::InstrSubtype last_subtype = armisa::InstrSubtype::kNone;
  uint8_t last_size = 0;
  bool executed = false;   // last instruction executed (E) / not (N)
  bool last_cond = false;  // last instruction conditional (OpenCSD "<cond>")

  // kException
  uint16_t exception_number = 0;
  bool exception_has_addr = false;   // PER present (not PE Reset)
  bool exception_prev_same = false;  // E=0b10: PER is also the previous P0's target

  // kPeContext
  uint8_t el = 0;
  bool el_valid = true;  // false: the trace does not say the EL (ETMv3 outside Hyp): none printed
  Security security = Security::kSecure;
  bool bits64 = false;
  bool vmid_valid = false, context_id_valid = false;
  uint32_t vmid = 0, context_id = 0;

  // kTimestamp / kCycleCount
  uint64_t timestamp = 0;
  uint32_t cycle_count = 0;
  bool has_cc = false;

  // kNoSync / kEoTrace / kTraceOn / kMemTrans / kEvent / kAddrNacc / kInstrumentation
  UnsyncReason unsync = UnsyncReason::kInitDecoder;
  TraceOnReason trace_on = TraceOnReason::kNormal;
  MemTrans mem_trans = MemTrans::kStart;
  uint16_t event = 0;          // OpenCSD "Numbered": the packet's 4-bit mask (§4.11)
  bool event_trigger = false;  // kEvent: a trigger event (ETMv3 TRIGGER packet), not a numbered one
  uint8_t mem_space = 0;       // kAddrNacc: armisa::MemSpace bit of the access
  uint8_t ite_el = 0;
  uint64_t ite_value = 0;
};

// "OCSD_GEN_TRC_ELEM_INSTR_RANGE" ...
const char* ElemTypeOcsdName(ElemType type);
// Stable short name for JSON: "instr_range", "exception", "pe_context" ...
const char* ElemTypeName(ElemType type);

// Appends the OpenCSD 1.8.0 lister text of the element, e.g.
//   OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x69538:[0x6953c] num_i(1) last_sz(4) (ISA=A64) E BR )
// (no "Idx:..; ID:..; " prefix, no newline).
void FormatElementOcsd(const EteElement& e, std::string* out);
// The lister's whole line: "Idx:21; ID:1; " + FormatElementOcsd (no newline).
void FormatElementLine(const EteElement& e, std::string* out);
// Appends one JSON object (no newline):
// {"source":..,"trace_id":..,"offset":..,"elem":"instr_range",...} with addresses as "0x..."
// strings.
void FormatElementJson(const EteElement& e, std::string_view source, std::string* out);

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_ETE_ELEMENT_H
