// SPDX-License-Identifier: MIT
#include "counter_log.h"

#include <inttypes.h>
#include <stdio.h>

#include <mutex>

#include "mabutrace/mabutrace.h"
#include "thread_util.h"

namespace {
std::mutex g_mu;
FILE* g_file = nullptr;  // guarded by g_mu
bool g_failed = false;   // guarded by g_mu
}  // namespace

bool OpenCounterLog(const std::string& path) {
  FILE* f = fopen(path.c_str(), "w");
  if (!f) return false;
  std::lock_guard<std::mutex> lock(g_mu);
  g_file = f;
  g_failed = false;
  return true;
}

bool CloseCounterLog() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_file) return true;
  const bool ok = fclose(g_file) == 0 && !g_failed;
  g_file = nullptr;
  return ok;
}

void RecordCounter(const char* name, int64_t value) {
  TRACE_COUNTER(name, value);
  std::lock_guard<std::mutex> lock(g_mu);
  // Buffered stdio: the timer thread pays for a memcpy, not a write(2).
  if (g_file && fprintf(g_file, "%s %" PRId64 " %s\n", name, value, ThisThreadName()) < 0) {
    g_failed = true;
  }
}
