// SPDX-License-Identifier: MIT
// json_escape.h: the one JSON string escaper of the toolkit. Every JSON
// text mabutrace writes (device exports, host writers, jsonl listings, CLI
// reports) quotes its strings through JsonEscape.
//
// Rules (RFC 8259 §7, trace-formats.md §1.9): '"' and '\\' are escaped
// with a backslash; U+0000..U+001F become \b \f \n \r \t or \u00XX; other
// bytes pass as UTF-8, and bytes that are not valid UTF-8 become U+FFFD
// (utf8.h), so that a viewer's JSON.parse never fails on a name.
//
// Header only, no allocation: put(const char* p, size_t n) receives the
// output in pieces (a fixed staging buffer on a device, a std::string on a
// host).
#ifndef MABUTRACE_FORMAT_JSON_ESCAPE_H
#define MABUTRACE_FORMAT_JSON_ESCAPE_H

#include <stddef.h>

#include "utf8.h"

namespace mabutrace {

// Puts s[0 .. n) as a quoted JSON string (quotes included).
template <class Put>
void JsonEscape(const char* s, size_t n, Put&& put) {
  static const char kHex[] = "0123456789abcdef";
  put("\"", 1);
  size_t run = 0;  // start of the bytes not yet put that need no escape
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const unsigned k = Utf8Length(p + i, n - i);
      if (k) {
        i += k;
        continue;
      }
    }
    if (i > run) put(s + run, i - run);
    char esc[6] = {'\\', 0, 0, 0, 0, 0};
    size_t len = 2;
    switch (c) {
      case '"': esc[1] = '"'; break;
      case '\\': esc[1] = '\\'; break;
      case '\b': esc[1] = 'b'; break;
      case '\f': esc[1] = 'f'; break;
      case '\n': esc[1] = 'n'; break;
      case '\r': esc[1] = 'r'; break;
      case '\t': esc[1] = 't'; break;
      default:
        if (c < 0x20) {
          esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = kHex[c >> 4], esc[5] = kHex[c & 0xF];
          len = 6;
        } else {
          len = 0;  // an invalid UTF-8 byte
        }
    }
    if (len) {
      put(esc, len);
    } else {
      put(kReplacementChar, 3);
    }
    run = ++i;
  }
  if (n > run) put(s + run, n - run);
  put("\"", 1);
}

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_JSON_ESCAPE_H
