// SPDX-License-Identifier: MIT
// stream_test_util.h: capture of the binary stream and its decoding into
// plain values, for the stream tests (docs/stream-format.md).
#ifndef MABUTRACE_TESTS_STREAM_STREAM_TEST_UTIL_H
#define MABUTRACE_TESTS_STREAM_STREAM_TEST_UTIL_H

#include <stdint.h>

#include <string>
#include <utility>
#include <vector>

#include "mabutrace/mabutrace.h"
#include "stream_decoder.h"

namespace mt_stream {

// The output callback appends here (the callback has no user pointer).
extern std::string g_bytes;
extern uint64_t g_calls;
void Capture(const uint8_t* data, size_t len);

// An Event with owned strings.
struct Ev {
  mabutrace::host::EventType type;
  uint64_t ticks, ns;
  uint32_t cpu, tid, key;
  std::string thread_name, name;
  bool name_known;
  int64_t value;
  uint16_t link;
  uint32_t flow, color;
  bool operator==(const Ev&) const = default;
};

struct Decoded {
  mabutrace::host::Status status;  // first fatal error of Feed/Finish
  std::vector<Ev> events;
  mabutrace::host::StreamInfo info;
  uint64_t lost = 0, dropped = 0;
  std::vector<mabutrace::host::Status> record_errors;
};

// Feeds `bytes` in pieces of `piece` bytes (0: all at once), then Finish.
Decoded Decode(const std::string& bytes, size_t piece = 0);

// The records of a well-formed stream: (kind, payload), header skipped.
std::vector<std::pair<uint8_t, std::string>> Records(const std::string& bytes);

// Events of one tid, in order.
std::vector<Ev> OnTid(const std::vector<Ev>& evs, uint32_t tid);

}  // namespace mt_stream

#endif  // MABUTRACE_TESTS_STREAM_STREAM_TEST_UTIL_H
