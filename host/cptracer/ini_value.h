// SPDX-License-Identifier: MIT
// ini_value.h: one "key = value" of a cptracer INI file (the register
// calculator's description, the simulator's workload) read into its field,
// so that every such file has one number syntax and one error shape.
//
// An integer has no sign (decimal, or 0x hex); a real is a finite number;
// each key gives its range. A boolean is 1/0, true/false, yes/no or on/off
// (any case). A value that is none of these, or out of its key's range, is
// the error "[section] key = value: expected ...": never wrapped, cut to
// the field's width or taken as inf. The file's loader puts "FILE:LINE: "
// in front (LoadTracerConfig, LoadWorkload).
//
// The Read methods return what an inih handler returns: 1 when the field
// was set, 0 after *error was set (ini_parse then stops at that line).
#ifndef MABUTRACE_HOST_CPTRACER_INI_VALUE_H
#define MABUTRACE_HOST_CPTRACER_INI_VALUE_H

#include <cstdint>
#include <string>

namespace mabutrace::cptracer {

class IniValue {
 public:
  IniValue(const char* section, const char* key, const char* value, std::string* error)
      : section_(section), key_(key), value_(value), error_(error) {}

  // *error = "[section] key = value: why"; returns 0.
  int Fail(const std::string& why) const;
  // An integer in lo..hi into *field (hi fits the field's type).
  template <typename T>
  int ReadUnsigned(uint64_t lo, uint64_t hi, T* field) const {
    uint64_t u = 0;
    if (!Unsigned(lo, hi, &u)) return 0;
    *field = static_cast<T>(u);
    return 1;
  }
  // A finite real in lo..hi (both inclusive) into *field.
  int ReadReal(double lo, double hi, double* field) const;
  // A finite real above 0 and at most hi into *field.
  int ReadPositive(double hi, double* field) const;
  int ReadBoolean(bool* field) const;

 private:
  bool Unsigned(uint64_t lo, uint64_t hi, uint64_t* out) const;

  const char* section_;
  const char* key_;
  const char* value_;
  std::string* error_;
};

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_INI_VALUE_H
