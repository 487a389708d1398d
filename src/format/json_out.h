// SPDX-License-Identifier: MIT
// json_out.h: JSON text primitives over a ByteOut (byte_out.h): numbers
// without printf, exact microseconds, colors, and strings through the
// toolkit's one escaper (json_escape.h). No allocation.
#ifndef MABUTRACE_FORMAT_JSON_OUT_H
#define MABUTRACE_FORMAT_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "byte_out.h"

namespace mabutrace {

class JsonOut : public ByteOut {
 public:
  using ByteOut::ByteOut;

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
  // "#rrggbb" without the quotes.
  void Hex6(uint32_t rgb) {
    static const char kDigits[] = "0123456789abcdef";
    Char('#');
    for (int shift = 20; shift >= 0; shift -= 4) Char(kDigits[(rgb >> shift) & 0xF]);
  }
  // A quoted string (json_escape.h); NULL is written as "(null)".
  void String(const char* s);
  // s[0 .. n) quoted; an embedded NUL is written as \u0000.
  void String(const char* s, size_t n);
};

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_JSON_OUT_H
