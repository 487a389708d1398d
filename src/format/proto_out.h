// SPDX-License-Identifier: MIT
// proto_out.h: a minimal protobuf encoder for one message at a time, into a
// fixed scratch buffer (no allocation). Encoding rules: protobuf wire format
// (varint, fixed64, length-delimited), as summarised in trace-formats.md §2.2.
//
// Nested messages reserve a 1-byte length that is patched when the
// message ends, so nothing is encoded twice and a message shorter than 128
// bytes (nearly all of a trace's) costs no move; a longer one is moved
// forward 3 bytes for a 4-byte padded varint length (as Perfetto's
// protozero writes them). A message that does not fit sets overflow(); the
// caller drops it.
#ifndef MABUTRACE_FORMAT_PROTO_OUT_H
#define MABUTRACE_FORMAT_PROTO_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace mabutrace {

class ProtoOut {
 public:
  enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };
  static constexpr bool kChecked = true;  // see ShortProto

  ProtoOut(uint8_t* buf, uint32_t cap) : buf_(buf), cap_(cap), full_cap_(cap) {}

  void Reset() { len_ = 0, cap_ = full_cap_, overflow_ = false; }
  // Reset() into another buffer.
  void Rebind(uint8_t* buf, uint32_t cap) {
    buf_ = buf;
    full_cap_ = cap;
    Reset();
  }
  const uint8_t* data() const { return buf_; }
  uint32_t size() const { return len_; }
  bool overflow() const { return overflow_; }
  uint32_t room() const { return overflow_ ? 0 : cap_ - len_; }

  void Tag(uint32_t field, WireType wt) { Varint((uint64_t(field) << 3) | wt); }
  void Varint(uint64_t v) {
    if (!Room(10)) return;
    // Through locals: a byte store may alias any member, which would make
    // every byte reload and store len_.
    uint8_t* const b = buf_;
    uint32_t len = len_;
    while (v >= 0x80) {
      b[len++] = uint8_t(v | 0x80);
      v >>= 7;
    }
    b[len++] = uint8_t(v);
    len_ = len;
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
    uint8_t le[8];
    for (int i = 0; i < 8; ++i) le[i] = uint8_t(v >> (8 * i));
    memcpy(buf_ + len_, le, 8);
    len_ += 8;
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
  // The slot is one byte, which is the length's whole varint for a message
  // under 128 bytes (nearly all of a trace's): nothing moves. A longer one
  // is moved forward 3 bytes at End to make room for a 4-byte padded
  // varint (as Perfetto's protozero writes lengths).
  uint32_t Begin(uint32_t field) {
    Tag(field, kLengthDelimited);
    if (!Room(4)) return 0;
    cap_ -= 3;  // kept for End, so that room() counts a long message's length
    return len_++;
  }
  // Every message begun after `slot` must have ended (proper nesting): a
  // long message moves their bytes with its own.
  void End(uint32_t slot) {
    if (overflow_) return;
    cap_ += 3;
    const uint32_t n = len_ - slot - 1;
    if (n < 0x80) {
      buf_[slot] = uint8_t(n);
      return;
    }
    memmove(buf_ + slot + 4, buf_ + slot + 1, n);
    buf_[slot + 0] = uint8_t(0x80 | (n & 0x7F));
    buf_[slot + 1] = uint8_t(0x80 | ((n >> 7) & 0x7F));
    buf_[slot + 2] = uint8_t(0x80 | ((n >> 14) & 0x7F));
    buf_[slot + 3] = uint8_t((n >> 21) & 0x7F);
    len_ += 3;
  }

 private:
  // After an overflow cap_ is 0, so that one compare refuses every later
  // write.
  bool Room(size_t n) {
    if (len_ + n > cap_) {
      overflow_ = true;
      cap_ = 0;
      return false;
    }
    return true;
  }

  uint8_t* buf_;
  uint32_t cap_;
  uint32_t full_cap_;
  uint32_t len_ = 0;
  bool overflow_ = false;
};

// The encoder of a message known to be shorter than 128 bytes with every
// message nested in it, written where room for it was made: the bytes
// ProtoOut writes for it (every length is then its 1-byte slot), without a
// bounds check or a member store per field. Same calls as ProtoOut, so one
// template encodes through either (perfetto_writer.cpp's event packets).
class ShortProto {
 public:
  static constexpr bool kChecked = false;  // the caller bounded the message
  explicit ShortProto(uint8_t* at) : p_(at) {}
  uint8_t* end() const { return p_; }

  void Tag(uint32_t field, ProtoOut::WireType wt) { Varint((uint64_t(field) << 3) | wt); }
  void Varint(uint64_t v) {
    uint8_t* p = p_;
    while (v >= 0x80) {
      *p++ = uint8_t(v | 0x80);
      v >>= 7;
    }
    *p++ = uint8_t(v);
    p_ = p;
  }
  void U64(uint32_t field, uint64_t v) {
    Tag(field, ProtoOut::kVarint);
    Varint(v);
  }
  void I64(uint32_t field, int64_t v) { U64(field, uint64_t(v)); }
  void Fixed64(uint32_t field, uint64_t v) {
    Tag(field, ProtoOut::kFixed64);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p_, &v, 8);  // already the wire's byte order: one store
#else
    uint8_t le[8];
    for (int i = 0; i < 8; ++i) le[i] = uint8_t(v >> (8 * i));
    memcpy(p_, le, 8);
#endif
    p_ += 8;
  }
  void Bytes(uint32_t field, const void* data, size_t n) {
    Tag(field, ProtoOut::kLengthDelimited);
    Varint(n);
    memcpy(p_, data, n);
    p_ += n;
  }
  void String(uint32_t field, const char* s) { Bytes(field, s, strlen(s)); }
  uint8_t* Begin(uint32_t field) {
    Tag(field, ProtoOut::kLengthDelimited);
    return p_++;
  }
  void End(uint8_t* slot) { *slot = uint8_t(p_ - slot - 1); }

 private:
  uint8_t* p_;
};

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_PROTO_OUT_H
