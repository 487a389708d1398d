// SPDX-License-Identifier: MIT
// etm_config.cpp: declarative config -> ETE register values and sequences
// (sheet §8.3-§8.5; ARM DDI 0487 D24.4, K10.5.7, K10.5.10).
#include "etm_config.h"
#include "json_text.h"

#include <toml++/toml.h>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace mabutrace::traceunit {
namespace {

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
std::string Hex8(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v));
  return buf;
}
std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

RegisterValue Make(const std::string& name, uint64_t value, std::string why) {
  RegisterValue r;
  r.info = *FindRegister(name);
  r.value = value;
  r.why = std::move(why);
  std::string err;
  DecodeRegister(name, value, &r.decoded, &err);
  return r;
}

std::string ElList(const EtmConfig& c) {
  std::string s;
  for (int i = 0; i < kNumExceptionLevels; ++i)
    if (c.trace_el[i]) s += (s.empty() ? "" : ", ") + std::string(ExceptionLevelName(static_cast<ExceptionLevel>(i)));
  return s.empty() ? "none" : s;
}

}  // namespace

EtmConfig::EtmConfig() {
  trace_el[static_cast<int>(ExceptionLevel::kNsEl0)] = true;
  trace_el[static_cast<int>(ExceptionLevel::kNsEl1)] = true;
}

bool SetExceptionLevels(const std::vector<std::string>& names, EtmConfig* cfg, std::string* error) {
  cfg->trace_el.fill(false);
  cfg->realm_explicit = false;
  for (const auto& raw : names) {
    const std::string n = Lower(raw);
    if (n == "all") {
      cfg->trace_el.fill(true);
      continue;
    }
    std::string key = n;
    if (n == "el0" || n == "el1" || n == "el2") key = "ns_" + n;
    if (n == "s_el3") key = "el3";
    bool found = false;
    for (int i = 0; i < kNumExceptionLevels; ++i)
      if (key == ExceptionLevelName(static_cast<ExceptionLevel>(i))) {
        cfg->trace_el[i] = true;
        if (i >= static_cast<int>(ExceptionLevel::kRlEl0)) cfg->realm_explicit = true;
        found = true;
      }
    if (!found) {
      *error = "unknown exception level '" + raw +
               "' (use el0..el2 (Non-secure), el3, s_el0..s_el2, ns_el0..ns_el2, rl_el0..rl_el2, all)";
      return false;
    }
  }
  return true;
}

