// SPDX-License-Identifier: MIT
// writer_contexts.cpp: the recording path of MCU ports with several cores
// and no thread-local storage (MABUTRACE_PORT_WRITER_CONTEXTS without
// MABUTRACE_PORT_SINGLE_CORE: FreeRTOS/ESP32; docs/ports.md §2). Other
// ports compile this file to nothing (writer.h).
//
// One writer per execution context the port names (port::WriterContext():
// a task, the ISRs of a core, the task-switch hooks of a core). Code that
// shares a context only preempts it in nested, last-in-first-out fashion
// (interrupts), which the reservation critical section and `pending` in
// EmitRecord() make safe. A port whose contexts can run out (more tasks
// than contexts) returns an index past the end: that caller's events are
// dropped and counted.
#include "port.h"

#if defined(MABUTRACE_PORT_WRITER_CONTEXTS) && !defined(MABUTRACE_PORT_SINGLE_CORE)

#include "chunk_writer.h"
#include "writer.h"

namespace mabutrace {
namespace {

struct Writer : ChunkWriter {
  // Reservations in `chunk` not yet committed (nested interrupts), and the
  // chunk a nested writer left while interrupted writers still wrote into
  // it, with its final commit word.
  uint32_t pending;
  uint32_t old_pending;
  Chunk* old_chunk;
  uint64_t old_commit;

