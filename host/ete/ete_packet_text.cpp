// SPDX-License-Identifier: MIT
// ete_packet_text.cpp: packet names and text/JSON renderings.
#include "ete/ete_packet_text.h"

#include <cinttypes>
#include <cstdio>

#include "ete/text_out.h"

namespace mabutrace::ete {
namespace {

struct Names {
  const char* id;
  const char* ocsd;
  const char* desc;
};

constexpr Names kNames[] = {
    {"NOT_SYNC", "I_NOT_SYNC", "I Stream not synchronised"},
    {"INCOMPLETE_EOT", "I_INCOMPLETE_EOT", "Incomplete packet at end of trace."},
    {"RESERVED", "I_RESERVED", "Reserved Packet Header"},
    {"RESERVED_CFG", "I_RESERVED_CFG", "Reserved header for current configuration."},
    {"BAD_SEQUENCE", "I_BAD_SEQUENCE", "Invalid Sequence in packet."},
    {"A_SYNC", "I_ASYNC", "Alignment Synchronisation."},
    {"DISCARD", "I_DISCARD", "Discard."},
    {"OVERFLOW", "I_OVERFLOW", "Overflow."},
    {"EXTENSION", "I_EXTENSION", "Extension packet header."},
    {"TRACE_INFO", "I_TRACE_INFO", "Trace Info."},
    {"TIMESTAMP", "I_TIMESTAMP", "Timestamp."},
    {"TRACE_ON", "I_TRACE_ON", "Trace On."},
    {"FUNCTION_RETURN", "I_FUNC_RET", "V8M - function return."},
    {"EXCEPTION", "I_EXCEPT", "Exception."},
    {"EXCEPTION_RETURN", "I_EXCEPT_RTN", "Exception Return."},
    {"PE_RESET", "I_PE_RESET", "PE Reset."},
    {"TRANSACTION_FAILURE", "I_TRANS_FAIL", "Transaction Fail."},
    {"INSTRUMENTATION", "I_ITE", "Instrumentation"},
    {"TRANSACTION_START", "I_TRANS_ST", "Transaction Start."},
    {"TRANSACTION_COMMIT", "I_TRANS_COMMIT", "Transaction Commit."},
    {"CYCLE_COUNT_F1", "I_CCNT_F1", "Cycle Count format 1."},
    {"CYCLE_COUNT_F2", "I_CCNT_F2", "Cycle Count format 2."},
    {"CYCLE_COUNT_F3", "I_CCNT_F3", "Cycle Count format 3."},
    {"DATA_SYNC_MARKER", "I_NUM_DS_MKR", "Data Synchronisation Marker - Numbered."},
    {"COMMIT", "I_COMMIT", "Commit"},
    {"CANCEL_F1", "I_CANCEL_F1", "Cancel Format 1."},
    {"CANCEL_F1_MISPREDICT", "I_CANCEL_F1_MISPRED", "Cancel Format 1 + Mispredict."},
    {"MISPREDICT", "I_MISPREDICT", "Mispredict."},
    {"CANCEL_F2", "I_CANCEL_F2", "Cancel Format 2."},
    {"CANCEL_F3", "I_CANCEL_F3", "Cancel Format 3."},
    {"CONDITIONAL", "I_COND_I_F2", "Conditional Instruction, format 2."},
    {"IGNORE", "I_IGNORE", "Ignore."},
    {"EVENT", "I_EVENT", "Trace Event."},
    {"CONTEXT", "I_CTXT", "Context Packet."},
    {"TARGET_ADDR_CTXT_L_32IS0", "I_ADDR_CTXT_L_32IS0", "Address & Context, Long, 32 bit, IS0."},
    {"TARGET_ADDR_CTXT_L_32IS1", "I_ADDR_CTXT_L_32IS1", "Address & Context, Long, 32 bit, IS1."},
    {"TARGET_ADDR_CTXT_L_64IS0", "I_ADDR_CTXT_L_64IS0", "Address & Context, Long, 64 bit, IS0."},
    {"TARGET_ADDR_CTXT_L_64IS1", "I_ADDR_CTXT_L_64IS1", "Address & Context, Long, 64 bit, IS1."},
    {"TIMESTAMP_MARKER", "I_TS_MARKER", "Timestamp Marker"},
    {"TARGET_ADDR_EXACT", "I_ADDR_MATCH", "Exact Address Match."},
    {"TARGET_ADDR_S_IS0", "I_ADDR_S_IS0", "Address, Short, IS0."},
    {"TARGET_ADDR_S_IS1", "I_ADDR_S_IS1", "Address, Short, IS1."},
    {"TARGET_ADDR_L_32IS0", "I_ADDR_L_32IS0", "Address, Long, 32 bit, IS0."},
    {"TARGET_ADDR_L_32IS1", "I_ADDR_L_32IS1", "Address, Long, 32 bit, IS1."},
    {"TARGET_ADDR_L_64IS0", "I_ADDR_L_64IS0", "Address, Long, 64 bit, IS0."},
    {"TARGET_ADDR_L_64IS1", "I_ADDR_L_64IS1", "Address, Long, 64 bit, IS1."},
    {"Q", "I_Q", "Q Packet."},
    {"SOURCE_ADDR_EXACT", "I_SRC_ADDR_MATCH", "Exact Source Address Match."},
    {"SOURCE_ADDR_S_IS0", "I_SRC_ADDR_S_IS0", "Source Address, Short, IS0."},
    {"SOURCE_ADDR_S_IS1", "I_SRC_ADDR_S_IS1", "Source Address, Short, IS1."},
    {"SOURCE_ADDR_L_32IS0", "I_SCR_ADDR_L_32IS0", "Source Address, Long, 32 bit, IS0."},
    {"SOURCE_ADDR_L_32IS1", "I_SCR_ADDR_L_32IS1", "Source Address, Long, 32 bit, IS1."},
    {"SOURCE_ADDR_L_64IS0", "I_SCR_ADDR_L_64IS0", "Source Address, Long, 64 bit, IS0."},
    {"SOURCE_ADDR_L_64IS1", "I_SCR_ADDR_L_64IS1", "Source Address, Long, 64 bit, IS1."},
    {"ATOM_F1", "I_ATOM_F1", "Atom format 1."},
    {"ATOM_F2", "I_ATOM_F2", "Atom format 2."},
    {"ATOM_F3", "I_ATOM_F3", "Atom format 3."},
    {"ATOM_F4", "I_ATOM_F4", "Atom format 4."},
    {"ATOM_F5", "I_ATOM_F5", "Atom format 5."},
    {"ATOM_F6", "I_ATOM_F6", "Atom format 6."},
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(PacketType::kCount), "one name per PacketType");

const Names& N(PacketType t) {
  size_t i = static_cast<size_t>(t);
  if (i >= static_cast<size_t>(PacketType::kCount)) i = static_cast<size_t>(PacketType::kReserved);
  return kNames[i];
}

// OpenCSD trcPrintableElem::getValStr for hex values.
void ValStr(std::string* out, int total_bits, int valid_bits, uint64_t value, int update_bits) {
  out->append("0x");
  if (valid_bits > total_bits) valid_bits = total_bits;
  int num_hex = total_bits / 4 + ((total_bits % 4) ? 1 : 0);
  int valid_chars = valid_bits / 4 + ((valid_bits % 4) ? 1 : 0);
  for (int q = num_hex - valid_chars; q > 0; --q) out->push_back('?');
  if (valid_bits > 32) {
    Appendf(out, "%0*" PRIX64, valid_chars, value);
  } else {
    Appendf(out, "%0*" PRIX32, valid_chars, static_cast<uint32_t>(value));
  }
  if (valid_bits < total_bits) Appendf(out, " (%d:0)", valid_bits - 1);
  if (update_bits) {
    const uint64_t mask = update_bits >= 64 ? ~0ull : ((1ull << update_bits) - 1);
    Appendf(out, " ~[0x%" PRIX64 "]", value & mask);
  }
}

void Addr(const EtePacket& p, std::string* out, int update_limit) {
  const int pb = p.addr.pkt_bits;
  ValStr(out, p.addr.is64 ? 64 : 32, p.addr.valid_bits, p.addr.value,
         update_limit < 0 ? 0 : (pb < update_limit ? pb : 0));
}

void Context(const EtePacket& p, std::string* out) {
  if (!p.context_valid) return;
  const PacketContext& c = p.context;
  if (!c.updated) {
    out->append("Ctxt: Same");
    return;
  }
  Appendf(out, "Ctxt: %sEL%u, ", c.sf ? "AArch64," : "AArch32, ", c.el);
  if (c.nse)
    out->append(c.ns ? "Realm; " : "Root; ");
  else
    out->append(c.ns ? "NS; " : "S; ");
  if (c.updated_cid) Appendf(out, "CID=0x%08x; ", c.context_id);
  if (c.updated_vmid) Appendf(out, "VMID=0x%04x; ", c.vmid);
}

void Atoms(const EtePacket& p, std::string* out) {
  uint32_t b = p.atom_bits;
  for (int i = 0; i < p.atom_count; ++i, b >>= 1) out->push_back((b & 1) ? 'E' : 'N');
}

const char* kArmExceptions[16] = {"PE Reset",   "Debug Halt", "Call",     "Trap",     "System Error", "Reserved",
                                  "Inst Debug", "Data Debug", "Reserved", "Reserved", "Alignment",    "Inst Fault",
                                  "Data Fault", "Reserved",   "IRQ",      "FIQ"};

// M-profile exception numbers as ETMv4-M traces them (TYPE 0x00-0x1F).
const char* kMExceptions[32] = {
    "Reserved",  "PE Reset",    "NMI",      "HardFault", "MemManage",    "BusFault", "UsageFault", "Reserved",
    "Reserved",  "Reserved",    "Reserved", "SVC",       "DebugMonitor", "Reserved", "PendSV",     "SysTick",
    "IRQ0",      "IRQ1",        "IRQ2",     "IRQ3",      "IRQ4",         "IRQ5",     "IRQ6",       "IRQ7",
    "DebugHalt", "LazyFP Push", "Lockup",   "Reserved",  "Reserved",     "Reserved", "Reserved",   "Reserved"};

}  // namespace

const char* PacketTypeName(PacketType type) { return N(type).id; }
const char* ExceptionTypeName(uint16_t type) { return type < 0x10 ? kArmExceptions[type] : "Reserved"; }
const char* MExceptionTypeName(uint16_t type, char (&buf)[16]) {
  if (type < 0x20) return kMExceptions[type];
  if (type >= 0x208 && type <= 0x3EF) {
    std::snprintf(buf, sizeof buf, "IRQ%d", type - 0x200);
    return buf;
  }
  return "Reserved";
}
const char* PacketTypeOcsdName(PacketType type) { return N(type).ocsd; }
const char* PacketTypeOcsdDesc(PacketType type) { return N(type).desc; }

void FormatOcsd(const EtePacket& p, std::string* out) {
  const Names& n = N(p.type);
  out->append(n.ocsd);
  out->append(" : ");
  out->append(n.desc);
  switch (AddressFieldOf(p.type)) {
    case AddressField::kExactMatch:
      Appendf(out, ", [%u]; Addr=", p.exact_match_idx);
      Addr(p, out, -1);
      out->append("; ");
      return;
    case AddressField::kShort:
      out->append("; Addr=");
      ValStr(out, p.addr.is64 ? 64 : 32, p.addr.valid_bits, p.addr.value, p.addr.pkt_bits);
      return;
    case AddressField::kLong:
      out->append("; Addr=");
      Addr(p, out, p.addr.pkt_bits);  // a long address updates all its bits: no "~[...]"
      out->append("; ");
      if (IsAddressWithContextPacket(p.type)) Context(p, out);
      return;
    case AddressField::kNone: break;
  }
  if (IsAtomPacket(p.type)) {
    out->append("; ");
    Atoms(p, out);
    return;
  }
  switch (p.type) {
    case PacketType::kBadSequence:
    case PacketType::kIncompleteEot:
    case PacketType::kReservedCfg:
      out->push_back('[');
      out->append(N(p.err_type).ocsd);
      out->push_back(']');
      break;
    case PacketType::kContext:
      out->append("; ");
      Context(p, out);
      break;
    case PacketType::kException: {
      out->append(";  ");
      char irq[16];
      out->append(p.m_profile ? MExceptionTypeName(p.exception_type, irq) : ExceptionTypeName(p.exception_type));
      out->push_back(';');
      if (p.m_profile && p.exception_fault_pending) out->append(" Fault Pending;");
      if (p.exception_addr_interp == 1)
        out->append(" Ret Addr Follows;");
      else if (p.exception_addr_interp == 2)
        out->append(" Ret Addr Follows, Match Prev;");
      break;
    }
    case PacketType::kTimestamp:
      Appendf(out, "; Updated val = 0x%" PRIx64, p.timestamp);
      if (p.cc_valid) Appendf(out, "; CC=0x%x", p.cycle_count);
      break;
    case PacketType::kTraceInfo:
      if (p.etm4)  // ETMv4 has no transactional state (INFO bit 6)
        Appendf(out, "; INFO=0x%x { CC.%u }", p.info & 0xFF, p.info & 1);
      else
        Appendf(out, "; INFO=0x%x { CC.%u, TSTATE.%u }", p.info & 0xFF, p.info & 1, (p.info >> 6) & 1);
      if (p.info & 1) Appendf(out, "; CC_THRESHOLD=0x%x", p.cc_threshold);
      if (p.tinfo_initial && (p.tinfo_sections & 0x04)) Appendf(out, "; INIT SPEC DEPTH=%u", p.spec);
      if (p.tinfo_initial) out->append("; Decoder Sync point TINFO");
      break;
    case PacketType::kCycleCountF1:
    case PacketType::kCycleCountF2:
    case PacketType::kCycleCountF3:
      Appendf(out, "; Count=0x%x", p.cycle_count);
      if (p.commit_valid) Appendf(out, "; Commit(%u)", p.commit);
      break;
    case PacketType::kCancelF1: Appendf(out, "; Cancel(%u)", p.cancel); break;
    case PacketType::kCancelF1Mispredict: Appendf(out, "; Cancel(%u), Mispredict", p.cancel); break;
    case PacketType::kMispredict:
    case PacketType::kCancelF2:
    case PacketType::kCancelF3:
      out->append("; ");
      if (p.atom_count) {
        out->append("Atom: ");
        Atoms(p, out);
        out->append(", ");
      }
      if (p.type == PacketType::kMispredict)
        out->append("Mispredict");
      else
        Appendf(out, "Cancel(%u), Mispredict", p.cancel);
      break;
    case PacketType::kCommit: Appendf(out, "; Commit(%u)", p.commit); break;
    case PacketType::kQ:
      if (p.q_count_present)
        Appendf(out, "; Count(%u)", p.q_count);
      else
        out->append("; Count(Unknown)");
      if (p.q_addr_match) Appendf(out, "; [%u]", p.exact_match_idx);
      if (p.q_addr_present || p.q_addr_match) {
        out->append("; Addr=");
        Addr(p, out, 64);
      }
      break;
    case PacketType::kInstrumentation: Appendf(out, "; EL%u; Payload=0x%" PRIx64, p.ite_el, p.ite_value); break;
    default: break;
  }
}

void FormatOcsdValue(std::string* out, int total_bits, int valid_bits, uint64_t value, int update_bits) {
  ValStr(out, total_bits, valid_bits, value, update_bits);
}

void FormatLine(const EtePacket& p, std::string* out) {
  Appendf(out, "Idx:%" PRIu64 "; ID:%x; [", p.index, p.trace_id);
  for (int i = 0; i < p.size; ++i) Appendf(out, "0x%02x ", p.raw[i]);
  out->append("];\t");
  FormatOcsd(p, out);
}

namespace {
void JsonAddr(const EtePacket& p, JsonObject& o) {
  char isa[8];
  std::snprintf(isa, sizeof isa, "IS%u", p.addr.isa);
  o.Hex("address", p.addr.value).String("isa", isa).Unsigned("address_bits", p.addr.pkt_bits);
}
void JsonAtoms(const EtePacket& p, JsonObject& o) {
  std::string atoms;
  Atoms(p, &atoms);
  o.String("atoms", atoms);
}
void JsonContext(const EtePacket& p, JsonObject& o) {
  const PacketContext& c = p.context;
  if (!c.updated) {
    o.Bool("context_same", true);
    return;
  }
  o.Unsigned("el", c.el)
      .Bool("aarch64", c.sf)
      .String("security", c.nse ? (c.ns ? "Realm" : "Root") : (c.ns ? "NS" : "S"));
  if (c.updated_vmid) o.Hex("vmid", c.vmid);
  if (c.updated_cid) o.Hex("context_id", c.context_id);
}
}  // namespace

void FormatJson(const EtePacket& p, std::string_view source, std::string* out) {
  JsonObject o(out);
  std::string raw;
  for (int i = 0; i < p.size; ++i) Appendf(&raw, "%02x", p.raw[i]);
  o.String("source", source)
      .Unsigned("trace_id", p.trace_id)
      .Unsigned("offset", p.index)
      .Unsigned("stream_offset", p.stream_offset)
      .String("raw", raw)
      .String("type", N(p.type).id)
      .String("ocsd", N(p.type).ocsd);
  if (const AddressField field = AddressFieldOf(p.type); field != AddressField::kNone) {
    if (field == AddressField::kExactMatch) o.Unsigned("match_index", p.exact_match_idx);
    JsonAddr(p, o);
    if (IsAddressWithContextPacket(p.type)) JsonContext(p, o);
    o.End();
    return;
  }
  if (IsAtomPacket(p.type)) JsonAtoms(p, o);
  switch (p.type) {
    case PacketType::kBadSequence:
    case PacketType::kIncompleteEot:
    case PacketType::kReservedCfg:
    case PacketType::kReserved: o.String("while_parsing", N(p.err_type).id); break;
    case PacketType::kContext: JsonContext(p, o); break;
    case PacketType::kMispredict:
      JsonAtoms(p, o);
      o.Bool("mispredict", true);
      break;
    case PacketType::kCancelF2:
    case PacketType::kCancelF3:
      JsonAtoms(p, o);
      o.Unsigned("cancel", p.cancel).Bool("mispredict", true);
      break;
    case PacketType::kException: {
      char irq[16];
      o.Unsigned("exception_type", p.exception_type)
          .String("exception_name",
                  p.m_profile ? MExceptionTypeName(p.exception_type, irq) : ExceptionTypeName(p.exception_type))
          .Unsigned("address_follows", p.exception_addr_interp);
      if (p.m_profile) o.Bool("fault_pending", p.exception_fault_pending);
      break;
    }
    case PacketType::kPeReset:
    case PacketType::kTransactionFailure:
      o.Unsigned("exception_type", p.exception_type).Unsigned("address_follows", p.exception_addr_interp);
      break;
    case PacketType::kTimestamp:
      o.Unsigned("timestamp", p.timestamp).Unsigned("timestamp_bits", p.ts_bits);
      if (p.cc_valid) o.Unsigned("cycle_count", p.cycle_count);
      break;
    case PacketType::kTraceInfo:
      o.Unsigned("info", p.info)
          .Bool("cc_enabled", p.info & 1)
          .Bool("tstate", (p.info >> 6) & 1)
          .Unsigned("cc_threshold", p.cc_threshold)
          .Unsigned("spec", p.spec)
          .Unsigned("key", p.key)
          .Unsigned("sections", p.tinfo_sections)
          .Bool("initial", p.tinfo_initial);
      break;
    case PacketType::kCycleCountF1:
    case PacketType::kCycleCountF2:
    case PacketType::kCycleCountF3:
      o.Unsigned("cycle_count", p.cycle_count);
      if (p.type == PacketType::kCycleCountF1 && (p.raw[0] & 1)) o.Bool("cycle_count_unknown", true);
      if (p.commit_valid) o.Unsigned("commit", p.commit);
      break;
    case PacketType::kCommit: o.Unsigned("commit", p.commit); break;
    case PacketType::kCancelF1: o.Unsigned("cancel", p.cancel); break;
    case PacketType::kCancelF1Mispredict: o.Unsigned("cancel", p.cancel).Bool("mispredict", true); break;
    case PacketType::kQ:
      o.Unsigned("q_type", p.q_type);
      if (p.q_count_present) o.Unsigned("count", p.q_count);
      if (p.q_addr_match) o.Unsigned("match_index", p.exact_match_idx);
      if (p.q_addr_present || p.q_addr_match) JsonAddr(p, o);
      break;
    case PacketType::kInstrumentation: o.Unsigned("el", p.ite_el).Hex("value", p.ite_value); break;
    case PacketType::kEvent: o.Unsigned("events", p.event); break;
    default: break;
  }
  o.End();
}

}  // namespace mabutrace::ete
