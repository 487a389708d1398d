// SPDX-License-Identifier: MIT
// proto_in.h: a bounds-checked reader of the protobuf wire format
// (protobuf.dev/programming-guides/encoding: varint, I64, LEN, I32 records;
// groups, wire types 3 and 4, are refused). The read side of
// format/proto_out.h, for the readers of this folder.
//
// A ProtoIn walks one message's bytes [data, data + size) field by field.
// It never reads outside them: a field that would (a varint of more than 10
// bytes, a length past the end, a group) stops the walk with error() set
// and offset() at the field's first byte, relative to `data`.
#ifndef MABUTRACE_HOST_IMPORT_PROTO_IN_H
#define MABUTRACE_HOST_IMPORT_PROTO_IN_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mabutrace::host {

// Decodes a varint at p[0 .. n): its byte count (1..10), or 0 if it is cut
// short or longer than 10 bytes.
inline size_t ReadVarint(const uint8_t* p, size_t n, uint64_t* v) {
  uint64_t r = 0;
  for (size_t i = 0; i < n && i < 10; ++i) {
    r |= uint64_t(p[i] & 0x7F) << (7 * i);
    if (!(p[i] & 0x80)) {
      *v = r;
      return i + 1;
    }
  }
  return 0;
}

class ProtoIn {
 public:
  enum WireType : uint32_t { kVarint = 0, kI64 = 1, kLen = 2, kI32 = 5 };

  ProtoIn(const uint8_t* data, size_t size) : p_(data), begin_(data), end_(data + size) {}
  explicit ProtoIn(std::string_view bytes) : ProtoIn(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) {}

  // Steps to the next field: true with field()/wire_type() and its value
  // (u64() for varint, I64 and I32; bytes() for LEN), false at the end of
  // the message or on a malformed field (error()).
  bool Next() {
    if (p_ == end_ || error_) return false;
    field_start_ = p_;
    uint64_t key;
    size_t k = ReadVarint(p_, size_t(end_ - p_), &key);
    if (!k || (key >> 3) == 0 || (key >> 3) > 0x1FFFFFFF) return Fail();
    p_ += k;
    field_ = uint32_t(key >> 3);
    wire_ = uint32_t(key & 7);
    const size_t left = size_t(end_ - p_);
    switch (wire_) {
      case kVarint:
        if (!(k = ReadVarint(p_, left, &u64_))) return Fail();
        p_ += k;
        return true;
      case kI64:
        if (left < 8) return Fail();
        u64_ = 0;
        for (int i = 7; i >= 0; --i) u64_ = u64_ << 8 | p_[i];
        p_ += 8;
        return true;
      case kI32:
        if (left < 4) return Fail();
        u64_ = uint64_t(p_[0]) | uint64_t(p_[1]) << 8 | uint64_t(p_[2]) << 16 | uint64_t(p_[3]) << 24;
        p_ += 4;
        return true;
      case kLen: {
        uint64_t len;
        if (!(k = ReadVarint(p_, left, &len)) || len > left - k) return Fail();
        bytes_ = std::string_view(reinterpret_cast<const char*>(p_ + k), size_t(len));
        p_ += k + len;
        return true;
      }
      default: return Fail();  // groups (3, 4) and the unused 6, 7
    }
  }

  uint32_t field() const { return field_; }
  uint32_t wire_type() const { return wire_; }
  uint64_t u64() const { return u64_; }
  int64_t i64() const { return int64_t(u64_); }  // int64 / int32 fields (two's complement)
  std::string_view bytes() const { return bytes_; }
  ProtoIn Sub() const { return ProtoIn(bytes_); }  // the LEN field as a message
  bool error() const { return error_; }
  size_t offset() const { return size_t(field_start_ - begin_); }  // of the current (or failing) field

 private:
  bool Fail() {
    error_ = true;
    return false;
  }
  const uint8_t* p_;
  const uint8_t* begin_;
  const uint8_t* end_;
  const uint8_t* field_start_ = begin_;
  uint32_t field_ = 0, wire_ = 0;
  uint64_t u64_ = 0;
  std::string_view bytes_;
  bool error_ = false;
};

}  // namespace mabutrace::host

#endif  // MABUTRACE_HOST_IMPORT_PROTO_IN_H
