// SPDX-License-Identifier: MIT
// etm3_packet_text.cpp: lister text and JSON of ETMv3 packets.
#include "etm3/etm3_packet_text.h"

#include <cinttypes>
#include <iterator>

#include "ete/text_out.h"

namespace mabutrace::etm3 {
namespace {

using ete::Appendf;

struct Names {
  const char* json;
  const char* ocsd;
  const char* desc;
};
constexpr Names kNames[] = {
    {"NOTSYNC", "NOTSYNC", "Trace Stream not synchronised"},
    {"INCOMPLETE_EOT", "INCOMPLETE_EOT.", "Incomplete packet at end of trace data."},
    {"BRANCH_ADDRESS", "BRANCH_ADDRESS", "Branch address."},
    {"A_SYNC", "A_SYNC", "Alignment Synchronisation."},
    {"CYCLE_COUNT", "CYCLE_COUNT", "Cycle Count."},
    {"I_SYNC", "I_SYNC", "Instruction Packet synchronisation."},
    {"I_SYNC_CYCLE", "I_SYNC_CYCLE", "Instruction Packet synchronisation with cycle count."},
    {"TRIGGER", "TRIGGER", "Trace Trigger Event."},
    {"P_HDR", "P_HDR", "Atom P-header."},
    {"STORE_FAIL", "STORE_FAIL", "Data Store Failed."},
    {"OOO_DATA", "OOO_DATA", "Out of Order data value packet."},
    {"OOO_ADDR_PLC", "OOO_ADDR_PLC", "Out of Order data address placeholder."},
    {"NORM_DATA", "NORM_DATA", "Data trace packet."},
    {"DATA_SUPPRESSED", "DATA_SUPPRESSED", "Data trace suppressed."},
    {"VAL_NOT_TRACED", "VAL_NOT_TRACED", "Data trace value not traced."},
    {"IGNORE", "IGNORE", "Packet ignored."},
    {"CONTEXT_ID", "CONTEXT_ID", "Context ID change."},
    {"VMID", "VMID", "VMID change."},
    {"EXCEPTION_ENTRY", "EXCEPTION_ENTRY", "Exception entry data marker."},
    {"EXCEPTION_EXIT", "EXCEPTION_EXIT", "Exception return."},
    {"TIMESTAMP", "TIMESTAMP", "Timestamp Value."},
    {"RESERVED", "I_RESERVED", "Reserved Packet Header"},
    {"BAD_SEQUENCE", "BAD_SEQUENCE", "Invalid sequence for packet type."},
    {"BAD_TRACEMODE", "BAD_TRACEMODE", "Invalid packet type for this trace mode."},
};
static_assert(std::size(kNames) == static_cast<size_t>(PacketType::kCount));

const Names& N(PacketType t) { return kNames[t < PacketType::kCount ? static_cast<size_t>(t) : 0]; }

// OpenCSD's getValStr: "0x" + '?' for unknown nibbles + known bits in hex
// (+ " (n:0)" when not all known) + " ~[0x..]" for the bits this packet set.
void ValStr(std::string* out, const Address& a) {
  out->append("0x");
  const int total = 8;
  const int valid = (a.valid_bits + 3) / 4;
  for (int i = valid; i < total; ++i) out->push_back('?');
  if (a.valid_bits) {
    Appendf(out, "%0*" PRIX32, valid, a.value);
    if (a.valid_bits < 32) Appendf(out, " (%d:0)", a.valid_bits - 1);
  }
  if (a.pkt_bits) {
    const uint32_t mask = a.pkt_bits >= 32 ? ~0u : ((1u << a.pkt_bits) - 1);
    Appendf(out, " ~[0x%" PRIX32 "]", a.value & mask);
  }
}

constexpr const char* kExceptions[] = {"No Exception",     "Debug Halt",      "SMC",      "Hyp",
                                       "Async Data Abort", "Jazelle",         "Reserved", "Reserved",
                                       "PE Reset",         "Undefined Instr", "SVC",      "Prefetch Abort",
                                       "Data Fault",       "Generic",         "IRQ",      "FIQ"};
// OpenCSD's v7-M table (its missing comma after "HardFault" included: from
// 0x13 on the names shift by one).
constexpr const char* kMExceptions[] = {"No Exception", "IRQ1",     "IRQ2",         "IRQ3",       "IRQ4",
                                        "IRQ5",         "IRQ6",     "IRQ7",         "IRQ0",       "usage Fault",
                                        "NMI",          "SVC",      "DebugMonitor", "Mem Manage", "PendSV",
                                        "SysTick",      "Reserved", "PE Reset",     "Reserved",   "HardFaultReserved",
                                        "BusFault",     "Reserved", "Reserved",     "Reserved"};

void Exception(const Etm3Packet& p, std::string* out) {
  out->append("Exception=");
  if (p.v7m_exception) {
    if (p.exception_number < 0x18)
      out->append(kMExceptions[p.exception_number]);
    else
      Appendf(out, "IRQ%u", p.exception_number - 0x10);
    if (p.exception_resume) Appendf(out, "; Resume=%u", p.exception_resume);
    if (p.exception_cancel) out->append("; Cancel prev instr");
  } else {
    Appendf(out, "%s; ", ExceptionName(p.exception_number));
    if (p.exception_cancel) out->append("; Cancel prev instr");
  }
}

void Atoms(const Etm3Packet& p, std::string* out) {
  uint32_t bits = p.atom_bits;
  if (!p.cycle_count) {
    for (unsigned i = 0; i < p.atom_count; ++i, bits >>= 1) out->push_back((bits & 1) ? 'E' : 'N');
    return;
  }
  switch (p.phdr_format) {
    case 1:
      for (unsigned i = 0; i < p.atom_count; ++i, bits >>= 1) out->append((bits & 1) ? "WE" : "WN");
      break;
    case 2:
      out->push_back('W');
      for (unsigned i = 0; i < p.atom_count; ++i, bits >>= 1) out->push_back((bits & 1) ? 'E' : 'N');
      break;
    case 3:
      for (uint32_t i = 0; i < p.cycle_count; ++i) out->push_back('W');
      if (p.atom_count) out->push_back((bits & 1) ? 'E' : 'N');
      break;
    default: break;
  }
  Appendf(out, "; Cycles=%u", p.cycle_count);
}

constexpr const char* kReasons[] = {"Periodic", "Trace Enable", "Restart Overflow", "Debug Exit"};

void Isync(const Etm3Packet& p, std::string* out) {
  Appendf(out, "(%s); ", kReasons[static_cast<size_t>(p.isync_reason) & 3]);
  if (!p.isync_no_address)
    Appendf(out, "%s=0x%08" PRIx32 "; ", p.isync_lsip ? "Data Instr Addr" : "Addr", p.addr.value);
  out->append(p.ns ? "NS; " : "S; ");
  out->append(p.hyp ? "Hyp; " : " ");
  if (p.ctxt_id_updated) Appendf(out, "CtxtID=%" PRIx32 "; ", p.context_id);
  if (p.isync_no_address) return;
  Appendf(out, "ISA=%s; ", IsaText(p.isa));
  if (p.isync_has_cc) Appendf(out, "Cycles=%u; ", p.cycle_count);
  if (p.isync_lsip) {
    out->append("Curr Instr Addr=");
    ValStr(out, p.data_addr);
    out->push_back(';');
  }
}

}  // namespace

const char* PacketTypeName(PacketType type) { return N(type).json; }
const char* PacketTypeOcsdName(PacketType type) { return N(type).ocsd; }
const char* PacketTypeOcsdDesc(PacketType type) { return N(type).desc; }

const char* IsaText(Isa isa) {
  switch (isa) {
    case Isa::kArm: return "ARM(32)";
    case Isa::kThumb2: return "Thumb2";
    case Isa::kThumbEE: return "ThumbEE";
    case Isa::kJazelle: return "Jazelle";
    case Isa::kUnknown: break;
  }
  return "Unknown";
}

const char* ExceptionName(uint16_t number) { return kExceptions[number & 0xF]; }

void FormatOcsd(const Etm3Packet& p, std::string* out) {
  Appendf(out, "%s : %s", N(p.type).ocsd, N(p.type).desc);
  switch (p.type) {
    case PacketType::kBadSequence:
    case PacketType::kBadTraceMode:
    case PacketType::kIncompleteEot: Appendf(out, "[%s]", N(p.err_type).ocsd); break;
    case PacketType::kBranchAddress:
      out->append("; Addr=");
      ValStr(out, p.addr);
      out->append("; ");
      if (p.isa != p.prev_isa) Appendf(out, "ISA=%s; ", IsaText(p.isa));
      if (p.ctxt_updated) {
        out->append(p.ns ? "NS; " : "S; ");
        if (p.hyp) out->append("Hyp; ");
      }
      if (p.exception) Exception(p, out);
      break;
    case PacketType::kIsync:
    case PacketType::kIsyncCycle:
      out->append("; ");
      Isync(p, out);
      break;
    case PacketType::kPHeader:
      out->append("; ");
      Atoms(p, out);
      break;
    case PacketType::kCycleCount: Appendf(out, "; Cycles=%u", p.cycle_count); break;
    case PacketType::kContextId: Appendf(out, "; CtxtID=0x%" PRIx32, p.context_id); break;
    case PacketType::kVmid: Appendf(out, "; VMID=0x%x", p.vmid); break;
    case PacketType::kTimestamp: Appendf(out, "; TS=0x%" PRIx64 " (%" PRIu64 ") ", p.timestamp, p.timestamp); break;
    case PacketType::kOooData: Appendf(out, "; Val=0x%" PRIx32 "; OO_Tag=0x%x", p.data_value, p.ooo_tag); break;
    case PacketType::kValueNotTraced:
    case PacketType::kOooPlaceholder:
    case PacketType::kNormalData:
      if (p.data_addr_updated) {
        out->append("; Addr=");
        ValStr(out, p.data_addr);
      }
      if (p.type == PacketType::kOooPlaceholder) Appendf(out, "; OO_Tag=0x%x", p.ooo_tag);
      if (p.type == PacketType::kNormalData && p.data_value_updated) Appendf(out, "; Val=0x%" PRIx32, p.data_value);
      break;
    default: break;
  }
}

void FormatLine(const Etm3Packet& p, std::string* out) {
  Appendf(out, "Idx:%" PRIu64 "; ID:%x; [", p.index, p.trace_id);
  for (size_t i = 0; i < p.size; ++i) Appendf(out, "0x%02x ", p.raw[i]);
  out->append("];\t");
  FormatOcsd(p, out);
}

void FormatJson(const Etm3Packet& p, std::string_view source, std::string* out) {
  std::string raw, ocsd;
  for (size_t i = 0; i < p.size; ++i) Appendf(&raw, "%s%02x", i ? " " : "", p.raw[i]);
  FormatOcsd(p, &ocsd);
  ete::JsonObject o(out);
  o.String("source", source)
      .Unsigned("trace_id", p.trace_id)
      .Unsigned("offset", p.index)
      .Unsigned("stream_offset", p.stream_offset)
      .String("raw", raw)
      .String("type", PacketTypeName(p.type))
      .String("ocsd", ocsd);
  switch (p.type) {
    case PacketType::kBranchAddress:
      o.Hex("address", p.addr.value).Unsigned("address_bits", p.addr.pkt_bits).String("isa", IsaText(p.isa));
      if (p.exception) o.Unsigned("exception", p.exception_number).Bool("cancel", p.exception_cancel);
      break;
    case PacketType::kIsync:
    case PacketType::kIsyncCycle:
      o.String("reason", kReasons[static_cast<size_t>(p.isync_reason) & 3]).Bool("ns", p.ns).Bool("hyp", p.hyp);
      if (!p.isync_no_address) o.Hex("address", p.addr.value).String("isa", IsaText(p.isa));
      if (p.isync_has_cc) o.Unsigned("cycle_count", p.cycle_count);
      if (p.ctxt_id_updated) o.Hex("context_id", p.context_id);
      break;
    case PacketType::kPHeader: {
      std::string atoms;
      uint32_t bits = p.atom_bits;
      for (unsigned i = 0; i < p.atom_count; ++i, bits >>= 1) atoms.push_back((bits & 1) ? 'E' : 'N');
      o.String("atoms", atoms).Unsigned("format", p.phdr_format);
      if (p.cycle_count) o.Unsigned("cycle_count", p.cycle_count);
      break;
    }
    case PacketType::kCycleCount: o.Unsigned("cycle_count", p.cycle_count); break;
    case PacketType::kContextId: o.Hex("context_id", p.context_id); break;
    case PacketType::kVmid: o.Hex("vmid", p.vmid); break;
    case PacketType::kTimestamp: o.Unsigned("timestamp", p.timestamp).Unsigned("timestamp_bits", p.ts_bits); break;
    case PacketType::kOooData:
    case PacketType::kOooPlaceholder:
    case PacketType::kNormalData:
    case PacketType::kValueNotTraced:
      if (p.data_addr_updated) o.Hex("data_address", p.data_addr.value);
      if (p.data_value_updated) o.Hex("data_value", p.data_value);
      if (p.type == PacketType::kOooData || p.type == PacketType::kOooPlaceholder) o.Unsigned("tag", p.ooo_tag);
      break;
    case PacketType::kBadSequence:
    case PacketType::kBadTraceMode:
    case PacketType::kIncompleteEot: o.String("while", PacketTypeName(p.err_type)); break;
    default: break;
  }
  o.End();
}

}  // namespace mabutrace::etm3