bool ParseToml(std::string_view text, std::string_view source_name, EtmConfig* cfg, std::string* error) {
  toml::table tbl;
  try {
    tbl = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    *error =
        std::string(source_name) + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description());
    return false;
  }
  auto where = [&](const toml::node& n) {
    return std::string(source_name) + ":" + std::to_string(n.source().begin.line) + ": ";
  };
  auto get_bool = [&](const toml::node& n, const std::string& key, bool* out) {
    if (!n.is_boolean()) {
      *error = where(n) + key + " must be true or false";
      return false;
    }
    *out = *n.value<bool>();
    return true;
  };
  auto get_uint = [&](const toml::node& n, const std::string& key, uint64_t max, uint64_t* out) {
    if (!n.is_integer() || *n.value<int64_t>() < 0 || static_cast<uint64_t>(*n.value<int64_t>()) > max) {
      *error = where(n) + key + " must be an integer in 0.." + std::to_string(max);
      return false;
    }
    *out = static_cast<uint64_t>(*n.value<int64_t>());
    return true;
  };
  for (auto&& [k, node] : tbl) {
    const std::string key(k.str());
    uint64_t u = 0;
    if (key == "exception_levels") {
      const auto* arr = node.as_array();
      if (!arr) {
        *error = where(node) + "exception_levels must be an array of strings";
        return false;
      }
      std::vector<std::string> names;
      for (auto&& el : *arr) {
        if (!el.is_string()) {
          *error = where(el) + "exception_levels must be an array of strings";
          return false;
        }
        names.push_back(*el.value<std::string>());
      }
      std::string err;
      if (!SetExceptionLevels(names, cfg, &err)) {
        *error = where(node) + err;
        return false;
      }
    } else if (key == "return_stack") {
      if (!get_bool(node, key, &cfg->return_stack)) return false;
    } else if (key == "timestamps") {
      if (!get_bool(node, key, &cfg->timestamps)) return false;
    } else if (key == "cycle_counting") {
      if (!get_bool(node, key, &cfg->cycle_counting)) return false;
    } else if (key == "cycle_threshold") {
      if (!get_uint(node, key, 0xFFF, &u)) return false;
      cfg->cycle_threshold = static_cast<uint32_t>(u);
    } else if (key == "context_id") {
      if (!get_bool(node, key, &cfg->context_id)) return false;
    } else if (key == "vmid") {
      if (!get_bool(node, key, &cfg->vmid)) return false;
    } else if (key == "vmid_source") {
      const auto s = node.value<std::string>();
      if (!s || (*s != "vttbr_el2" && *s != "contextidr_el2")) {
        *error = where(node) + "vmid_source must be \"vttbr_el2\" or \"contextidr_el2\"";
        return false;
      }
      cfg->vmid_from_contextidr_el2 = *s == "contextidr_el2";
    } else if (key == "branch_broadcast") {
      if (!get_bool(node, key, &cfg->branch_broadcast)) return false;
    } else if (key == "q_elements") {
      const auto s = node.value<std::string>();
      if (!s || (*s != "off" && *s != "counts" && *s != "all")) {
        *error = where(node) + "q_elements must be \"off\", \"counts\" or \"all\"";
        return false;
      }
      cfg->q_elements = *s == "off" ? QElements::kOff : *s == "counts" ? QElements::kCounts : QElements::kAll;
    } else if (key == "trace_id") {
      if (!get_uint(node, key, 0x7F, &u)) return false;
      cfg->trace_id = static_cast<uint32_t>(u);
    } else if (key == "sync_period") {
      if (!get_uint(node, key, uint64_t{1} << 20, &u)) return false;
      cfg->sync_period_bytes = static_cast<uint32_t>(u);
    } else if (key == "address_pairs") {
      if (!get_uint(node, key, 8, &u)) return false;
      cfg->address_pairs = static_cast<unsigned>(u);
    } else if (key == "range") {
      const auto* arr = node.as_array();
      if (!arr) {
        *error = where(node) + "range must be an array of tables ([[range]])";
        return false;
      }
      for (auto&& item : *arr) {
        const auto* t = item.as_table();
        if (!t) {
          *error = where(item) + "each [[range]] must be a table";
          return false;
        }
        AddressRange r;
        bool has_start = false, has_end = false;
        for (auto&& [rk, rv] : *t) {
          const std::string rkey(rk.str());
          if (rkey == "start" || rkey == "end") {
            // TOML integers are signed 64-bit: addresses above 0x7fff... (kernel
            // VAs) are written as strings, "0xffff800080010000".
            uint64_t a = 0;
            bool ok = false;
            if (rv.is_integer() && *rv.value<int64_t>() >= 0) {
              a = static_cast<uint64_t>(*rv.value<int64_t>());
              ok = true;
            } else if (rv.is_string()) {
              const std::string text = *rv.value<std::string>();
              errno = 0;
              char* end = nullptr;
              a = std::strtoull(text.c_str(), &end, 0);
              ok = errno == 0 && !text.empty() && text[0] != '-' && end && *end == '\0';
            }
            if (!ok) {
              *error =
                  where(rv) + "range." + rkey + " must be an address: a non-negative integer or a string \"0x...\"";
              return false;
            }
            (rkey == "start" ? r.start : r.end) = a;
            (rkey == "start" ? has_start : has_end) = true;
          } else if (rkey == "mode") {
            const auto s = rv.value<std::string>();
            if (!s || (*s != "include" && *s != "exclude")) {
              *error = where(rv) + "range.mode must be \"include\" or \"exclude\"";
              return false;
            }
            r.include = *s == "include";
          } else {
            *error = where(rv) + "unknown key range." + rkey + " (start, end, mode)";
            return false;
          }
        }
        if (!has_start || !has_end) {
          *error = where(item) + "a [[range]] needs start and end";
          return false;
        }
        cfg->ranges.push_back(r);
      }
    } else {
      *error = where(node) + "unknown key '" + key + "'";
      return false;
    }
  }
  return true;
}

