// json_text.cpp: see json_text.h.
#include "json_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "format/json_escape.h"

namespace mabutrace::cptracer {

std::string JsonString(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  JsonEscape(s.data(), s.size(), [&out](const char* p, size_t n) { out.append(p, n); });
  return out;
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace mabutrace::cptracer
