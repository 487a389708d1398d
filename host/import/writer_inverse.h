// SPDX-License-Identifier: MIT
// writer_inverse.h: the writers' spellings read back (format/chrome_json_writer.h,
// format/perfetto_writer.h), shared by the readers of this folder, so that a
// trace read and written again says the same.
#ifndef MABUTRACE_HOST_IMPORT_WRITER_INVERSE_H
#define MABUTRACE_HOST_IMPORT_WRITER_INVERSE_H

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "format/trace_vocabulary.h"
#include "mabutrace/mabutrace.h"

namespace mabutrace::host {

// A counter value of another producer (a .json number with a fraction, a
// .pftrace double_counter_value) as the model's int64: rounded to the
// nearest, saturated past int64, nan as 0; *rounded when that changed it.
inline int64_t CounterFromDouble(double d, bool* rounded) {
  const double r = std::nearbyint(d);
  constexpr double kLimit = 9.2233720368547758e18;  // 2^63
  *rounded = !(r == d && r >= -kLimit && r < kLimit);
  if (std::isnan(r)) return 0;
  if (r < -kLimit) return INT64_MIN;
  if (r >= kLimit) return INT64_MAX;
  return int64_t(r);
}

// "#rrggbb" → MABUTRACE_COLOR_SET | 0xRRGGBB; 0 (no color) if it is not one.
inline uint32_t ParseColor(std::string_view s) {
  if (s.size() != 7 || s[0] != '#') return 0;
  uint32_t rgb = 0;
  for (size_t i = 1; i < 7; ++i) {
    const char c = s[i];
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) return 0;
    rgb = rgb << 4 | uint32_t(d);
  }
  return MABUTRACE_COLOR_SET | rgb;
}

// A writer names a thread without a name "thread <tid>": that reads back as
// no name, so that the next writer makes the same one.
inline std::string_view ThreadName(std::string_view name, uint32_t tid) {
  const std::string_view prefix = format::kThreadNamePrefix;
  if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix &&
      name.substr(prefix.size()) == std::to_string(tid)) {
    return {};
  }
  return name;
}

// A flow point's name as written for an unnamed one ("flow_out" /
// "flow_in") reads back as unnamed.
inline std::string_view FlowPointName(std::string_view name) {
  return name == format::kFlowOutName || name == format::kFlowInName ? std::string_view() : name;
}

// Metadata keys a writer adds itself: not passed on (the next writer
// writes its own), except a non-zero count, renamed so it is not lost.
inline bool WriterOwnKey(std::string_view key) {
  return key == format::stat::kPacketsDropped || key == format::stat::kEventsAfterMetadata;
}
inline std::string SourceKey(std::string_view key) { return "source_" + std::string(key); }

}  // namespace mabutrace::host

#endif  // MABUTRACE_HOST_IMPORT_WRITER_INVERSE_H
