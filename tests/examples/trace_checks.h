// SPDX-License-Identifier: MIT
// trace_checks.h: what every Chrome JSON trace from mabutrace must satisfy
// (json_exporter.cpp's header, trace-formats.md Part 3/4), as functions
// that list each violation found, so a failing test says exactly what and
// where. Used on live /trace.json fetches and on the final trace.json.
#ifndef TESTS_EXAMPLES_TRACE_CHECKS_H
#define TESTS_EXAMPLES_TRACE_CHECKS_H

#include <stdint.h>

#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

using Problems = std::vector<std::string>;

// What CheckTrace saw, for assertions specific to one test.
struct TraceFacts {
  std::set<std::string> thread_names;      // from thread_name M events
  std::map<std::string, size_t> instants;  // name -> count
  std::map<std::string, size_t> slices;    // B name -> count
  size_t flow_starts = 0;
  size_t flow_ends = 0;                      // each matched to a start
  std::map<std::string, uint64_t> metadata;  // unsigned numeric entries
};

// Parses text as strict JSON (no comments, no trailing commas, complete).
// nullopt with *error set if it is not.
std::optional<nlohmann::json> ParseJson(const std::string& text, std::string* error);

// The structural guarantees, per (pid, tid) in file order:
// - every event is well formed (ph, name, ts, integer pid/tid >= 1);
// - every E closes the innermost open B of its thread, same name and cat,
//   and no B is left open at the end (the exporter closes open scopes);
// - B/E/i/C/s timestamps never go backwards;
// - every s sits inside an open slice and its id is unique;
// - every f has an s with the same id, cat and name, "bp":"e", and lies in
//   time inside a slice of its thread (begin <= ts < end). Flow ends are
//   checked by time, not file position: that is how viewers bind them, and
//   the exporter may write an end after the walk (trace_walker.h);
// - every thread with events has a non-empty thread_name; a process_name;
// - metadata holds events_written/overwritten/dropped.
Problems CheckTrace(const nlohmann::json& doc, TraceFacts* facts);

// The demo's --counter-log: (counter, thread) -> values in call order.
using CounterKey = std::pair<std::string, std::string>;
using CounterLog = std::map<CounterKey, std::vector<int64_t>>;
CounterLog ParseCounterLog(std::istream& in, Problems* problems);

// Compares the trace's counter samples with the log, per (counter, thread
// name). A thread's records can only be lost from its oldest end
// (wrap-around), and a live export stops somewhere before the newest, so:
// - each trace sequence is a contiguous run of the logged sequence;
// - final == true (exported after every writer stopped): it is a suffix,
//   and the whole sequence when nothing was overwritten.
// If the metadata says records went missing in the middle (events_dropped,
// chunks_lost_during_export) only the order is checked.
Problems CheckCounters(const nlohmann::json& doc, const CounterLog& log, bool final);

// The first `max` problems, one per line, and how many more there were.
std::string Summarize(const Problems& problems, size_t max = 25);

#endif  // TESTS_EXAMPLES_TRACE_CHECKS_H
