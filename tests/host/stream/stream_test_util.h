// SPDX-License-Identifier: MIT
// stream_test_util.h: capture of the binary stream and its decoding into
// plain values, for the stream tests (docs/stream-format.md).
#ifndef MABUTRACE_TESTS_STREAM_STREAM_TEST_UTIL_H
#define MABUTRACE_TESTS_STREAM_STREAM_TEST_UTIL_H

#include <stdint.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mabutrace/mabutrace.h"
#include "stream_decoder.h"
#include "trace_model.h"

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

// What the stream converter (host/stream/stream_to_model.h) passed on for
// flows: the ids of arrow ends (an end point with its id, or a late
// OnFlow end), in order, and the integer metadata.
class FlowCounts final : public mabutrace::model::EventSink {
 public:
  std::map<std::string, int64_t> meta;
  std::vector<uint64_t> arrow_ends;
  void OnProcess(uint32_t, std::string_view) override {}
  void OnThread(mabutrace::model::Track, std::string_view) override {}
  void OnBegin(mabutrace::model::Track, std::string_view, uint64_t, uint32_t, uint32_t) override {}
  void OnEnd(mabutrace::model::Track, std::string_view, uint64_t, std::string_view) override {}
  void OnInstant(mabutrace::model::Track, std::string_view, uint64_t, uint32_t, uint32_t) override {}
  void OnCounter(mabutrace::model::Track, std::string_view, uint64_t, int64_t) override {}
  void OnFlowPoint(mabutrace::model::Track, bool start, uint64_t id, std::string_view, uint64_t, uint32_t, uint32_t,
                   bool) override {
    if (!start && id) arrow_ends.push_back(id);
  }
  void OnFlow(mabutrace::model::Track, bool start, uint64_t id, uint64_t) override {
    if (!start) arrow_ends.push_back(id);
  }
  void OnMetadata(std::string_view k, int64_t v) override { meta[std::string(k)] = v; }
  void OnMetadata(std::string_view, std::string_view) override {}
  bool Finish() override { return true; }
};

}  // namespace mt_stream

#endif  // MABUTRACE_TESTS_STREAM_STREAM_TEST_UTIL_H
