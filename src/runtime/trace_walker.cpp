// SPDX-License-Identifier: MIT
// trace_walker.cpp: the per-thread rules shared by every exporter.
#include "../format/trace_events.h"
#if MABUTRACE_FORMAT_WRITERS  // C++17: see trace_events.h

#include "trace_walker.h"

#include <string.h>

#include "../format/trace_rules.h"

namespace mabutrace {

namespace {

std::string_view Name(const char* s) { return s ? s : format::kNullName; }
// A flow point's name: none when NULL (an unnamed point).
std::string_view FlowName(const char* s) { return s ? s : std::string_view(); }

}  // namespace

const char* ClockName(uint32_t source) {
  if (source == kClockUser) return "user";
#if defined(MABUTRACE_PORT_HAS_OS_CLOCKS)
  switch (source) {
    case MABUTRACE_CLOCK_COUNTER:
#if defined(__aarch64__)
      return "cntvct";
#else
      return "tsc";
#endif
    case MABUTRACE_CLOCK_MONOTONIC: return "CLOCK_MONOTONIC";
  }
#endif
  return "port";
}

bool ExportTrace(Runtime& rt, format::EventSink& sink, const ByteOut& out) {
  namespace stat = format::stat;
  const format::ClockMap clock = CurrentClockMap(rt);
  if (clock.first.valid()) sink.OnClock(clock.MonotonicAtOrigin(), clock.BoottimeAtOrigin());
  sink.OnProcess(rt.pid, rt.process_name);
  TraceWalker walker(rt, clock);
  walker.Run(sink, &out);
  mabutrace_stats_t st;
  mabutrace_get_stats(&st);
  const WalkCounts& c = walker.counts();
  sink.OnMetadata(stat::kClock, ClockName(rt.clock_source));
  const struct {
    const char* key;
    uint64_t value;
  } items[] = {
      {stat::kClockHz, rt.clock_hz},
      {stat::kEventsWritten, st.events_written},
      {stat::kEventsOverwritten, st.events_overwritten},
      {stat::kEventsDropped, st.events_dropped},
      {stat::kBytesInUse, st.bytes_in_use},
      {stat::kBufferSize, st.buffer_size},
      {stat::kChunkSize, st.chunk_size},
      {stat::kThreads, st.threads},
      {stat::kExportedRecords, c.records},
      {stat::kOrphanScopeEnds, c.orphan_ends},
      {stat::kOpenScopesClosed, c.open_closed},
      {stat::kScopesTooDeep, c.too_deep},
      {stat::kFlowEndsWithoutStart, c.flow_ends_without_start},
      {stat::kFlowEndsAmbiguous, c.flow_ends_ambiguous},
      {stat::kClockWentBackwards, c.clock_went_backwards},
      {stat::kFlowStartsLostDuringExport, c.flow_starts_lost},
      {stat::kFlowEndsUnconfirmed, c.flow_ends_unconfirmed},
      {stat::kChunksLostDuringExport, c.chunks_lost},
      {stat::kCorruptChunks, c.corrupt_chunks},
      {stat::kHttpResponsesCut, rt.responses_cut.load(std::memory_order_relaxed)},
  };
  for (const auto& it : items) sink.OnMetadata(it.key, int64_t(it.value));
  if (clock.first.valid()) {
    sink.OnMetadata(stat::kClockMonotonicAtOrigin, int64_t(clock.MonotonicAtOrigin()));
    sink.OnMetadata(stat::kClockBoottimeAtOrigin, int64_t(clock.BoottimeAtOrigin()));
  }
  return sink.Finish();
}

TraceWalker::TraceWalker(const Runtime& rt, const format::ClockMap& clock)
    : rt_(rt), ticks_to_ns_(clock), ws_(*rt.workspace), snap_(rt) {}

void TraceWalker::Run(format::EventSink& sink, const ByteOut* out) {
  sink_ = &sink;
  out_ = out;
  MarkFlowStarts();
  for (uint32_t i = 0; i <= rt_.max_threads; ++i) ws_.threads[i] = ThreadState{};
  for (uint32_t i = 0; i < snap_.size() && !Failed(); ++i) {
    snap_.Prefetch(i + 1);
    WriteChunk(i);
  }
  WriteDeferredFlowEnds();
  for (uint32_t i = 0; i <= rt_.max_threads; ++i) {
    ThreadState& t = ws_.threads[i];
    if (t.seen) CloseAll(t, end_ns_, format::flag::kOpenAtEnd);
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
    snap_.Prefetch(i + 1);
    uint32_t n = 0;
    if (!snap_.FlowStarts(i, ws_.copy, &n)) continue;
    for (uint32_t k = 0; k < n; ++k) SetFlowBit(ws_.flow_present, uint32_t(ws_.copy[k]));
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

// Whether a flow start older than n by a multiple of the link cycle is
// present too: then the end's link fits both (it was held while 65,535
// other flows started), and the newest is not known to be its start.
bool TraceWalker::Ambiguous(uint32_t n) const {
  for (uint32_t older = n; older > kLinkCycle;) {
    older -= kLinkCycle;
    if (!InWindow(older)) return false;
    if (FlowBit(ws_.flow_present, older)) return true;
  }
  return false;
}

uint64_t TraceWalker::FlowIn(ThreadState& t, const Record& r, uint64_t ns) {
  const uint32_t n = FlowForLink(r.link, r.flow);
  const bool enclosed = t.depth > 0 && !t.too_deep;
  uint32_t id = 0;
  if (FlowBit(ws_.flow_present, n) && Ambiguous(n)) {
    // Two starts fit: no arrow rather than one from an unrelated slice.
    ++counts_.flow_ends_ambiguous;
  } else if (FlowBit(ws_.flow_written, n)) {
    id = n;
  } else if (FlowBit(ws_.flow_present, n)) {
    if (deferred_ < ws_.deferred_cap) {
      ws_.deferred[deferred_++] = FlowEnd{t.tid, t.key, n, ns};  // its arrow end comes later
    } else {
      ++counts_.flow_ends_unconfirmed;
      id = n;
    }
  } else {
    // The start was overwritten (or is too old): keep the point, never a
    // dangling arrow end.
    ++counts_.flow_ends_without_start;
  }
  return format::FlowPoint(*sink_, TrackOf(t), false, id, FlowName(r.name), ns, r.cpu, r.color, enclosed);
}

void TraceWalker::WriteDeferredFlowEnds() {
  for (uint32_t i = 0; i < deferred_ && !Failed(); ++i) {
    const FlowEnd& e = ws_.deferred[i];
    if (!FlowBit(ws_.flow_written, e.flow)) {
      ++counts_.flow_starts_lost;  // its chunk was recycled during the export
      continue;
    }
    sink_->OnFlow({rt_.pid, e.tid}, false, e.flow, e.ns);
  }
}

// ---- pass 2 -------------------------------------------------------------------

void TraceWalker::WriteChunk(uint32_t i) {
  ChunkCopy info;
  if (!snap_.Load(i, &info)) {
    // Recycled since it was listed: this thread's records have a gap.
    ++counts_.chunks_lost;
    if (ThreadState* t = Find(snap_.ref(i).thread)) CloseAll(*t, t->last_ns, format::flag::kTruncated);
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
  if (t.seen) CloseAll(t, t.last_ns, format::flag::kThreadExited);  // the slot was reused
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
  sink_->OnThread(TrackOf(t), name);
  return t;
}

void TraceWalker::Write(ThreadState& t, const Record& r) {
  ++counts_.records;
  uint64_t ns = ticks_to_ns_.NsSinceOrigin(r.ticks);
  const uint64_t taken_ns = ns;        // before the clamp below
  if (ns < t.last_ns) ns = t.last_ns;  // also a tie moved up by an end's 1 ns
  switch (r.type) {
    case RecordType::kScopeBegin:
      if (t.too_deep || t.depth == rt_.max_depth) {
        ++t.too_deep;
        ++counts_.too_deep;
        break;
      }
      t.stack[t.depth++] = OpenScope{r.name, ns};
      sink_->OnBegin(TrackOf(t), Name(r.name), ns, r.cpu, r.color);
      break;
    case RecordType::kScopeEnd:
      if (t.too_deep) {
        --t.too_deep;
      } else if (t.depth == 0) {
        ++counts_.orphan_ends;
      } else {
        // An end taken before its own begin: the clock is not one global
        // monotonic clock (docs/runtime.md §4). A track's records out of
        // order are no such sign: nested interrupts share a track on an
        // MCU and write in another order than they took their times.
        if (taken_ns < t.stack[t.depth - 1].ns) ++counts_.clock_went_backwards;
        ns = EndTime(t, ns);
        EndTop(t, ns, "");
      }
      break;
    case RecordType::kInstant: sink_->OnInstant(TrackOf(t), Name(r.name), ns, r.cpu, r.color); break;
    case RecordType::kCounter: sink_->OnCounter(TrackOf(t), Name(r.name), ns, r.value); break;
    case RecordType::kFlowOut:
      ns = format::FlowPoint(*sink_, TrackOf(t), true, r.flow, FlowName(r.name), ns, r.cpu, r.color,
                             t.depth > 0 && !t.too_deep);
      SetFlowBit(ws_.flow_written, r.flow);
      break;
    case RecordType::kFlowIn: ns = FlowIn(t, r, ns); break;
    case RecordType::kTimeBase: break;
  }
  t.last_ns = ns;
  if (ns > end_ns_) end_ns_ = ns;
}

// An end never at or before its begin (format::EndTime).
uint64_t TraceWalker::EndTime(const ThreadState& t, uint64_t ns) const {
  return format::EndTime(t.stack[t.depth - 1].ns, ns);
}

void TraceWalker::EndTop(ThreadState& t, uint64_t ns, std::string_view flag) {
  const OpenScope& s = t.stack[--t.depth];
  sink_->OnEnd(TrackOf(t), Name(s.name), ns, flag);
  t.last_ns = ns;
  if (ns > end_ns_) end_ns_ = ns;
}

void TraceWalker::CloseAll(ThreadState& t, uint64_t ns, std::string_view flag) {
  t.too_deep = 0;
  while (t.depth) {
    EndTop(t, EndTime(t, ns > t.last_ns ? ns : t.last_ns), flag);
    ++counts_.open_closed;
  }
}

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_WRITERS
