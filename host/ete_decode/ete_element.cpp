// SPDX-License-Identifier: MIT
// ete_element.cpp: names and text/JSON forms of the generic trace elements.
#include "ete_element.h"

#include <cinttypes>
#include <cstdio>
#include <iterator>

#include "ete/text_out.h"

namespace mabutrace::ete_decode {
namespace {

using ete::Appendf;

struct Names {
  const char* ocsd;
  const char* json;
};
constexpr Names kNames[] = {
    {"OCSD_GEN_TRC_ELEM_NO_SYNC", "no_sync"},
    {"OCSD_GEN_TRC_ELEM_TRACE_ON", "trace_on"},
    {"OCSD_GEN_TRC_ELEM_EO_TRACE", "eo_trace"},
    {"OCSD_GEN_TRC_ELEM_PE_CONTEXT", "pe_context"},
    {"OCSD_GEN_TRC_ELEM_INSTR_RANGE", "instr_range"},
    {"OCSD_GEN_TRC_ELEM_I_RANGE_NOPATH", "instr_range_nopath"},
    {"OCSD_GEN_TRC_ELEM_ADDR_NACC", "addr_nacc"},
    {"OCSD_GEN_TRC_ELEM_EXCEPTION", "exception"},
    {"OCSD_GEN_TRC_ELEM_EXCEPTION_RET", "exception_ret"},
    {"OCSD_GEN_TRC_ELEM_TIMESTAMP", "timestamp"},
    {"OCSD_GEN_TRC_ELEM_CYCLE_COUNT", "cycle_count"},
    {"OCSD_GEN_TRC_ELEM_EVENT", "event"},
    {"OCSD_GEN_TRC_ELEM_SYNC_MARKER", "sync_marker"},
    {"OCSD_GEN_TRC_ELEM_MEMTRANS", "memtrans"},
    {"OCSD_GEN_TRC_ELEM_INSTRUMENTATION", "instrumentation"},
    {"MABUTRACE_GEN_TRC_ELEM_INSTR_LIMIT", "instr_limit"},  // ours: OpenCSD has no such element
    {"OCSD_GEN_TRC_ELEM_ADDR_UNKNOWN", "addr_unknown"},
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(ElemType::kCount));

// The lister pads type names to a fixed width (OCSD trc_gen_elem.cpp).
const char* TypeText(armisa::InstrType t) {
  switch (t) {
    case armisa::InstrType::kOther: return "--- ";
    case armisa::InstrType::kBranch: return "BR  ";
    case armisa::InstrType::kIndirectBranch: return "iBR ";
    case armisa::InstrType::kIsb: return "ISB ";
    case armisa::InstrType::kDsbDmb: return "DSB.DMB";
    case armisa::InstrType::kWfiWfe: return "WFI.WFE";
    case armisa::InstrType::kTstart: return "TSTART";
  }
  return "";
}
const char* SubtypeText(armisa::InstrSubtype s) {
  switch (s) {
    case armisa::InstrSubtype::kNone: return "";
    case armisa::InstrSubtype::kBrLink: return "b+link ";
    case armisa::InstrSubtype::kV8Ret: return "A64:ret ";
    case armisa::InstrSubtype::kV8Eret: return "A64:eret ";
    case armisa::InstrSubtype::kV7ImpliedRet: return "V7:impl ret";  // no trailing space (OpenCSD 1.8.0)
  }
  return "";
}
// Indexed by the enumerators (the static_asserts check the last one).
constexpr const char* kUnsyncText[] = {"init-decoder", "reset-decoder",     "overflow",    "discard",
                                       "bad-packet",   "bad-program-image", "end-of-trace"};
static_assert(std::size(kUnsyncText) == static_cast<size_t>(UnsyncReason::kEndOfTrace) + 1);
constexpr const char* kTraceOnText[] = {"begin or filter", "overflow", "debug restart"};
static_assert(std::size(kTraceOnText) == static_cast<size_t>(TraceOnReason::kDebugExit) + 1);
constexpr const char* kMemTransText[] = {"Init", "Start", "Commit", "Fail"};
static_assert(std::size(kMemTransText) == static_cast<size_t>(MemTrans::kFail) + 1);
constexpr const char* kSecurityText[] = {"S", "N", "Root", "Realm"};
static_assert(std::size(kSecurityText) == static_cast<size_t>(Security::kRealm) + 1);

const char* UnsyncText(UnsyncReason r) { return kUnsyncText[static_cast<size_t>(r)]; }
const char* TraceOnText(TraceOnReason r) { return kTraceOnText[static_cast<size_t>(r)]; }
const char* MemTransText(MemTrans m) { return kMemTransText[static_cast<size_t>(m)]; }
const char* SecurityText(Security s) { return kSecurityText[static_cast<size_t>(s)]; }
const char* MemSpaceText(uint8_t m) {
  switch (m) {
    case armisa::kMemEL1S: return "EL1S";
    case armisa::kMemEL1N: return "EL1N";
    case armisa::kMemEL2N: return "EL2N";
    case armisa::kMemEL3: return "EL3";
    case armisa::kMemEL2S: return "EL2S";
    case armisa::kMemEL1R: return "EL1R";
    case armisa::kMemEL2R: return "EL2R";
    case armisa::kMemRoot: return "Root";
    case armisa::kMemS: return "S";
    case armisa::kMemN: return "N";
    case armisa::kMemR: return "R";
    default: return "Any";
  }
}
// OpenCSD 1.8.0's lister names the combined spaces "Any S" / "Any NS"
// (PTM ADDR_NACC lines of the Snowball and TC2 listings).
const char* OcsdMemSpaceText(uint8_t m) {
  return m == armisa::kMemS ? "Any S" : m == armisa::kMemN ? "Any NS" : MemSpaceText(m);
}

}  // namespace

const char* ElemTypeOcsdName(ElemType type) {
  return type < ElemType::kCount ? kNames[static_cast<int>(type)].ocsd : "OCSD_GEN_TRC_ELEM_UNKNOWN";
}
const char* ElemTypeName(ElemType type) {
  return type < ElemType::kCount ? kNames[static_cast<int>(type)].json : "unknown";
}

void FormatElementOcsd(const EteElement& e, std::string* out) {
  out->append(ElemTypeOcsdName(e.type));
  out->push_back('(');
  const std::string_view isa = armisa::IsaName(e.isa);
  switch (e.type) {
    case ElemType::kNoSync:
    case ElemType::kEoTrace: Appendf(out, " [%s]", UnsyncText(e.unsync)); break;
    case ElemType::kTraceOn: Appendf(out, " [%s]", TraceOnText(e.trace_on)); break;
    case ElemType::kPeContext:
      Appendf(out, "(ISA=%.*s) ", static_cast<int>(isa.size()), isa.data());
      if (e.el_valid) Appendf(out, "EL%u", e.el);
      Appendf(out, "%s; %s; ", SecurityText(e.security), e.bits64 ? "64-bit" : "32-bit");
      if (e.vmid_valid) Appendf(out, "VMID=0x%x; ", e.vmid);
      if (e.context_id_valid) Appendf(out, "CTXTID=0x%x; ", e.context_id);
      break;
    case ElemType::kInstrRange:
      Appendf(out, "exec range=0x%" PRIx64 ":[0x%" PRIx64 "] num_i(%u) last_sz(%u) (ISA=%.*s) %s%s%s%s", e.start, e.end,
              e.num_instr, e.last_size, static_cast<int>(isa.size()), isa.data(), e.executed ? "E " : "N ",
              TypeText(e.last_type), SubtypeText(e.last_subtype), e.last_cond ? " <cond>" : "");
      break;
    case ElemType::kInstrRangeNoPath:
      Appendf(out, "first 0x%" PRIx64 ":[next 0x%" PRIx64 "] num_i(%u) ", e.start, e.end, e.num_instr);
      break;
    case ElemType::kAddrNacc:
      Appendf(out, " 0x%" PRIx64 "; Memspace [0x%x:%s] ", e.start, e.mem_space, OcsdMemSpaceText(e.mem_space));
      break;
    case ElemType::kException:
      if (e.exception_has_addr) {
        Appendf(out, "pref ret addr:0x%" PRIx64, e.end);
        if (e.exception_prev_same) out->append(" [addr also prev br tgt]");
        out->append("; ");
      }
      Appendf(out, "excep num (0x%02x) ", e.exception_number);
      break;
    case ElemType::kExceptionRet: break;
    case ElemType::kTimestamp: Appendf(out, " [ TS=0x%012" PRIx64 "]; ", e.timestamp); break;
    case ElemType::kCycleCount: break;
    case ElemType::kEvent:
      if (e.event_trigger)
        out->append(" Trigger; ");
      else
        Appendf(out, " Numbered:%u; ", e.event);
      break;
    case ElemType::kSyncMarker: out->append(" [Timestamp marker(0x00000000)]"); break;
    case ElemType::kMemTrans: out->append(MemTransText(e.mem_trans)); break;
    case ElemType::kInstrumentation: Appendf(out, "EL%u; 0x%016" PRIx64, e.ite_el, e.ite_value); break;
    case ElemType::kInstrLimit:
      Appendf(out, "first 0x%" PRIx64 ":[stop 0x%" PRIx64 "] num_i(%u) no P0 instruction within the walk limit",
              e.start, e.end, e.num_instr);
      break;
    case ElemType::kAddrUnknown:
    case ElemType::kCount: break;
  }
  if (e.has_cc) Appendf(out, " [CC=%u]; ", e.cycle_count);
  out->push_back(')');
}

void FormatElementLine(const EteElement& e, std::string* out) {
  Appendf(out, "Idx:%" PRIu64 "; ID:%x; ", e.index, e.trace_id);
  FormatElementOcsd(e, out);
}

void FormatElementJson(const EteElement& e, std::string_view source, std::string* out) {
  ete::JsonObject o(out);
  o.String("source", source)
      .Unsigned("trace_id", e.trace_id)
      .Unsigned("offset", e.index)
      .String("elem", ElemTypeName(e.type));
  const std::string_view isa = armisa::IsaName(e.isa);
  switch (e.type) {
    case ElemType::kNoSync:
    case ElemType::kEoTrace: o.String("reason", UnsyncText(e.unsync)); break;
    case ElemType::kTraceOn: o.String("reason", TraceOnText(e.trace_on)); break;
    case ElemType::kPeContext:
      o.String("isa", isa);
      if (e.el_valid) o.Unsigned("el", e.el);
      o.String("security", SecurityText(e.security)).Bool("bits64", e.bits64);
      if (e.vmid_valid) o.Hex("vmid", e.vmid);
      if (e.context_id_valid) o.Hex("context_id", e.context_id);
      break;
    case ElemType::kInstrRange:
      o.Hex("start", e.start)
          .Hex("end", e.end)
          .Unsigned("num_instr", e.num_instr)
          .String("isa", isa)
          .String("last_instr_type", armisa::OcsdTypeName(e.last_type))
          .String("last_instr_subtype", armisa::OcsdSubtypeName(e.last_subtype))
          .Unsigned("last_instr_size", e.last_size)
          .Bool("last_instr_cond", e.last_cond)
          .Bool("taken", e.executed);
      break;
    case ElemType::kInstrRangeNoPath:
      o.Hex("start", e.start).Hex("end", e.end).Unsigned("num_instr", e.num_instr).String("isa", isa);
      break;
    case ElemType::kAddrNacc: o.Hex("address", e.start).String("mem_space", MemSpaceText(e.mem_space)); break;
    case ElemType::kInstrLimit:
      o.Hex("start", e.start).Hex("end", e.end).Unsigned("num_instr", e.num_instr).String("isa", isa);
      break;
    case ElemType::kException:
      o.Unsigned("number", e.exception_number);
      if (e.exception_has_addr) o.Hex("return_address", e.end);
      if (e.exception_prev_same) o.Bool("prev_same", true);
      break;
    case ElemType::kTimestamp: o.Unsigned("timestamp", e.timestamp); break;
    case ElemType::kEvent:
      if (e.event_trigger)
        o.Bool("trigger", true);
      else
        o.Unsigned("event", e.event);
      break;
    case ElemType::kMemTrans: o.String("kind", MemTransText(e.mem_trans)); break;
    case ElemType::kInstrumentation: o.Unsigned("el", e.ite_el).Hex("value", e.ite_value); break;
    default: break;
  }
  if (e.has_cc) o.Unsigned("cycle_count", e.cycle_count);
  o.End();
}

}  // namespace mabutrace::ete_decode
