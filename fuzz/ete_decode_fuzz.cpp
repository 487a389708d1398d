// SPDX-License-Identifier: MIT
// ete_decode_fuzz: libFuzzer target for the ETE element generator
// (packets -> elements, issue 6; §9 reliability).
//
// Input layout: byte 0 selects the configuration (MAXSPEC 0/4/255, return
// stack, COMMOPT, TS markers, COMMTRANS); bytes 1..256 (if present) are an
// A64 program image at 0x1000 and also an A32/T32 image at 0x8000; the rest
// is trace, pushed through the real packet processor (ErrorPolicy::kOpenCsd,
// so malformed packets reach the element decoder). Invariants checked:
// element indexes stay inside the input and never precede the previous
// element's packet by more than the speculation window allows (they are
// checked to be within the input only), executed ranges are non-empty with
// end > start and at most (end - start) / 2 instructions, every element
// renders as text and JSON, and the decoder's memory stays bounded
// (ASan/UBSan catch any out-of-bounds access).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ete_fuzz_element_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t sel = data[0];
  mabutrace::ete::EteConfig cfg;
  cfg.trcidr8 = (sel & 3) == 0 ? 0 : (sel & 3) == 1 ? 4 : 255;  // MAXSPEC
  if (sel & 4) cfg.trcconfigr |= 0x1000;                        // TRCCONFIGR.RS
  if (sel & 8) cfg.trcidr0 |= 1u << 29;                         // COMMOPT
  if (sel & 16) {                                               // ETE 1.1 + TSMARK
    cfg.trcidr0 |= 1u << 23;
    cfg.trcdevarch = (cfg.trcdevarch & ~0xF0000u) | 0x10000u;
  }
  if (sel & 32) cfg.trcidr0 |= 1u << 30;  // COMMTRANS
  mabutrace_fuzz::DecodeChecked(cfg, data + 1, size - 1, size);
  return 0;
}
