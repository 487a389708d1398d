// SPDX-License-Identifier: MIT
// ete_config.h: the configuration of an ETE or ETMv4 trace unit (instruction
// trace) as the packet and element layers need it, decoded from its
// ID/config registers (arm-trace-facts.md §8.2, §7.3). One struct for both:
// ETE is the Armv9 evolution of ETMv4 and shares its packet set; the few
// differences are the named predicates below (is_ete(), full_version(),
// data/conditional trace), so there is one packet processor for both.
//
// ETMv4 has TRCDEVARCH too (ARCHVER 4) but snapshots of ETMv4 units seldom
// list it: FromDevice() then builds it from TRCIDR1 (TRCARCHMAJ [11:8],
// TRCARCHMIN [7:4]), e.g. TRCIDR1 0x4100F403 -> ETMv4.0, 0x4100F454 -> ETMv4.5.
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
  static constexpr uint32_t kTraceIdBits = 0x7F;  // TRCTRACEIDR.TRACEID [6:0]
  // Register values. Defaults are OpenCSD's for missing optional registers
  // (§7.3) and a plain ETE r0 otherwise.
  uint32_t trcidr0 = 0x28000EA1;
  uint32_t trcidr1 = 0x4100F403;
  uint32_t trcidr2 = 0x00001088;
  uint32_t trcidr8 = 0;
  uint32_t trcconfigr = 0x1;
  uint32_t trcdevarch = 0x47705A13;
  uint32_t trctraceidr = 0;
  // ETMv4 only (kept for the record and for data/conditional trace, which
  // this decoder does not trace): P0/P1 keys and conditional keys/specs.
  uint32_t trcidr9 = 0, trcidr10 = 0, trcidr11 = 0, trcidr12 = 0, trcidr13 = 0;
  uint32_t trcauthstatus = 0;
  // The traced PE is M-profile (its core type "Cortex-M55", "ARMv8.1-M"...):
  // ETMv4-M only (T32 only; 0x05 function return, extended exception type).
  bool m_profile = false;
  // ... and Armv6-M/Armv7-M ("Cortex-M3", "ARMv7-M"): there the Exception
  // Return packet is a P0 element; on v8-M the Function Return packet is.
  bool m_profile_v7 = false;

  // From a trace-source device of a snapshot (type ETE or ETM4). Required:
  // TRCCONFIGR, TRCTRACEIDR, TRCIDR0, TRCIDR2; optional TRCIDR1, TRCIDR8,
  // TRCDEVARCH (ETMv4: from TRCIDR1 when absent), TRCIDR9-13, TRCAUTHSTATUS.
  // Throws snapshot::SnapshotError naming the .ini and register.
  static EteConfig FromDevice(const snapshot::Device& device);
  // Same, with the profile of the core the unit traces (nullptr: A/R).
  static EteConfig FromDevice(const snapshot::Device& device, const snapshot::Device* core);

  uint8_t major_version() const { return static_cast<uint8_t>((trcdevarch >> 12) & 0xF); }
  uint8_t minor_version() const { return static_cast<uint8_t>((trcdevarch >> 16) & 0xF); }
  uint8_t full_version() const { return static_cast<uint8_t>((major_version() << 4) | minor_version()); }
  bool is_ete() const { return major_version() >= 5; }
  bool has_cycle_count_i() const { return (trcidr0 >> 7) & 1; }
  bool commit_opt1() const { return ((trcidr0 >> 29) & 1) && has_cycle_count_i(); }
  bool has_q() const { return ((trcidr0 >> 15) & 3) != 0; }
  uint32_t max_spec() const { return trcidr8; }
  uint8_t trace_id() const { return static_cast<uint8_t>(trctraceidr & kTraceIdBits); }
  unsigned vmid_bytes() const;
  unsigned cid_bytes() const;
  unsigned cc_size_bits() const { return ((trcidr2 >> 25) & 0xF) + 12; }
  // Data trace (TRCCONFIGR.INSTP0 [2:1] / DA [16]) and conditional trace
  // (TRCCONFIGR.COND [10:8]): ETMv4 only, and not decoded here: their
  // headers (0x20-0x2C, 0x40-0x6F) then stay "reserved for this config".
  bool data_trace_enabled() const { return !is_ete() && (((trcconfigr >> 1) & 3) || ((trcconfigr >> 16) & 1)); }
  bool cond_trace_enabled() const { return !is_ete() && ((trcconfigr >> 8) & 7) != 0; }

  std::string Describe() const;  // one line, for logs
};

}  // namespace mabutrace::ete

#endif  // MABUTRACE_HOST_ETE_ETE_CONFIG_H
