// SPDX-License-Identifier: MIT
// stats.cpp: mabutrace_get_stats(), counted from the chunk table and the
// runtime's counters. Any thread; lock-free, so the numbers of a busy
// recorder are a moment's, not one instant's.
#include <string.h>

#include "compiler.h"
#include "mabutrace/mabutrace.h"
#include "ring_buffer.h"
#include "writer.h"

using namespace mabutrace;

extern "C" MT_COLD int mabutrace_get_stats(mabutrace_stats_t* out) {
  if (!out) return MABUTRACE_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  Runtime* rt = CurrentRuntime();
  if (!rt) return MABUTRACE_ERR_NOT_INITIALIZED;
  uint64_t live = 0, words = 0;
  for (uint32_t i = 0; i < rt->num_chunks; ++i) {
    writer::SyncCommit(*rt, i);
    const uint64_t c = rt->chunks[i].commit.load(std::memory_order_acquire);
    live += c >> 32;
    words += c & 0xFFFFFFFFu;
  }
  out->events_overwritten = rt->overwritten.load(std::memory_order_relaxed);
  out->events_written = out->events_overwritten + live;
  out->events_dropped = rt->dropped.load(std::memory_order_relaxed);
  out->bytes_in_use = words * 8;
  out->buffer_size = uint64_t(rt->num_chunks) * rt->chunk_words * 8;
  out->chunk_size = rt->chunk_words * 8;
  for (uint32_t i = 0; i < rt->max_threads; ++i) {
    if (rt->threads[i].state.load(std::memory_order_relaxed) != 0) ++out->threads;
  }
  return MABUTRACE_OK;
}
