#include "ete/ete_config.h"

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
