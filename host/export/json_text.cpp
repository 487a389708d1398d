// SPDX-License-Identifier: MIT
// json_text.cpp: see json_text.h.
#include "json_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "format/json_escape.h"

namespace mabutrace::exporter {
namespace {

void Put(std::string& out, const nlohmann::ordered_json& j, int indent, int depth) {
  using Type = nlohmann::ordered_json::value_t;
  const auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(size_t(indent) * size_t(d), ' ');
  };
  switch (j.type()) {
    case Type::object:
    case Type::array: {
      const bool object = j.is_object();
      if (j.empty()) {
        out += object ? "{}" : "[]";
        return;
      }
      out += object ? '{' : '[';
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out += ',';
        first = false;
        newline(depth + 1);
        if (object) {
          AppendJsonString(out, it.key());
          out += indent < 0 ? ":" : ": ";
        }
        Put(out, it.value(), indent, depth + 1);
      }
      newline(depth);
      out += object ? '}' : ']';
      return;
    }
    case Type::string: AppendJsonString(out, j.get_ref<const std::string&>()); return;
    case Type::number_float: out += JsonNumber(j.get<double>()); return;
    default:  // null, boolean, integers: no strings in them
      out += j.dump();
  }
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  JsonEscape(s.data(), s.size(), [&out](const char* p, size_t n) { out.append(p, n); });
}

std::string JsonString(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendJsonString(out, s);
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

std::string JsonText(const nlohmann::ordered_json& j, int indent) {
  std::string out;
  Put(out, j, indent, 0);
  return out;
}

}  // namespace mabutrace::exporter
