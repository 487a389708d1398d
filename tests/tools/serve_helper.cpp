// SPDX-License-Identifier: MIT
// serve_helper: records a few known events, serves them with
// mabutrace_start_server_on("127.0.0.1", 0) and prints
// "listening on http://127.0.0.1:PORT/"; runs until killed (the test's
// ChildProcess kills it).
#include <unistd.h>

#include <cstdio>

#include "mabutrace/mabutrace.h"

int main() {
  if (mabutrace_init() != MABUTRACE_OK) return 1;
  mabutrace_set_thread_name("served");
  for (int i = 0; i < 10; ++i) {
    TRACE_SCOPE("served_scope");
    TRACE_COUNTER("served_count", int64_t(i));
  }
  if (mabutrace_start_server_on("127.0.0.1", 0) != MABUTRACE_OK) return 1;
  std::printf("listening on http://127.0.0.1:%u/\n", unsigned(mabutrace_server_port()));
  std::fflush(stdout);
  for (;;) ::pause();
}
