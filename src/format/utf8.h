// SPDX-License-Identifier: MIT
// utf8.h: UTF-8 validation for every string the toolkit writes (JSON and
// protobuf strings must be valid UTF-8: trace-formats.md §1.9, §2.2).
// Bytes that are not valid UTF-8 become U+FFFD, one per byte, so a viewer
// never rejects a file because of a name.
#ifndef MABUTRACE_FORMAT_UTF8_H
#define MABUTRACE_FORMAT_UTF8_H

#include <stddef.h>

namespace mabutrace {

// Length of the valid UTF-8 sequence at s[0 .. avail) (1..4), or 0 if
// invalid or cut short by `avail` (RFC 3629 §4: no overlongs, no
// surrogates, nothing above U+10FFFF). Reads at most 4 bytes, never past
// s + avail; avail >= 1.
inline unsigned Utf8Length(const unsigned char* s, size_t avail) {
  const unsigned c = s[0];
  if (c < 0x80) return 1;
  auto cont = [&](size_t i) { return i < avail && (s[i] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && s[1] < 0xA0) return 0;   // overlong
    if (c == 0xED && s[1] >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && s[1] < 0x90) return 0;   // overlong
    if (c == 0xF4 && s[1] >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

// U+FFFD, written in place of each byte that is not valid UTF-8.
constexpr char kReplacementChar[] = "\xEF\xBF\xBD";

// Bytes of s[0 .. n) to keep so that, made valid UTF-8, it takes at most
// `max_out` bytes: whole characters only, each invalid byte counted as the
// 3 bytes of its U+FFFD. Every writer cuts a name with it, so that a name
// reads the same in every format.
inline size_t Utf8Prefix(const char* s, size_t n, size_t max_out) {
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  size_t i = 0, out = 0;
  while (i < n) {
    const unsigned k = Utf8Length(p + i, n - i);
    const size_t w = k ? k : 3;
    if (out + w > max_out) break;
    i += k ? k : 1;
    out += w;
  }
  return i;
}

// Calls put(const char* p, size_t n) with s[0 .. n) made valid UTF-8, in
// pieces (runs of valid characters, and U+FFFD for each invalid byte).
template <class Put>
void PutValidUtf8(const char* s, size_t n, Put&& put) {
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  size_t run = 0, i = 0;
  while (i < n) {
    const unsigned k = Utf8Length(p + i, n - i);
    if (k) {
      i += k;
      continue;
    }
    if (i > run) put(s + run, i - run);
    put(kReplacementChar, 3);
    run = ++i;
  }
  if (n > run) put(s + run, n - run);
}

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_UTF8_H
