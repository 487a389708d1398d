// SPDX-License-Identifier: MIT
// chrome_colors.h: the colour names Catapult (chrome://tracing) reserves for
// "cname" (trace-formats.md §1.7; RGB from catapult tracing/base/
// color_scheme.html). Any other name makes Catapult's import throw, so the
// JSON exporter only ever writes one of these. Perfetto ignores cname; the
// exact RGB goes to args.color.
#ifndef MABUTRACE_FORMAT_CHROME_COLORS_H
#define MABUTRACE_FORMAT_CHROME_COLORS_H

#include <stdint.h>

namespace mabutrace {

struct ReservedColor {
  const char* name;
  uint32_t rgb;
};

// The generic and state colours; the CQ/heap-dump ones are left out so that
// a user colour never lands on a name with an unrelated meaning.
inline constexpr ReservedColor kReservedColors[] = {
    {"thread_state_uninterruptible", 0xB67D8F},
    {"thread_state_iowait", 0xFF8C00},
    {"thread_state_running", 0x7EC894},
    {"thread_state_runnable", 0x85A0D2},
    {"thread_state_sleeping", 0xF0F0F0},
    {"thread_state_unknown", 0xC79B7D},
    {"background_memory_dump", 0x00B4B4},
    {"light_memory_dump", 0x0000B4},
    {"detailed_memory_dump", 0xB400B4},
    {"vsync_highlight_color", 0x0000FF},
    {"generic_work", 0x7D7D7D},
    {"good", 0x007D00},
    {"bad", 0xB47D00},
    {"terrible", 0xB40000},
    {"black", 0x000000},
    {"grey", 0xDDDDDD},
    {"white", 0xFFFFFF},
    {"yellow", 0xFFFF00},
    {"olive", 0x646400},
    {"rail_response", 0x4387FD},
    {"rail_animation", 0xF44A3F},
    {"rail_idle", 0xEE8E00},
    {"rail_load", 0x0DA861},
    {"startup", 0xE6E600},
};

// The reserved name whose RGB is closest (squared distance) to rgb.
inline const char* NearestReservedColor(uint32_t rgb) {
  const int r = int(rgb >> 16 & 0xFF), g = int(rgb >> 8 & 0xFF), b = int(rgb & 0xFF);
  const char* best = kReservedColors[0].name;
  long best_d = -1;
  for (const ReservedColor& c : kReservedColors) {
    const int dr = r - int(c.rgb >> 16 & 0xFF), dg = g - int(c.rgb >> 8 & 0xFF), db = b - int(c.rgb & 0xFF);
    const long d = long(dr) * dr + long(dg) * dg + long(db) * db;
    if (best_d < 0 || d < best_d) {
      best_d = d;
      best = c.name;
    }
  }
  return best;
}

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_CHROME_COLORS_H
