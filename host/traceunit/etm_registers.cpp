// SPDX-License-Identifier: MIT
// etm_registers.cpp: ETE register encodings (sheet §8.1) and fields (§8.2;
// ARM DDI 0487 D24.4).
#include "etm_registers.h"
#include "json_text.h"

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace mabutrace::traceunit {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}
std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
uint64_t Bits(uint64_t v, unsigned hi, unsigned lo) {
  const unsigned w = hi - lo + 1;
  const uint64_t mask = w >= 64 ? ~uint64_t{0} : ((uint64_t{1} << w) - 1);
  return (v >> lo) & mask;
}

struct Fixed {
  const char* name;
  uint8_t crn, crm, op2;
  int mmio;  // -1: none
};
// Sheet §8.1 (op0=0b10, op1=0b001).
constexpr Fixed kFixed[] = {
    {"TRCPRGCTLR", 0, 1, 0, 0x004},    {"TRCSTATR", 0, 3, 0, 0x00C},       {"TRCCONFIGR", 0, 4, 0, 0x010},
    {"TRCAUXCTLR", 0, 6, 0, 0x018},    {"TRCEVENTCTL0R", 0, 8, 0, 0x020},  {"TRCEVENTCTL1R", 0, 9, 0, 0x024},
    {"TRCRSR", 0, 10, 0, -1},          {"TRCSTALLCTLR", 0, 11, 0, 0x02C},  {"TRCTSCTLR", 0, 12, 0, 0x030},
    {"TRCSYNCPR", 0, 13, 0, 0x034},    {"TRCCCCTLR", 0, 14, 0, 0x038},     {"TRCBBCTLR", 0, 15, 0, 0x03C},
    {"TRCTRACEIDR", 0, 0, 1, 0x040},   {"TRCQCTLR", 0, 1, 1, 0x044},       {"TRCVICTLR", 0, 0, 2, 0x080},
    {"TRCVIIECTLR", 0, 1, 2, 0x084},   {"TRCVISSCTLR", 0, 2, 2, 0x088},    {"TRCVIPCSSCTLR", 0, 3, 2, 0x08C},
    {"TRCSEQRSTEVR", 0, 6, 4, 0x118},  {"TRCSEQSTR", 0, 7, 4, 0x11C},      {"TRCIMSPEC0", 0, 0, 7, 0x1C0},
    {"TRCOSLSR", 1, 1, 4, 0x304},      {"TRCCIDCCTLR0", 3, 0, 2, 0x680},   {"TRCCIDCCTLR1", 3, 1, 2, 0x684},
    {"TRCVMIDCCTLR0", 3, 2, 2, 0x688}, {"TRCVMIDCCTLR1", 3, 3, 2, 0x68C},  {"TRCCLAIMSET", 7, 8, 6, 0xFA0},
    {"TRCCLAIMCLR", 7, 9, 6, 0xFA4},   {"TRCAUTHSTATUS", 7, 14, 6, 0xFB8}, {"TRCDEVARCH", 7, 15, 6, 0xFBC},
    {"TRCDEVID", 7, 2, 7, 0xFC8},
};

// Parses "<prefix><n>" with lo <= n <= hi.
std::optional<unsigned> Indexed(const std::string& name, std::string_view prefix, unsigned lo, unsigned hi) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  unsigned n = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::nullopt;
    n = n * 10 + static_cast<unsigned>(name[i] - '0');
    if (n > 99) return std::nullopt;
  }
  if (n < lo || n > hi) return std::nullopt;
  if (name.size() - prefix.size() > 1 && name[prefix.size()] == '0') return std::nullopt;
  return n;
}

