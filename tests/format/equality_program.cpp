// SPDX-License-Identifier: MIT
// equality_program.cpp: one recorded program, written both ways for
// trace_equality.py: exported on the device side (mabutrace_export_json,
// mabutrace_export_perfetto) and sent as its binary stream (the output
// callback), which the test converts with `mabutrace convert`.
//
//   equality_program STREAM.bin DEVICE.json DEVICE.pftrace
//
// It exercises every rule a producer enforces (format/trace_rules.h):
// nested scopes, instants and counters with and without colors, names
// that need escaping or are not UTF-8 or are longer than kMaxNameBytes,
// NULL names, flows inside slices and outside them (carrier slices), a
// flow end met before its start in the walk (the walker defers it), a
// flow end whose start never existed, thread names, a scope left open.
// Nothing is recorded after the flush, so both ways see the same records.
#include <pthread.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <string>
#include <thread>

#include "mabutrace/mabutrace.h"

namespace {

FILE* g_stream = nullptr;

void ToStream(const uint8_t* data, size_t len) { fwrite(data, 1, len, g_stream); }

int ToFile(void* user, const char* data, size_t len) {
  return fwrite(data, 1, len, static_cast<FILE*>(user)) == len ? 0 : 1;
}

int Export(const char* path, int (*fn)(mabutrace_write_fn, void*)) {
  FILE* f = fopen(path, "wb");
  if (!f) return 1;
  const int rc = fn(ToFile, f);
  return fclose(f) == 0 && rc == MABUTRACE_OK ? 0 : 1;
}

const std::string kLongName(1500, 'x');  // cut at kMaxNameBytes in every format

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s STREAM.bin DEVICE.json DEVICE.pftrace\n", argv[0]);
    return 2;
  }
  g_stream = fopen(argv[1], "wb");
  if (!g_stream || mabutrace_init() != MABUTRACE_OK) return 1;
  mabutrace_set_output_callback(ToStream);
  mabutrace_set_thread_name("main \"quoted\"");

  uint16_t to_worker = 0, early = 0, unenclosed = 0;
  std::atomic<int> step{0};
  std::thread worker([&] {
    mabutrace_set_thread_name("worker\tA");
    TRACE_INSTANT("worker up");  // takes the worker's first chunk before main's
    step = 1;
    while (step != 2) std::this_thread::yield();
    {
      TRACE_SCOPE("consume", COLOR_GREEN);
      TRACE_FLOW_IN(to_worker, "got it");  // inside a slice, named: an instant
      TRACE_FLOW_IN(early);                // start in a later chunk: deferred by the walker
    }
    TRACE_FLOW_IN(unenclosed, "outside");  // no slice open: a carrier slice
    TRACE_FLOW_IN(uint16_t(777));          // no such start: a point, no arrow
    TRACE_COUNTER("depth", -5);
  });
  while (step != 1) std::this_thread::yield();
  {
    TRACE_SCOPE("produce", COLOR_ORANGE);
    TRACE_FLOW_OUT(&to_worker);
    TRACE_FLOW_OUT(&early, "early");
    {
      TRACE_SCOPE("say \"hi\"\n\ttab\x01");
      TRACE_INSTANT(
          "odd\xff"
          "name",
          0x123456);
      TRACE_INSTANT(kLongName.c_str());
      TRACE_SCOPE(nullptr);
    }
    TRACE_COUNTER("level", INT64_MIN);
    TRACE_COUNTER("level", INT64_MAX);
    TRACE_COUNTER("level", 0, COLOR_RED);
  }
  TRACE_FLOW_OUT(&unenclosed);  // no slice open: a carrier slice
  step = 2;
  worker.join();
  TRACE_SCOPE("still open");  // open at the end: closed with open_at_end

  const int flushed = mabutrace_flush_output();
  fclose(g_stream);
  int rc = flushed == MABUTRACE_OK ? 0 : 1;
  rc |= Export(argv[2], mabutrace_export_json);
  rc |= Export(argv[3], mabutrace_export_perfetto);
  mabutrace_set_output_callback(nullptr);
  mabutrace_deinit();
  return rc;
}
