// SPDX-License-Identifier: MIT
// json_text.h: JSON text on a host, for every listing and report the tools
// print (jsonl of `stm`/`cptracer`/`ete`, `trbe status`, `etm-config`,
// metrics). Strings go through the toolkit's one escaper
// (format/json_escape.h); a document built with nlohmann-json is printed by
// JsonText, which escapes its strings the same way, so no JSON the toolkit
// prints is quoted by anything else.
#ifndef MABUTRACE_HOST_EXPORT_JSON_TEXT_H
#define MABUTRACE_HOST_EXPORT_JSON_TEXT_H

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace mabutrace::exporter {

// `s` as a quoted JSON string: '"' and '\' escaped, control characters as
// \n, \t, ... or \u00XX, bytes that are not UTF-8 as U+FFFD.
std::string JsonString(std::string_view s);
// Appends JsonString(s) to `out`.
void AppendJsonString(std::string& out, std::string_view s);
// A number as JSON: integral -> integer, else the shortest decimal that
// reads back as `v`; NaN and infinities -> null.
std::string JsonNumber(double v);
// `j` as JSON text, laid out as nlohmann's dump(indent) lays it out
// (indent < 0: one line, no spaces), its strings through JsonEscape.
std::string JsonText(const nlohmann::ordered_json& j, int indent = 2);

}  // namespace mabutrace::exporter

#endif  // MABUTRACE_HOST_EXPORT_JSON_TEXT_H
