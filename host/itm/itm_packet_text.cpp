// SPDX-License-Identifier: MIT
// itm_packet_text.cpp: see itm_packet_text.h.
#include "itm/itm_packet_text.h"

#include <cinttypes>

#include "ete/text_out.h"

namespace mabutrace::itm {

using ete::Appendf;
using ete::JsonObject;

namespace {

// "0x" and the value in 2 digits per payload byte (40 bits for size 5).
void Value(const ItmPacket& p, std::string* out) {
  if (p.size <= 4)
    Appendf(out, "0x%0*" PRIx64, p.size * 2, p.value);
  else
    Appendf(out, "0x%02x%08x", static_cast<unsigned>((p.value >> 32) & 0xFF), static_cast<unsigned>(p.value));
}

// The DWT event counter flags (payload bits 0-5), as OpenCSD prints them.
void EventFlags(uint64_t v, std::string* out) {
  static const char* kNames[] = {" CPI ", " EXC ", " Sleep ", " LSU ", " Fold ", " CYC "};
  for (int bit = 0; bit < 6; ++bit) out->append((v >> bit) & 1 ? kNames[bit] : " --- ");
}

void Dwt(const ItmPacket& p, std::string* out) {
  static const char* kExcFn[] = {"reserved", "entered", "exited", "returned to"};
  const unsigned id = p.src_id;
  if (id == kDwtEventCounter) {
    Appendf(out, "[Event Counter: 0x%02" PRIx64 "; Flags: ", p.value);
    EventFlags(p.value, out);
    out->append("] ");
  } else if (id == kDwtException) {
    Appendf(out, "[Exception Num:  0x%04x(%s) ]", static_cast<unsigned>(p.value & 0x1FF), kExcFn[(p.value >> 12) & 3]);
  } else if (id == kDwtPcSample) {
    out->append("[PC Sample: ");
    Value(p, out);
    out->append("] ");
  } else if (id >= 8 && id <= 23) {
    const unsigned type = (id >> 3) & 3, write = id & 1, comp = (id >> 1) & 3;
    Appendf(out, "[Data Trc: comp=%u; ", comp);
    if (type == 1) {
      out->append(write ? "Address=" : "PC Value=");
      Value(p, out);
      out->append(" ] ");
    } else {
      out->append(write ? "Val write: " : "Val read: ");
      Value(p, out);
      out->append("] ");
    }
  } else {
    out->append("[Reserved discriminator value] ");
  }
}

const char* TcName(unsigned tc) {
  static const char* kNames[] = {"TS Sync", "TS Delayed", "TS Sync, Packet Delayed", "TS Delayed, Packet Delayed"};
  return kNames[tc & 3];
}

const char* DwtKind(unsigned id) {
  if (id == kDwtEventCounter) return "event_counter";
  if (id == kDwtException) return "exception";
  if (id == kDwtPcSample) return "pc_sample";
  if (id >= 8 && id <= 15) return (id & 1) ? "data_address" : "data_pc";
  if (id >= 16 && id <= 23) return (id & 1) ? "data_write" : "data_read";
  return "reserved";
}

}  // namespace

void FormatOcsd(const ItmPacket& p, std::string* out) {
  out->append(PacketTypeName(p.type));
  out->append(": ");
  switch (p.type) {
    case PacketType::kSwit:
      Appendf(out, "{src id: 0x%02x}  ", p.src_id);
      Value(p, out);
      break;
    case PacketType::kDwt:
      Appendf(out, "{desc: 0x%02x} ", p.src_id);
      Dwt(p, out);
      break;
    case PacketType::kTsLocal:
      Value(p, out);
      Appendf(out, " { %s }", TcName(p.src_id));
      break;
    case PacketType::kGts1: {
      static constexpr int kTopBit[] = {6, 13, 20, 25};
      Appendf(out, "{ TS bits [%d:0]", kTopBit[(p.size - 1) & 3]);
      if (p.src_id & 1) out->append(", Clk change");
      if (p.src_id & 2) out->append(", Clk wrap");
      out->append("} ");
      Value(p, out);
      break;
    }
    case PacketType::kGts2:
      out->append(p.size == 5 ? "{ TS bits [63:26]} " : "{ TS bits [47:26]} ");
      Value(p, out);
      break;
    case PacketType::kExtension: {
      const int bits = (p.src_id & 0x1F) + 1;
      if (bits == 3 && !(p.src_id & 0x80))
        Appendf(out, "{stim port page} 0x%02" PRIx64, p.value);
      else
        Appendf(out, "{unknown extension type, %d bits } 0x%0*" PRIx64, bits, bits / 4 + 1, p.value);
      break;
    }
    case PacketType::kIncompleteEot:
    case PacketType::kBadSequence: Appendf(out, "[Init type: %s] ", PacketTypeName(p.err_type)); break;
    default: break;
  }
  Appendf(out, "; '%s'", PacketTypeDescription(p.type));
}

void FormatLine(const ItmPacket& p, std::string* out) {
  Appendf(out, "Idx:%" PRIu64 "; ID:%x; [", p.index, p.trace_id);
  for (size_t i = 0; i < p.raw_size; ++i) Appendf(out, "0x%02x ", p.raw[i]);
  out->append("];\t");
  FormatOcsd(p, out);
}

void FormatJson(const ItmPacket& p, std::string_view source, std::string* out) {
  std::string raw;
  raw.reserve(p.raw_size * 2);
  for (size_t i = 0; i < p.raw_size; ++i) Appendf(&raw, "%02x", p.raw[i]);
  JsonObject o(out);
  o.String("source", source)
      .Unsigned("trace_id", p.trace_id)
      .Unsigned("offset", p.index)
      .String("raw", raw)
      .String("type", PacketTypeName(p.type));
  switch (p.type) {
    case PacketType::kSwit: o.Unsigned("port", p.src_id).Unsigned("size", p.size).Hex("value", p.value); break;
    case PacketType::kDwt:
      o.Unsigned("discriminator", p.src_id).String("dwt", DwtKind(p.src_id)).Unsigned("size", p.size);
      o.Hex("value", p.value);
      if (p.src_id == kDwtException) {
        o.Unsigned("exception", p.value & 0x1FF).Unsigned("function", (p.value >> 12) & 3);
      } else if (p.src_id >= 8 && p.src_id <= 23) {
        o.Unsigned("comparator", (p.src_id >> 1) & 3);
      }
      break;
    case PacketType::kTsLocal: o.Unsigned("tc", p.src_id).Unsigned("delta", p.value).Unsigned("size", p.size); break;
    case PacketType::kGts1:
      o.Hex("value", p.value).Unsigned("size", p.size).Bool("clock_change", p.src_id & 1).Bool("wrap", p.src_id & 2);
      break;
    case PacketType::kGts2: o.Hex("value", p.value).Unsigned("size", p.size); break;
    case PacketType::kExtension:
      o.Bool("hardware", p.src_id & 0x80).Unsigned("bits", (p.src_id & 0x1F) + 1).Hex("value", p.value);
      break;
    case PacketType::kIncompleteEot:
    case PacketType::kBadSequence: o.String("while_parsing", PacketTypeName(p.err_type)); break;
    default: break;
  }
  o.End();
}

}  // namespace mabutrace::itm