bool Compute(const EtmConfig& c, Program* out, std::string* error) {
  *out = {};
  // ---- checks -------------------------------------------------------------
  if (c.cycle_counting && (c.cycle_threshold == 0 || c.cycle_threshold > 0xFFF)) {
    *error =
        "cycle_threshold must be 1..4095 when cycle counting is on (TRCCCCTLR.THRESHOLD, >= "
        "TRCIDR3.CCITMIN)";
    return false;
  }
  if (c.trace_id == 0 || c.trace_id >= 0x70) {
    *error = "trace_id " + Hex(c.trace_id) + " is reserved: use 0x01..0x6f";
    return false;
  }
  unsigned period = 0;
  if (c.sync_period_bytes != 0) {
    const uint32_t p = c.sync_period_bytes;
    if ((p & (p - 1)) != 0 || p < 256 || p > (1u << 20)) {
      *error = "sync_period " + std::to_string(p) + " must be 0 (off) or a power of two from 256 to 1048576 bytes";
      return false;
    }
    while ((1u << period) < p) ++period;
  }
  if (c.address_pairs < 1 || c.address_pairs > 8) {
    *error = "address_pairs must be 1..8 (TRCIDR4.NUMACPAIRS)";
    return false;
  }
  if (c.ranges.size() > c.address_pairs) {
    *error = std::to_string(c.ranges.size()) + " address ranges but only " + std::to_string(c.address_pairs) +
             " address range comparators";
    return false;
  }
  for (size_t i = 0; i < c.ranges.size(); ++i)
    if (c.ranges[i].start > c.ranges[i].end) {
      *error =
          "range " + std::to_string(i) + ": start " + Hex(c.ranges[i].start) + " is above end " + Hex(c.ranges[i].end);
      return false;
    }
  if (c.branch_broadcast && c.q_elements != QElements::kOff) {
    *error = "q_elements needs branch_broadcast off (TRCCONFIGR.QE must be 0 when BB=1)";
    return false;
  }
  bool any_el = false;
  for (bool b : c.trace_el) any_el = any_el || b;
  if (!any_el) {
    *error = "no exception level to trace";
    return false;
  }

  // ---- TRCCONFIGR (§8.5) ------------------------------------------------------
  uint64_t config = 1;  // bit 0 RES1
  std::string why = "RES1";
  if (c.branch_broadcast) config |= 1u << 3, why += " + BB (branch_broadcast)";
  if (c.cycle_counting) config |= 1u << 4, why += " + CCI (cycle_counting)";
  if (c.context_id) config |= 1u << 6, why += " + CID (context_id)";
  if (c.vmid) config |= 1u << 7, why += " + VMID (vmid)";
  if (c.timestamps) config |= 1u << 11, why += " + TS (timestamps)";
  if (c.return_stack) config |= 1u << 12, why += " + RS (return_stack)";
  if (c.q_elements != QElements::kOff) config |= uint64_t(static_cast<uint8_t>(c.q_elements)) << 13, why += " + QE";
  if (c.vmid_from_contextidr_el2) config |= 1u << 15, why += " + VMIDOPT (vmid_source = contextidr_el2)";
  out->registers.push_back(Make("TRCCONFIGR", config, why));
  out->registers.push_back(Make("TRCEVENTCTL0R", 0, "no events"));
  out->registers.push_back(Make("TRCEVENTCTL1R", 0, "no Event elements"));
  out->registers.push_back(Make("TRCSTALLCTLR", 0, "no stalling"));
  out->registers.push_back(Make(
      "TRCTSCTLR", 0, c.timestamps ? "timestamps at sync points only (no timestamp event)" : "no timestamp event"));
  out->registers.push_back(
      Make("TRCSYNCPR", period,
           period ? "sync_period = " + std::to_string(c.sync_period_bytes) + " bytes = 2^" + std::to_string(period)
                  : "periodic sync off"));
  if (c.cycle_counting) out->registers.push_back(Make("TRCCCCTLR", c.cycle_threshold, "cycle_threshold"));
  if (c.branch_broadcast)
    out->registers.push_back(Make("TRCBBCTLR", 0, "MODE=0 (exclude) with no ranges: broadcast everywhere"));
  if (c.q_elements != QElements::kOff)
    out->registers.push_back(Make("TRCQCTLR", 0, "MODE=0 (exclude) with no ranges: Q elements everywhere"));
  out->registers.push_back(Make("TRCTRACEIDR", c.trace_id, "trace_id"));

  // ---- TRCVICTLR: EVENT_SEL=1 (always TRUE), SSSTATUS=1, EXLEVEL bits ------
  uint64_t exlevel = 0;
  for (int i = 0; i < 7; ++i)
    if (!c.trace_el[i]) exlevel |= uint64_t{1} << VictlrExlevelBit(static_cast<ExceptionLevel>(i));
  if (c.realm_explicit)
    for (int i = 0; i < 3; ++i) {
      const bool ns_excluded = !c.trace_el[4 + i];
      const bool rl_excluded = !c.trace_el[7 + i];
      // Realm filter = NS bit XOR RL bit (sheet §8.2).
      if (ns_excluded != rl_excluded) exlevel |= uint64_t{1} << VictlrExlevelBit(static_cast<ExceptionLevel>(7 + i));
    }
  const uint64_t victlr = 0x1 | (1u << 9) | exlevel;
  out->registers.push_back(Make("TRCVICTLR", victlr,
                                "EVENT_SEL=1 (always TRUE), SSSTATUS=1, trace " + ElList(c) +
                                    (c.realm_explicit ? "" : " (Realm levels follow Non-secure)")));
  uint64_t iie = 0;
  for (size_t m = 0; m < c.ranges.size(); ++m) iie |= uint64_t{1} << (c.ranges[m].include ? m : 16 + m);
  out->registers.push_back(
      Make("TRCVIIECTLR", iie, c.ranges.empty() ? "no address range filtering" : "address ranges"));
  out->registers.push_back(Make("TRCVISSCTLR", 0, "no start/stop points"));
  // ---- Address range comparators: ARC m = TRCACVR(2m)..TRCACVR(2m+1) --------
  const uint64_t acatr = exlevel >> 8;  // same EL filter, TRCACATR bits 8..18
  for (size_t m = 0; m < c.ranges.size(); ++m) {
    const auto& r = c.ranges[m];
    const std::string what = std::string(r.include ? "include" : "exclude") + " range " + std::to_string(m);
    out->registers.push_back(Make("TRCACVR" + std::to_string(2 * m), r.start, what + " start"));
    out->registers.push_back(Make("TRCACATR" + std::to_string(2 * m), acatr, what + ": compare at the traced levels"));
    out->registers.push_back(Make("TRCACVR" + std::to_string(2 * m + 1), r.end, what + " end (inclusive)"));
    out->registers.push_back(
        Make("TRCACATR" + std::to_string(2 * m + 1), acatr, what + ": same as TRCACATR" + std::to_string(2 * m)));
  }

  // ---- Self-hosted permission: TRFCR_EL1 / TRFCR_EL2 (sheet §1.7, §8.5) ----
  const auto on = [&](ExceptionLevel el) { return c.trace_el[static_cast<int>(el)]; };
  const bool el0 = on(ExceptionLevel::kNsEl0) || on(ExceptionLevel::kSEl0) || on(ExceptionLevel::kRlEl0);
  const bool el1 = on(ExceptionLevel::kNsEl1) || on(ExceptionLevel::kSEl1) || on(ExceptionLevel::kRlEl1);
  const bool el2 = on(ExceptionLevel::kNsEl2) || on(ExceptionLevel::kSEl2) || on(ExceptionLevel::kRlEl2);
  // TS=0b11: physical count (0b00 is reserved at EL1; harmless without timestamps).
  const uint64_t ts = 0b11u << 5;
  out->trfcr_el1 = Make("TRFCR_EL1", (el0 ? 1u : 0u) | (el1 ? 2u : 0u) | ts,
                        "allow trace at the traced EL0/EL1; TS=physical timestamp source");
  out->trfcr_el2 = Make("TRFCR_EL2", (el0 ? 1u : 0u) | (el2 ? 2u : 0u) | (c.vmid ? 8u : 0u),
                        "only when the kernel runs at EL2: allow host EL0 / EL2 trace" +
                            std::string(c.vmid ? "; CX=1 so VMID / CONTEXTIDR_EL2 reach the trace" : ""));
  if (c.vmid) out->notes.push_back("VMID tracing needs TRFCR_EL2.CX=1 (it resets to 0) when EL2 is implemented");
  if (c.cycle_counting)
    out->notes.push_back("TRCCCCTLR.THRESHOLD must be >= TRCIDR3.CCITMIN of the target (" +
                         std::to_string(c.cycle_threshold) + " given)");
  if (!c.realm_explicit)
    out->notes.push_back("with FEAT_RME, Realm EL0-EL2 are traced exactly when the Non-secure ones are");

  // ---- Context save/restore list (seed 003 §3.2, completed) ---------------
  out->context.push_back("TRCPRGCTLR");
  for (const auto& r : out->registers) out->context.push_back(r.info.name);
  out->notes.push_back(
      "seed 003's save list (TRCPRGCTLR TRCCONFIGR TRCEVENTCTL0R TRCVICTLR TRCVIIECTLR "
      "TRCACVR0-15) "
      "misses TRCACATRn, TRCSYNCPR, TRCTRACEIDR, TRCTSCTLR, TRCCCCTLR and the other programmed "
      "registers: the list here has every register this configuration writes");

  // ---- Sequences (sheet §8.3) ---------------------------------------------------
  using K = Step::Kind;
  Sequence en{"enable", "sheet §8.3 'Program + enable ETE' (ARM-K10 K10.5.7); sink before source", {}};
  en.steps.push_back({K::kComment, "", 0, 0, 0, "the TRBE (sink) must be enabled first: TRBLIMITR_EL1.E=1"});
  en.steps.push_back({K::kWrite, "OSLAR_EL1", 0, 0, 0, "OS Lock unlocked"});
  en.steps.push_back({K::kWrite, "TRCPRGCTLR", 0, 0, 0, "trace unit disabled while programming"});
  en.steps.push_back({K::kPoll, "TRCSTATR", 0, 0x1, 0x1, "wait until IDLE=1"});
  for (const auto& r : out->registers) en.steps.push_back({K::kWrite, r.info.name, r.value, 0, 0, ""});
  en.steps.push_back({K::kIsb, "", 0, 0, 0, "registers written before enabling"});
  en.steps.push_back({K::kWrite, "TRCPRGCTLR", 1, 0, 0, "enable the trace unit"});
  en.steps.push_back({K::kPoll, "TRCSTATR", 0, 0x1, 0x0, "wait until IDLE=0"});
  en.steps.push_back({K::kWrite, "TRFCR_EL1", out->trfcr_el1.value, 0, 0, "allow trace at the chosen levels"});
  en.steps.push_back({K::kIsb, "", 0, 0, 0, "TRFCR_EL1 takes effect"});
  out->sequences.push_back(std::move(en));

  Sequence dis{"disable", "sheet §8.3 'Disable ETE (self-hosted)' (ARM-K10 K10.5.10); source before sink", {}};
  dis.steps.push_back({K::kProhibit, "TRFCR_EL1", 0x3, 0, 0, "enter a prohibited region"});
  dis.steps.push_back({K::kIsb, "", 0, 0, 0, ""});
  dis.steps.push_back({K::kTsbCsync, "", 0, 0, 0, "trace of the traced region reaches the trace unit's output"});
  dis.steps.push_back({K::kWrite, "TRCPRGCTLR", 0, 0, 0, "disable the trace unit"});
  dis.steps.push_back({K::kPoll, "TRCSTATR", 0, 0x3, 0x3, "wait until IDLE=1 and PMSTABLE=1"});
  dis.steps.push_back({K::kUnprohibit, "TRFCR_EL1", 0, 0, 0, "restore TRFCR_EL1"});
  dis.steps.push_back(
      {K::kComment, "", 0, 0, 0, "then the sink (TRBE, sheet §1.12): TSB CSYNC; DSB NSH; clear E; ISB"});
  dis.steps.push_back({K::kTsbCsync, "", 0, 0, 0, ""});
  dis.steps.push_back({K::kDsbNsh, "", 0, 0, 0, ""});
  dis.steps.push_back({K::kClearBits, "TRBLIMITR_EL1", 0x1, 0, 0, "TRBLIMITR_EL1.E=0, LIMIT kept"});
  dis.steps.push_back({K::kIsb, "", 0, 0, 0, ""});
  out->sequences.push_back(std::move(dis));

  Sequence save{"save", "sheet §8.3 'Save for power-down' (ARM-K10 K10.5.10)", {}};
  save.steps.push_back({K::kProhibit, "TRFCR_EL1", 0x3, 0, 0, "prohibit trace"});
  save.steps.push_back({K::kIsb, "", 0, 0, 0, ""});
  save.steps.push_back({K::kTsbCsync, "", 0, 0, 0, ""});
  save.steps.push_back({K::kWrite, "OSLAR_EL1", 1, 0, 0, "lock the OS Lock"});
  save.steps.push_back({K::kPoll, "TRCSTATR", 0, 0x2, 0x2, "wait until PMSTABLE=1"});
  save.steps.push_back({K::kUnprohibit, "TRFCR_EL1", 0, 0, 0, "restore TRFCR_EL1"});
  for (const auto& r : out->context) save.steps.push_back({K::kSave, r, 0, 0, 0, ""});
  save.steps.push_back({K::kPoll, "TRCSTATR", 0, 0x1, 0x1, "wait until IDLE=1"});
  out->sequences.push_back(std::move(save));

  Sequence rest{"restore", "sheet §8.3 'Restore' (ARM-K10 K10.5.10)", {}};
  for (const auto& r : out->context) {
    if (r == "TRCPRGCTLR") continue;  // last, so the unit starts with its registers in place
    rest.steps.push_back({K::kWriteSaved, r, 0, 0, 0, ""});
  }
  rest.steps.push_back({K::kWriteSaved, "TRCPRGCTLR", 0, 0, 0, "restores EN"});
  rest.steps.push_back({K::kWrite, "OSLAR_EL1", 0, 0, 0, "unlock the OS Lock"});
  rest.steps.push_back({K::kIsb, "", 0, 0, 0, ""});
  out->sequences.push_back(std::move(rest));
  return true;
}

