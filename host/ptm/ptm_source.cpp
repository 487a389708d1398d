// SPDX-License-Identifier: MIT
// ptm_source.cpp: a PTM source's configuration from its snapshot device.
#include "ptm/ptm_source.h"

#include <cstdio>

#include "ete/trace_protocol.h"

namespace mabutrace::ptm {

std::string PtmConfig::Describe() const {
  char s[160];
  std::snprintf(s, sizeof s, "PTM 1.%d trace_id=0x%x cycle_accurate=%d ctxid_bytes=%d ts=%d-bit %s", minor_rev(),
                trace_id(), cycle_accurate() ? 1 : 0, context_id_bytes(), ts_64bit() ? 64 : 48,
                ts_binary() ? "binary" : "gray");
  return s;
}

PtmConfig PtmConfig::FromDevice(const snapshot::Device& d) {
  PtmConfig c;
  c.etmcr = d.RequireReg("ETMCR");
  c.etmtraceidr = d.RequireReg("ETMTRACEIDR", kTraceIdBits);
  c.etmidr = d.Reg32Or("ETMIDR", 0x411CF300);  // PFT 1.0 when absent
  c.etmccer = d.Reg32Or("ETMCCER", 0);
  return c;
}

std::vector<PtmSource> SnapshotPtmSources(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buffer) {
  std::vector<PtmSource> out;
  for (const snapshot::Device* d : snap.SourcesOfBuffer(buffer.name)) {
    const bool is_ptm = ete::ProtocolOfType(d->type) == ete::TraceProtocol::kPtm;
    if (is_ptm) out.push_back({d->name, d->type, PtmConfig::FromDevice(*d)});
    if (buffer.format == snapshot::BufferFormat::kSourceData) break;
  }
  return out;
}

}  // namespace mabutrace::ptm
