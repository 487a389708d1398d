// SPDX-License-Identifier: MIT
// json_out.cpp: JsonOut's strings, through the one escaper (json_escape.h).
#include "json_out.h"

#include "json_escape.h"

namespace mabutrace {

void JsonOut::Escaped(const char* s, size_t n) {
  JsonEscape(s, n, [this](const char* p, size_t k) { Raw(p, k); });
}

void JsonOut::String(const char* s) {
  if (!s) s = "(null)";
  String(s, strlen(s));
}

}  // namespace mabutrace