// ---- Renderings ------------------------------------------------------------------
std::string SequenceToText(const Sequence& s) {
  std::string t = "  // " + s.source + "\n";
  for (const auto& st : s.steps) {
    std::string line;
    const std::string c = st.text.empty() ? "" : "  // " + st.text;
    switch (st.kind) {
      case Step::Kind::kComment: line = "  // " + st.text; break;
      case Step::Kind::kWrite: line = "  MSR " + st.reg + ", " + Hex8(st.value) + c; break;
      case Step::Kind::kWriteSaved: line = "  MSR " + st.reg + ", <saved " + st.reg + ">" + c; break;
      case Step::Kind::kSave: line = "  MRS <saved " + st.reg + ">, " + st.reg + c; break;
      case Step::Kind::kClearBits: line = "  MSR " + st.reg + ", (" + st.reg + " & ~" + Hex(st.value) + ")" + c; break;
      case Step::Kind::kIsb: line = "  ISB" + c; break;
      case Step::Kind::kTsbCsync: line = "  TSB CSYNC" + c; break;
      case Step::Kind::kDsbNsh: line = "  DSB NSH" + c; break;
      case Step::Kind::kPoll:
        line = "  loop { ISB; MRS x, " + st.reg + " } until (x & " + Hex(st.mask) + ") == " + Hex(st.expect) + c;
        break;
      case Step::Kind::kProhibit:
        line = "  MRS <saved TRFCR_EL1>, TRFCR_EL1; MSR TRFCR_EL1, (<saved> & ~0x3)" + c;
        break;
      case Step::Kind::kUnprohibit: line = "  MSR TRFCR_EL1, <saved TRFCR_EL1>" + c; break;
    }
    t += line + "\n";
  }
  return t;
}

