// json_out.cpp: JSON string escaping with UTF-8 validation.
#include "json_out.h"

namespace mabutrace {

namespace {

// Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid
// (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
unsigned Utf8Length(const unsigned char* s) {
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

}  // namespace

void JsonOut::String(const char* s) {
  static const char kHex[] = "0123456789abcdef";
  if (!s) s = "(null)";
  Char('"');
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  while (*p) {
    const unsigned char c = *p;
    if (c == '"' || c == '\\') {
      Char('\\');
      Char(char(c));
      ++p;
    } else if (c < 0x20) {
      Raw("\\u00", 4);
      Char(kHex[c >> 4]);
      Char(kHex[c & 0xF]);
      ++p;
    } else if (c < 0x80) {
      Char(char(c));
      ++p;
    } else {
      // The NUL terminator stops Utf8Length's look-ahead: it is not a
      // continuation byte, so a truncated sequence is reported invalid.
      const unsigned n = Utf8Length(p);
      if (n == 0) {
        Raw("\xEF\xBF\xBD", 3);  // U+FFFD
        ++p;
      } else {
        Raw(reinterpret_cast<const char*>(p), n);
        p += n;
      }
    }
  }
  Char('"');
}

}  // namespace mabutrace
