// SPDX-License-Identifier: MIT
// proto_out.h: a minimal protobuf encoder for one message at a time, into a
// fixed scratch buffer (no allocation). Encoding rules: protobuf wire format
// (varint, fixed64, length-delimited), as summarised in trace-formats.md §2.2.
//
// Nested messages reserve a 4-byte padded varint length that is patched
// when the message ends (as Perfetto's protozero does), so nothing is
// encoded twice; a message shorter than 128 bytes (nearly all of a trace's)
// is then moved back 3 bytes to use a 1-byte length, which keeps .pftrace
// files small. A message that does not fit sets overflow(); the caller
// drops it.
#ifndef MABUTRACE_FORMAT_PROTO_OUT_H
#define MABUTRACE_FORMAT_PROTO_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace mabutrace {

class ProtoOut {
 public:
  enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

  ProtoOut(uint8_t* buf, uint32_t cap) : buf_(buf), cap_(cap) {}

  void Reset() { len_ = 0, overflow_ = false; }
  const uint8_t* data() const { return buf_; }
  uint32_t size() const { return len_; }
  bool overflow() const { return overflow_; }
  uint32_t room() const { return cap_ - len_; }

  void Tag(uint32_t field, WireType wt) { Varint((uint64_t(field) << 3) | wt); }
  void Varint(uint64_t v) {
    if (!Room(10)) return;
    while (v >= 0x80) {
      buf_[len_++] = uint8_t(v | 0x80);
      v >>= 7;
    }
    buf_[len_++] = uint8_t(v);
  }
  // uint32/uint64/bool/enum and int32/int64 (negative values sign-extended to
  // 10 bytes, never zig-zag: none of the fields used is sint).
  void U64(uint32_t field, uint64_t v) {
    Tag(field, kVarint);
    Varint(v);
  }
  void I64(uint32_t field, int64_t v) { U64(field, uint64_t(v)); }
  void Fixed64(uint32_t field, uint64_t v) {
    Tag(field, kFixed64);
    if (!Room(8)) return;
    for (int i = 0; i < 8; ++i) buf_[len_++] = uint8_t(v >> (8 * i));
  }
  void Bytes(uint32_t field, const void* data, size_t n) {
    Tag(field, kLengthDelimited);
    Varint(n);
    if (!Room(n)) return;
    memcpy(buf_ + len_, data, n);
    len_ += uint32_t(n);
  }
  void String(uint32_t field, const char* s) { Bytes(field, s, strlen(s)); }
  // Bytes inside an open Begin()/End() bracket.
  void Raw(const void* data, size_t n) {
    if (!Room(n)) return;
    memcpy(buf_ + len_, data, n);
    len_ += uint32_t(n);
  }

  // Begin/End bracket a nested message; Begin returns the length slot.
  uint32_t Begin(uint32_t field) {
    Tag(field, kLengthDelimited);
    if (!Room(4)) return 0;
    const uint32_t slot = len_;
    len_ += 4;
    return slot;
  }
  // Every message begun after `slot` must have ended (proper nesting): the
  // compaction moves their bytes.
  void End(uint32_t slot) {
    if (overflow_) return;
    const uint32_t n = len_ - slot - 4;
    if (n < 0x80) {
      buf_[slot] = uint8_t(n);
      memmove(buf_ + slot + 1, buf_ + slot + 4, n);
      len_ -= 3;
      return;
    }
    buf_[slot + 0] = uint8_t(0x80 | (n & 0x7F));
    buf_[slot + 1] = uint8_t(0x80 | ((n >> 7) & 0x7F));
    buf_[slot + 2] = uint8_t(0x80 | ((n >> 14) & 0x7F));
    buf_[slot + 3] = uint8_t((n >> 21) & 0x7F);
  }

 private:
  bool Room(size_t n) {
    if (overflow_ || len_ + n > cap_) {
      overflow_ = true;
      return false;
    }
    return true;
  }

  uint8_t* buf_;
  uint32_t cap_;
  uint32_t len_ = 0;
  bool overflow_ = false;
};

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_PROTO_OUT_H
