// SPDX-License-Identifier: MIT
// ete_packets_fuzz: libFuzzer target for the CoreSight frame deformatter and
// the ETE packet processor (R-F1, R-F5, §9 reliability).
//
// Input layout: byte 0 selects the configuration bits (COMMOPT, ETE minor
// version, Q support, MAXSPEC, error policy, framed or raw, chunk size); the
// rest is trace. The target checks the invariants of the packet layer:
// every packet has 1..kMaxPacketBytes bytes, packet indexes never go
// backwards within a stream and stay inside the input, and the text and JSON
// renderings never fail. ASan/UBSan catch any out-of-bounds access.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ete/ete_source.h"
#include "ete_fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  ++data;
  --size;
  mabutrace::ete::EteConfig cfg;
  cfg.trcidr0 = (sel & 1) ? 0x28000EA1 : 0x08000EA1;     // COMMOPT 1 / 0
  if (sel & 2) cfg.trcidr0 &= ~(3u << 15);               // no Q support
  cfg.trcdevarch = (sel & 4) ? 0x47735A13 : 0x47705A13;  // ETE r3 (ITE) / r0
  cfg.trcidr8 = (sel & 8) ? 0x78 : 0;                    // MAXSPEC
  cfg.trctraceidr = 0x10;
  const auto policy = (sel & 16) ? mabutrace::ete::ErrorPolicy::kOpenCsd : mabutrace::ete::ErrorPolicy::kResync;
  const auto format =
      (sel & 32) ? mabutrace::snapshot::BufferFormat::kCoresight : mabutrace::snapshot::BufferFormat::kSourceData;
  const size_t chunk = (sel & 64) ? 1 + (sel >> 7) * 6 : size + 1;
  const mabutrace::ete::SourceSpec spec{"fuzz", cfg, mabutrace::ete::TraceUnitArch{}};  // ETE
  mabutrace_fuzz::PacketsChecked(spec, format, policy, chunk, data, size);
  return 0;
}
