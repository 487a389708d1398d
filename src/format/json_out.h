// SPDX-License-Identifier: MIT
// json_out.h: JSON text primitives over a ByteOut (byte_out.h): numbers
// without printf, exact microseconds, colors, and strings through the
// toolkit's one escaper (json_escape.h). No allocation.
#ifndef MABUTRACE_FORMAT_JSON_OUT_H
#define MABUTRACE_FORMAT_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "byte_out.h"

// Numbers as whole words of digits (JsonOut::EightDigits) where a
// little-endian word store writes its bytes in order and the compiler has
// a 32-bit __builtin_clz; elsewhere two digits at a time (a build may set
// it to 0 to test that path).
#ifndef MT_JSON_DIGIT_WORDS
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && __SIZEOF_INT__ >= 4
#define MT_JSON_DIGIT_WORDS 1
#else
#define MT_JSON_DIGIT_WORDS 0
#endif
#endif

namespace mabutrace {

class JsonOut : public ByteOut {
 public:
  using ByteOut::ByteOut;

  void U64(uint64_t v) {
    const unsigned n = DigitCount(v);
    if (char* p = Room(n)) {
      Digits(v, p + n);
      Commit(n);
      return;
    }
    char tmp[20];
    Digits(v, tmp + n);
    Raw(tmp, n);
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
    const uint64_t us = ns / 1000;
    const unsigned frac = unsigned(ns % 1000);
    const unsigned n = DigitCount(us);
    char tmp[24];
    char* p = Room(n + 4);
    if (!p) p = tmp;
    Digits(us, p + n);
    p[n] = '.';
    p[n + 1] = char('0' + frac / 100);
    memcpy(p + n + 2, kPairs + 2 * (frac % 100), 2);
    if (p == tmp) {
      Raw(tmp, n + 4);
    } else {
      Commit(n + 4);
    }
  }
  // A string literal as it is (the same call as Cursor::Lit, so that one
  // template writes an event through either).
  template <size_t N>
  void Lit(const char (&s)[N]) {
    Raw(s, N - 1);
  }
  // s[0 .. n) (the same call as Cursor::RawPadded).
  template <size_t N>
  void RawPadded(const char (&s)[N], size_t n) {
    Raw(s, n);
  }
  // Unchecked writes into room taken with Room(): for an event whose
  // largest size is known, one bounds check instead of one per piece.
  // Done() commits what was written (never more than the room taken).
  // Its calls are JsonOut's, so one template writes an event through
  // either (chrome_json_writer.cpp); String() is the exception: it does not
  // escape.
  class Cursor {
   public:
    Cursor(JsonOut& out, char* room) : out_(out), begin_(room), p_(room) {}
    template <size_t N>
    void Lit(const char (&s)[N]) {
      memcpy(p_, s, N - 1);
      p_ += N - 1;
    }
    void Raw(const char* s, size_t n) {
      SmallCopy(p_, s, n);
      p_ += n;
    }
    void Char(char c) { *p_++ = c; }
    // A number takes kMaxU64Chars of room whatever its length: whole
    // words of digits are stored, then the cursor moves by the digits.
    void U64(uint64_t v) { p_ = PutU64(p_, v); }
    void Micros(uint64_t ns) {
      p_ = PutU64(p_, ns / 1000);
      const unsigned frac = unsigned(ns % 1000);
      p_[0] = '.';
      p_[1] = char('0' + frac / 100);
      memcpy(p_ + 2, kPairs + 2 * (frac % 100), 2);
      p_ += 4;
    }
    // s[0 .. n) from an array of N >= n bytes: all N are stored (one
    // fixed-size move; the room must hold them), the cursor moves by n.
    template <size_t N>
    void RawPadded(const char (&s)[N], size_t n) {
      memcpy(p_, s, N);
      p_ += n;
    }
    void I64(int64_t v) {
      if (v < 0) *p_++ = '-';
      U64(v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v));
    }
    // s[0 .. n) quoted, as it is: JsonOut::PlainString(s, n) must hold.
    void String(const char* s, size_t n) {
      *p_++ = '"';
      Raw(s, n);
      *p_++ = '"';
    }
    void Done() { out_.Commit(uint32_t(p_ - begin_)); }

   private:
    JsonOut& out_;
    char* begin_;
    char* p_;
  };
  static constexpr size_t kMaxU64Chars = 20;
  // v's decimal digits at p, which has room for kMaxU64Chars (all of them
  // may be stored to); returns the end of the digits.
  static char* PutU64(char* p, uint64_t v) {
#if MT_JSON_DIGIT_WORDS
    constexpr uint32_t k1e8 = 100000000;
    if (v < 10) {  // a CPU number, a counter's small value: one byte
      *p = char('0' + v);
      return p + 1;
    }
    if (v < k1e8) return PutBelow1e8(p, uint32_t(v));
    const uint64_t high = v / k1e8;  // below 1.9e11
    if (high < k1e8) {
      p = PutBelow1e8(p, uint32_t(high));
    } else {
      p = PutBelow1e8(p, uint32_t(high / k1e8));  // below 1845
      const uint64_t mid = EightDigits(uint32_t(high % k1e8));
      memcpy(p, &mid, 8);
      p += 8;
    }
    const uint64_t low = EightDigits(uint32_t(v % k1e8));
    memcpy(p, &low, 8);
    return p + 8;
#else
    const unsigned n = DigitCount(v);
    Digits(v, p + n);
    return p + n;
#endif
  }
  static constexpr size_t kMaxMicrosChars = 20 + 4;
  // s[0 .. n) is short and needs no escaping: Cursor::PlainString writes it.
  static bool PlainString(const char* s, size_t n) { return n <= kPlainMax && Plain(s, n); }