std::string ProgramToText(const Program& p) {
  std::string t = "Register values (ARM DDI 0487 D24.4; reference/arm-trace-facts.md §8.2, §8.5)\n\n";
  auto reg = [&](const RegisterValue& r) {
    t += r.info.name + " = " + Hex8(r.value) + "    [" + r.info.enc.AsmName();
    if (r.info.mmio_offset) t += ", MMIO +" + Hex(*r.info.mmio_offset);
    t += "]  " + r.why + "\n";
    for (const auto& f : r.decoded.fields) t += FieldToText(f, "    ", 8);
    t += "    => " + r.decoded.summary + "\n";
    for (const auto& w : r.decoded.warnings) t += "    warning: " + w + "\n";
  };
  for (const auto& r : p.registers) reg(r);
  t += "\nSelf-hosted trace permission (written by the enable sequence):\n";
  reg(p.trfcr_el1);
  reg(p.trfcr_el2);
  for (const auto& s : p.sequences) t += "\nSequence: " + s.name + "\n" + SequenceToText(s);
  t += "\nContext save/restore list (in this order; restore TRCPRGCTLR last):\n ";
  for (const auto& r : p.context) t += " " + r;
  t += "\n";
  if (!p.notes.empty()) {
    t += "\nNotes:\n";
    for (const auto& n : p.notes) t += "  - " + n + "\n";
  }
  return t;
}

