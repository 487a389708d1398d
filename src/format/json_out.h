// json_out.h: a JSON text writer over a fixed staging buffer that is handed
// to a mabutrace_write_fn whenever it fills. No allocation, no printf.
// Strings go through the toolkit's one escaper (json_escape.h).
#ifndef MABUTRACE_FORMAT_JSON_OUT_H
#define MABUTRACE_FORMAT_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mabutrace/mabutrace.h"

namespace mabutrace {

class JsonOut {
 public:
  JsonOut(char* buf, uint32_t cap, mabutrace_write_fn write, void* user)
      : buf_(buf), cap_(cap), write_(write), user_(user) {}

  bool failed() const { return failed_; }
  uint64_t bytes() const { return total_ + len_; }

  void Flush() {
    if (len_ && !failed_ && write_(user_, buf_, len_) != 0) failed_ = true;
    total_ += len_;
    len_ = 0;
  }
  void Raw(const char* s, size_t n) {
    while (n) {
      if (len_ == cap_) Flush();
      size_t k = cap_ - len_ < n ? cap_ - len_ : n;
      memcpy(buf_ + len_, s, k);
      len_ += uint32_t(k);
      s += k;
      n -= k;
    }
  }
  void Raw(const char* s) { Raw(s, strlen(s)); }
  void Char(char c) {
    if (len_ == cap_) Flush();
    buf_[len_++] = c;
  }
  void U64(uint64_t v) {
    char tmp[20];
    int n = 0;
    do {
      tmp[n++] = char('0' + v % 10);
      v /= 10;
    } while (v);
    while (n) Char(tmp[--n]);
  }
  void I64(int64_t v) {
    if (v < 0) {
      Char('-');
      U64(uint64_t(0) - uint64_t(v));
    } else {
      U64(uint64_t(v));
    }
  }
  // ns as microseconds with 3 decimals ("%llu.%03llu"): exact, never a
  // double (trace-formats.md P6).
  void Micros(uint64_t ns) {
    U64(ns / 1000);
    const unsigned frac = unsigned(ns % 1000);
    Char('.');
    Char(char('0' + frac / 100));
    Char(char('0' + frac / 10 % 10));
    Char(char('0' + frac % 10));
  }
  void Hex6(uint32_t rgb) {
    static const char kDigits[] = "0123456789abcdef";
    Char('#');
    for (int shift = 20; shift >= 0; shift -= 4) Char(kDigits[(rgb >> shift) & 0xF]);
  }
  // A quoted string (json_escape.h); NULL is written as "(null)".
  void String(const char* s);
  // s[0 .. n) quoted; an embedded NUL is written as \u0000.
  void String(const char* s, size_t n);

 private:
  char* buf_;
  uint32_t cap_;
  uint32_t len_ = 0;
  uint64_t total_ = 0;
  mabutrace_write_fn write_;
  void* user_;
  bool failed_ = false;
};

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_JSON_OUT_H
