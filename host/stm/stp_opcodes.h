// SPDX-License-Identifier: MIT
// stp_opcodes.h: internal to host/stm: the STPv2 opcode table (the table in
// stp_decoder.h; MIPI STPv2 §7, ti-cptracer-facts.md §3.4), timestamp
// helpers and nibble access shared by the decoder's nibble-at-a-time path
// (stp_decoder.cpp) and its whole-packet fast path (stp_fast_path.cpp).
#ifndef MABUTRACE_HOST_STM_STP_OPCODES_H
#define MABUTRACE_HOST_STM_STP_OPCODES_H

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "stp_decoder.h"

namespace mabutrace::stm::stp {

// One row of the opcode table (stp_decoder.h; MIPI STPv2 §7, facts §3.4).
struct OpSpec {
  StpType type;
  uint8_t payload_nibbles;  // fixed payload (USER: the length nibble only)
  bool ts;
  bool marker;
};

inline constexpr OpSpec kReservedOp{StpType::kReserved, 0, false, false};

// 1-nibble opcodes 0..E (F escapes).
inline constexpr OpSpec kOps1[15] = {
    {StpType::kNull, 0, false, false}, {StpType::kM8, 2, false, false},   {StpType::kMerr, 2, false, false},
    {StpType::kC8, 2, false, false},   {StpType::kD8, 2, false, false},   {StpType::kD16, 4, false, false},
    {StpType::kD32, 8, false, false},  {StpType::kD64, 16, false, false}, {StpType::kD8, 2, true, true},
    {StpType::kD16, 4, true, true},    {StpType::kD32, 8, true, true},    {StpType::kD64, 16, true, true},
    {StpType::kD4, 1, false, false},   {StpType::kD4, 1, true, true},     {StpType::kFlag, 0, true, false},
};
// 2-nibble opcodes F1..FE (F0 escapes, FF is ASYNC).
inline constexpr OpSpec kOps2[16] = {
    kReservedOp,
    {StpType::kM16, 4, false, false},
    {StpType::kGerr, 2, false, false},
    {StpType::kC16, 4, false, false},
    {StpType::kD8, 2, true, false},
    {StpType::kD16, 4, true, false},
    {StpType::kD32, 8, true, false},
    {StpType::kD64, 16, true, false},
    {StpType::kD8, 2, false, true},
    {StpType::kD16, 4, false, true},
    {StpType::kD32, 8, false, true},
    {StpType::kD64, 16, false, true},
    {StpType::kD4, 1, true, false},
    {StpType::kD4, 1, false, true},
    {StpType::kFlag, 0, false, false},
    kReservedOp,
};
// 3-nibble opcodes F00..F0F.
inline constexpr OpSpec kOps3[16] = {
    {StpType::kVersion, 1, false, false},
    {StpType::kNull, 0, true, false},
    {StpType::kUser, 1, false, false},
    {StpType::kUser, 1, true, false},
    {StpType::kTime, 2, false, false},
    {StpType::kTime, 2, true, false},
    {StpType::kTrig, 2, false, false},
    {StpType::kTrig, 2, true, false},
    {StpType::kFreq, 8, false, false},
    {StpType::kFreq, 8, true, false},
    {StpType::kXsync, 2, false, false},
    {StpType::kXsync, 2, true, false},
    kReservedOp,
    kReservedOp,
    kReservedOp,
    kReservedOp,
};

inline constexpr uint32_t kAsyncFNibbles = 21;  // ASYNC = 21 x F then 0 (STPv2 §7.2)
inline constexpr uint32_t kAsyncNibbles = 22;

inline uint64_t BinToGray(uint64_t v) { return v ^ (v >> 1); }
inline uint64_t GrayToBin(uint64_t g) {
  for (int s = 1; s < 64; s <<= 1) g ^= g >> s;
  return g;
}

// StpPacket::payload_bits of a packet of this opcode (0: not a sized value).
inline constexpr uint8_t PayloadBits(const OpSpec& op) {
  switch (op.type) {
    case StpType::kD4:
    case StpType::kD8:
    case StpType::kD16:
    case StpType::kD32:
    case StpType::kD64:
    case StpType::kFreq: return static_cast<uint8_t>(4 * op.payload_nibbles);
    case StpType::kTrig:
    case StpType::kMerr:
    case StpType::kGerr: return 8;
    default: return 0;
  }
}

// Types the fast path decodes; the others have side effects or errors of
// their own in the nibble path.
inline constexpr bool FastType(StpType t) {
  return t != StpType::kReserved && t != StpType::kVersion && t != StpType::kUser && t != StpType::kTime;
}

// The fast path's opcode lookup: one entry per value of a packet's first two
// nibbles (n0 | n1 << 4). Its first five bytes are those of
// StpPacketRecord from `type` on (stored as one word with the packet's own
// three); rare: not a 1- or 2-nibble opcode of the fast path: F0 n (look n
// up in kThirdNibbleOps, rare there when the nibble path takes it), ASYNC
// (F F) or a reserved opcode (opcode_nibbles 0).
struct alignas(8) FirstByteOp {
  StpType type;
  bool marker;
  bool ts;
  uint8_t opcode_nibbles;
  uint8_t payload_bits;  // PayloadBits(op)
  uint8_t payload_nibbles;
  bool rare;
  uint8_t unused;
};

inline constexpr FirstByteOp FastOp(const OpSpec& op, uint8_t opcode_nibbles, bool rare) {
  return {op.type, op.marker, op.ts, opcode_nibbles, PayloadBits(op), op.payload_nibbles, rare, 0};
}

inline constexpr FirstByteOp FirstByteOpOf(unsigned two_nibbles) {
  const unsigned n0 = two_nibbles & 0xF, n1 = two_nibbles >> 4;
  if (n0 != 0xF) return FastOp(kOps1[n0], 1, false);
  if (n1 == 0) return FastOp(kReservedOp, 3, true);
  if (n1 == 0xF || kOps2[n1].type == StpType::kReserved) return FastOp(kReservedOp, 0, true);
  return FastOp(kOps2[n1], 2, false);
}

struct FirstByteOps {
  FirstByteOp op[256];
};

inline constexpr FirstByteOps MakeFirstByteOps() {
  FirstByteOps t{};
  for (unsigned i = 0; i < 256; ++i) t.op[i] = FirstByteOpOf(i);
  return t;
}

inline constexpr FirstByteOps kFirstByteOps = MakeFirstByteOps();

// F0 n by n.
struct ThirdNibbleOps {
  FirstByteOp op[16];
};

inline constexpr ThirdNibbleOps MakeThirdNibbleOps() {
  ThirdNibbleOps t{};
  for (unsigned n = 0; n < 16; ++n) t.op[n] = FastOp(kOps3[n], 3, !FastType(kOps3[n].type));
  return t;
}

inline constexpr ThirdNibbleOps kThirdNibbleOps = MakeThirdNibbleOps();

// Timestamp length code (STPv2 §7: 0-12 literal, 13 -> 14, 14 -> 16; 15 is invalid).
inline constexpr uint8_t TsLength(uint8_t code) { return code == 0xD ? 14 : code == 0xE ? 16 : code; }
inline constexpr uint8_t kTsLengths[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 0};

// Nibble q of a byte stream (nibble 2k = bits[3:0] of byte k, 2k+1 = bits[7:4]).
inline uint8_t NibbleAt(const uint8_t* p, size_t q) { return static_cast<uint8_t>((p[q >> 1] >> ((q & 1) * 4)) & 0xF); }

// 8 bytes as a little-endian word: nibble i of the stream at bits [4i+3:4i].
inline uint64_t LoadLe64(const uint8_t* p) {
  if constexpr (std::endian::native == std::endian::little) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  } else {
    uint64_t w = 0;
    for (int i = 7; i >= 0; --i) w = (w << 8) | p[i];
    return w;
  }
}

