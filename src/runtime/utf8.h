// utf8.h: UTF-8 validation shared by the exporters (JSON and protobuf
// strings must be valid UTF-8: trace-formats.md §1.9, §2.2).
#ifndef MABUTRACE_RUNTIME_UTF8_H
#define MABUTRACE_RUNTIME_UTF8_H

namespace mabutrace {

// Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid
// (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
inline unsigned Utf8Length(const unsigned char* s) {
  const unsigned c = s[0];
  if (c < 0x80) return 1;
  auto cont = [](unsigned char b) { return (b & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(s[1]) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(s[1]) || !cont(s[2])) return 0;
    if (c == 0xE0 && s[1] < 0xA0) return 0;   // overlong
    if (c == 0xED && s[1] >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(s[1]) || !cont(s[2]) || !cont(s[3])) return 0;
    if (c == 0xF0 && s[1] < 0x90) return 0;   // overlong
    if (c == 0xF4 && s[1] >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}


// U+FFFD, written in place of each byte that is not valid UTF-8.
constexpr char kReplacementChar[] = "\xEF\xBF\xBD";

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_UTF8_H
