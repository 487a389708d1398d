// SPDX-License-Identifier: MIT
// trace_walker.h: turns the ring buffer's records into the event stream
// of the format layer (format/trace_events.h), for the on-device exports
// (Chrome JSON and Perfetto: format/chrome_json_writer.h,
// format/perfetto_writer.h).
//
// The walker enforces the toolkit's rules (format/trace_rules.h) with
// fixed memory, while writers keep writing:
// - per thread, scopes are a stack: every end gets the name of its begin and
//   ends at least 1 ns after it; an end whose begin was overwritten is
//   dropped (counts.orphan_ends); scopes open at the end of the walk are
//   closed at the last timestamp of the trace (flag open_at_end);
// - timestamps never go backwards on a thread (a record whose clock went
//   backwards is moved up to the previous time and counted:
//   clock_went_backwards);
// - a flow point binds to the enclosing scope or gets a carrier slice
//   (format::FlowPoint); its arrow end is passed on only if its start was,
//   with the runtime's 32-bit flow number as id (unique per arrow), and
//   not when the link fits two starts present in the buffer (counted:
//   flow_ends_ambiguous); an end
//   met before its start is passed on after the walk, once its start is
//   known written;
// - a thread whose chunk was recycled during the walk has its open scopes
//   closed (flag truncated); a registry slot taken by a new thread closes
//   the old one's (flag thread_exited).
// It makes two passes: the first marks the flow starts present, the second
// calls the sink. Memory: the export workspace (export_workspace.h).
#ifndef MABUTRACE_RUNTIME_TRACE_WALKER_H
#define MABUTRACE_RUNTIME_TRACE_WALKER_H

#include <stdint.h>

#include "../format/byte_out.h"
#include "../format/trace_events.h"
#include "chunk_reader.h"

namespace mabutrace {

// What the walker dropped or repaired; exporters put it in the metadata.
struct WalkCounts {
  uint64_t records = 0;
  uint64_t orphan_ends = 0;
  uint64_t too_deep = 0;
  uint64_t open_closed = 0;
  uint64_t flow_ends_without_start = 0;
  uint64_t flow_ends_ambiguous = 0;    // two starts present for the link: no arrow
  uint64_t clock_went_backwards = 0;   // a record before its thread's previous one
  uint64_t flow_starts_lost = 0;       // recycled during the export: end dropped
  uint64_t flow_ends_unconfirmed = 0;  // written without waiting (list full)
  uint64_t chunks_lost = 0;
  uint64_t corrupt_chunks = 0;
};

// Exports the trace to `sink`: the process, every thread's events, then
// the recorder's statistics and the walk's counts as metadata
// (format::stat), then sink.Finish(). False if the sink failed.
// `out` is the sink's output: the walk stops early once it failed.
// The clock is sampled at the start (CurrentClockMap), so times are
// converted with the rate measured over the whole run.
bool ExportTrace(Runtime& rt, format::EventSink& sink, const ByteOut& out);

class TraceWalker {
 public:
  // `clock` converts rt's ticks (CurrentClockMap()); it must outlive the walker.
  TraceWalker(const Runtime& rt, const format::ClockMap& clock);
  // Walks the buffer into `sink`; stops early once `out` (if given) failed.
  void Run(format::EventSink& sink, const ByteOut* out = nullptr);
  const WalkCounts& counts() const { return counts_; }
  uint64_t end_ns() const { return end_ns_; }

 private:
  void MarkFlowStarts();
  bool InWindow(uint32_t n) const;
  void SetFlowBit(uint64_t* bits, uint32_t n);
  bool FlowBit(const uint64_t* bits, uint32_t n) const;
  bool Ambiguous(uint32_t n) const;
  uint64_t FlowIn(ThreadState& t, const Record& r, uint64_t ns);
  format::Track TrackOf(const ThreadState& t) const { return {rt_.pid, t.tid}; }
  void WriteDeferredFlowEnds();
  void WriteChunk(uint32_t i);
  ThreadState& Thread(const ChunkCopy& info);
  ThreadState* Find(uint32_t key);
  void Write(ThreadState& t, const Record& r);
  uint64_t EndTime(const ThreadState& t, uint64_t ns) const;
  void EndTop(ThreadState& t, uint64_t ns, std::string_view flag);
  void CloseAll(ThreadState& t, uint64_t ns, std::string_view flag);
  bool Failed() const { return out_ && out_->failed(); }

  const Runtime& rt_;
  format::ClockCursor ticks_to_ns_;  // the walk's clock (it must outlive the walker)
  ExportWorkspace& ws_;
  ChunkReader snap_;
  format::EventSink* sink_ = nullptr;
  const ByteOut* out_ = nullptr;
  WalkCounts counts_;
  uint64_t end_ns_ = 0;
  uint32_t flow_lo_ = 0, flow_hi_ = 0;  // the window of flow numbers checked
  uint32_t deferred_ = 0;
};

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_TRACE_WALKER_H
