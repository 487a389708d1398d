// ete_element.cpp: names and text/JSON forms of the generic trace elements.
#include "ete_element.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace mabutrace::ete_decode {
namespace {

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
const char* UnsyncText(UnsyncReason r) {
  switch (r) {
    case UnsyncReason::kInitDecoder: return "init-decoder";
    case UnsyncReason::kResetDecoder: return "reset-decoder";
    case UnsyncReason::kOverflow: return "overflow";
    case UnsyncReason::kDiscard: return "discard";
    case UnsyncReason::kBadPacket: return "bad-packet";
    case UnsyncReason::kBadImage: return "bad-program-image";
    case UnsyncReason::kEndOfTrace: return "end-of-trace";
  }
  return "";
}
const char* TraceOnText(TraceOnReason r) {
  switch (r) {
    case TraceOnReason::kNormal: return "begin or filter";
    case TraceOnReason::kOverflow: return "overflow";
    case TraceOnReason::kDebugExit: return "debug restart";
  }
  return "";
}
const char* MemTransText(MemTrans m) {
  switch (m) {
    case MemTrans::kTraceInit: return "Init";
    case MemTrans::kStart: return "Start";
    case MemTrans::kCommit: return "Commit";
    case MemTrans::kFail: return "Fail";
  }
  return "";
}
const char* SecurityText(Security s) {
  switch (s) {
    case Security::kSecure: return "S";
    case Security::kNonSecure: return "N";
    case Security::kRoot: return "Root";
    case Security::kRealm: return "Realm";
  }
  return "";
}
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

void Appendf(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void Appendf(std::string* out, const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) out->append(buf, static_cast<size_t>(n) < sizeof buf ? static_cast<size_t>(n) : sizeof buf - 1);
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
    case ElemType::kEoTrace:
      Appendf(out, " [%s]", UnsyncText(e.unsync));
      break;
    case ElemType::kTraceOn:
      Appendf(out, " [%s]", TraceOnText(e.trace_on));
      break;
    case ElemType::kPeContext:
      Appendf(out, "(ISA=%.*s) EL%u%s; %s; ", static_cast<int>(isa.size()), isa.data(), e.el,
              SecurityText(e.security), e.bits64 ? "64-bit" : "32-bit");
      if (e.vmid_valid) Appendf(out, "VMID=0x%x; ", e.vmid);
      if (e.context_id_valid) Appendf(out, "CTXTID=0x%x; ", e.context_id);
      break;
    case ElemType::kInstrRange:
      Appendf(out, "exec range=0x%" PRIx64 ":[0x%" PRIx64 "] num_i(%u) last_sz(%u) (ISA=%.*s) %s%s%s%s", e.start,
              e.end, e.num_instr, e.last_size, static_cast<int>(isa.size()), isa.data(), e.executed ? "E " : "N ",
              TypeText(e.last_type), SubtypeText(e.last_subtype), e.last_cond ? " <cond>" : "");
      break;
    case ElemType::kInstrRangeNoPath:
      Appendf(out, "first 0x%" PRIx64 ":[next 0x%" PRIx64 "] num_i(%u) ", e.start, e.end, e.num_instr);
      break;
    case ElemType::kAddrNacc:
      Appendf(out, " 0x%" PRIx64 "; Memspace [0x%x:%s] ", e.start, e.mem_space, MemSpaceText(e.mem_space));
      break;
    case ElemType::kException:
      if (e.exception_has_addr) {
        Appendf(out, "pref ret addr:0x%" PRIx64, e.end);
        if (e.exception_prev_same) out->append(" [addr also prev br tgt]");
        out->append("; ");
      }
      Appendf(out, "excep num (0x%02x) ", e.exception_number);
      break;
    case ElemType::kExceptionRet:
      break;
    case ElemType::kTimestamp:
      Appendf(out, " [ TS=0x%012" PRIx64 "]; ", e.timestamp);
      break;
    case ElemType::kCycleCount:
      break;
    case ElemType::kEvent:
      Appendf(out, " Numbered:%u; ", e.event);
      break;
    case ElemType::kSyncMarker:
      out->append(" [Timestamp marker(0x00000000)]");
      break;
    case ElemType::kMemTrans:
      out->append(MemTransText(e.mem_trans));
      break;
    case ElemType::kInstrumentation:
      Appendf(out, "EL%u; 0x%016" PRIx64, e.ite_el, e.ite_value);
      break;
    case ElemType::kCount:
      break;
  }
  if (e.has_cc) Appendf(out, " [CC=%u]; ", e.cycle_count);
  out->push_back(')');
}

