// SPDX-License-Identifier: MIT
// ete_config.h: the ETE trace unit's configuration as the packet layer needs
// it, decoded from its ID/config registers (arm-trace-facts.md §8.2, §7.3).
//
// The named predicates follow OpenCSD 1.8.0's ETE configuration so that the
// packet processor accepts/rejects headers exactly like it:
//   major/minor version  TRCDEVARCH.ARCHVER [15:12] / REVISION [19:16]
//   full_version()       (major << 4) | minor, e.g. 0x50 = ETE r0
//   commit_opt1()        TRCIDR0.COMMOPT (bit 29) && TRCIDR0.TRCCCI (bit 7)
//   has_q()              TRCIDR0.QSUPP [16:15] != 0
//   max_spec()           TRCIDR8.MAXSPEC
//   vmid_bytes()         TRCIDR2.VMIDSIZE [14:10]: 1->1, 2->2, 4->4 bytes
//   cid_bytes()          TRCIDR2.CIDSIZE [9:5]: 4->4 bytes
//   cc_size_bits()       TRCIDR2.CCSIZE [28:25] + 12
//   trace_id()           TRCTRACEIDR [6:0]
#ifndef MABUTRACE_HOST_ETE_ETE_CONFIG_H
#define MABUTRACE_HOST_ETE_ETE_CONFIG_H

#include <cstdint>
#include <string>

namespace mabutrace::snapshot {
struct Device;
}

namespace mabutrace::ete {

// The architecture of a trace unit (arm-trace-facts.md §8.2): from
// TRCDEVARCH when the device gives it (PRESENT, ARCHPART 0xA13: ARCHVER
// [15:12], REVISION [19:16]; 5 = ETE, 4 = ETMv4), else from TRCIDR1
// (TRCARCHMAJ [11:8], TRCARCHMIN [7:4]; ETE reports 0xF there), else from
// the device type ("ETE", "ETM4", "ETM4.1", "ETMv4.2"...).
struct TraceUnitArch {
  bool ete = true;
  uint8_t major = 5;  // 4 = ETMv4 (when !ete; 0 = unknown)
  uint8_t minor = 0;
  bool minor_known = true;
  static TraceUnitArch Of(const snapshot::Device& device);
  // "ETE", "ETMv4.1", "ETMv4" (minor unknown), "an unknown trace unit"
  std::string Name() const;
};

struct EteConfig {
  // Register values. Defaults are OpenCSD's for missing optional registers
  // (§7.3) and a plain ETE r0 otherwise.
  uint32_t trcidr0 = 0x28000EA1;
  uint32_t trcidr1 = 0x4100F403;
  uint32_t trcidr2 = 0x00001088;
  uint32_t trcidr8 = 0;
  uint32_t trcconfigr = 0x1;
  uint32_t trcdevarch = 0x47705A13;
  uint32_t trctraceidr = 0;

  // From a trace-source device of a snapshot (type ETE or ETM4). Required:
  // TRCCONFIGR, TRCTRACEIDR, TRCIDR0, TRCIDR2; optional TRCIDR1, TRCIDR8,
  // TRCDEVARCH. Throws snapshot::SnapshotError naming the .ini and register.
  static EteConfig FromDevice(const snapshot::Device& device);

  uint8_t major_version() const { return static_cast<uint8_t>((trcdevarch >> 12) & 0xF); }
  uint8_t minor_version() const { return static_cast<uint8_t>((trcdevarch >> 16) & 0xF); }
  uint8_t full_version() const { return static_cast<uint8_t>((major_version() << 4) | minor_version()); }
  bool is_ete() const { return major_version() >= 5; }
  bool has_cycle_count_i() const { return (trcidr0 >> 7) & 1; }
  bool commit_opt1() const { return ((trcidr0 >> 29) & 1) && has_cycle_count_i(); }
  bool has_q() const { return ((trcidr0 >> 15) & 3) != 0; }
  uint32_t max_spec() const { return trcidr8; }
  uint8_t trace_id() const { return static_cast<uint8_t>(trctraceidr & 0x7F); }
  unsigned vmid_bytes() const;
  unsigned cid_bytes() const;
  unsigned cc_size_bits() const { return ((trcidr2 >> 25) & 0xF) + 12; }
  // ETMv4 data-trace / conditional-trace headers are never valid for ETE.
  bool data_trace_enabled() const { return false; }
  bool cond_trace_enabled() const { return false; }

  std::string Describe() const;  // one line, for logs
};

}  // namespace mabutrace::ete

#endif  // MABUTRACE_HOST_ETE_ETE_CONFIG_H
