// json_text.h: the pieces cptracer's JSON is made of (the jsonl of
// `cptracer decode`, metrics, register values). Strings go through the
// toolkit's one escaper, format/json_escape.h.
#ifndef MABUTRACE_HOST_CPTRACER_JSON_TEXT_H
#define MABUTRACE_HOST_CPTRACER_JSON_TEXT_H

#include <string>
#include <string_view>

namespace mabutrace::cptracer {

// `s` as a quoted JSON string: '"' and '\' escaped, control characters as
// \n, \t, ... or \u00XX, bytes that are not UTF-8 as U+FFFD.
std::string JsonString(std::string_view s);
// A number as JSON: integral -> integer, else the shortest decimal that
// reads back as `v`; NaN and infinities -> null.
std::string JsonNumber(double v);

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_JSON_TEXT_H
