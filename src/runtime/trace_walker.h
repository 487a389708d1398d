// trace_walker.h: turns the ring buffer's records into a clean event stream
// for the exporters (Chrome JSON, Perfetto protobuf).
//
// The walker owns the rules every exporter must follow, so that they are
// written once (docs/runtime.md §5):
// - per thread, scopes are a stack: every end gets the name of its begin and
//   ends at least 1 ns after it; an end whose begin was overwritten is
//   dropped (counts.orphan_ends); scopes open at the end of the walk are
//   closed at the last timestamp of the trace (flag "open_at_export");
// - timestamps never go backwards on a thread;
// - a flow end is passed on only if its start was, with the runtime's 32-bit
//   flow number as id (unique per arrow); an end met before its start is
//   passed on after the walk (OnFlowEnd), once its start is known written;
// - a thread whose chunk was recycled during the walk has its open scopes
//   closed (flag "truncated").
// It makes two passes: the first marks the flow starts present, the second
// calls the sink. Memory: the export workspace (export_workspace.h).
#ifndef MABUTRACE_RUNTIME_TRACE_WALKER_H
#define MABUTRACE_RUNTIME_TRACE_WALKER_H

#include <stdint.h>

#include "chunk_reader.h"

namespace mabutrace {

// What the walker dropped or repaired; exporters put it in the metadata.
struct WalkCounts {
  uint64_t records = 0;
  uint64_t orphan_ends = 0;
  uint64_t too_deep = 0;
  uint64_t open_closed = 0;
  uint64_t flow_ends_without_start = 0;
  uint64_t flow_starts_lost = 0;       // recycled during the export: end dropped
  uint64_t flow_ends_unconfirmed = 0;  // written without waiting (list full)
  uint64_t chunks_lost = 0;
  uint64_t corrupt_chunks = 0;
};

// One named statistic of an export's metadata.
struct StatItem {
  const char* key;
  uint64_t value;
};
constexpr size_t kMaxStatItems = 20;

// The statistics every export reports (R-A12: written, overwritten,
// dropped, bytes in use, ...) followed by what the walk dropped or repaired;
// fills out[0..n) and returns n (<= kMaxStatItems).
size_t CollectExportStats(const Runtime& rt, const WalkCounts& counts, StatItem* out);

// The exporter side. Times are ns since the trace origin; `t` identifies
// the thread (t.tid, t.key); colors are MABUTRACE_COLOR_SET | rgb or 0.
class TraceSink {
 public:
  // First event of a thread; `name` is its registered name ("" if none).
  virtual void OnThread(const ThreadState& t, const char* name) = 0;
  virtual void OnBegin(const ThreadState& t, const char* name, uint64_t ns, uint32_t cpu,
                       uint32_t color) = 0;
  // `flag` is nullptr for a recorded end, else why the walker closed it.
  virtual void OnEnd(const ThreadState& t, const char* name, uint64_t ns, uint32_t cpu,
                     const char* flag) = 0;
  virtual void OnInstant(const ThreadState& t, const char* name, uint64_t ns, uint32_t cpu,
                         uint32_t color) = 0;
  virtual void OnCounter(const ThreadState& t, const char* name, uint64_t ns, int64_t value) = 0;
  // A flow point: start (TRACE_FLOW_OUT) or end (TRACE_FLOW_IN) of arrow `id`.
  // id 0 (ends only): the point without its arrow end, which may follow
  // through OnFlowEnd. `enclosed`: a slice is open on the thread. `name` may
  // be nullptr. Returns the last time it wrote on the thread (>= ns).
  virtual uint64_t OnFlow(const ThreadState& t, bool start, uint32_t id, const char* name,
                          uint64_t ns, uint32_t cpu, uint32_t color, bool enclosed) = 0;
  // The arrow end of a flow point written earlier with id 0 (only t.tid and
  // t.key are set); it binds to what encloses that point at `ns`.
  virtual void OnFlowEnd(const ThreadState& t, uint32_t id, uint64_t ns) = 0;
  // Lets the walker stop early when the output failed.
  virtual bool Failed() const = 0;

 protected:
  ~TraceSink() = default;
};

class TraceWalker {
 public:
  explicit TraceWalker(const Runtime& rt);
  void Run(TraceSink& sink);
  const WalkCounts& counts() const { return counts_; }
  uint64_t end_ns() const { return end_ns_; }

 private:
  void MarkFlowStarts();
  bool InWindow(uint32_t n) const;
  void SetFlowBit(uint64_t* bits, uint32_t n);
  bool FlowBit(const uint64_t* bits, uint32_t n) const;
  uint64_t FlowIn(ThreadState& t, const Record& r, uint64_t ns);
  void WriteDeferredFlowEnds();
  void WriteChunk(uint32_t i);
  ThreadState& Thread(const ChunkCopy& info);
  ThreadState* Find(uint32_t key);
  void Write(ThreadState& t, const Record& r);
  uint64_t EndTime(const ThreadState& t, uint64_t ns) const;
  void EndTop(ThreadState& t, uint64_t ns, uint32_t cpu, const char* flag);
  void CloseAll(ThreadState& t, uint64_t ns, const char* flag);

  const Runtime& rt_;
  ExportWorkspace& ws_;
  ChunkReader snap_;
  TraceSink* sink_ = nullptr;
  WalkCounts counts_;
  uint64_t end_ns_ = 0;
  uint32_t flow_lo_ = 0, flow_hi_ = 0;  // the window of flow numbers checked
  uint32_t deferred_ = 0;
};

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_TRACE_WALKER_H
