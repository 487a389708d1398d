// SPDX-License-Identifier: MIT
// text_out.cpp: see text_out.h.
#include "ete/text_out.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include "format/json_escape.h"

namespace mabutrace::ete {

void Appendf(std::string* out, const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) out->append(buf, static_cast<size_t>(n) < sizeof buf ? static_cast<size_t>(n) : sizeof buf - 1);
}

namespace {
void Quoted(std::string* out, std::string_view s) {
  JsonEscape(s.data(), s.size(), [out](const char* p, size_t n) { out->append(p, n); });
}
}  // namespace

JsonObject::JsonObject(std::string* out) : out_(out) { out_->push_back('{'); }

void JsonObject::Key(std::string_view key) {
  if (!first_) out_->push_back(',');
  first_ = false;
  Quoted(out_, key);
  out_->push_back(':');
}

JsonObject& JsonObject::String(std::string_view key, std::string_view value) {
  Key(key);
  Quoted(out_, value);
  return *this;
}

JsonObject& JsonObject::Hex(std::string_view key, uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, value);
  return String(key, buf);
}

JsonObject& JsonObject::Unsigned(std::string_view key, uint64_t value) {
  Key(key);
  Appendf(out_, "%" PRIu64, value);
  return *this;
}

JsonObject& JsonObject::Bool(std::string_view key, bool value) {
  Key(key);
  out_->append(value ? "true" : "false");
  return *this;
}

void JsonObject::End() { out_->push_back('}'); }

}  // namespace mabutrace::ete
