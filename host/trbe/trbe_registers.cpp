// SPDX-License-Identifier: MIT
// trbe_registers.cpp: TRBE register fields and their words (sheet §1.1-§1.6;
// ARM DDI 0487 D24.4).
#include "trbe_registers.h"
#include "json_text.h"

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace mabutrace::trbe {
namespace {

uint64_t Bits(uint64_t v, unsigned hi, unsigned lo) {
  const unsigned w = hi - lo + 1;
  const uint64_t mask = w >= 64 ? ~uint64_t{0} : ((uint64_t{1} << w) - 1);
  return (v >> lo) & mask;
}
bool Bit(uint64_t v, unsigned b) { return (v >> b) & 1; }

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
std::string Bin(uint64_t v, unsigned width) {
  std::string s = "0b";
  for (unsigned i = width; i-- > 0;) s += ((v >> i) & 1) ? '1' : '0';
  return s;
}
std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// RES0 masks (bits that must read 0).
constexpr uint64_t kLimitrRes0 = 0xF80;  // bits[11:7]
constexpr uint64_t kTrbsrRes0 =
    (uint64_t{0xFF} << 56) | (uint64_t{3} << 24) | (uint64_t{1} << 19) | (uint64_t{1} << 16);  // 63:56, 25:24, 19, 16
constexpr uint64_t kBaserRes0 = 0xFFF;                                                         // bits[11:0]
constexpr uint64_t kTrgRes0 = ~uint64_t{0xFFFFFFFF};                                           // bits[63:32]

}  // namespace

std::string_view RegName(Reg reg) {
  switch (reg) {
    case Reg::kTrblimitrEl1: return "TRBLIMITR_EL1";
    case Reg::kTrbptrEl1: return "TRBPTR_EL1";
    case Reg::kTrbbaserEl1: return "TRBBASER_EL1";
    case Reg::kTrbsrEl1: return "TRBSR_EL1";
    case Reg::kTrbmarEl1: return "TRBMAR_EL1";
    case Reg::kTrbtrgEl1: return "TRBTRG_EL1";
    case Reg::kTrbidrEl1: return "TRBIDR_EL1";
  }
  return "?";
}

std::optional<Reg> ParseRegName(std::string_view name) {
  std::string n = Lower(name);
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "_el1") == 0) n.resize(n.size() - 4);
  if (n == "trblimitr") return Reg::kTrblimitrEl1;
  if (n == "trbptr") return Reg::kTrbptrEl1;
  if (n == "trbbaser") return Reg::kTrbbaserEl1;
  if (n == "trbsr") return Reg::kTrbsrEl1;
  if (n == "trbmar") return Reg::kTrbmarEl1;
  if (n == "trbtrg") return Reg::kTrbtrgEl1;
  if (n == "trbidr") return Reg::kTrbidrEl1;
  return std::nullopt;
}

std::string_view FillModeName(FillMode m) {
  switch (m) {
    case FillMode::kFill: return "fill";
    case FillMode::kWrap: return "wrap";
    case FillMode::kCircular: return "circular";
    case FillMode::kReserved: break;
  }
  return "reserved";
}
std::string_view TriggerModeName(TriggerMode m) {
  switch (m) {
    case TriggerMode::kStop: return "stop";
    case TriggerMode::kIrq: return "irq";
    case TriggerMode::kIgnore: return "ignore";
    case TriggerMode::kReserved: break;
  }
  return "reserved";
}
std::optional<FillMode> ParseFillMode(std::string_view s) {
  const std::string n = Lower(s);
  if (n == "fill" || n == "stop") return FillMode::kFill;
  if (n == "wrap") return FillMode::kWrap;
  if (n == "circular" || n == "circular-buffer") return FillMode::kCircular;
  return std::nullopt;
}
std::optional<TriggerMode> ParseTriggerMode(std::string_view s) {
  const std::string n = Lower(s);
  if (n == "stop" || n == "stop-on-trigger") return TriggerMode::kStop;
  if (n == "irq" || n == "irq-on-trigger") return TriggerMode::kIrq;
  if (n == "ignore" || n == "ignore-trigger") return TriggerMode::kIgnore;
  return std::nullopt;
}

