// snapshot.h: reads the ring buffer while writers keep writing.
//
// A Snapshot lists the chunks in use in acquisition order (so each thread's
// records come out in the order it wrote them), then copies one chunk at a
// time into a buffer of the export workspace and decodes its records. All
// memory comes from the workspace carved at init: reading allocates nothing.
// One reader at a time (Runtime::export_lock).
#ifndef MABUTRACE_RUNTIME_SNAPSHOT_H
#define MABUTRACE_RUNTIME_SNAPSHOT_H

#include <stdint.h>

#include "../format/record_format.h"
#include "ring_buffer.h"

namespace mabutrace {

struct ChunkRef {
  uint64_t seq;
  uint32_t index;
  uint32_t thread;  // slot | slot gen << 16, as the chunk said when listed
};

// Per-thread state of an exporter (json_exporter, tests).
struct OpenScope {
  const char* name;
  uint64_t ns;      // begin time, ns since the trace origin
};

// Event-name iids a Perfetto thread sequence has interned, direct-mapped
// by iid: a collision only re-sends a name (same iid, same text).
constexpr uint32_t kSentIids = 32;

struct ThreadState {
  uint32_t key = 0;          // slot | gen << 16 of the thread it tracks
  uint32_t tid = 0;
  bool seen = false;
  uint32_t depth = 0;        // open scopes on `stack`
  uint32_t too_deep = 0;     // open scopes past max_depth (not drawn)
  uint64_t last_ns = 0;      // last time written on this thread
  OpenScope* stack = nullptr;
  // The Perfetto exporter's packet sequence of this thread
  // (perfetto_sequence.h): its incremental clock, and names interned on it.
  uint64_t seq_ns = 0;
  uint16_t sent_iids[kSentIids] = {};
  uint64_t sent_colors = 0;  // bit i: color string iid i + 1 interned on it
};

// An interned name of the protobuf exporter (pointer identity).
struct InternEntry {
  const char* name;
  uint32_t iid;      // 0 = empty slot
  uint32_t flags;    // exporter-defined (e.g. counter track described)
};

// A flow end met before its start was written (trace_walker.h).
struct FlowEnd {
  uint32_t tid;
  uint32_t key;   // the thread's slot | gen << 16
  uint32_t flow;
  uint64_t ns;
};

struct StreamState;  // stream_writer.h

// Memory for readers, reserved at init (sizes in docs/runtime.md).
struct ExportWorkspace {
  ChunkRef* order;           // num_chunks entries
  uint64_t* copy;            // chunk_words words
  ThreadState* threads;      // max_threads entries
  OpenScope* stacks;         // max_threads * max_depth entries
  uint64_t* flow_present;    // flow starts in the buffer (trace_walker.h)
  uint64_t* flow_written;    // flow starts written by this export
  uint32_t flow_window;      // bits of each bitmap: the newest flows checked
  FlowEnd* deferred;         // flow ends waiting for their start
  uint32_t deferred_cap;
  char* out;                 // output staging buffer
  uint32_t out_cap;
  uint8_t* packet;           // one protobuf packet being encoded
  uint32_t packet_cap;
  InternEntry* interned;     // open-addressing table, power-of-two size
  uint32_t intern_cap;
  StreamState* stream;       // binary stream state kept between flushes (stream_writer.h)
};

constexpr uint32_t kExportOutBytes = 4096;
constexpr uint32_t kExportPacketBytes = 2048;
constexpr uint32_t kExportInternEntries = 512;

// One decoded record; times are absolute clock ticks.
struct Record {
  RecordType type;
  uint32_t cpu;
  bool in_isr;
  uint64_t ticks;
  const char* name;   // kScopeBegin, kInstant, kCounter, kFlowOut, kFlowIn
  int64_t value;      // kCounter
  uint16_t link;      // kFlowOut, kFlowIn
  uint32_t flow;      // kFlowOut: its number; kFlowIn: the newest at the time
  uint32_t color;     // MABUTRACE_COLOR_SET | rgb, or 0
};

class Snapshot {
 public:
  // Lists the chunks in use now, oldest first.
  explicit Snapshot(const Runtime& rt);
  uint32_t size() const { return count_; }
  const ChunkRef& ref(uint32_t i) const { return rt_.workspace->order[i]; }
  // Copies chunk i into the workspace; false if it was recycled since it was
  // listed (its records are then counted as overwritten by the runtime).
  bool Load(uint32_t i, ChunkCopy* info) const;
  // Calls fn(const Record&) for each record of the loaded chunk in order.
  // Returns false if a record header is corrupt (the rest is skipped).
  template <class Fn>
  bool ForEach(const ChunkCopy& info, Fn&& fn) const;

 private:
  const Runtime& rt_;
  uint32_t count_ = 0;
};

template <class Fn>
bool Snapshot::ForEach(const ChunkCopy& info, Fn&& fn) const {
  const uint64_t* w = rt_.workspace->copy;
  uint64_t base = info.base;
  uint32_t i = 0;
  while (i < info.nwords) {
    const uint64_t h = w[i];
    const unsigned n = RecordWords(h);
    if (n == 0 || i + n > info.nwords) return false;
    Record r{};
    r.type = HeaderType(h);
    if (r.type == RecordType::kTimeBase) {
      base = w[i + 1];
      i += n;
      continue;
    }
    r.cpu = HeaderCpu(h);
    r.in_isr = (h & kInIsr) != 0;
    r.ticks = base + HeaderDelta(h);
    if (r.type != RecordType::kScopeEnd) r.name = reinterpret_cast<const char*>(uintptr_t(w[i + 1]));
    if (r.type == RecordType::kCounter) r.value = int64_t(w[i + 2]);
    if (r.type == RecordType::kFlowOut || r.type == RecordType::kFlowIn) {
      r.link = uint16_t(w[i + 2]);
      r.flow = uint32_t(w[i + 2] >> 16);
    }
    if (h & kHasColor) r.color = uint32_t(w[i + n - 1] & 0xFFFFFF) | MABUTRACE_COLOR_SET;
    fn(r);
    i += n;
  }
  return true;
}

// ns since the trace origin for a tick count of rt's clock.
uint64_t TicksToNs(const Runtime& rt, uint64_t ticks);

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_SNAPSHOT_H
