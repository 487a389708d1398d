// SPDX-License-Identifier: MIT
#include "ete/ete_config.h"

#include <cctype>
#include <cstdio>

#include "snapshot/snapshot.h"

namespace mabutrace::ete {

EteConfig EteConfig::FromDevice(const snapshot::Device& d) {
  auto req = [&](const char* name) -> uint32_t {
    auto v = d.Reg(name);
    if (!v) throw snapshot::SnapshotError(d.ini_file.string(), std::string("[regs] ") + name, "missing register");
    return static_cast<uint32_t>(*v);
  };
  EteConfig c;
  c.trcconfigr = req("TRCCONFIGR");
  c.trctraceidr = req("TRCTRACEIDR");
  c.trcidr0 = req("TRCIDR0");
  c.trcidr2 = req("TRCIDR2");
  c.trcidr1 = static_cast<uint32_t>(d.RegOr("TRCIDR1", 0x4100F403));
  c.trcidr8 = static_cast<uint32_t>(d.RegOr("TRCIDR8", 0));
  c.trcdevarch = static_cast<uint32_t>(d.RegOr("TRCDEVARCH", 0x47705A13));
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
  if (auto idr1 = d.Reg("TRCIDR1"); idr1 && ((*idr1 >> 8) & 0xF) != 0xF)
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
  std::snprintf(buf, sizeof buf,
                "ETE v%u.%u trace_id=0x%x commopt1=%d maxspec=%u q=%d vmid_bytes=%u cid_bytes=%u cc_bits=%u",
                major_version(), minor_version(), trace_id(), commit_opt1() ? 1 : 0, max_spec(), has_q() ? 1 : 0,
                vmid_bytes(), cid_bytes(), cc_size_bits());
  return buf;
}

}  // namespace mabutrace::ete
