// SPDX-License-Identifier: MIT
// etm4_packets_fuzz: libFuzzer target for the ETE/ETMv4 packet processor
// configured as an ETMv4 trace unit, behind each buffer format (raw,
// CoreSight frames, DSTREAM blocks + frames with FSYNCs), issue 15.
//
// Input layout: byte 0 selects the configuration: bits [1:0] the ETMv4
// minor version (0, 1, 3, 6: Ignore from 4.3, TS marker from 4.6), bit 2 an
// M-profile PE (0x05 Function Return, extended exception numbers), bits
// [4:3] the buffer format (source_data, coresight, dstream_coresight),
// bit 5 the error policy, bit 6 COMMOPT, bit 7 one-byte pushes; the rest is
// the trace. Invariants: every packet has 1..kMaxPacketBytes bytes, its
// index stays inside the input, and its text and JSON renderings work;
// ASan/UBSan catch the rest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "ete/ete_source.h"
#include "ete_fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  ++data;
  --size;
  static constexpr uint32_t kMinor[4] = {0, 1, 3, 6};
  mabutrace::ete::EteConfig cfg;
  cfg.trcidr0 = (sel & 64) ? 0x28000EA1 : 0x08000EA1;
  cfg.trcidr2 = 0x00000488;
  cfg.trcdevarch = 0x47704A13 | (kMinor[sel & 3] << 16);  // ETMv4.minor
  cfg.trctraceidr = 0x10;
  cfg.m_profile = (sel & 4) != 0;
  if (cfg.is_ete()) abort();
  using mabutrace::snapshot::BufferFormat;
  const BufferFormat formats[4] = {BufferFormat::kSourceData, BufferFormat::kCoresight, BufferFormat::kDstreamCoresight,
                                   BufferFormat::kCoresight};
  const BufferFormat format = formats[(sel >> 3) & 3];
  const auto policy = (sel & 32) ? mabutrace::ete::ErrorPolicy::kOpenCsd : mabutrace::ete::ErrorPolicy::kResync;
  mabutrace::ete::TraceUnitArch arch;
  arch.ete = false;
  arch.major = 4;
  arch.minor = static_cast<uint8_t>(kMinor[sel & 3]);
  mabutrace_fuzz::PacketsChecked({"fuzz", cfg, arch}, format, policy, (sel & 128) ? 1 : size + 1, data, size);
  return 0;
}
