// trace_walker.cpp: the per-thread rules shared by every exporter.
#include "trace_walker.h"

#include <string.h>

namespace mabutrace {

TraceWalker::TraceWalker(const Runtime& rt) : rt_(rt), ws_(*rt.workspace), snap_(rt) {}

void TraceWalker::Run(TraceSink& sink) {
  sink_ = &sink;
  MarkFlowStarts();
  for (uint32_t i = 0; i <= rt_.max_threads; ++i) ws_.threads[i] = ThreadState{};
  for (uint32_t i = 0; i < snap_.size() && !sink.Failed(); ++i) WriteChunk(i);
  for (uint32_t i = 0; i <= rt_.max_threads; ++i) {
    ThreadState& t = ws_.threads[i];
    if (t.seen) CloseAll(t, end_ns_, "open_at_export");
  }
}

// ---- pass 1: which flow starts are still in the buffer ---------------------

void TraceWalker::MarkFlowStarts() {
  memset(ws_.flow_bits, 0, (size_t(ws_.flow_mask) + 1) / 8);
  for (uint32_t i = 0; i < snap_.size(); ++i) {
    ChunkCopy info;
    if (!snap_.Load(i, &info)) continue;
    snap_.ForEach(info, [&](const Record& r) {
      if (r.type != RecordType::kFlowOut) return;
      const uint32_t bit = r.flow & ws_.flow_mask;
      ws_.flow_bits[bit >> 6] |= uint64_t(1) << (bit & 63);
    });
  }
}

bool TraceWalker::HasFlowStart(uint32_t n) const {
  const uint32_t bit = n & ws_.flow_mask;
  return n != 0 && (ws_.flow_bits[bit >> 6] >> (bit & 63) & 1) != 0;
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
      break;
    case RecordType::kFlowIn: {
      const uint32_t n = FlowForLink(r.link, r.flow);
      if (!HasFlowStart(n)) {
        // Keep the named point, never a dangling arrow end.
        ++counts_.flow_ends_without_start;
        if (r.name) sink_->OnInstant(t, r.name, ns, r.cpu, r.color);
        break;
      }
      ns = sink_->OnFlow(t, false, n, r.name, ns, r.cpu, r.color, t.depth > 0 && !t.too_deep);
      break;
    }
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