// Nibble i -> nibble 15 - i.
inline uint64_t ReverseNibbles(uint64_t w) {
  w = __builtin_bswap64(w);
  return ((w >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((w & 0x0F0F0F0F0F0F0F0Full) << 4);
}

// The k-nibble field (1..16) starting at nibble q, most-significant nibble
// first as STPv2 sends it. Reads the 8 bytes (16 for k = 16) from byte q/2:
// the caller guarantees they are readable.
inline uint64_t FieldAt(const uint8_t* p, size_t q, unsigned k) {
  if (k == 16) return (FieldAt(p, q, 8) << 32) | FieldAt(p, q + 8, 8);
  // One load holds at least 15 nibbles from q on; reversing puts nibble q on top.
  const uint64_t w = LoadLe64(p + (q >> 1)) >> ((q & 1) * 4);
  return ReverseNibbles(w) >> (64 - 4 * k);
}

// Bit 4i set where nibble i (counted from the least significant) of v is 0xF.
inline constexpr uint64_t kNibbleLsbs = 0x1111111111111111ull;
inline uint64_t FNibbles(uint64_t v) { return v & (v >> 1) & (v >> 2) & (v >> 3) & kNibbleLsbs; }

}  // namespace mabutrace::stm::stp

#endif  // MABUTRACE_HOST_STM_STP_OPCODES_H
