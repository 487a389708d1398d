// SPDX-License-Identifier: MIT
// export_workspace.h: the memory readers of the ring buffer use (the
// exporters, the trace walker, the binary stream writer), reserved at init
// so that exporting allocates nothing. Sizes: docs/runtime.md.
#ifndef MABUTRACE_RUNTIME_EXPORT_WORKSPACE_H
#define MABUTRACE_RUNTIME_EXPORT_WORKSPACE_H

#include <stdint.h>

#include "../format/perfetto_sequence.h"
#include "ring_buffer.h"

namespace mabutrace {

// A chunk in use, as a ChunkReader listed it (chunk_reader.h).
struct ChunkRef {
  uint64_t seq;
  uint32_t index;
  uint32_t thread;  // slot | slot gen << 16, as the chunk said when listed
};

// Per-thread state of an exporter (json_exporter, tests).
struct OpenScope {
  const char* name;
  uint64_t ns;  // begin time, ns since the trace origin
};

struct ThreadState {
  uint32_t key = 0;  // slot | gen << 16 of the thread it tracks
  uint32_t tid = 0;
  bool seen = false;
  uint32_t depth = 0;     // open scopes on `stack`
  uint32_t too_deep = 0;  // open scopes past max_depth (not drawn)
  uint64_t last_ns = 0;   // last time written on this thread
  OpenScope* stack = nullptr;
  // The Perfetto export's track and packet sequence of this thread
  // (format/perfetto_writer.h), kept by its tables (perfetto_exporter.cpp).
  format::PerfettoSequence sequence = {};
};

// An entry of the protobuf export's intern table (perfetto_exporter.cpp):
// an event name by address, or a counter track by text.
struct InternEntry {
  const char* name;  // nullptr = empty slot
  uint32_t value;    // the name's iid, or the counter track's uuid
  uint32_t kind;     // perfetto_exporter.cpp's InternKind
};

// A flow end met before its start was written (trace_walker.h).
struct FlowEnd {
  uint32_t tid;
  uint32_t key;  // the thread's slot | gen << 16
  uint32_t flow;
  uint64_t ns;
};

struct StreamState;  // stream_writer.h

// Memory for readers, reserved at init (sizes in docs/runtime.md).
struct ExportWorkspace {
  ChunkRef* order;         // num_chunks entries
  uint64_t* copy;          // chunk_words words
  ThreadState* threads;    // max_threads entries
  OpenScope* stacks;       // max_threads * max_depth entries
  uint64_t* flow_present;  // flow starts in the buffer (trace_walker.h)
  uint64_t* flow_written;  // flow starts written by this export
  uint32_t flow_window;    // bits of each bitmap: the newest flows checked
  FlowEnd* deferred;       // flow ends waiting for their start
  uint32_t deferred_cap;
  char* out;  // output staging buffer
  uint32_t out_cap;
  uint8_t* packet;  // one protobuf packet being encoded
  uint32_t packet_cap;
  InternEntry* interned;  // open-addressing table, power-of-two size
  uint32_t intern_cap;
  StreamState* stream;  // binary stream state kept between flushes (stream_writer.h)
};

constexpr uint32_t kExportOutBytes = 4096;
constexpr uint32_t kExportPacketBytes = 2048;
constexpr uint32_t kExportInternEntries = 512;

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_EXPORT_WORKSPACE_H
