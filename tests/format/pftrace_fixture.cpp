// SPDX-License-Identifier: MIT
// Writes a trace with every kind of event to argv[1] (.pftrace or .json by
// extension) and what it recorded to argv[2] (JSON expectations), for
// check_pftrace.py. Two threads, nested scopes, a scope left open, flows
// between the threads, counters over the whole int32 range.
#include <pthread.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mabutrace/mabutrace.h"

namespace {

int WriteFile(void* user, const char* data, size_t len) {
  return fwrite(data, 1, len, static_cast<FILE*>(user)) == len ? 0 : 1;
}

const int64_t kCounterValues[] = {
    0, 1, -1, INT32_MAX, INT32_MIN, 123456789, -987654321, int64_t(INT32_MAX) + 1, INT64_MIN / 3};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s OUT.pftrace|OUT.json EXPECT.json\n", argv[0]);
    return 2;
  }
  if (mabutrace_init() != MABUTRACE_OK) return 1;
  mabutrace_set_thread_name("main thread");

  std::vector<uint16_t> links(5, 0);
  {
    TRACE_SCOPE("produce", COLOR_ORANGE);
    for (uint16_t& l : links) {
      TRACE_SCOPE("item");
      TRACE_FLOW_OUT(&l, "handoff");
    }
    for (int64_t v : kCounterValues) TRACE_COUNTER("level", v);
    TRACE_INSTANT("produced", 0x123456);
    TRACE_INSTANT(
        "odd\xff"
        "name");  // not UTF-8: exported with U+FFFD
  }
  std::thread consumer([&] {
    pthread_setname_np(pthread_self(), "consumer");
    for (uint16_t l : links) {
      TRACE_SCOPE("consume");
      TRACE_FLOW_IN(l);
      { TRACE_SCOPE("inner"); }
    }
    uint16_t back = 0;
    TRACE_FLOW_OUT(&back);  // no enclosing slice: the exporter adds a carrier
  });
  consumer.join();
  TRACE_SCOPE("still_open");  // open at export time

  FILE* f = fopen(argv[1], "wb");
  if (!f) return 1;
  const bool json = strstr(argv[1], ".json") != nullptr;
  int rc = json ? mabutrace_export_json(WriteFile, f) : mabutrace_export_perfetto(WriteFile, f);
  fclose(f);
  // The same buffer as JSON beside a .pftrace: the checker compares the
  // two event by event (times included).
  const std::string twin = std::string(argv[1]) + ".json";
  if (!json) {
    FILE* j = fopen(twin.c_str(), "wb");
    if (!j) return 1;
    if (mabutrace_export_json(WriteFile, j) != MABUTRACE_OK) rc = MABUTRACE_ERR_IO;
    fclose(j);
  }

  FILE* e = fopen(argv[2], "w");
  if (!e) return 1;
  fprintf(e, "{\"counters\":{\"level\":[");
  for (size_t i = 0; i < sizeof kCounterValues / sizeof *kCounterValues; ++i) {
    fprintf(e, "%s\"%lld\"", i ? "," : "", static_cast<long long>(kCounterValues[i]));
  }
  if (!json)
    fprintf(e, "]},\"json\":\"%s\",\"flows\":%zu,", twin.c_str(), links.size());
  else
    fprintf(e, "]},\"flows\":%zu,", links.size());
  // The port's clock has samples: the .pftrace must relate it to the OS
  // clocks with the values the JSON's metadata gives.
  fprintf(e, "\"clock_samples\":true,");
  fprintf(e,
          "\"threads\":[\"main thread\",\"consumer\"],"
          "\"names\":[\"odd\\ufffdname\",\"produce\",\"item\",\"handoff\",\"produced\",\"consume\","
          "\"inner\",\"still_open\"]}\n");
  fclose(e);
  mabutrace_deinit();
  return rc == MABUTRACE_OK ? 0 : 1;
}