// Builder for a Decoded.
class D {
 public:
  explicit D(Decoded* d) : d_(d) {}
  uint64_t F(const std::string& name, unsigned hi, unsigned lo, const std::string& meaning) {
    const uint64_t v = Bits(d_->value, hi, lo);
    d_->fields.push_back({name, hi, lo, v, meaning});
    return v;
  }
  // Single bit with words for 0 and 1.
  bool B(const std::string& name, unsigned bit, const std::string& if1, const std::string& if0) {
    const bool v = Bits(d_->value, bit, bit);
    d_->fields.push_back({name, bit, bit, v, v ? if1 : if0});
    return v;
  }
  void Res0(uint64_t mask) {
    if (d_->value & mask) d_->warnings.push_back("RES0 bits set: " + Hex(d_->value & mask));
  }
  void Warn(std::string w) { d_->warnings.push_back(std::move(w)); }
  void Summary(std::string s) { d_->summary = std::move(s); }

 private:
  Decoded* d_;
};

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string ResourceWords(uint64_t sel, bool pair) {
  if (pair)
    return "resource selector pair " + std::to_string(sel & 0xF) + " (" + std::to_string(2 * (sel & 0xF)) + "," +
           std::to_string(2 * (sel & 0xF) + 1) + ")";
  if (sel == 0) return "resource 0 (always FALSE)";
  if (sel == 1) return "resource 1 (always TRUE)";
  return "resource selector " + std::to_string(sel);
}

// EXLEVEL bits laid out as in TRCVICTLR, starting at `base` (16 for
// TRCVICTLR, 8 for TRCACATR). Returns the levels that are traced/compared.
std::vector<std::string> ExlevelFields(D& d, unsigned base, bool victlr) {
  const char* verb = victlr ? "trace" : "compare";
  static const char* kS[] = {"EXLEVEL_S_EL0", "EXLEVEL_S_EL1", "EXLEVEL_S_EL2", "EXLEVEL_S_EL3"};
  static const char* kNs[] = {"EXLEVEL_NS_EL0", "EXLEVEL_NS_EL1", "EXLEVEL_NS_EL2"};
  static const char* kRl[] = {"EXLEVEL_RL_EL0", "EXLEVEL_RL_EL1", "EXLEVEL_RL_EL2"};
  std::vector<std::string> on;
  bool ns[3];
  for (unsigned i = 0; i < 4; ++i) {
    const std::string lvl = i == 3 ? "EL3" : "Secure EL" + std::to_string(i);
    if (!d.B(kS[i], base + i, std::string("do not ") + verb + " at " + lvl, std::string(verb) + " at " + lvl))
      on.push_back(i == 3 ? "EL3" : "S-EL" + std::to_string(i));
  }
  for (unsigned i = 0; i < 3; ++i) {
    const std::string lvl = "Non-secure EL" + std::to_string(i);
    ns[i] = d.B(kNs[i], base + 4 + i, std::string("do not ") + verb + " at " + lvl, std::string(verb) + " at " + lvl);
    if (!ns[i]) on.push_back("NS-EL" + std::to_string(i));
  }
  for (unsigned i = 0; i < 3; ++i) {
    const bool rl = d.B(kRl[i], base + 8 + i, "Realm EL" + std::to_string(i) + " filter is the inverse of the NS one",
                        "Realm EL" + std::to_string(i) + " follows the Non-secure EL" + std::to_string(i) + " setting");
    if (!(ns[i] ^ rl)) on.push_back("RL-EL" + std::to_string(i));
  }
  return on;
}

