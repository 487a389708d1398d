// SPDX-License-Identifier: MIT
// uleb128.h: the ETE continuation-byte field reader (R-F7).
//
// ETE payload fields (COMMIT, CANCEL, SPEC, CYCT, Q COUNT, cycle counts, the
// Trace Info control and section fields) are ULEB128-style
// (arm-trace-facts.md §4.1; Arm ARM D5.1): each byte carries 7 value bits,
// least significant group first, bit 7 = "another byte follows".
//
// A field of N value bits has at most ceil(N / 7) bytes: 5 bytes for 32-bit
// fields, 3 bytes for 20-bit cycle counts, 2 for the 12-bit CYCT. A field
// whose last allowed byte still has bit 7 set is *overlong* (corrupt data):
// the reader reports kOverlong instead of reading on. Value bits above N in
// the last byte are reported through `overflow` (the value is truncated to
// the low 32 bits, as OpenCSD does).
#ifndef MABUTRACE_HOST_ETE_ULEB128_H
#define MABUTRACE_HOST_ETE_ULEB128_H

#include <cstddef>
#include <cstdint>

namespace mabutrace::ete {

enum class UlebStatus : uint8_t {
  kOk,        // complete field
  kNeedMore,  // input ended inside the field
  kOverlong,  // max_bytes read and the last one still has bit 7 set
};

struct UlebResult {
  UlebStatus status;
  uint8_t bytes;   // bytes consumed (kOk) / examined (others)
  bool overflow;   // value had bits above bit 31 (kOk only)
  uint32_t value;  // low 32 bits of the value (kOk only)
};

// Reads one field from p[0..n) of at most `max_bytes` (1..5) bytes.
inline UlebResult ReadUleb(const uint8_t* p, size_t n, unsigned max_bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < max_bytes; ++i) {
    if (i >= n) return {UlebStatus::kNeedMore, static_cast<uint8_t>(i), false, 0};
    v |= static_cast<uint64_t>(p[i] & 0x7F) << (7 * i);
    if ((p[i] & 0x80) == 0)
      return {UlebStatus::kOk, static_cast<uint8_t>(i + 1), (v >> 32) != 0, static_cast<uint32_t>(v)};
  }
  return {UlebStatus::kOverlong, static_cast<uint8_t>(max_bytes), false, 0};
}

// Maximum bytes of an N-bit field.
constexpr unsigned UlebMaxBytes(unsigned value_bits) { return (value_bits + 6) / 7; }

}  // namespace mabutrace::ete

#endif  // MABUTRACE_HOST_ETE_ULEB128_H
