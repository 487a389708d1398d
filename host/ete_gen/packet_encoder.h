// SPDX-License-Identifier: MIT
// packet_encoder.h: ETE packet bytes, the inverse of host/ete's packet
// processor (arm-trace-facts.md §4; Arm ARM D5.3). Appends to a byte vector.
//
// Only the packets the generator needs, in their plainest valid forms:
//   A-Sync            00 x11, 80                                   (§4.3)
//   Trace Info        01 00 (no sections: CC=0, SPEC=0)            (§4.4)
//   Trace On          04                                           (§4.6)
//   Timestamp         02 + TS by bit replacement, 7 bits a byte,
//                     9th byte bits[63:56] whole                    (§4.5)
//   Atom F1           F6 = N, F7 = E (one atom a packet)           (§4.15)
//   Atom F2/F3        D8-DB / F8-FF (2 or 3 atoms, oldest in bit 0)
//   Long address 64   9D + 8 bytes, IS0 (A64)                      (§4.12)
//   Address + context 85 + 8 bytes + info byte (EL, SF, NS)        (§4.12)
//   Exception         06, info (E=01, TYPE), long address = PER    (§4.7)
#ifndef MABUTRACE_HOST_ETE_GEN_PACKET_ENCODER_H
#define MABUTRACE_HOST_ETE_GEN_PACKET_ENCODER_H

#include <cstdint>
#include <vector>

namespace mabutrace::ete_gen {

class PacketEncoder {
 public:
  explicit PacketEncoder(std::vector<uint8_t>* out) : out_(out) {}

  void ASync();
  void TraceInfo();  // also forgets the previous timestamp (it resets to 0)
  void TraceOn();
  // Timestamp packet; emits as many 7-bit groups as cover both this value
  // and the previous one (bit replacement keeps untouched high bits).
  void Timestamp(uint64_t value);
  void Atoms(const bool* taken, unsigned n);  // 1..3 atoms, oldest first
  void LongAddress(uint64_t address);         // A64 (IS0), 64-bit
  // el 0..3, AArch64, non-secure.
  void AddressWithContext(uint64_t address, uint8_t el);
  // type: TYPE field (0x02 Call, 0x0E IRQ...), PER as a long address.
  void Exception(uint8_t type, uint64_t preferred_return);

 private:
  void AddressBytes(uint64_t address);
  std::vector<uint8_t>* out_;
  uint64_t last_ts_ = 0;
};

}  // namespace mabutrace::ete_gen

#endif  // MABUTRACE_HOST_ETE_GEN_PACKET_ENCODER_H