  // A quoted string (json_escape.h); NULL is written as "(null)".
  void String(const char* s);
  // s[0 .. n) quoted; an embedded NUL is written as \u0000.
  void String(const char* s, size_t n) {
    // Names are nearly always short printable ASCII: copied as they are.
    if (n <= kPlainMax && Plain(s, n)) {
      if (char* p = Room(uint32_t(n) + 2)) {
        p[0] = '"';
        SmallCopy(p + 1, s, n);
        p[n + 1] = '"';
        Commit(uint32_t(n) + 2);
        return;
      }
    }
    Escaped(s, n);
  }

 private:
  static constexpr size_t kPlainMax = 256;
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";

  static unsigned DigitCount(uint64_t v) {
    unsigned n = 1;
    for (; v >= 10000; v /= 10000) n += 4;
    return n + unsigned(v >= 10) + unsigned(v >= 100) + unsigned(v >= 1000);
  }
#if MT_JSON_DIGIT_WORDS
  // v < 10^8 as eight ASCII digits with leading zeros, the first in the
  // lowest byte (so a little-endian store writes them in order). Each step
  // splits every lane in two by a multiply and shift that divides exactly
  // over the lane's range (10486 / 2^20 for / 100 below 10^4, 103 / 2^10
  // for / 10 below 100: checked for every v in the tests): 4 + 4 digits
  // in 32-bit lanes, then 2 + 2 in 16-bit lanes, then 1 + 1 in bytes.
  static uint64_t EightDigits(uint32_t v) {
    uint64_t x = uint64_t(v / 10000) | uint64_t(v % 10000) << 32;
    const uint64_t hundreds = ((x * 10486) >> 20) & 0x0000007F0000007Full;
    x = hundreds | (x - 100 * hundreds) << 16;
    const uint64_t tens = ((x * 103) >> 10) & 0x000F000F000F000Full;
    x = tens | (x - 10 * tens) << 8;
    return x + 0x3030303030303030ull;
  }
  // v < 10^8 without leading zeros: the eight digits shifted so that the
  // first significant one is the first byte stored.
  static char* PutBelow1e8(char* p, uint32_t v) {
    static constexpr uint32_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    const unsigned guess = ((32 - unsigned(__builtin_clz(v | 1))) * 1233) >> 12;  // floor(log10(2^bits))
    const unsigned n = guess + 1 - unsigned((v | 1) < kPow10[guess]);             // 0 has 1 digit
    const uint64_t digits = EightDigits(v) >> (8 * (8 - n));
    memcpy(p, &digits, 8);
    return p + n;
  }
#endif
  // v's decimal digits (DigitCount(v) of them), ending just before `end`.
  static void Digits(uint64_t v, char* end) {
    char* p = end;
    while (v >= 100) {
      p -= 2;
      memcpy(p, kPairs + 2 * (v % 100), 2);
      v /= 100;
    }
    if (v >= 10) {
      memcpy(p - 2, kPairs + 2 * v, 2);
    } else {
      p[-1] = char('0' + v);
    }
  }
  // No byte of s[0 .. n) needs an escape or a UTF-8 check (json_escape.h):
  // eight bytes at a time, the last word overlapping the one before (a
  // byte is bad if below 0x20, at or above 0x80, '"' or '\\').
  static bool Plain(const char* s, size_t n) {
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    if (n < 8) {
      unsigned bad = 0;
      for (size_t i = 0; i < n; ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        bad |= unsigned(c < 0x20) | unsigned(c >= 0x80) | unsigned(c == '"') | unsigned(c == '\\');
      }
      return bad == 0;
    }
    auto bad = [&](size_t i) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      const uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
      return w | ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash);
    };
    uint64_t any = bad(n - 8);
    for (size_t i = 0; i + 8 < n; i += 8) any |= bad(i);
    return (any & kHigh) == 0;
  }
  // s[0 .. n) into p: overlapping word moves instead of a copy call (short
  // strings; reads and writes stay within both).
  static void SmallCopy(char* p, const char* s, size_t n) {
    if (n >= 8) {
      uint64_t w;
      for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&w, s + i, 8);
        memcpy(p + i, &w, 8);
      }
      memcpy(&w, s + n - 8, 8);
      memcpy(p + n - 8, &w, 8);
    } else if (n >= 4) {
      uint32_t a, b;
      memcpy(&a, s, 4);
      memcpy(&b, s + n - 4, 4);
      memcpy(p, &a, 4);
      memcpy(p + n - 4, &b, 4);
    } else {
      for (size_t i = 0; i < n; ++i) p[i] = s[i];
    }
  }
  void Escaped(const char* s, size_t n);
};

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_JSON_OUT_H
