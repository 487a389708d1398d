// SPDX-License-Identifier: MIT
// etm4_decode_fuzz: libFuzzer target for the element decoder configured as
// an ETMv4 trace unit (A/R or M profile), fed by the real packet processor
// (issue 15).
//
// Input layout: byte 0 selects: bits [1:0] MAXSPEC 0/4/255, bit 2 return
// stack, bit 3 M-profile PE, bit 4 Armv7-M (Exception Return is P0), bit 5
// COMMOPT; bytes 1..256 (if present) are a program image at 0x1000 (read as
// A64 or A32/T32, as the trace's context says) and at 0x8000; the rest is the
// trace (ErrorPolicy::kOpenCsd, so malformed packets reach the decoder).
// Invariants: element indexes stay inside the input, executed ranges are
// non-empty with at most (end - start) / 2 instructions, every element
// renders as text and JSON; ASan/UBSan catch the rest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ete_fuzz_element_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t sel = data[0];
  mabutrace::ete::EteConfig cfg;
  cfg.trcidr0 = (sel & 32) ? 0x28000EA1 : 0x08000EA1;
  cfg.trcidr2 = 0x00000488;
  cfg.trcdevarch = 0x47714A13;  // ETMv4.1
  cfg.trctraceidr = 0x10;
  cfg.trcidr8 = (sel & 3) == 0 ? 0 : (sel & 3) == 1 ? 4 : 255;  // MAXSPEC
  if (sel & 4) cfg.trcconfigr |= 0x1000;                        // TRCCONFIGR.RS
  cfg.m_profile = (sel & 8) != 0;
  cfg.m_profile_v7 = cfg.m_profile && (sel & 16);
  mabutrace_fuzz::DecodeChecked(cfg, data + 1, size - 1, size);
  return 0;
}