// ---- TRBLIMITR_EL1 (sheet §1.2) ------------------------------------------
Limitr Limitr::Decode(uint64_t v) {
  Limitr l;
  l.limit = v & ~uint64_t{0xFFF};
  l.xe = Bit(v, 6);
  l.nvm = Bit(v, 5);
  l.tm = static_cast<TriggerMode>(Bits(v, 4, 3));
  l.fm = static_cast<FillMode>(Bits(v, 2, 1));
  l.e = Bit(v, 0);
  return l;
}
uint64_t Limitr::Encode() const {
  return (limit & ~uint64_t{0xFFF}) | (uint64_t{xe} << 6) | (uint64_t{nvm} << 5) |
         (uint64_t(static_cast<uint8_t>(tm) & 3) << 3) | (uint64_t(static_cast<uint8_t>(fm) & 3) << 1) | uint64_t{e};
}

// ---- TRBSR_EL1 (sheet §1.4) ----------------------------------------------
Status Status::Decode(uint64_t v) {
  Status s;
  s.mss2 = static_cast<uint32_t>(Bits(v, 55, 32));
  s.ec = static_cast<uint8_t>(Bits(v, 31, 26));
  s.dat = Bit(v, 23);
  s.irq = Bit(v, 22);
  s.trg = Bit(v, 21);
  s.wrap = Bit(v, 20);
  s.ea = Bit(v, 18);
  s.s = Bit(v, 17);
  s.mss = static_cast<uint16_t>(Bits(v, 15, 0));
  return s;
}
uint64_t Status::Encode() const {
  return (uint64_t(mss2 & 0xFFFFFF) << 32) | (uint64_t(ec & 0x3F) << 26) | (uint64_t{dat} << 23) |
         (uint64_t{irq} << 22) | (uint64_t{trg} << 21) | (uint64_t{wrap} << 20) | (uint64_t{ea} << 18) |
         (uint64_t{s} << 17) | mss;
}

// ---- TRBIDR_EL1 (sheet §1.5) ---------------------------------------------
Idr Idr::Decode(uint64_t v) {
  Idr i;
  i.max_buff_size = static_cast<uint16_t>(Bits(v, 47, 32));
  i.mpam = static_cast<uint8_t>(Bits(v, 15, 12));
  i.ea = static_cast<uint8_t>(Bits(v, 11, 8));
  i.addr_mode = static_cast<uint8_t>(Bits(v, 7, 6));
  i.f = Bit(v, 5);
  i.p = Bit(v, 4);
  i.align = static_cast<uint8_t>(Bits(v, 3, 0));
  return i;
}
uint64_t Idr::Encode() const {
  return (uint64_t{max_buff_size} << 32) | (uint64_t(mpam & 0xF) << 12) | (uint64_t(ea & 0xF) << 8) |
         (uint64_t(addr_mode & 3) << 6) | (uint64_t{f} << 5) | (uint64_t{p} << 4) | (align & 0xF);
}

// ---- TRBMAR_EL1 (sheet §1.6) ---------------------------------------------
Mar Mar::Decode(uint64_t v) {
  Mar m;
  m.pas = static_cast<uint8_t>(Bits(v, 11, 10));
  m.sh = static_cast<uint8_t>(Bits(v, 9, 8));
  m.attr = static_cast<uint8_t>(Bits(v, 7, 0));
  return m;
}
uint64_t Mar::Encode() const { return (uint64_t(pas & 3) << 10) | (uint64_t(sh & 3) << 8) | attr; }