std::string ProgramToC(const Program& p) {
  std::string c;
  c += "/* Generated by `mabutrace etm-config`: ETE trace-unit programming (AArch64, GCC/Clang).\n"
       " * Values: ARM DDI 0487 D24.4; sequences: K10.5.7 / K10.5.10 (reference/arm-trace-facts.md "
       "§8.3).\n"
       " * System registers are named by encoding (s<op0>_<op1>_c<n>_c<m>_<op2>) so any assembler "
       "accepts them. */\n"
       "#ifndef MBT_ETE_CONFIG_H\n#define MBT_ETE_CONFIG_H\n\n#include <stdint.h>\n\n"
       "#define MBT_WRITE(reg, v) __asm__ volatile(\"msr \" reg \", %0\" : : \"r\"((uint64_t)(v)) : "
       "\"memory\")\n"
       "#define MBT_READ(reg, out) __asm__ volatile(\"mrs %0, \" reg : \"=r\"(out) : : \"memory\")\n"
       "#define MBT_ISB() __asm__ volatile(\"isb\" : : : \"memory\")\n"
       "#define MBT_TSB_CSYNC() __asm__ volatile(\"hint #18\" : : : \"memory\") /* TSB CSYNC */\n"
       "#define MBT_DSB_NSH() __asm__ volatile(\"dsb nsh\" : : : \"memory\")\n"
       "#define MBT_POLL(reg, mask, expect) \\\n"
       "  do { uint64_t v_; do { MBT_ISB(); MBT_READ(reg, v_); } while ((v_ & (mask)) != (expect)); "
       "} while (0)\n\n";
  std::vector<std::string> names = {"OSLAR_EL1", "TRCPRGCTLR", "TRCSTATR", "TRFCR_EL1", "TRBLIMITR_EL1"};
  for (const auto& r : p.registers) names.push_back(r.info.name);
  for (const auto& n : names) {
    std::string enc;
    if (n == "TRBLIMITR_EL1")
      enc = "s3_0_c9_c11_0";  // sheet §1.1
    else
      enc = FindRegister(n)->enc.AsmName();
    c += "#define MBT_REG_" + n + " \"" + enc + "\"\n";
  }
  c += "\n/* Values */\n";
  for (const auto& r : p.registers)
    c += "#define MBT_VAL_" + r.info.name + " " + Hex8(r.value) + "ULL /* " + r.decoded.summary + " */\n";
  c += "#define MBT_VAL_TRFCR_EL1 " + Hex8(p.trfcr_el1.value) + "ULL /* " + p.trfcr_el1.decoded.summary + " */\n";
  c += "#define MBT_VAL_TRFCR_EL2 " + Hex8(p.trfcr_el2.value) + "ULL /* " + p.trfcr_el2.decoded.summary +
       " (EL2 only) */\n";
  c += "\n/* Saved trace-unit context (sheet §8.3) */\nstruct mbt_ete_context {\n";
  for (const auto& n : p.context) c += "  uint64_t " + Lower(n) + ";\n";
  c += "};\n";
  for (const auto& s : p.sequences) {
    const bool ctx = s.name == "save" || s.name == "restore";
    c += "\n/* " + s.name + ": " + s.source + " */\nstatic inline void mbt_ete_" + s.name + "(" +
         (s.name == "save"      ? "struct mbt_ete_context *ctx"
          : s.name == "restore" ? "const struct mbt_ete_context *ctx"
                                : "void") +
         ") {\n";
    (void)ctx;
    bool need_saved = false;
    for (const auto& st : s.steps) need_saved = need_saved || st.kind == Step::Kind::kProhibit;
    if (need_saved) c += "  uint64_t trfcr_saved;\n";
    for (const auto& st : s.steps) {
      const std::string cm = st.text.empty() ? "" : " /* " + st.text + " */";
      switch (st.kind) {
        case Step::Kind::kComment: c += "  /* " + st.text + " */\n"; break;
        case Step::Kind::kWrite:
          c += "  MBT_WRITE(MBT_REG_" + st.reg + ", " + Hex8(st.value) + "ULL);" + cm + "\n";
          break;
        case Step::Kind::kWriteSaved:
          c += "  MBT_WRITE(MBT_REG_" + st.reg + ", ctx->" + Lower(st.reg) + ");" + cm + "\n";
          break;
        case Step::Kind::kSave:
          c += "  MBT_READ(MBT_REG_" + st.reg + ", ctx->" + Lower(st.reg) + ");" + cm + "\n";
          break;
        case Step::Kind::kClearBits:
          c += "  { uint64_t v_; MBT_READ(MBT_REG_" + st.reg + ", v_); MBT_WRITE(MBT_REG_" + st.reg + ", v_ & ~" +
               Hex(st.value) + "ULL); }" + cm + "\n";
          break;
        case Step::Kind::kIsb: c += "  MBT_ISB();" + cm + "\n"; break;
        case Step::Kind::kTsbCsync: c += "  MBT_TSB_CSYNC();" + cm + "\n"; break;
        case Step::Kind::kDsbNsh: c += "  MBT_DSB_NSH();" + cm + "\n"; break;
        case Step::Kind::kPoll:
          c += "  MBT_POLL(MBT_REG_" + st.reg + ", " + Hex(st.mask) + "ULL, " + Hex(st.expect) + "ULL);" + cm + "\n";
          break;
        case Step::Kind::kProhibit:
          c += "  MBT_READ(MBT_REG_TRFCR_EL1, trfcr_saved);\n  MBT_WRITE(MBT_REG_TRFCR_EL1, "
               "trfcr_saved & ~0x3ULL);" +
               cm + "\n";
          break;
        case Step::Kind::kUnprohibit: c += "  MBT_WRITE(MBT_REG_TRFCR_EL1, trfcr_saved);" + cm + "\n"; break;
      }
    }
    c += "}\n";
  }
  c += "\n#endif /* MBT_ETE_CONFIG_H */\n";
  return c;
}

