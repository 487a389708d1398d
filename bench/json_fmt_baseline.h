// SPDX-License-Identifier: MIT
// json_fmt_baseline.h: the peer of the device JSON exporter in
// BM_ExportJsonFmtBaseline (issue 20): the same events written by {fmt}'s
// compiled format strings (FMT_COMPILE) into a 64 KiB staging buffer handed
// to the same sink as it fills, which is how a careful C++ programmer
// would write Chrome JSON without our format layer.
//
// The events are those of one mabutrace_export_json() of the benchmark's
// buffer, parsed back from its lines once (Load). Write() must then give
// back that text byte for byte, which Load checks: so the baseline writes
// exactly the same events, and what it leaves out is only what the
// exporter does besides formatting (walking the ring, pairing flows,
// escaping names: these names need none, and the check would catch one
// that did).
#ifndef MABUTRACE_BENCH_JSON_FMT_BASELINE_H
#define MABUTRACE_BENCH_JSON_FMT_BASELINE_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mabutrace/mabutrace.h"

namespace mabutrace::bench {

class JsonFmtBaseline {
 public:
  // Parses the event lines of `json` (our exporter's output: one event per
  // line between the traceEvents brackets, then the metadata object, kept
  // as text). False, with *error naming the line, when a line has a shape
  // this baseline does not write or its output differs from `json`.
  bool Load(std::string_view json, std::string* error);
  // The whole document to `write` in pieces of at most 64 KiB; returns the
  // bytes written.
  uint64_t Write(mabutrace_write_fn write, void* user) const;
  size_t events() const { return events_.size(); }

  struct Event {
    char ph = 0;  // B E i C s f M
    // Views into the loaded text; empty when the event has none.
    std::string_view name, cat, cname, color, later, flag, meta;
    uint32_t pid = 0, tid = 0, cpu = 0;
    uint64_t ns = 0, id = 0;
    int64_t value = 0;
    bool has_args = false;  // the {"cpu":..} object of B, i and point flows
  };

 private:
  std::string text_;  // the loaded export: every view points into it
  std::vector<Event> events_;
  std::string_view head_, tail_;  // before the first event, from the end of the last
};

}  // namespace mabutrace::bench

#endif  // MABUTRACE_BENCH_JSON_FMT_BASELINE_H
