// SPDX-License-Identifier: MIT
// ini_value.cpp: see ini_value.h.
#include "ini_value.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <strings.h>

namespace mabutrace::cptracer {
namespace {

// A bound as the error message writes it: small ones in decimal, the
// address- and register-sized ones in hex.
std::string IntText(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, v < 0x10000 ? "%llu" : "0x%llX", static_cast<unsigned long long>(v));
  return b;
}

std::string RealText(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", x);
  return b;
}

// The whole of `text` as a finite real, else false (strtod takes "inf",
// "nan" and an overflow like 1e400 as inf; none of them is a setting).
bool FiniteReal(const char* text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text, &end);
  return end != text && *end == '\0' && std::isfinite(*out);
}

}  // namespace

int IniValue::Fail(const std::string& why) const {
  *error_ = std::string("[") + section_ + "] " + key_ + " = " + value_ + ": " + why;
  return 0;
}

bool IniValue::Unsigned(uint64_t lo, uint64_t hi, uint64_t* out) const {
  // strtoull would take a sign or blanks ("-1" wraps to 2^64-1); and an
  // overflow, ULLONG_MAX with ERANGE, must not pass for a value.
  bool ok = std::isdigit(static_cast<unsigned char>(value_[0]));
  char* end = nullptr;
  errno = 0;
  const uint64_t u = ok ? std::strtoull(value_, &end, 0) : 0;
  ok = ok && *end == '\0' && errno != ERANGE && u >= lo && u <= hi;
  if (!ok) {
    Fail("expected an integer " + IntText(lo) + ".." + IntText(hi));
    return false;
  }
  *out = u;
  return true;
}

int IniValue::ReadReal(double lo, double hi, double* field) const {
  double d = 0;
  if (!FiniteReal(value_, &d) || d < lo || d > hi)
    return Fail("expected a number in " + RealText(lo) + ".." + RealText(hi));
  *field = d;
  return 1;
}

int IniValue::ReadPositive(double hi, double* field) const {
  double d = 0;
  if (!FiniteReal(value_, &d) || !(d > 0) || d > hi) return Fail("expected a number above 0, at most " + RealText(hi));
  *field = d;
  return 1;
}

int IniValue::ReadBoolean(bool* field) const {
  static constexpr struct {
    const char* text;
    bool value;
  } kWords[] = {{"1", true},  {"true", true},   {"yes", true}, {"on", true},
                {"0", false}, {"false", false}, {"no", false}, {"off", false}};
  for (const auto& w : kWords) {
    if (strcasecmp(value_, w.text) != 0) continue;
    *field = w.value;
    return 1;
  }
  return Fail("expected 1/0, true/false, yes/no or on/off");
}

}  // namespace mabutrace::cptracer
