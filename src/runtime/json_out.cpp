// json_out.cpp: JSON string escaping with UTF-8 validation.
#include "json_out.h"

#include "utf8.h"

namespace mabutrace {


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
        Raw(kReplacementChar, 3);  // U+FFFD
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
