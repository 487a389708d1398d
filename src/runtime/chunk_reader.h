// SPDX-License-Identifier: MIT
// chunk_reader.h: reads the ring buffer while writers keep writing.
//
// A ChunkReader lists the chunks in use in acquisition order (so each thread's
// records come out in the order it wrote them), then copies one chunk at a
// time into a buffer of the export workspace and decodes its records. All
// memory comes from the workspace carved at init: reading allocates nothing.
// One reader at a time (Runtime::export_lock).
#ifndef MABUTRACE_RUNTIME_CHUNK_READER_H
#define MABUTRACE_RUNTIME_CHUNK_READER_H

#include <stdint.h>

#include "../format/record_format.h"
#include "export_workspace.h"
#include "ring_buffer.h"

namespace mabutrace {

// One decoded record; times are absolute clock ticks.
struct Record {
  RecordType type;
  uint32_t cpu;
  bool in_isr;
  uint64_t ticks;
  const char* name;  // kScopeBegin, kInstant, kCounter, kFlowOut, kFlowIn
  int64_t value;     // kCounter
  uint16_t link;     // kFlowOut, kFlowIn
  uint32_t flow;     // kFlowOut: its number; kFlowIn: the newest at the time
  uint32_t color;    // MABUTRACE_COLOR_SET | rgb, or 0
};

class ChunkReader {
 public:
  // Lists the chunks in use now, oldest first.
  explicit ChunkReader(const Runtime& rt);
  uint32_t size() const { return count_; }
  const ChunkRef& ref(uint32_t i) const { return rt_.workspace->order[i]; }
  // Copies chunk i into the workspace; false if it was recycled since it was
  // listed (its records are then counted as overwritten by the runtime).
  bool Load(uint32_t i, ChunkCopy* info) const;
  // The flow numbers of chunk i's flow starts (kFlowOut records, as
  // ForEach gives Record::flow), in order, into flows[0 .. *count), read
  // where the chunk lies, without copying it. `flows` holds at least a
  // chunk's words (the workspace's copy buffer does). False as Load: then
  // none of them is to be used.
  bool FlowStarts(uint32_t i, uint64_t* flows, uint32_t* count) const;
  // Asks the cache for chunk i's words ahead of FlowStarts or Load (a hint:
  // nothing is read). The walk reads chunks in sequence order, which
  // jumps across the buffer every 4 KiB, so the hardware's stream
  // prefetch restarts at every chunk: each record header waited for
  // memory (perf: the flow-start pass was a fifth of a JSON export).
  void Prefetch(uint32_t i) const;
  // Calls fn(const Record&) for each record of the loaded chunk in order.
  // Returns false if a record header is corrupt (the rest is skipped).
  template <class Fn>
  bool ForEach(const ChunkCopy& info, Fn&& fn) const;

 private:
  const Runtime& rt_;
  uint32_t count_ = 0;
};

template <class Fn>
bool ChunkReader::ForEach(const ChunkCopy& info, Fn&& fn) const {
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

// rt's clock as of now (format/clock_map.h): its rate, origin, init sample
// and, where the port has OS clocks, a sample taken now, which is also
// published in the dump descriptor (dump_format.h clock_last) for a later
// RAM dump. A published sample younger than 1 s is reused, so exports and
// flushes close together convert exactly alike. Readers call it under the
// export lock.
format::ClockMap CurrentClockMap(Runtime& rt);

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_CHUNK_READER_H
