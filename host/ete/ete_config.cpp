// SPDX-License-Identifier: MIT
#include "ete/ete_config.h"

#include <cctype>
#include <cstdio>

#include "snapshot/snapshot.h"

namespace mabutrace::ete {

EteConfig EteConfig::FromDevice(const snapshot::Device& d) { return FromDevice(d, nullptr); }

// M-profile cores as snapshots name them: "Cortex-M55", "ARMv8.1-M", "ARMv7-M".
static bool IsMProfileCore(const std::string& type) {
  std::string t;
  for (char c : type) t += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (t.rfind("CORTEX-M", 0) == 0) return true;
  return t.rfind("ARMV", 0) == 0 && t.size() >= 2 && t.compare(t.size() - 2, 2, "-M") == 0;
}

// Armv6-M / Armv7-M cores: Cortex-M0, M0+, M1, M3, M4, M7 or "ARMv6-M"/"ARMv7-M"
// (the later Cortex-M23/M33/M35P/M52/M55/M85 are Armv8-M).
static bool IsV7MCore(const std::string& type) {
  std::string t;
  for (char c : type) t += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (t.rfind("ARMV6", 0) == 0 || t.rfind("ARMV7", 0) == 0) return IsMProfileCore(t);
  if (t.rfind("CORTEX-M", 0) != 0 || t.size() < 9) return false;
  const std::string n = t.substr(8);
  return n == "0" || n == "0+" || n == "0PLUS" || n == "1" || n == "3" || n == "4" || n == "7";
}

EteConfig EteConfig::FromDevice(const snapshot::Device& d, const snapshot::Device* core) {
  EteConfig c;
  c.trcconfigr = d.RequireReg("TRCCONFIGR");
  c.trctraceidr = d.RequireReg("TRCTRACEIDR", kTraceIdBits);  // higher bits are an error, not another ID
  c.trcidr0 = d.RequireReg("TRCIDR0");
  c.trcidr2 = d.RequireReg("TRCIDR2");
  c.trcidr1 = d.Reg32Or("TRCIDR1", 0x4100F403);
  c.trcidr8 = d.Reg32Or("TRCIDR8", 0);
  c.trcidr9 = d.Reg32Or("TRCIDR9", 0);
  c.trcidr10 = d.Reg32Or("TRCIDR10", 0);
  c.trcidr11 = d.Reg32Or("TRCIDR11", 0);
  c.trcidr12 = d.Reg32Or("TRCIDR12", 0);
  c.trcidr13 = d.Reg32Or("TRCIDR13", 0);
  c.trcauthstatus = d.Reg32Or("TRCAUTHSTATUS", 0);
  if (d.Reg("TRCDEVARCH")) {
    c.trcdevarch = d.Reg32Or("TRCDEVARCH", 0);
  } else if (const TraceUnitArch a = TraceUnitArch::Of(d); !a.ete) {
    // ETMv4 without TRCDEVARCH: ARCHITECT Arm, PRESENT, ARCHVER/REVISION from the arch.
    c.trcdevarch =
        0x47700A13u | (static_cast<uint32_t>(a.major & 0xF) << 12) | (static_cast<uint32_t>(a.minor & 0xF) << 16);
  } else {
    c.trcdevarch = 0x47705A13;
  }
  c.m_profile = core && IsMProfileCore(core->type);
  c.m_profile_v7 = c.m_profile && IsV7MCore(core->type);
  return c;
}

TraceUnitArch TraceUnitArch::Of(const snapshot::Device& d) {
  TraceUnitArch a;
  auto from = [&](unsigned major, unsigned minor, bool minor_known) {
    a.ete = major >= 5;
    a.major = static_cast<uint8_t>(major);
    a.minor = static_cast<uint8_t>(minor);
    a.minor_known = minor_known;
    return a;
  };
  if (auto devarch = d.Reg("TRCDEVARCH"); devarch && ((*devarch >> 20) & 1) && (*devarch & 0xFFF) == 0xA13)
    return from((*devarch >> 12) & 0xF, (*devarch >> 16) & 0xF, true);
  // TRCARCHMAJ 0xF defers to TRCDEVARCH (ETE); 0 names no architecture
  // (a TRCIDR1 left 0 by the capture tool), so the type decides.
  if (auto idr1 = d.Reg("TRCIDR1"); idr1 && ((*idr1 >> 8) & 0xF) != 0xF && ((*idr1 >> 8) & 0xF) != 0)
    return from((*idr1 >> 8) & 0xF, (*idr1 >> 4) & 0xF, true);
  // No register says it: the device type does ("ETE" or "ETM4[.m]" / "ETMv4[.m]").
  std::string type;
  for (char c : d.type) type += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (type == "ETE") return a;
  const size_t digits = type.rfind("ETMV", 0) == 0 ? 4 : type.rfind("ETM", 0) == 0 ? 3 : std::string::npos;
  if (digits == std::string::npos || digits >= type.size() || !std::isdigit(static_cast<unsigned char>(type[digits])))
    return from(0, 0, false);
  const unsigned major = static_cast<unsigned>(type[digits] - '0');
  if (type.size() > digits + 2 && type[digits + 1] == '.' && std::isdigit(static_cast<unsigned char>(type[digits + 2])))
    return from(major, static_cast<unsigned>(type[digits + 2] - '0'), true);
  return from(major, 0, false);
}

std::string TraceUnitArch::Name() const {
  if (ete) return "ETE";
  if (major == 0) return "an unknown trace unit";
  std::string s = "ETMv" + std::to_string(major);
  if (minor_known) s += "." + std::to_string(minor);
  return s;
}

static unsigned SizeBytes(unsigned field) {
  switch (field) {
    case 1: return 1;
    case 2: return 2;
    case 4: return 4;
    default: return 0;
  }
}

unsigned EteConfig::vmid_bytes() const { return SizeBytes((trcidr2 >> 10) & 0x1F); }
unsigned EteConfig::cid_bytes() const { return SizeBytes((trcidr2 >> 5) & 0x1F); }

std::string EteConfig::Describe() const {
  char buf[256];
  std::snprintf(
      buf, sizeof buf, "%s%u.%u%s trace_id=0x%x commopt1=%d maxspec=%u q=%d vmid_bytes=%u cid_bytes=%u cc_bits=%u",
      is_ete() ? "ETE v" : "ETMv", major_version(), minor_version(), m_profile ? " M-profile" : "", trace_id(),
      commit_opt1() ? 1 : 0, max_spec(), has_q() ? 1 : 0, vmid_bytes(), cid_bytes(), cc_size_bits());
  return buf;
}

}  // namespace mabutrace::ete
