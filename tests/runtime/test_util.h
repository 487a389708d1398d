// SPDX-License-Identifier: MIT
// test_util.h: helpers shared by the runtime tests.
//
// - ReadRecords(): what the ring buffer holds, decoded through
//   mabutrace::ChunkReader (the same reader the exporters use).
// - ExportJson(): mabutrace_export_json into a string, parsed strictly with
//   nlohmann::json, then checked against every rule json_exporter.cpp
//   promises (CheckTrace). Failures are reported with ADD_FAILURE, so a
//   test that calls them fails but keeps running.
#ifndef MABUTRACE_TESTS_RUNTIME_TEST_UTIL_H
#define MABUTRACE_TESTS_RUNTIME_TEST_UTIL_H

#include <stdint.h>

#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chunk_reader.h"
#include "mabutrace/mabutrace.h"

namespace mt_test {

using json = nlohmann::json;

// ---- the ring buffer, decoded ---------------------------------------------
struct Rec {
  mabutrace::Record r;
  uint32_t tid;     // OS tid of the chunk's owner
  uint32_t thread;  // registry slot | gen << 16
  uint64_t chunk_seq;
};

struct ReadResult {
  std::vector<Rec> records;
  uint32_t chunks_listed = 0;
  uint32_t chunks_lost = 0;     // recycled between listing and copying
  uint32_t corrupt_chunks = 0;  // ForEach found a bad header
  bool initialized = false;
};

// Reads every record in the buffer, oldest chunk first.
ReadResult ReadAll();
inline std::vector<Rec> ReadRecords() { return ReadAll().records; }

// Records of one type (in order).
std::vector<Rec> OfType(const std::vector<Rec>& recs, mabutrace::RecordType type);

// ---- clocks -----------------------------------------------------------------
uint64_t MonotonicNs();  // CLOCK_MONOTONIC, the host port's clock
uint32_t Gettid();

// A fake clock for config.clock: returns FakeClock::now.
struct FakeClock {
  static std::atomic<uint64_t> now;
  static std::atomic<uint64_t> calls;
  static uint64_t Read();
};

// ---- JSON -----------------------------------------------------------------
// Export as text. *rc gets the status.
std::string ExportText(int* rc);

// Strict parse; on failure ADD_FAILURE with the parser's message and the
// text around the error, and returns a null json.
json ParseStrict(const std::string& text);

// What CheckTrace learned about a trace.
struct TraceInfo {
  bool ok = false;                               // parsed and structurally sound
  std::vector<json> events;                      // every non-M event, file order
  std::map<uint64_t, std::string> thread_names;  // tid -> thread_name
  std::string process_name;
  json metadata;
  uint64_t Meta(const char* key) const;
  // Events with this ph (and name, unless empty), file order.
  std::vector<json> Find(const std::string& ph, const std::string& name = "") const;
  // Events on one tid, file order.
  std::vector<json> OnTid(uint64_t tid) const;
};

// Checks the guarantees of json_exporter.cpp on a parsed trace:
// object form, displayTimeUnit "ns", metadata; every event has ph/name/pid/
// tid (and ts but M); pid/tid integers in 1..2^32-1; cname only Catapult
// reserved names; args.color "#rrggbb"; per tid: ts never goes backwards in
// file order, every E closes the innermost open B with the same name and
// cat and a later ts, nothing left open at the end; s/f bound to an open
// slice; each s id unique, each f has "bp":"e" and an s with its id in the
// file; C events have exactly args.value (an integer); i events "s":"t";
// every tid with events has a thread_name.
TraceInfo CheckTrace(const json& j);

// Export, parse, check. Also fails if the status is not MABUTRACE_OK.
TraceInfo ExportAndCheck();

// ts of an event in ns (the exporter writes integer-ns as "%llu.%03llu" us).
uint64_t TsNs(const json& ev);

// Catapult's reserved colour names (trace-formats.md 1.7), all groups.
bool IsReservedCname(const std::string& name);

// A config with the defaults and a buffer size.
mabutrace_config_t Config(size_t buffer_size = 64 * 1024);

}  // namespace mt_test

#endif  // MABUTRACE_TESTS_RUNTIME_TEST_UTIL_H
