// SPDX-License-Identifier: MIT
// ptm_packet_text.cpp: the OpenCSD 1.8.0 PTM packet text (see ptm_packet_text.h).
#include "ptm/ptm_packet_text.h"

#include <cinttypes>

#include "ete/ete_packet_text.h"
#include "ete/text_out.h"

namespace mabutrace::ptm {
namespace {

using ete::Appendf;

struct Names {
  const char* name;
  const char* desc;
  const char* id;  // JSON "type"
};

Names N(PtmPacketType t) {
  switch (t) {
    case PtmPacketType::kNotSync: return {"NOTSYNC", "PTM Not Synchronised", "NOTSYNC"};
    case PtmPacketType::kAsync: return {"ASYNC", "Alignment Synchronisation Packet", "ASYNC"};
    case PtmPacketType::kIsync: return {"ISYNC", "Instruction Synchronisation packet", "ISYNC"};
    case PtmPacketType::kTrigger: return {"TRIGGER", "Trigger Event packet", "TRIGGER"};
    case PtmPacketType::kWaypointUpdate: return {"WP_UPDATE", "Waypoint update packet", "WP_UPDATE"};
    case PtmPacketType::kIgnore: return {"IGNORE", "Ignore packet", "IGNORE"};
    case PtmPacketType::kContextId: return {"CTXTID", "Context ID packet", "CTXTID"};
    case PtmPacketType::kVmid: return {"VMID", "VM ID packet", "VMID"};
    case PtmPacketType::kAtom: return {"ATOM", "Atom packet", "ATOM"};
    case PtmPacketType::kTimestamp: return {"TIMESTAMP", "Timestamp packet", "TIMESTAMP"};
    case PtmPacketType::kExceptionRet: return {"ERET", "Exception return packet", "ERET"};
    case PtmPacketType::kBranchAddress: return {"BRANCH_ADDRESS", "Branch address packet", "BRANCH_ADDRESS"};
    case PtmPacketType::kReserved: return {"RESERVED", "Reserved Packet Header", "RESERVED"};
    case PtmPacketType::kBadSequence: return {"BAD_SEQUENCE", "Invalid sequence in packet", "BAD_SEQUENCE"};
    case PtmPacketType::kIncompleteEot:
      return {"INCOMPLETE_EOT", "Incomplete packet flushed at end of trace", "INCOMPLETE_EOT"};
  }
  return {"UNKNOWN", "Unknown packet type", "UNKNOWN"};
}

const char* IsaName(PtmIsa isa) {
  switch (isa) {
    case PtmIsa::kArm: return "ARM(32)";
    case PtmIsa::kThumb2: return "Thumb2";
    case PtmIsa::kThumbEE: return "ThumbEE";
    case PtmIsa::kJazelle: return "Jazelle";
    default: return "Unknown";
  }
}

void Cycles(const PtmPacket& p, std::string* out) {
  if (p.has_cc) Appendf(out, "Cycles=%u; ", p.cycle_count);
}

}  // namespace

const char* PacketTypeName(PtmPacketType t) { return N(t).name; }

const char* ExceptionName(uint16_t number) {
  static const char* const kNames[16] = {"No Exception",     "Debug Halt",      "SMC",      "Hyp",
                                         "Async Data Abort", "Jazelle",         "Reserved", "Reserved",
                                         "PE Reset",         "Undefined Instr", "SVC",      "Prefetch Abort",
                                         "Data Fault",       "Generic",         "IRQ",      "FIQ"};
  return number < 16 ? kNames[number] : "Unknown";
}

void FormatOcsd(const PtmPacket& p, std::string* out) {
  const Names n = N(p.type);
  Appendf(out, "%s : %s; ", n.name, n.desc);
  switch (p.type) {
    case PtmPacketType::kBadSequence: Appendf(out, "[%s]; ", N(p.err_type).name); break;
    case PtmPacketType::kAtom:
      for (int i = 0; i < (p.has_cc ? 1 : p.atom_count); ++i) out->push_back(((p.atom_bits >> i) & 1) ? 'E' : 'N');
      out->append("; ");
      Cycles(p, out);
      break;
    case PtmPacketType::kContextId: Appendf(out, "CtxtID=0x%08x; ", p.context_id); break;
    case PtmPacketType::kVmid: Appendf(out, "VMID=0x%02x; ", p.vmid); break;
    case PtmPacketType::kWaypointUpdate:
    case PtmPacketType::kBranchAddress:
      out->append("Addr=");
      ete::FormatOcsdValue(out, 32, p.addr_valid, p.addr, p.addr_bits);
      out->append("; ");
      if (p.isa != p.prev_isa) Appendf(out, "ISA=%s; ", IsaName(p.isa));
      if (p.context_updated) {
        out->append(p.ns ? "NS; " : "S; ");
        if (p.hyp) out->append("Hyp; ");
      }
      if (p.has_exception) Appendf(out, "Excep=%s [%02x]; ", ExceptionName(p.exception_number), p.exception_number);
      Cycles(p, out);
      break;
    case PtmPacketType::kIsync: {
      static const char* const kReason[4] = {"Periodic", "Trace Enable", "Restart Overflow", "Debug Exit"};
      Appendf(out, "(%s); Addr=0x%08x; %s%s", kReason[p.isync_reason & 3], p.addr, p.ns ? "NS; " : "S; ",
              p.hyp ? "Hyp; " : " ");
      if (p.context_id_updated) Appendf(out, "CtxtID=%08x; ", p.context_id);
      Appendf(out, "ISA=%s; ", IsaName(p.isa));
      Cycles(p, out);
      break;
    }
    case PtmPacketType::kTimestamp:
      out->append("TS=");
      ete::FormatOcsdValue(out, 64, 64, p.timestamp, p.ts_bits);
      Appendf(out, "(%" PRIu64 "); ", p.timestamp);
      Cycles(p, out);
      break;
    default: break;
  }
}

void FormatLine(const PtmPacket& p, std::string* out) {
  Appendf(out, "Idx:%" PRIu64 "; ID:%x; [", p.index, p.trace_id);
  for (int i = 0; i < p.raw_len; ++i) Appendf(out, "0x%02x ", p.raw[i]);
  out->append("];\t");
  FormatOcsd(p, out);
}

void FormatJson(const PtmPacket& p, std::string_view source, std::string* out) {
  ete::JsonObject o(out);
  std::string raw, ocsd;
  for (int i = 0; i < p.raw_len; ++i) Appendf(&raw, "%02x", p.raw[i]);
  FormatOcsd(p, &ocsd);
  while (!ocsd.empty() && ocsd.back() == ' ') ocsd.pop_back();
  o.String("source", source)
      .Unsigned("trace_id", p.trace_id)
      .Unsigned("offset", p.index)
      .String("raw", raw)
      .String("type", N(p.type).id)
      .String("ocsd", ocsd);
  switch (p.type) {
    case PtmPacketType::kAtom: {
      std::string atoms;
      for (int i = 0; i < (p.has_cc ? 1 : p.atom_count); ++i) atoms.push_back(((p.atom_bits >> i) & 1) ? 'E' : 'N');
      o.String("atoms", atoms);
      break;
    }
    case PtmPacketType::kBranchAddress:
    case PtmPacketType::kWaypointUpdate:
    case PtmPacketType::kIsync:
      o.Hex("address", p.addr).String("isa", IsaName(p.isa)).Bool("ns", p.ns);
      if (p.has_exception) o.Unsigned("exception", p.exception_number);
      if (p.context_id_updated) o.Hex("context_id", p.context_id);
      break;
    case PtmPacketType::kContextId: o.Hex("context_id", p.context_id); break;
    case PtmPacketType::kVmid: o.Unsigned("vmid", p.vmid); break;
    case PtmPacketType::kTimestamp: o.Unsigned("timestamp", p.timestamp); break;
    default: break;
  }
  if (p.has_cc) o.Unsigned("cycle_count", p.cycle_count);
  o.End();
}

}  // namespace mabutrace::ptm
