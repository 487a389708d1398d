// SPDX-License-Identifier: MIT
// etm3_config.h: the ETMv3 (ETM 3.x) trace-unit configuration that the
// packet processor and element decoder need, read from a snapshot's
// [regs]: ETMCR (0x000), ETMIDR (0x079), ETMCCER (0x07A), ETMTRACEIDR
// (0x080).
//
// Bit positions: ETM Architecture Specification v3.x (IHI0014), register
// descriptions of ETMCR, ETMIDR and ETMCCER; the same bits OpenCSD 1.8.0
// reads (trc_cmp_cfg_etmv3.h). Every accessor is a pure function of the
// register values.
#ifndef MABUTRACE_HOST_ETM3_ETM3_CONFIG_H
#define MABUTRACE_HOST_ETM3_ETM3_CONFIG_H

#include <cstdint>
#include <string>

namespace mabutrace::snapshot {
struct Device;
}

namespace mabutrace::etm3 {

struct Etm3Config {
  static constexpr uint32_t kTraceIdBits = 0x7F;  // ETMTRACEIDR [6:0]; the rest is reserved

  uint32_t etmcr = 0;
  uint32_t etmidr = 0x4100F240;  // OpenCSD's default: ETMv3.4
  uint32_t etmccer = 0;
  uint32_t etmtraceidr = 0;
  bool v7m = false;  // the traced core is Armv7-M (exception numbers are M-profile ones)

  uint8_t trace_id() const { return static_cast<uint8_t>(etmtraceidr & kTraceIdBits); }
  // ETMCR bit 12: cycle-accurate tracing (P-header formats 3/4, W atoms).
  bool cycle_accurate() const { return (etmcr >> 12) & 1; }
  // ETMCR bit 20 clear: instruction trace on (bit 20 = data-only mode).
  bool instr_trace() const { return !((etmcr >> 20) & 1); }
  bool data_value_trace() const { return (etmcr >> 2) & 1; }    // ETMCR bit 2
  bool data_address_trace() const { return (etmcr >> 3) & 1; }  // ETMCR bit 3
  bool data_trace() const { return data_value_trace() || data_address_trace(); }
  // ETMCR bits [15:14]: context ID size 0, 1, 2 or 4 bytes.
  unsigned context_id_bytes() const {
    static constexpr unsigned kBytes[] = {0, 1, 2, 4};
    return kBytes[(etmcr >> 14) & 3];
  }
  bool timestamps_enabled() const { return (etmcr >> 28) & 1; }  // ETMCR bit 28
  bool vmid_trace() const { return (etmcr >> 30) & 1; }          // ETMCR bit 30
  unsigned minor() const { return (etmidr >> 4) & 0xF; }         // ETMIDR [7:4]: 3.x
  unsigned major() const { return ((etmidr >> 8) & 0xF) + 1; }   // ETMIDR [11:8]: 2 = ETMv3
  // ETMIDR bit 20 (from ETMv3.4): the alternative branch address encoding.
  bool alt_branch() const { return ((etmidr >> 20) & 1) && minor() >= 4; }
  bool virtualization() const { return (etmccer >> 26) & 1; }  // ETMCCER bit 26
  bool ts_64bit() const { return (etmccer >> 29) & 1; }        // ETMCCER bit 29 (timestamp 64 bits, else 48)

  // Reads the registers of a trace-source device; `core` (may be null) is
  // the PE it traces, whose type selects v7m. Throws snapshot::SnapshotError
  // when ETMCR or ETMTRACEIDR is missing, or ETMTRACEIDR sets a bit
  // above the trace ID (not masked: 0x90 is not taken for ID 0x10), or a
  // register is wider than 32 bits (snapshot::Device::RequireReg, Reg32Or).
  static Etm3Config FromDevice(const snapshot::Device& device, const snapshot::Device* core = nullptr);
  // "ETMv3.5 trace_id=0x10 cycle-accurate timestamps(64-bit) ctxtid=0B instruction-only"
  std::string Describe() const;
};

}  // namespace mabutrace::etm3

#endif  // MABUTRACE_HOST_ETM3_ETM3_CONFIG_H