void DecodeFields(const std::string& n, D& d, uint64_t v) {
  if (n == "TRCCONFIGR") {
    if (!(v & 1)) d.Warn("bit 0 is RES1 and must be written as 1");
    d.Res0(0x6 | 0x20 | 0x700 | 0x30000 | ~uint64_t{0x7FFFF});
    std::vector<std::string> on;
    if (d.B("BB", 3, "branch broadcasting enabled", "branch broadcasting disabled")) on.push_back("branch broadcast");
    if (d.B("CCI", 4, "cycle counting in instruction trace enabled (program TRCCCCTLR)", "no cycle counting"))
      on.push_back("cycle counting");
    if (d.B("CID", 6, "Context ID tracing enabled", "no Context ID tracing")) on.push_back("context ID");
    if (d.B("VMID", 7, "VMID tracing enabled", "no VMID tracing")) on.push_back("VMID");
    if (d.B("TS", 11, "global timestamp tracing enabled", "no global timestamps")) on.push_back("timestamps");
    if (d.B("RS", 12, "return stack enabled", "return stack disabled")) on.push_back("return stack");
    const uint64_t qe = d.F("QE", 14, 13, "");
    static const char* kQe[] = {"Q elements disabled", "Q elements with instruction counts only", "reserved",
                                "Q elements with and without instruction counts"};
    d.Summary("");
    // fill the QE meaning now that we know it
    if (qe == 2) d.Warn("QE=0b10 is reserved");
    if (qe && (v & 8)) d.Warn("QE must be 0 when BB=1");
    d.B("VMIDOPT", 15, "VMID from CONTEXTIDR_EL2", "VMID from VTTBR_EL2.VMID");
    if (d.B("ITO", 18, "instrumentation trace override", "no instrumentation trace override")) on.push_back("ITO");
    if (qe) on.push_back(kQe[qe]);
    d.Summary("instruction trace" + (on.empty() ? std::string(" with no options") : " with " + Join(on, ", ")));
    return;
  }
  if (n == "TRCVICTLR") {
    const uint64_t sel = d.F("EVENT_SEL", 4, 0, "");
    const bool pair = d.B("EVENT_TYPE", 7, "selector pair", "single resource selector");
    const bool ss =
        d.B("SSSTATUS", 9, "start/stop logic in the started state", "start/stop logic in the stopped state");
    d.B("TRCRESET", 10, "PE resets are always traced", "PE resets traced only when ViewInst is active");
    d.B("TRCERR", 11, "System Error exceptions are always traced", "System Error exceptions traced normally");
    const auto on = ExlevelFields(d, 16, true);
    d.Res0(0x160 | 0x1000 | 0xF000 | 0x800000 | ~uint64_t{0x7FFFFFF});
    std::string s =
        "ViewInst gated by " + ResourceWords(sel, pair) + (ss ? ", started" : ", stopped (waits for a start point)");
    s += on.empty() ? "; traces no exception level" : "; traces " + Join(on, ", ");
    if (!pair && sel == 0) d.Warn("EVENT_SEL=0 selects the always-FALSE resource: nothing is traced");
    d.Summary(s);
    return;
  }
  if (n == "TRCVIIECTLR") {
    const uint64_t inc = d.F("INCLUDE", 7, 0, "address range comparators whose range is included");
    const uint64_t exc = d.F("EXCLUDE", 23, 16, "address range comparators whose range is excluded");
    d.Res0(~uint64_t{0x00FF00FF});
    std::vector<std::string> parts;
    for (unsigned m = 0; m < 8; ++m) {
      if (inc >> m & 1)
        parts.push_back("include ARC" + std::to_string(m) + " (TRCACVR" + std::to_string(2 * m) + "..TRCACVR" +
                        std::to_string(2 * m + 1) + ")");
      if (exc >> m & 1)
        parts.push_back("exclude ARC" + std::to_string(m) + " (TRCACVR" + std::to_string(2 * m) + "..TRCACVR" +
                        std::to_string(2 * m + 1) + ")");
    }
    d.Summary(parts.empty() ? "no address range filtering (everything included)"
                            : Join(parts, "; ") + (inc ? "" : "; everything else included"));
    return;
  }
  if (n == "TRCVISSCTLR" || n == "TRCVIPCSSCTLR") {
    const bool pc = n == "TRCVIPCSSCTLR";
    const uint64_t start =
        d.F("START", pc ? 7 : 15, 0,
            pc ? "PE comparator inputs that start tracing" : "single address comparators that start tracing");
    const uint64_t stop =
        d.F("STOP", pc ? 23 : 31, 16,
            pc ? "PE comparator inputs that stop tracing" : "single address comparators that stop tracing");
    d.Res0(pc ? ~uint64_t{0x00FF00FF} : ~uint64_t{0xFFFFFFFF});
    d.Summary(start || stop ? "start mask " + Hex(start) + ", stop mask " + Hex(stop) : "no start/stop points");
    return;
  }
  if (n.rfind("TRCACATR", 0) == 0) {
    const uint64_t ct = d.F("CONTEXTTYPE", 3, 2, "");
    d.F("CONTEXT", 6, 4, "Context ID / VMID comparator used with CONTEXTTYPE");
    const auto on = ExlevelFields(d, 8, false);
    d.Res0(0x3 | 0x80 | 0x8000 | ~uint64_t{0x7FFFF});
    static const char* kCt[] = {"no context comparison", "also requires the Context ID comparator",
                                "also requires the VMID comparator", "also requires Context ID and VMID comparators"};
    d.Summary(std::string("instruction address comparator, ") + kCt[ct] + "; compares at " +
              (on.empty() ? std::string("no level") : Join(on, ", ")));
    return;
  }
  if (n == "TRCTSCTLR") {
    const uint64_t sel = d.F("EVENT_SEL", 4, 0, "");
    const bool pair = d.B("EVENT_TYPE", 7, "selector pair", "single resource selector");
    d.Res0(~uint64_t{0x9F});
    d.Summary(sel == 0 && !pair ? "no timestamp-request event (timestamps still come with sync points)"
                                : "timestamp requested on " + ResourceWords(sel, pair));
    return;
  }
  if (n == "TRCSYNCPR") {
    const uint64_t p = d.F("PERIOD", 4, 0, "");
    d.Res0(~uint64_t{0x1F});
    if (p == 0) {
      d.Summary("periodic trace synchronization disabled");
    } else if (p < 8 || p > 20) {
      d.Warn("PERIOD must be 0 or 8..20");
      d.Summary("reserved period " + std::to_string(p));
    } else {
      d.Summary("synchronization every 2^" + std::to_string(p) + " = " + std::to_string(uint64_t{1} << p) + " bytes");
    }
    return;
  }
  if (n == "TRCCCCTLR") {
    const uint64_t t = d.F("THRESHOLD", 11, 0, "cycle count threshold");
    d.Res0(~uint64_t{0xFFF});
    d.Summary("cycle counts reported at least every " + std::to_string(t) + " cycles");
    return;
  }
  if (n == "TRCBBCTLR" || n == "TRCQCTLR") {
    const uint64_t r = d.F("RANGE", 7, 0, "address range comparators selected");
    const bool inc =
        d.B("MODE", 8, "include: only in the selected ranges", "exclude: everywhere except the selected ranges");
    d.Res0(~uint64_t{0x1FF});
    const char* what = n == "TRCBBCTLR" ? "branch broadcasting" : "Q elements";
    d.Summary(std::string(what) + (inc ? " only inside ranges " + Hex(r)
                                   : r ? " everywhere except ranges " + Hex(r)
                                       : " everywhere"));
    return;
  }
  if (n == "TRCTRACEIDR") {
    const uint64_t id = d.F("TRACEID", 6, 0, "trace ID (ignored by TRBE)");
    d.Res0(~uint64_t{0x7F});
    if (id == 0 || id >= 0x70) d.Warn("trace ID 0x00 and 0x70-0x7F are reserved on ATB");
    d.Summary("trace ID " + Hex(id));
    return;
  }
  if (n == "TRCPRGCTLR") {
    const bool en = d.B("EN", 0, "trace unit enabled", "trace unit disabled");
    d.Res0(~uint64_t{1});
    d.Summary(en ? "enabled" : "disabled (programming allowed once TRCSTATR.IDLE=1)");
    return;
  }
  if (n == "TRCSTATR") {
    const bool idle = d.B("IDLE", 0, "idle", "not idle");
    const bool pm = d.B("PMSTABLE", 1, "programmers' model stable", "programmers' model not stable");
    d.Res0(~uint64_t{3});
    d.Summary(std::string(idle ? "idle" : "running") + (pm ? ", registers stable" : ""));
    return;
  }
  if (n == "TRCEVENTCTL0R") {
    std::vector<std::string> parts;
    for (unsigned e = 0; e < 4; ++e) {
      const uint64_t sel = d.F("EVENT" + std::to_string(e) + "_SEL", 8 * e + 4, 8 * e, "");
      const bool pair = d.B("EVENT" + std::to_string(e) + "_TYPE", 8 * e + 7, "selector pair", "single selector");
      if (sel || pair) parts.push_back("ETEEvent " + std::to_string(e) + " on " + ResourceWords(sel, pair));
    }
    d.Res0(0x60606060ull | ~uint64_t{0xFFFFFFFF});
    d.Summary(parts.empty() ? "no events (ETEEvent 0 is the TRBE trigger)" : Join(parts, "; "));
    return;
  }
  if (n == "TRCEVENTCTL1R") {
    const uint64_t ie = d.F("INSTEN", 3, 0, "Event elements emitted for ETEEvent n");
    d.B("ATB", 11, "ATB trigger on ETEEvent 0", "no ATB trigger");
    d.B("LPOVERRIDE", 12, "low-power override", "no low-power override");
    d.B("OE", 13, "ordering elements (OE)", "no OE");
    d.Res0(0x7F0 | ~uint64_t{0x3FFF});
    d.Summary(ie ? "Event elements for events " + Hex(ie) : "no Event elements in the trace");
    return;
  }
  if (n == "TRCSTALLCTLR") {
    d.F("LEVEL", 3, 0, "stall level");
    const bool is = d.B("ISTALL", 8, "PE may stall to avoid instruction trace overflow", "no stalling");
    d.B("NOOVERFLOW", 13, "overflow prevention", "overflow allowed");
    d.Res0(~uint64_t{0x210F});
    d.Summary(is ? "stalling enabled" : "no stalling");
    return;
  }
  if (n.rfind("TRCRSCTLR", 0) == 0) {
    const uint64_t sel = d.F("SELECT", 15, 0, "");
    const uint64_t g = d.F("GROUP", 19, 16, "");
    d.B("INV", 20, "inverted", "not inverted");
    d.B("PAIRINV", 21, "pair result inverted", "pair not inverted");
    d.Res0(~uint64_t{0x3FFFFF});
    static const char* kG[] = {"external inputs",
                               "PE comparator inputs",
                               "counters/sequencer",
                               "single-shot comparators",
                               "single address comparators",
                               "address range comparators",
                               "Context ID comparators",
                               "VMID comparators"};
    d.Summary(std::string("selects ") + (g < 8 ? kG[g] : "reserved group") + " " + Hex(sel));
    return;
  }
  if (n == "TRCIDR0") {
    d.B("TRCBB", 5, "branch broadcast implemented", "no branch broadcast");
    d.B("TRCCCI", 7, "cycle counting implemented", "no cycle counting");
    d.B("RETSTACK", 9, "return stack implemented", "no return stack");
    const uint64_t ne = d.F("NUMEVENT", 11, 10, "");
    d.B("QFILT", 14, "Q filtering implemented", "no Q filtering");
    d.F("QSUPP", 16, 15, "Q element support");
    d.B("ITE", 22, "instrumentation trace implemented", "no instrumentation trace");
    d.B("TSMARK", 23, "timestamp markers implemented", "no timestamp markers");
    const uint64_t ts = d.F("TSSIZE", 28, 24, "");
    d.B("COMMOPT", 29, "commit option 1", "commit option 0");
    d.B("COMMTRANS", 30, "Transaction Start is not a P0 element", "Transaction Start is a P0 element");
    d.Summary(std::to_string(ne + 1) + " events, timestamp " +
              (ts == 8   ? "64-bit"
               : ts == 6 ? "48-bit"
               : ts      ? "size " + Hex(ts)
                         : "none"));
    return;
  }
  if (n == "TRCIDR2") {
    d.F("IASIZE", 4, 0, "instruction address size");
    d.F("CIDSIZE", 9, 5, "Context ID size");
    d.F("VMIDSIZE", 14, 10, "VMID size");
    d.F("CCSIZE", 28, 25, "cycle counter size (12 + n bits)");
    d.F("VMIDOPT", 30, 29, "VMID options");
    d.B("WFXMODE", 31, "WFI/WFE are P0 elements", "WFI/WFE are not P0 elements");
    d.Summary("trace unit sizes");
    return;
  }
  if (n == "TRFCR_EL1" || n == "TRFCR_EL2") {
    const bool el2 = n == "TRFCR_EL2";
    const bool e0 = d.B(el2 ? "E0HTRE" : "E0TRE", 0, "EL0 trace allowed", "EL0 trace prohibited");
    const bool e1 = d.B(el2 ? "E2TRE" : "E1TRE", 1, el2 ? "EL2 trace allowed" : "EL1 trace allowed",
                        el2 ? "EL2 trace prohibited" : "EL1 trace prohibited");
    d.B("CX", 3, el2 ? "CONTEXTIDR_EL2 and VMID may be traced" : "CX set", "CX clear");
    const char* kTs[] = {el2 ? "timestamp source chosen by TRFCR_EL1" : "reserved (virtual with FEAT_NV2p1)",
                         "virtual timestamp (physical count - CNTVOFF_EL2)", "guest physical timestamp",
                         "physical timestamp"};
    const uint64_t ts = d.F("TS", 6, 5, kTs[Bits(v, 6, 5)]);
    d.F("EE", 9, 8, "profiling exception control (FEAT_TRBE_EXC)");
    d.B("KE", 10, "KE set", "KE clear");
    d.B("DnVM", 11, "force virtual TRBE pointers", "DnVM clear");
    d.Res0(0x4 | 0x80 | ~uint64_t{0xFFF});
    d.Summary(std::string(el2 ? "EL0 (host) " : "EL0 ") + (e0 ? "allowed" : "prohibited") + ", " +
              (el2 ? "EL2 " : "EL1 ") + (e1 ? "allowed" : "prohibited") + "; " + kTs[ts]);
    return;
  }
  if (n.rfind("TRCACVR", 0) == 0) {
    d.F("ADDRESS", 63, 0, "instruction address");
    d.Summary("address " + Hex(v));
    return;
  }
  if (n.rfind("TRCCIDCVR", 0) == 0 || n.rfind("TRCVMIDCVR", 0) == 0) {
    d.F("VALUE", 63, 0, "comparator value");
    d.Summary("value " + Hex(v));
    return;
  }
  d.F("VALUE", 63, 0, "raw value (no field decoder for this register)");
  d.Summary("value " + Hex(v));
}