  static constexpr bool kZeroChunks = false;
  static constexpr bool kThreadsExit = true;  // tasks are deleted
  static bool ClaimChunk(Runtime& rt, uint32_t* index, uint64_t* seq) { return ClaimChunkConcurrent(rt, index, seq); }
  void FinishChunk() {}  // the last pending record published the commit word
};

Writer g_writers[MABUTRACE_PORT_WRITER_CONTEXTS];

MT_INLINE Writer* CurrentWriter() {
  const uint32_t ctx = port::WriterContext();
  return MT_LIKELY(ctx < MABUTRACE_PORT_WRITER_CONTEXTS) ? &g_writers[ctx] : nullptr;
}

MT_NOINLINE void CountDropped() {
  if (Runtime* rt = g_runtime.load(std::memory_order_acquire)) {
    rt->dropped.fetch_add(1, std::memory_order_relaxed);
  }
}

// One record (R-B3). Interrupts are masked only while the record's place is
// taken: clock read, room check, cursor bump. The words are written with
// interrupts enabled; an interrupt that records in the same context
// meanwhile reserves after us and, finding `pending` non-zero, does not
// publish. The last writer to finish (the interrupted one: interrupts nest)
// publishes the commit word for both, so a reader never sees a reserved but
// unwritten record. A nested writer that finds the chunk full while
// interrupted writers still fill it takes a new chunk and leaves the old
// one's final commit word to the last of them (`old_*`). Dropped and
// counted instead, both vanishingly rare: a second chunk change before that
// commit, or a kTimeBase/session change under a pending write.
//
// One out-of-line body for every record type: on an MCU flash is dear, and
// six inlined copies cost more than the call (docs/ports.md §4).
MT_NOINLINE void EmitRecord(RecordType type, unsigned fixed_words, uint32_t color, uint64_t w1, uint64_t w2) {
  const uint32_t ctx = port::WriterContext();
  if (MT_UNLIKELY(ctx >= MABUTRACE_PORT_WRITER_CONTEXTS)) {
    CountDropped();
    return;
  }
  Writer& w = g_writers[ctx];
  const unsigned words = fixed_words + (color ? 1u : 0u);
  uint32_t irq = port::EnterCritical();
  // Inside the critical section: the port's clock state is shared by the
  // contexts, and records of a context must be in time order.
  const mabutrace_clock_fn clock = g_clock.load(std::memory_order_relaxed);
  uint64_t now = MT_UNLIKELY(clock != nullptr) ? clock() : port::NowTicksInCritical();
  uint64_t delta = now - w.base;
  if (MT_UNLIKELY(w.session != g_session.load(std::memory_order_relaxed) || uint64_t(w.end - w.cur) < words ||
                  delta >= kDeltaLimit)) {
    if (w.pending != 0) {
      // Interrupted writers of this context still fill the chunk.
      if (w.old_pending != 0 || w.session != g_session.load(std::memory_order_relaxed) || delta >= kDeltaLimit) {
        port::ExitCritical(irq);
        CountDropped();
        return;
      }
      w.old_chunk = w.chunk;
      w.old_commit = (uint64_t(w.records) << 32) | uint64_t(w.cur - w.begin);
      w.old_pending = w.pending;
      w.pending = 0;
      w.cur = w.end;  // full: SlowReserve takes a new chunk, never a time base here
    }
    if (!SlowReserve(w, words, now) || (delta = now - w.base) >= kDeltaLimit) {
      port::ExitCritical(irq);
      return;
    }
  }
  uint64_t* p = w.cur;
  Chunk* const chunk = w.chunk;
  w.cur = p + words;
  ++w.records;
  ++w.pending;
  port::ExitCritical(irq);

  uint64_t h = MakeHeader(delta, type, port::CurrentCpu());
  if (color) h |= kHasColor;
  if (port::ContextIsIsr(ctx)) h |= kInIsr;
  WriteWord(p, h);
  if (fixed_words > 1) WriteWord(p + 1, w1);
  if (fixed_words > 2) WriteWord(p + 2, w2);
  if (color) WriteWord(p + fixed_words, color & 0xFFFFFFu);

  irq = port::EnterCritical();
  if (MT_LIKELY(chunk == w.chunk)) {
    if (--w.pending == 0) {
      PublishCommit(chunk->commit, (uint64_t(w.records) << 32) | uint64_t(w.cur - w.begin));
    }
  } else if (--w.old_pending == 0) {  // chunk == w.old_chunk: see above
    PublishCommit(chunk->commit, w.old_commit);
    w.old_chunk = nullptr;
  }
  port::ExitCritical(irq);
}

}  // namespace

namespace writer {

uint64_t StartSession() { return Now(); }  // (contexts notice the new session themselves)

void EndSession() {}

int CallerSlot(Runtime** rt, uint32_t* slot) { return BindCaller(CurrentWriter(), rt, slot); }

void RecordFlow(uintptr_t name, uint32_t kind, uint64_t payload) {
  EmitRecord(KindType(kind), 3, KindColor(kind), uint64_t(name), payload);
}

void SyncCommit(const Runtime&, uint32_t) {}  // the last pending record publishes it

}  // namespace writer
}  // namespace mabutrace

using namespace mabutrace;

extern "C" {

mabutrace_scope_t mabutrace_scope_begin(const char* name, uint32_t color) {
  EmitRecord(RecordType::kScopeBegin, 2, color, uint64_t(uintptr_t(name)), 0);
  // The end is recorded only if the begin could have been: same session.
  const Writer* w = CurrentWriter();
  return mabutrace_scope_t{w ? w->session : 0u};
}

void mabutrace_scope_end(mabutrace_scope_t* scope) {
  if (!scope || scope->session == 0) return;
  if (MT_UNLIKELY(scope->session != g_session.load(std::memory_order_relaxed))) return;
  EmitRecord(RecordType::kScopeEnd, 1, 0, 0, 0);
}

void mabutrace_instant(const char* name, uint32_t color) {
  EmitRecord(RecordType::kInstant, 2, color, uint64_t(uintptr_t(name)), 0);
}

void mabutrace_counter(const char* name, int64_t value, uint32_t color) {
  EmitRecord(RecordType::kCounter, 3, color, uint64_t(uintptr_t(name)), uint64_t(value));
}

}  // extern "C"

#endif  // MABUTRACE_PORT_WRITER_CONTEXTS && !MABUTRACE_PORT_SINGLE_CORE
