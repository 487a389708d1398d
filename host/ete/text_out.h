// SPDX-License-Identifier: MIT
// text_out.h: appending text and JSON to a std::string, for the ETE listings
// (packets: ete_packet_text.h; elements: ete_decode/ete_element.h).
//
// JSON strings, keys included, go through JsonEscape (format/json_escape.h),
// the toolkit's one escaper: a device name from a snapshot .ini may hold any
// byte, and the listing must still parse.
#ifndef MABUTRACE_HOST_ETE_TEXT_OUT_H
#define MABUTRACE_HOST_ETE_TEXT_OUT_H

#include <cstdint>
#include <string>
#include <string_view>

namespace mabutrace::ete {

// printf into *out (each call at most 255 characters).
void Appendf(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Appends one JSON object, member by member:
//   JsonObject o(&out);  o.String("type", "ATOM_F1").Unsigned("offset", 12);  o.End();
// gives {"type":"ATOM_F1","offset":12}.
class JsonObject {
 public:
  explicit JsonObject(std::string* out);
  JsonObject& String(std::string_view key, std::string_view value);
  // "0x1a2b": 64-bit addresses and IDs as strings (JSON numbers are doubles
  // to most readers).
  JsonObject& Hex(std::string_view key, uint64_t value);
  JsonObject& Unsigned(std::string_view key, uint64_t value);
  JsonObject& Bool(std::string_view key, bool value);
  void End();

 private:
  void Key(std::string_view key);
  std::string* out_;
  bool first_ = true;
};

}  // namespace mabutrace::ete

#endif  // MABUTRACE_HOST_ETE_TEXT_OUT_H