// Fill in words for multi-bit fields whose meaning was left blank.
void FillBlankMeanings(Decoded* d) {
  for (auto& f : d->fields) {
    if (!f.meaning.empty()) continue;
    if (f.name == "QE") {
      static const char* kQe[] = {"Q elements disabled", "Q elements with instruction counts only", "reserved",
                                  "Q elements with and without instruction counts"};
      f.meaning = kQe[f.value & 3];
    } else if (f.name == "EVENT_SEL" || f.name.find("_SEL") != std::string::npos) {
      f.meaning = ResourceWords(f.value, false);
    } else if (f.name == "PERIOD") {
      f.meaning = f.value ? "2^" + std::to_string(f.value) + " bytes between synchronizations" : "disabled";
    } else if (f.name == "CONTEXTTYPE") {
      static const char* kCt[] = {"no context comparison", "Context ID comparator", "VMID comparator", "both"};
      f.meaning = kCt[f.value & 3];
    } else if (f.name == "TS") {
      f.meaning = "timestamp source " + std::to_string(f.value);
    } else if (f.name == "NUMEVENT") {
      f.meaning = std::to_string(f.value + 1) + " events";
    } else if (f.name == "TSSIZE") {
      f.meaning = f.value == 8   ? "64-bit timestamps"
                  : f.value == 6 ? "48-bit timestamps"
                  : f.value      ? "reserved"
                                 : "no timestamps";
    } else if (f.name == "SELECT") {
      f.meaning = "selected resources " + Hex(f.value);
    } else if (f.name == "GROUP") {
      f.meaning = "resource group " + std::to_string(f.value);
    } else {
      f.meaning = Hex(f.value);
    }
  }
}

}  // namespace

