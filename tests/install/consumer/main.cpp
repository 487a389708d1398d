// SPDX-License-Identifier: MIT
// The program every install test builds against the installed (or embedded)
// library: it records a scope, an instant, a counter and a flow on two
// threads, then writes the trace as Chrome JSON to argv[1] and, with a
// second argument, the binary stream (docs/stream-format.md) to argv[2].
#include <mabutrace/mabutrace.h>

#include <cstdio>
#include <thread>

#if MABUTRACE_VERSION < 200
#error "this consumer needs mabutrace 0.2 or newer"
#endif

namespace {

FILE* g_stream = nullptr;

void WriteStream(const uint8_t* data, size_t len) { std::fwrite(data, 1, len, g_stream); }

int WriteJson(void* user, const char* data, size_t len) {
  return std::fwrite(data, 1, len, static_cast<FILE*>(user)) == len ? 0 : 1;
}

void Work(uint16_t* link) {
  TRACE_SCOPE("consumer_work");
  TRACE_FLOW_IN(*link, "handoff");
  TRACE_COUNTER("consumer_items", 3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.json [OUT.stream]\n", argv[0]);
    return 2;
  }
  if (mabutrace_init() != MABUTRACE_OK) return 1;
  if (argc > 2) {
    g_stream = std::fopen(argv[2], "wb");
    if (!g_stream || mabutrace_set_output_callback(&WriteStream) != MABUTRACE_OK) return 1;
  }
  uint16_t link = 0;
  {
    TRACE_SCOPE("consumer_main");
    TRACE_INSTANT("consumer_start");
    TRACE_FLOW_OUT(&link, "handoff");
  }
  std::thread(Work, &link).join();
  if (g_stream && (mabutrace_flush_output() != MABUTRACE_OK || std::fclose(g_stream) != 0)) return 1;
  FILE* out = std::fopen(argv[1], "wb");
  if (!out) return 1;
  const int rc = mabutrace_export_json(&WriteJson, out);
  if (std::fclose(out) != 0 || rc != MABUTRACE_OK) return 1;
  std::printf("consumer: mabutrace %s, trace in %s\n", MABUTRACE_VERSION_STRING, argv[1]);
  mabutrace_deinit();
  return 0;
}