// ---- Words -----------------------------------------------------------------
std::string EcMeaning(uint8_t ec) {
  switch (ec) {
    case kEcOther: return "other buffer management event (MSS holds BSC)";
    case kEcGpcFault: return "granule protection check fault on buffer write, other than a GPF (FEAT_RME)";
    case kEcImpdef: return "IMPLEMENTATION DEFINED buffer management event";
    case kEcStage1Abort: return "stage 1 Data Abort on write to buffer (MSS holds FSC)";
    case kEcStage2Abort: return "stage 2 Data Abort on write to buffer (MSS holds FSC)";
    default: return "reserved event class " + Hex(ec);
  }
}

std::string BscMeaning(uint8_t bsc) {
  switch (bsc) {
    case kBscNotStopped: return "not stopped, or access not allowed";
    case kBscFilled: return "buffer full";
    case kBscTriggered: return "trigger event";
    case kBscManualStop: return "manual stop (TRBCR.ManStop, FEAT_TRBE_EXT)";
    case kBscSizeTooLarge: return "requested buffer size too large";
    default: return "reserved buffer status code " + Bin(bsc, 6);
  }
}

std::string FscMeaning(uint8_t fsc) {
  const int level = fsc & 3;
  const std::string lvl = " at level " + std::to_string(level);
  switch (fsc >> 2) {
    case 0b0000: return "address size fault" + lvl;
    case 0b0001: return "translation fault" + lvl;
    case 0b0010: return "access flag fault" + lvl;
    case 0b0011: return "permission fault" + lvl;
    case 0b0101: return "synchronous external abort on translation table walk" + lvl;
    case 0b1001: return "granule protection fault on translation table walk" + lvl;
    default: break;
  }
  switch (fsc) {
    case 0b010000: return "synchronous external abort, not on translation table walk";
    case 0b010001: return "asynchronous external abort";
    case 0b100001: return "alignment fault";
    case 0b100010: return "granule protection fault on translation table walk";
    case 0b100011: return "granule protection fault on translation table walk at level -1";
    case 0b101000: return "granule protection fault, not on translation table walk";
    case 0b101001: return "address size fault at level -1";
    case 0b101011: return "translation fault at level -1";
    case 0b101010: return "translation fault at level -2";
    case 0b101100: return "address size fault at level -2";
    case 0b110000: return "TLB conflict abort";
    case 0b110001: return "unsupported atomic hardware update fault";
    default: return "reserved fault status code " + Bin(fsc, 6);
  }
}

std::string StatusSummary(const Status& s) {
  std::vector<std::string> parts;
  if (s.s) {
    std::string why;
    if (s.ec == kEcOther) {
      why = BscMeaning(s.bsc());
      if (s.bsc() == kBscNotStopped) why = "no reason recorded (BSC=0)";
    } else if (s.ec == kEcStage1Abort || s.ec == kEcStage2Abort) {
      why = std::string(s.ec == kEcStage1Abort ? "stage 1" : "stage 2") + " data abort, " + FscMeaning(s.fsc());
    } else {
      why = EcMeaning(s.ec);
    }
    parts.push_back("collection stopped: " + why);
  } else {
    parts.push_back("collecting (not stopped)");
  }
  if (s.trg) parts.push_back("trigger detected");
  if (s.wrap) parts.push_back("wrapped");
  if (s.ea) parts.push_back("external abort");
  if (s.irq) parts.push_back("IRQ pending");
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out;
}