std::string SysRegEncoding::AsmName() const {
  char buf[40];
  std::snprintf(buf, sizeof buf, "s%u_%u_c%u_c%u_%u", op0, op1, crn, crm, op2);
  return buf;
}

std::optional<RegisterInfo> FindRegister(std::string_view name_in) {
  const std::string name = Upper(name_in);
  for (const auto& f : kFixed)
    if (name == f.name) {
      RegisterInfo r{f.name, {2, 1, f.crn, f.crm, f.op2}, std::nullopt, 32};
      if (f.mmio >= 0) r.mmio_offset = static_cast<uint32_t>(f.mmio);
      return r;
    }
  if (name == "TRFCR_EL1") return RegisterInfo{name, {3, 0, 1, 2, 1}, std::nullopt, 64};
  if (name == "TRFCR_EL2") return RegisterInfo{name, {3, 4, 1, 2, 1}, std::nullopt, 64};
  // OS Lock Access Register (ARM DDI 0487 D24: op0=2, op1=0, CRn=1, CRm=0, op2=4).
  if (name == "OSLAR_EL1") return RegisterInfo{name, {2, 0, 1, 0, 4}, std::nullopt, 64};
  if (auto i = Indexed(name, "TRCIDR", 0, 13)) {
    if (*i <= 7) return RegisterInfo{name, {2, 1, 0, static_cast<uint8_t>(8 + *i), 7}, 0x1E0 + 4 * *i, 32};
    return RegisterInfo{name, {2, 1, 0, static_cast<uint8_t>(*i - 8), 6}, 0x180 + 4 * (*i - 8), 32};
  }
  if (auto n = Indexed(name, "TRCACVR", 0, 15))
    return RegisterInfo{
        name, {2, 1, 2, static_cast<uint8_t>((*n & 7) << 1), static_cast<uint8_t>(*n >> 3)}, 0x400 + 8 * *n, 64};
  if (auto n = Indexed(name, "TRCACATR", 0, 15))
    return RegisterInfo{
        name, {2, 1, 2, static_cast<uint8_t>((*n & 7) << 1), static_cast<uint8_t>(2 | (*n >> 3))}, 0x480 + 8 * *n, 64};
  if (auto m = Indexed(name, "TRCCIDCVR", 0, 7))
    return RegisterInfo{name, {2, 1, 3, static_cast<uint8_t>(*m << 1), 0}, 0x600 + 8 * *m, 64};
  if (auto m = Indexed(name, "TRCVMIDCVR", 0, 7))
    return RegisterInfo{name, {2, 1, 3, static_cast<uint8_t>(*m << 1), 1}, 0x640 + 8 * *m, 64};
  if (auto n = Indexed(name, "TRCRSCTLR", 2, 31))
    return RegisterInfo{
        name, {2, 1, 1, static_cast<uint8_t>(*n & 15), static_cast<uint8_t>(*n >> 4)}, 0x200 + 4 * *n, 32};
  if (auto m = Indexed(name, "TRCSEQEVR", 0, 2))
    return RegisterInfo{name, {2, 1, 0, static_cast<uint8_t>(*m), 4}, 0x100 + 4 * *m, 32};
  if (auto m = Indexed(name, "TRCEXTINSELR", 0, 3))
    return RegisterInfo{name, {2, 1, 0, static_cast<uint8_t>(8 + *m), 4}, 0x120 + 4 * *m, 32};
  if (auto m = Indexed(name, "TRCCNTRLDVR", 0, 3))
    return RegisterInfo{name, {2, 1, 0, static_cast<uint8_t>(*m), 5}, 0x140 + 4 * *m, 32};
  if (auto m = Indexed(name, "TRCCNTCTLR", 0, 3))
    return RegisterInfo{name, {2, 1, 0, static_cast<uint8_t>(4 + *m), 5}, 0x150 + 4 * *m, 32};
  if (auto m = Indexed(name, "TRCCNTVR", 0, 3))
    return RegisterInfo{name, {2, 1, 0, static_cast<uint8_t>(8 + *m), 5}, 0x160 + 4 * *m, 32};
  if (auto m = Indexed(name, "TRCSSCCR", 0, 7))
    return RegisterInfo{name, {2, 1, 1, static_cast<uint8_t>(*m), 2}, 0x280 + 4 * *m, 32};
  if (auto m = Indexed(name, "TRCSSCSR", 0, 7))
    return RegisterInfo{name, {2, 1, 1, static_cast<uint8_t>(8 + *m), 2}, 0x2A0 + 4 * *m, 32};
  return std::nullopt;
}

