// SPDX-License-Identifier: MIT
// stp_encoder.cpp: see stp_encoder.h.
#include "stp_encoder.h"

#include <cstddef>

namespace mabutrace::stm {

void StpEncoder::Nibble(uint8_t n) { nib_.push_back(n & 0xF); }

void StpEncoder::Value(uint64_t v, unsigned nibbles) {
  for (unsigned i = nibbles; i-- > 0;) Nibble(static_cast<uint8_t>(v >> (4 * i)));
}

void StpEncoder::Ts(uint64_t v) {
  unsigned n = ts_nibbles_ == 0 ? 1 : ts_nibbles_ > 16 ? 16 : ts_nibbles_;
  if (n == 13) n = 14;
  if (n == 15) n = 16;
  Nibble(n == 14 ? 0xD : n == 16 ? 0xE : static_cast<uint8_t>(n));
  Value(v, n);
}

void StpEncoder::Async() {
  for (int i = 0; i < 21; ++i) Nibble(0xF);
  Nibble(0);
}
void StpEncoder::Version(uint8_t v) {
  Value(0xF00, 3);
  Nibble(v);
}
void StpEncoder::Master8(uint8_t m) {
  Nibble(1);
  Value(m, 2);
}
void StpEncoder::Master16(uint16_t m) {
  Value(0xF1, 2);
  Value(m, 4);
}
void StpEncoder::Channel8(uint8_t c) {
  Nibble(3);
  Value(c, 2);
}
void StpEncoder::Channel16(uint16_t c) {
  Value(0xF3, 2);
  Value(c, 4);
}
void StpEncoder::Freq(uint32_t hz) {
  Value(0xF08, 3);
  Value(hz, 8);
}
void StpEncoder::Null() { Nibble(0); }
void StpEncoder::Trigger(uint8_t v) {
  Value(0xF06, 3);
  Value(v, 2);
}

void StpEncoder::Flag(bool ts, uint64_t ts_value) {
  if (ts) {
    Nibble(0xE);
    Ts(ts_value);
  } else {
    Value(0xFE, 2);
  }
}

void StpEncoder::Data(unsigned bits, uint64_t value, bool marker, bool ts, uint64_t ts_value) {
  unsigned k = bits == 4 ? 4 : bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
  const unsigned nibbles = bits == 4 ? 1 : bits / 4;
  if (k == 4) {  // D4: C, D (MTS), FC (TS), FD (M)
    if (marker && ts)
      Nibble(0xD);
    else if (ts)
      Value(0xFC, 2);
    else if (marker)
      Value(0xFD, 2);
    else
      Nibble(0xC);
  } else if (marker && ts) {
    Nibble(static_cast<uint8_t>(0x8 + k));
  } else if (ts) {
    Value(0xF4 + k, 2);
  } else if (marker) {
    Value(0xF8 + k, 2);
  } else {
    Nibble(static_cast<uint8_t>(0x4 + k));
  }
  Value(value, nibbles);
  if (ts) Ts(ts_value);
}

std::vector<uint8_t> StpEncoder::Bytes() const {
  std::vector<uint8_t> out((nib_.size() + 1) / 2, 0);
  for (std::size_t i = 0; i < nib_.size(); ++i) out[i / 2] |= static_cast<uint8_t>(nib_[i] << (4 * (i & 1)));
  return out;
}

}  // namespace mabutrace::stm
