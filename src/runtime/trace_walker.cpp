// trace_walker.cpp: the per-thread rules shared by every exporter.
#include "trace_walker.h"

#include <string.h>

namespace mabutrace {

size_t CollectExportStats(const Runtime& rt, const WalkCounts& counts, StatItem* out) {
  mabutrace_stats_t st;
  mabutrace_get_stats(&st);
  const StatItem items[] = {
      {"clock_hz", rt.clock_hz},
      {"events_written", st.events_written},
      {"events_overwritten", st.events_overwritten},
      {"events_dropped", st.events_dropped},
      {"bytes_in_use", st.bytes_in_use},
      {"buffer_size", st.buffer_size},
      {"chunk_size", st.chunk_size},
      {"threads", st.threads},
      {"exported_records", counts.records},
      {"orphan_scope_ends", counts.orphan_ends},
      {"open_scopes_closed", counts.open_closed},
      {"scopes_too_deep", counts.too_deep},
      {"flow_ends_without_start", counts.flow_ends_without_start},
      {"flow_starts_lost_during_export", counts.flow_starts_lost},
      {"flow_ends_unconfirmed", counts.flow_ends_unconfirmed},
      {"chunks_lost_during_export", counts.chunks_lost},
      {"corrupt_chunks", counts.corrupt_chunks},
  };
  static_assert(sizeof items / sizeof *items <= kMaxStatItems, "raise kMaxStatItems");
  size_t n = 0;
  for (const StatItem& it : items) out[n++] = it;
  return n;
}

TraceWalker::TraceWalker(const Runtime& rt) : rt_(rt), ws_(*rt.workspace), snap_(rt) {}

void TraceWalker::Run(TraceSink& sink) {
  sink_ = &sink;
  MarkFlowStarts();
  for (uint32_t i = 0; i <= rt_.max_threads; ++i) ws_.threads[i] = ThreadState{};
  for (uint32_t i = 0; i < snap_.size() && !sink.Failed(); ++i) WriteChunk(i);
  WriteDeferredFlowEnds();
  for (uint32_t i = 0; i <= rt_.max_threads; ++i) {
    ThreadState& t = ws_.threads[i];
    if (t.seen) CloseAll(t, end_ns_, "open_at_export");
  }
}

// ---- flows --------------------------------------------------------------------
// A flow end must never point at nothing, also while writers wrap the
// buffer during the export. Pass 1 marks the flow starts present; pass 2
// marks the starts it writes. An end whose start is already written is
// written at once. An end whose start is present but not yet written (its
// chunk comes later in the walk, and could still be recycled before the
// walk reaches it) waits in `deferred` and is written after the walk if its
// start was written by then, else counted in flow_starts_lost_during_export.
// Viewers sort flow events (Perfetto's own JSON export writes them after
// the slices), so late ends are fine. If the deferred list is full the end
// is written at once (counted in flow_ends_unconfirmed). Flow numbers are
// checked exactly within a window of the newest ones (flow_window: at
// least as many as fit in the buffer); older flows lose their arrow,
// counted in flow_ends_without_start, as are ends whose start is gone.

void TraceWalker::MarkFlowStarts() {
  flow_hi_ = rt_.flow_seq.load(std::memory_order_acquire);
  flow_lo_ = flow_hi_ >= ws_.flow_window ? flow_hi_ - ws_.flow_window + 1 : 1;
  memset(ws_.flow_present, 0, ws_.flow_window / 8);
  memset(ws_.flow_written, 0, ws_.flow_window / 8);
  deferred_ = 0;
  for (uint32_t i = 0; i < snap_.size(); ++i) {
    ChunkCopy info;
    if (!snap_.Load(i, &info)) continue;
    snap_.ForEach(info, [&](const Record& r) {
      if (r.type == RecordType::kFlowOut) SetFlowBit(ws_.flow_present, r.flow);
    });
  }
}

bool TraceWalker::InWindow(uint32_t n) const { return n >= flow_lo_ && n <= flow_hi_ && n != 0; }

void TraceWalker::SetFlowBit(uint64_t* bits, uint32_t n) {
  if (!InWindow(n)) return;
  const uint32_t b = n - flow_lo_;
  bits[b >> 6] |= uint64_t(1) << (b & 63);
}

bool TraceWalker::FlowBit(const uint64_t* bits, uint32_t n) const {
  if (!InWindow(n)) return false;
  const uint32_t b = n - flow_lo_;
  return (bits[b >> 6] >> (b & 63) & 1) != 0;
}

uint64_t TraceWalker::FlowIn(ThreadState& t, const Record& r, uint64_t ns) {
  const uint32_t n = FlowForLink(r.link, r.flow);
  const bool enclosed = t.depth > 0 && !t.too_deep;
  if (FlowBit(ws_.flow_written, n)) {
    return sink_->OnFlow(t, false, n, r.name, ns, r.cpu, r.color, enclosed);
  }
  if (FlowBit(ws_.flow_present, n)) {
    if (deferred_ < ws_.deferred_cap) {
      ws_.deferred[deferred_++] = FlowEnd{t.tid, t.key, n, ns};
      return sink_->OnFlow(t, false, 0, r.name, ns, r.cpu, r.color, enclosed);
    }
    ++counts_.flow_ends_unconfirmed;
    return sink_->OnFlow(t, false, n, r.name, ns, r.cpu, r.color, enclosed);
  }
  // The start was overwritten (or is too old): keep the named point, never
  // a dangling arrow end.
  ++counts_.flow_ends_without_start;
  if (r.name) sink_->OnInstant(t, r.name, ns, r.cpu, r.color);
  return ns;
}

void TraceWalker::WriteDeferredFlowEnds() {
  for (uint32_t i = 0; i < deferred_ && !sink_->Failed(); ++i) {
    const FlowEnd& e = ws_.deferred[i];
    if (!FlowBit(ws_.flow_written, e.flow)) {
      ++counts_.flow_starts_lost;  // its chunk was recycled during the export
      continue;
    }
    ThreadState t;
    t.tid = e.tid;
    t.key = e.key;
    sink_->OnFlowEnd(t, e.flow, e.ns);
  }
}

// ---- pass 2 -------------------------------------------------------------------

void TraceWalker::WriteChunk(uint32_t i) {
  ChunkCopy info;
  if (!snap_.Load(i, &info)) {
    // Recycled since it was listed: this thread's records have a gap.
    ++counts_.chunks_lost;
    if (ThreadState* t = Find(snap_.ref(i).thread)) CloseAll(*t, t->last_ns, "truncated");
    return;
  }
  ThreadState& t = Thread(info);
  if (!snap_.ForEach(info, [&](const Record& r) { Write(t, r); })) ++counts_.corrupt_chunks;
}

ThreadState* TraceWalker::Find(uint32_t key) {
  const uint32_t slot = key & 0xFFFF;
  if (slot >= rt_.max_threads) return nullptr;
  ThreadState& t = ws_.threads[slot];
  return t.seen && t.key == key ? &t : nullptr;
}

ThreadState& TraceWalker::Thread(const ChunkCopy& info) {
  uint32_t slot = info.thread & 0xFFFF;
  if (slot >= rt_.max_threads) slot = rt_.max_threads;  // defensive: the spare state
  ThreadState& t = ws_.threads[slot];
  if (t.seen && t.key == info.thread) return t;
  if (t.seen) CloseAll(t, t.last_ns, "thread_exited");  // the slot was reused
  t = ThreadState{};
  t.seen = true;
  t.key = info.thread;
  t.tid = info.tid;
  t.stack = ws_.stacks + size_t(slot) * rt_.max_depth;

  char name[kMaxThreadName] = {};
  if (slot < rt_.max_threads) {
    const ThreadSlot& s = rt_.threads[slot];
    rt_.names_lock.lock();
    if ((s.gen.load(std::memory_order_relaxed) & 0xFFFF) == (t.key >> 16)) {
      memcpy(name, s.name, kMaxThreadName);
      name[kMaxThreadName - 1] = '\0';
    }
    rt_.names_lock.unlock();
  }
  sink_->OnThread(t, name);
  return t;
}

void TraceWalker::Write(ThreadState& t, const Record& r) {
  ++counts_.records;
  uint64_t ns = TicksToNs(rt_, r.ticks);
  if (ns < t.last_ns) ns = t.last_ns;  // ties (and only ties) on a monotonic clock
  switch (r.type) {
    case RecordType::kScopeBegin:
      if (t.too_deep || t.depth == rt_.max_depth) {
        ++t.too_deep;
        ++counts_.too_deep;
        break;
      }
      t.stack[t.depth++] = OpenScope{r.name, ns};
      sink_->OnBegin(t, r.name, ns, r.cpu, r.color);
      break;
    case RecordType::kScopeEnd:
      if (t.too_deep) {
        --t.too_deep;
      } else if (t.depth == 0) {
        ++counts_.orphan_ends;
      } else {
        ns = EndTime(t, ns);
        EndTop(t, ns, r.cpu, nullptr);
      }
      break;
    case RecordType::kInstant:
      sink_->OnInstant(t, r.name, ns, r.cpu, r.color);
      break;
    case RecordType::kCounter:
      sink_->OnCounter(t, r.name, ns, r.value);
      break;
    case RecordType::kFlowOut:
      ns = sink_->OnFlow(t, true, r.flow, r.name, ns, r.cpu, r.color, t.depth > 0 && !t.too_deep);
      SetFlowBit(ws_.flow_written, r.flow);
      break;
    case RecordType::kFlowIn:
      ns = FlowIn(t, r, ns);
      break;
    case RecordType::kTimeBase:
      break;
  }
  t.last_ns = ns;
  if (ns > end_ns_) end_ns_ = ns;
}

// An end never at or before its begin: Perfetto sorts an E before a B of the
// same timestamp, which would orphan it (trace-formats.md §1.3).
uint64_t TraceWalker::EndTime(const ThreadState& t, uint64_t ns) const {
  const uint64_t min = t.stack[t.depth - 1].ns + 1;
  return ns < min ? min : ns;
}

void TraceWalker::EndTop(ThreadState& t, uint64_t ns, uint32_t cpu, const char* flag) {
  const OpenScope& s = t.stack[--t.depth];
  sink_->OnEnd(t, s.name, ns, cpu, flag);
  t.last_ns = ns;
  if (ns > end_ns_) end_ns_ = ns;
}

void TraceWalker::CloseAll(ThreadState& t, uint64_t ns, const char* flag) {
  t.too_deep = 0;
  while (t.depth) {
    EndTop(t, EndTime(t, ns > t.last_ns ? ns : t.last_ns), 0, flag);
    ++counts_.open_closed;
  }
}

}  // namespace mabutrace