std::vector<std::string> DecodableRegisters() {
  return {"TRCCONFIGR",  "TRCVICTLR",  "TRCVIIECTLR", "TRCVISSCTLR",   "TRCVIPCSSCTLR", "TRCACATRn",
          "TRCACVRn",    "TRCTSCTLR",  "TRCSYNCPR",   "TRCCCCTLR",     "TRCBBCTLR",     "TRCQCTLR",
          "TRCTRACEIDR", "TRCPRGCTLR", "TRCSTATR",    "TRCEVENTCTL0R", "TRCEVENTCTL1R", "TRCSTALLCTLR",
          "TRCRSCTLRn",  "TRCIDR0",    "TRCIDR2",     "TRFCR_EL1",     "TRFCR_EL2"};
}

bool DecodeRegister(std::string_view name_in, uint64_t value, Decoded* out, std::string* error) {
  *out = {};
  const auto info = FindRegister(name_in);
  if (!info) {
    *error = "unknown register '" + std::string(name_in) + "'; registers decoded field by field:";
    for (const auto& r : DecodableRegisters()) *error += " " + r;
    return false;
  }
  out->reg = info->name;
  out->value = value;
  if (info->width_bits == 32 && (value >> 32)) out->warnings.push_back("value wider than the 32-bit register");
  D d(out);
  DecodeFields(info->name, d, value);
  FillBlankMeanings(out);
  return true;
}