void FormatElementJson(const EteElement& e, const std::string& source, std::string* out) {
  out->append("{\"source\":\"");
  for (char c : source) {
    if (c == '"' || c == '\\') out->push_back('\\');
    if (static_cast<unsigned char>(c) >= 0x20) out->push_back(c);
  }
  Appendf(out, "\",\"trace_id\":%u,\"offset\":%" PRIu64 ",\"elem\":\"%s\"", e.trace_id, e.index, ElemTypeName(e.type));
  const std::string_view isa = armisa::IsaName(e.isa);
  switch (e.type) {
    case ElemType::kNoSync:
    case ElemType::kEoTrace:
      Appendf(out, ",\"reason\":\"%s\"", UnsyncText(e.unsync));
      break;
    case ElemType::kTraceOn:
      Appendf(out, ",\"reason\":\"%s\"", TraceOnText(e.trace_on));
      break;
    case ElemType::kPeContext:
      Appendf(out, ",\"isa\":\"%.*s\",\"el\":%u,\"security\":\"%s\",\"bits64\":%s", static_cast<int>(isa.size()),
              isa.data(), e.el, SecurityText(e.security), e.bits64 ? "true" : "false");
      if (e.vmid_valid) Appendf(out, ",\"vmid\":\"0x%x\"", e.vmid);
      if (e.context_id_valid) Appendf(out, ",\"context_id\":\"0x%x\"", e.context_id);
      break;
    case ElemType::kInstrRange: {
      const std::string_view t = armisa::OcsdTypeName(e.last_type);
      const std::string_view s = armisa::OcsdSubtypeName(e.last_subtype);
      Appendf(out,
              ",\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64 "\",\"num_instr\":%u,\"isa\":\"%.*s\","
              "\"last_instr_type\":\"%.*s\",\"last_instr_subtype\":\"%.*s\",\"last_instr_size\":%u,"
              "\"last_instr_cond\":%s,\"taken\":%s",
              e.start, e.end, e.num_instr, static_cast<int>(isa.size()), isa.data(), static_cast<int>(t.size()),
              t.data(), static_cast<int>(s.size()), s.data(), e.last_size, e.last_cond ? "true" : "false",
              e.executed ? "true" : "false");
      break;
    }
    case ElemType::kInstrRangeNoPath:
      Appendf(out, ",\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64 "\",\"num_instr\":%u,\"isa\":\"%.*s\"",
              e.start, e.end, e.num_instr, static_cast<int>(isa.size()), isa.data());
      break;
    case ElemType::kAddrNacc:
      Appendf(out, ",\"address\":\"0x%" PRIx64 "\",\"mem_space\":\"%s\"", e.start, MemSpaceText(e.mem_space));
      break;
    case ElemType::kException:
      Appendf(out, ",\"number\":%u", e.exception_number);
      if (e.exception_has_addr) Appendf(out, ",\"return_address\":\"0x%" PRIx64 "\"", e.end);
      if (e.exception_prev_same) out->append(",\"prev_same\":true");
      break;
    case ElemType::kTimestamp:
      Appendf(out, ",\"timestamp\":%" PRIu64, e.timestamp);
      break;
    case ElemType::kEvent:
      Appendf(out, ",\"event\":%u", e.event);
      break;
    case ElemType::kMemTrans:
      Appendf(out, ",\"kind\":\"%s\"", MemTransText(e.mem_trans));
      break;
    case ElemType::kInstrumentation:
      Appendf(out, ",\"el\":%u,\"value\":\"0x%" PRIx64 "\"", e.ite_el, e.ite_value);
      break;
    default:
      break;
  }
  if (e.has_cc) Appendf(out, ",\"cycle_count\":%u", e.cycle_count);
  out->push_back('}');
}

}  // namespace mabutrace::ete_decode