Explanation Explain(Reg reg, uint64_t value) {
  Explanation e;
  e.reg = reg;
  e.value = value;
  auto add = [&](std::string name, uint64_t v, std::string meaning) {
    e.fields.push_back({std::move(name), v, std::move(meaning)});
  };
  switch (reg) {
    case Reg::kTrbsrEl1: {
      const Status s = Status::Decode(value);
      add("IRQ", s.irq, s.irq ? "a management event is recorded; TRBIRQ asserted" : "no management event pending");
      add("TRG", s.trg, s.trg ? "a Detected Trigger has been seen" : "no trigger detected");
      add("WRAP", s.wrap,
          s.wrap ? "the write pointer has wrapped from Limit to Base" : "the write pointer has not wrapped");
      add("EA", s.ea, s.ea ? "an external abort was reported to the trace buffer unit" : "no external abort");
      add("DAT", s.dat, s.dat ? "set (reserved, UNKNOWN with FEAT_TRBE_EXT)" : "not set");
      add("S", s.s, s.s ? "collection stopped: incoming trace is discarded" : "collection not stopped");
      add("EC", s.ec, EcMeaning(s.ec));
      add("MSS", s.mss, "management event specific syndrome " + Hex(s.mss));
      if (s.ec == kEcOther) {
        add("BSC", s.bsc(), BscMeaning(s.bsc()));
        if (s.mss & ~0x3Fu) e.warnings.push_back("MSS[15:6] not zero for EC=0 (RES0)");
      } else if (s.ec == kEcStage1Abort || s.ec == kEcStage2Abort) {
        add("FSC", s.fsc(), FscMeaning(s.fsc()));
      }
      if (s.mss2) add("MSS2", s.mss2, "extra syndrome " + Hex(s.mss2));
      if (s.ec != kEcOther && s.ec != kEcGpcFault && s.ec != kEcImpdef && s.ec != kEcStage1Abort &&
          s.ec != kEcStage2Abort)
        e.warnings.push_back("EC " + Hex(s.ec) + " is reserved");
      if (value & kTrbsrRes0) e.warnings.push_back("RES0 bits set: " + Hex(value & kTrbsrRes0));
      e.summary = StatusSummary(s);
      break;
    }
    case Reg::kTrblimitrEl1: {
      const Limitr l = Limitr::Decode(value);
      add("LIMIT", l.limit >> 12, "limit pointer " + Hex(l.limit) + " (exclusive end of the buffer)");
      add("XE", l.xe, l.xe ? "external-mode enable (FEAT_TRBE_EXT)" : "external mode not enabled");
      add("nVM", l.nvm,
          l.nvm ? "pointers are physical addresses (PA, or IPA under stage 2)"
                : "pointers are virtual addresses of the owning translation regime");
      std::string tm;
      switch (l.tm) {
        case TriggerMode::kStop:
          tm = "stop on trigger: flush, then stop collection and raise a management event";
          break;
        case TriggerMode::kIrq: tm = "IRQ on trigger: flush, raise a management event, keep collecting"; break;
        case TriggerMode::kIgnore: tm = "ignore trigger: keep collecting, no management event"; break;
        case TriggerMode::kReserved:
          tm = "reserved (0b10)";
          e.warnings.push_back("TM=0b10 is reserved");
          break;
      }
      add("TM", static_cast<uint8_t>(l.tm), tm);
      std::string fm;
      switch (l.fm) {
        case FillMode::kFill: fm = "fill: stop collection and raise a management event when the buffer wraps"; break;
        case FillMode::kWrap: fm = "wrap: raise a management event on wrap, keep collecting"; break;
        case FillMode::kCircular: fm = "circular buffer: wrap silently, no management event"; break;
        case FillMode::kReserved:
          fm = "reserved (0b10)";
          e.warnings.push_back("FM=0b10 is reserved");
          break;
      }
      add("FM", static_cast<uint8_t>(l.fm), fm);
      add("E", l.e, l.e ? "trace buffer unit enabled" : "trace buffer unit disabled");
      if (value & kLimitrRes0) e.warnings.push_back("RES0 bits set: " + Hex(value & kLimitrRes0));
      e.summary = std::string(l.e ? "enabled" : "disabled") + ", " + std::string(FillModeName(l.fm)) +
                  " mode, trigger " + std::string(TriggerModeName(l.tm)) + ", limit " + Hex(l.limit) +
                  (l.nvm ? ", physical pointers" : "");
      break;
    }
    case Reg::kTrbidrEl1: {
      const Idr i = Idr::Decode(value);
      add("MaxBuffSize", i.max_buff_size, i.max_buff_size ? "maximum buffer size reported (virtualized)" : "no limit");
      add("MPAM", i.mpam, "external-mode MPAM support " + std::to_string(i.mpam));
      std::string ea;
      switch (i.ea) {
        case 0: ea = "external abort handling not described"; break;
        case 1: ea = "external aborts ignored"; break;
        case 2: ea = "external abort raises an asynchronous SError"; break;
        default: ea = "reserved"; break;
      }
      add("EA", i.ea, ea);
      add("AddrMode", i.addr_mode,
          i.addr_mode == 0   ? "VA and PA modes"
          : i.addr_mode == 1 ? "VA only"
          : i.addr_mode == 2 ? "PA only"
                             : "reserved");
      add("F", i.f,
          i.f ? "hardware access flag and dirty state management follows the owning regime"
              : "no hardware flag management");
      add("P", i.p, i.p ? "programming not allowed at this EL / security state" : "programming allowed");
      add("Align", i.align, "TRBPTR/TRBTRG alignment " + std::to_string(i.alignment_bytes()) + " bytes");
      if (i.align > 0b1011) e.warnings.push_back("Align > 0b1011 (2 KB) is reserved");
      e.summary =
          "alignment " + std::to_string(i.alignment_bytes()) + " bytes" + (i.p ? ", programming not allowed" : "");
      break;
    }
    case Reg::kTrbmarEl1: {
      const Mar m = Mar::Decode(value);
      static const char* kPas[] = {"Secure", "Non-secure", "Root", "Realm"};
      static const char* kSh[] = {"Non-shareable", "reserved", "Outer Shareable", "Inner Shareable"};
      add("PAS", m.pas, std::string(kPas[m.pas]) + " physical address space (external mode)");
      add("SH", m.sh, kSh[m.sh]);
      add("Attr", m.attr, "memory attributes " + Hex(m.attr) + " (MAIR_ELx.Attr<n> encoding)");
      e.summary = std::string(kSh[m.sh]) + ", Attr " + Hex(m.attr);
      break;
    }
    case Reg::kTrbptrEl1:
      add("PTR", value, "address of the next byte to write");
      e.summary = "write pointer " + Hex(value);
      break;
    case Reg::kTrbbaserEl1:
      add("BASE", value >> 12, "base pointer " + Hex(value & ~kBaserRes0) + " (first byte of the buffer)");
      if (value & kBaserRes0) e.warnings.push_back("RES0 bits[11:0] set");
      e.summary = "base " + Hex(value & ~kBaserRes0);
      break;
    case Reg::kTrbtrgEl1:
      add("TRG", value & 0xFFFFFFFF, "bytes to write after a Detected Trigger before the Trigger Event");
      if (value & kTrgRes0) e.warnings.push_back("RES0 bits[63:32] set");
      e.summary = "trigger counter " + std::to_string(value & 0xFFFFFFFF);
      break;
  }
  return e;
}

std::string ExplanationToText(const Explanation& e) {
  std::string out = std::string(RegName(e.reg)) + " = " + Hex(e.value) + "\n";
  for (const auto& f : e.fields) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %-12s %-10s ", f.name.c_str(), Hex(f.value).c_str());
    out += buf + f.meaning + "\n";
  }
  out += "summary: " + e.summary + "\n";
  for (const auto& w : e.warnings) out += "warning: " + w + "\n";
  return out;
}

std::string ExplanationToJson(const Explanation& e) {
  nlohmann::ordered_json j;
  j["register"] = RegName(e.reg);
  j["value"] = Hex(e.value);
  for (const auto& f : e.fields) j[f.name] = f.value;
  j["summary"] = e.summary;
  j["warnings"] = e.warnings;
  return exporter::JsonText(j);
}

}  // namespace mabutrace::trbe