std::string ProgramToJson(const Program& p) {
  nlohmann::ordered_json j;
  auto reg = [](const RegisterValue& r) {
    nlohmann::ordered_json o;
    o["value"] = Hex8(r.value);
    o["encoding"] = r.info.enc.AsmName();
    for (const auto& f : r.decoded.fields) o[f.name] = f.value;
    o["summary"] = r.decoded.summary;
    o["why"] = r.why;
    return o;
  };
  for (const auto& r : p.registers) j["registers"][r.info.name] = reg(r);
  j["registers"]["TRFCR_EL1"] = reg(p.trfcr_el1);
  j["registers"]["TRFCR_EL2"] = reg(p.trfcr_el2);
  j["context"] = p.context;
  for (const auto& s : p.sequences) {
    auto arr = nlohmann::ordered_json::array();
    for (const auto& st : s.steps) {
      nlohmann::ordered_json o;
      static const char* kKind[] = {"comment",   "write",   "write-saved", "save",     "clear-bits", "isb",
                                    "tsb-csync", "dsb-nsh", "poll",        "prohibit", "unprohibit"};
      o["step"] = kKind[static_cast<int>(st.kind)];
      if (!st.reg.empty()) o["register"] = st.reg;
      if (st.kind == Step::Kind::kWrite || st.kind == Step::Kind::kClearBits) o["value"] = Hex8(st.value);
      if (st.kind == Step::Kind::kPoll) o["mask"] = Hex(st.mask), o["expect"] = Hex(st.expect);
      if (!st.text.empty()) o["text"] = st.text;
      arr.push_back(std::move(o));
    }
    j["sequences"][s.name] = std::move(arr);
  }
  j["notes"] = p.notes;
  return exporter::JsonText(j);
}

}  // namespace mabutrace::traceunit
