// SPDX-License-Identifier: MIT
// stp_encoder.h: writes MIPI STPv2 packets (the inverse of StpDecoder), for
// the CP_Tracer simulator, tests and fuzz seeds. Same opcode table and nibble
// order as stp_decoder.h. Timestamps are written natural-binary (VERSION 3)
// as a full field of `ts_nibbles` nibbles (1-16; 13 and 15 are rounded up to
// the next codable length). Memory: the output vector.
#ifndef MABUTRACE_HOST_STM_STP_ENCODER_H
#define MABUTRACE_HOST_STM_STP_ENCODER_H

#include <cstdint>
#include <vector>

namespace mabutrace::stm {

class StpEncoder {
 public:
  void Async();                 // 21 x F, 0
  void Version(uint8_t v = 3);  // F00 v
  void Master8(uint8_t m);      // M8
  void Master16(uint16_t m);    // F1 M16
  void Channel8(uint8_t c);     // C8
  void Channel16(uint16_t c);   // F3 C16
  void Freq(uint32_t hz);       // F08
  void Null();                  // 0
  void Flag(bool ts = false, uint64_t ts_value = 0);
  void Trigger(uint8_t v);  // F06
  // D4/D8/D16/D32/D64 (`bits`), with marker and/or timestamp variants.
  void Data(unsigned bits, uint64_t value, bool marker = false, bool ts = false, uint64_t ts_value = 0);
  void Nibble(uint8_t n);  // raw nibble (for hand-made tests)
  void set_ts_nibbles(unsigned n) { ts_nibbles_ = n; }
  // The bytes so far; an odd nibble count is padded with a NULL nibble.
  std::vector<uint8_t> Bytes() const;

 private:
  void Value(uint64_t v, unsigned nibbles);
  void Ts(uint64_t v);
  std::vector<uint8_t> nib_;
  unsigned ts_nibbles_ = 16;
};

}  // namespace mabutrace::stm

#endif  // MABUTRACE_HOST_STM_STP_ENCODER_H
