// SPDX-License-Identifier: MIT
// etm3_config.cpp: ETMv3 registers from a snapshot device (etm3_config.h).
#include "etm3/etm3_config.h"

#include <cctype>
#include <cstdio>

#include "snapshot/snapshot.h"

namespace mabutrace::etm3 {

Etm3Config Etm3Config::FromDevice(const snapshot::Device& d, const snapshot::Device* core) {
  Etm3Config c;
  c.etmcr = d.RequireReg("ETMCR");
  c.etmtraceidr = d.RequireReg("ETMTRACEIDR", kTraceIdBits);
  c.etmidr = d.Reg32Or("ETMIDR", c.etmidr);
  c.etmccer = d.Reg32Or("ETMCCER", 0);
  if (core) {
    std::string t;
    for (char ch : core->type) t += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    c.v7m = t.rfind("CORTEX-M", 0) == 0 || t == "ARMV7-M" || t == "ARMV6-M";
  }
  return c;
}

std::string Etm3Config::Describe() const {
  char buf[200];
  std::snprintf(buf, sizeof buf, "ETMv%u.%u trace_id=0x%x%s%s%s ctxtid=%uB %s%s", major(), minor(), trace_id(),
                cycle_accurate() ? " cycle-accurate" : "",
                timestamps_enabled() ? (ts_64bit() ? " timestamps(64-bit)" : " timestamps(48-bit)") : "",
                alt_branch() ? " alt-branch" : "", context_id_bytes(),
                instr_trace() ? (data_trace() ? "instruction+data" : "instruction-only") : "data-only",
                v7m ? " v7-M" : "");
  return buf;
}

}  // namespace mabutrace::etm3