std::string FieldToText(const FieldValue& f, const char* indent, int value_width) {
  char bits[32], line[160];
  if (f.hi == f.lo)
    std::snprintf(bits, sizeof bits, "[%u]", f.lo);
  else
    std::snprintf(bits, sizeof bits, "[%u:%u]", f.hi, f.lo);
  std::snprintf(line, sizeof line, "%s%-8s %-16s %-*s ", indent, bits, f.name.c_str(), value_width,
                Hex(f.value).c_str());
  return line + f.meaning + "\n";
}

std::string DecodedToText(const Decoded& d) {
  std::string s = d.reg + " = " + Hex(d.value) + "\n";
  for (const auto& f : d.fields) {
    s += FieldToText(f, "  ", 10);
  }
  s += "summary: " + d.summary + "\n";
  for (const auto& w : d.warnings) s += "warning: " + w + "\n";
  return s;
}

std::string DecodedToJson(const Decoded& d) {
  nlohmann::ordered_json j;
  j["register"] = d.reg;
  j["value"] = Hex(d.value);
  for (const auto& f : d.fields) j[f.name] = f.value;
  j["summary"] = d.summary;
  j["warnings"] = d.warnings;
  return exporter::JsonText(j);
}

std::string_view ExceptionLevelName(ExceptionLevel el) {
  static const char* kNames[] = {"s_el0",  "s_el1",  "s_el2",  "el3",    "ns_el0",
                                 "ns_el1", "ns_el2", "rl_el0", "rl_el1", "rl_el2"};
  return kNames[static_cast<int>(el)];
}

unsigned VictlrExlevelBit(ExceptionLevel el) {
  const int i = static_cast<int>(el);
  if (i <= 3) return 16 + i;        // S_EL0..S_EL2, EL3
  if (i <= 6) return 20 + (i - 4);  // NS_EL0..NS_EL2
  return 24 + (i - 7);              // RL_EL0..RL_EL2
}

}  // namespace mabutrace::traceunit
