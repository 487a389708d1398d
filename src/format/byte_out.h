// SPDX-License-Identifier: MIT
// byte_out.h: the output of every writer in the format layer: a fixed
// staging buffer handed to a mabutrace_write_fn whenever it fills (and at
// Flush). No allocation. The buffer belongs to the caller (on a device,
// the export workspace; on a host, a vector of the writer's owner) and
// must outlive the ByteOut. Not thread-safe: one writer at a time.
#ifndef MABUTRACE_FORMAT_BYTE_OUT_H
#define MABUTRACE_FORMAT_BYTE_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mabutrace/mabutrace.h"

#if defined(__GNUC__)
#define MT_FORMAT_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define MT_FORMAT_LIKELY(x) (x)
#endif

namespace mabutrace {

class ByteOut {
 public:
  // `write` gets the bytes in pieces of at most `cap`; its non-zero return
  // makes failed() true and drops all later output (the writer still runs
  // to the end, so callers need not check after every call).
  ByteOut(char* buf, uint32_t cap, mabutrace_write_fn write, void* user)
      : buf_(buf), cap_(cap), write_(write), user_(user) {}

  bool failed() const { return failed_; }
  // Bytes written so far, flushed or not.
  uint64_t bytes() const { return total_ + len_; }

  void Flush() {
    if (len_ && !failed_ && write_(user_, buf_, len_) != 0) failed_ = true;
    total_ += len_;
    len_ = 0;
  }
  void Raw(const char* s, size_t n) {
    // Nearly every piece fits what is left: one compare and a copy that,
    // for a literal, the compiler makes a few moves.
    if (MT_FORMAT_LIKELY(n <= cap_ - len_)) {
      memcpy(buf_ + len_, s, n);
      len_ += uint32_t(n);
      return;
    }
    RawSplit(s, n);
  }
  void Raw(const char* s) { Raw(s, strlen(s)); }
  void Char(char c) {
    if (len_ == cap_) Flush();
    buf_[len_++] = c;
  }

  // Room for n more bytes at the returned pointer, flushing first when
  // they do not fit; nullptr when the buffer is smaller than n (then write
  // through Raw). Commit(k) (k <= n) makes the first k of them output.
  char* Room(uint32_t n) {
    if (MT_FORMAT_LIKELY(n <= cap_ - len_)) return buf_ + len_;
    Flush();
    return n <= cap_ ? buf_ : nullptr;
  }
  void Commit(uint32_t k) { len_ += k; }

 private:
  void RawSplit(const char* s, size_t n) {
    while (n) {
      if (len_ == cap_) Flush();
      size_t k = cap_ - len_ < n ? cap_ - len_ : n;
      memcpy(buf_ + len_, s, k);
      len_ += uint32_t(k);
      s += k;
      n -= k;
    }
  }

  char* buf_;
  uint32_t cap_;
  uint32_t len_ = 0;
  uint64_t total_ = 0;
  mabutrace_write_fn write_;
  void* user_;
  bool failed_ = false;
};

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_BYTE_OUT_H
