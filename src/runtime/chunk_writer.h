// SPDX-License-Identifier: MIT
// chunk_writer.h: what every writer strategy (writer.h) does when a record
// does not fit: bind the thread to the session, write a time base record,
// or give the chunk back and take the next one.
//
// Templates over the strategy's Writer, which derives from ChunkWriter and
// adds what its hot path needs; each strategy's file compiles them for its
// own Writer, so they inline into its slow path as if written there. The
// Writer tells them, as static members:
//
//   kZeroChunks     a taken chunk is zeroed first: the strategy's cursor
//                   runs ahead of the commit word, and a reader that looks
//                   past that word must find a zero header where a record
//                   is still being written (single core)
//   kThreadsExit    threads end: Attach() registers OnThreadExit()
//   ClaimChunk(rt, &index, &seq)  claims the chunk at the ring position
//                   (ClaimChunkConcurrent() below, or the single core's)
//
// and as a member, FinishChunk(): called before the writer gives its chunk
// back, it makes the chunk's commit word final (a no-op where every record
// publishes it).
//
// Threading: a Writer is used by the thread (or execution context) it
// belongs to, and by its exit hook once that thread is gone (under the
// lifecycle lock); ring_buffer.h says what writers share and how.
#ifndef MABUTRACE_RUNTIME_CHUNK_WRITER_H
#define MABUTRACE_RUNTIME_CHUNK_WRITER_H

#include <stdint.h>
#include <string.h>

#include <atomic>

#include "../format/record_format.h"
#include "compiler.h"
#include "port.h"
#include "ring_buffer.h"
#include "session.h"
#include "thread_registry.h"

namespace mabutrace {

// A writer's chunk and cursor. Trivially constructible: all zero means "no
// session, no chunk", which is what thread-local storage starts with.
struct ChunkWriter {
  uint64_t* cur;  // where the next record goes
  // The hot path records below it: the chunk's end, or earlier when the
  // strategy wants the next record on the slow path (single core: a time
  // base grown stale). nullptr with no chunk.
  uint64_t* end;
  uint64_t* begin;
  Chunk* chunk;
  uint64_t base;     // time base of the records in `chunk` (ticks)
  uint32_t records;  // records in `chunk`
  uint32_t session;  // the session `chunk` belongs to
  uint32_t thread;   // RegisterThread()'s answer
  uint32_t tid;
};

template <class W>
void OnThreadExit(void* arg);

// Binds the calling thread's writer to the live session; a writer of an
// earlier session starts over. False if not initialized.
template <class W>
bool Attach(W& w, Runtime*& rt_out) {
  Runtime* rt = CurrentRuntime();
  if (!rt || g_session.load(std::memory_order_acquire) != rt->session) return false;
  if (w.session != rt->session) {
    w = W{};
    w.session = rt->session;
    w.tid = port::CurrentThreadId();
    w.thread = RegisterThread(*rt, w.tid);
    if (W::kThreadsExit) port::AtThreadExit(OnThreadExit<W>, &w);
  }
  rt_out = rt;
  return true;
}

// Its caller's registry slot, for writer::CallerSlot(); `w` is nullptr when
// the port had no writer context for the caller.
template <class W>
int BindCaller(W* w, Runtime** rt, uint32_t* slot) {
  if (!w) return MABUTRACE_ERR_NO_MEMORY;
  if (!Attach(*w, *rt)) return MABUTRACE_ERR_NOT_INITIALIZED;
  *slot = SlotOf(w->thread);
  return *slot == kNoSlot ? MABUTRACE_ERR_NO_MEMORY : MABUTRACE_OK;
}

template <class W>
void ReleaseChunk(W& w) {
  if (w.chunk) {
    w.FinishChunk();
    const uint64_t tag = w.chunk->tag.load(std::memory_order_relaxed);  // ours: stable
    w.chunk->tag.store(MakeTag(TagSeq(tag), kChunkFull), std::memory_order_release);
  }
  w.chunk = nullptr;
  w.cur = w.end = w.begin = nullptr;
}

// Runs at thread exit. Holds the lifecycle lock so that a concurrent
// mabutrace_deinit() cannot free the runtime under it.
// `arg` is the exiting thread's Writer (what Attach registered): an RTOS
// port may run this from another task (FreeRTOS: the idle task deletes).
template <class W>
void OnThreadExit(void* arg) {
  W& w = *static_cast<W*>(arg);
  g_lifecycle_lock.lock();
  Runtime* rt = g_runtime.load(std::memory_order_acquire);
  if (rt && w.session == rt->session) {
    ReleaseChunk(w);
    if (SlotOf(w.thread) != kNoSlot) ReleaseThread(*rt, w.thread);
    w.session = 0;
  }
  g_lifecycle_lock.unlock();
}

inline void CountOverwritten(Runtime& rt, const Chunk& c, uint64_t old_tag) {
  if (TagState(old_tag) == kChunkFull) {
    rt.overwritten.fetch_add(c.commit.load(std::memory_order_relaxed) >> 32, std::memory_order_relaxed);
  }
}

// Claims the chunk at the ring position for a writer that other writers
// may race (other threads, other cores): its old records are the oldest.
//
// The position (next_seq) only moves past a chunk once it is claimed (or
// seen owned by another writer, which is skipped), so a writer that is
// preempted here cannot make others recycle newer chunks before the one it
// was about to take: each thread's chunks are overwritten oldest first.
inline bool ClaimChunkConcurrent(Runtime& rt, uint32_t* index_out, uint64_t* seq_out) {
  for (uint32_t tries = 0; tries < 2 * rt.num_chunks; ++tries) {
    uint64_t pos = rt.next_seq.load(std::memory_order_acquire);
    const uint64_t seq = pos + 1;
    const uint32_t index = uint32_t(seq % rt.num_chunks);
    Chunk& c = rt.chunks[index];
    uint64_t tag = c.tag.load(std::memory_order_acquire);
    if (TagState(tag) == kChunkOwned || TagSeq(tag) >= seq) {
      // A writer still fills it, or it was already taken at this position
      // (we are late): step the ring over it.
      rt.next_seq.compare_exchange_strong(pos, seq, std::memory_order_acq_rel);
      continue;
    }
    // Fails if anyone took the chunk since we looked: then look again.
    if (!c.tag.compare_exchange_strong(tag, MakeTag(seq, kChunkOwned), std::memory_order_acq_rel)) {
      continue;
    }
    rt.next_seq.compare_exchange_strong(pos, seq, std::memory_order_acq_rel);
    CountOverwritten(rt, c, tag);
    *index_out = index;
    *seq_out = seq;
    return true;
  }
  return false;
}

// Makes chunk `index`, claimed at ring position `seq` (its tag already
// says so), the writer's: stamps the header under the sequence lock and
// points the writer at it, with time base `now`.
template <class W>
void TakeChunk(Runtime& rt, W& w, uint32_t index, uint64_t seq, uint64_t now) {
  Chunk& c = rt.chunks[index];
  // Sequence lock: odd while the header changes, and before any new word.
  const uint32_t gen = c.gen.load(std::memory_order_relaxed);
  c.gen.store(gen + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  c.commit.store(0, std::memory_order_relaxed);
  c.seq.store(seq, std::memory_order_relaxed);
  c.base.store(now, std::memory_order_relaxed);
  c.thread.store(w.thread, std::memory_order_relaxed);
  c.tid.store(w.tid, std::memory_order_relaxed);
  uint64_t* const words = rt.data + size_t(index) * rt.chunk_words;
  if (W::kZeroChunks) {
    // Where the cursor ran ahead of the records (a record still being
    // written) a reader sees a zero header (the host's raw-dump reader:
    // dump::kFlagZeroedChunks).
    memset(words, 0, size_t(rt.chunk_words) * 8);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);  // one core: ordered before the records
  }
  c.gen.store(gen + 2, std::memory_order_release);
  // The chunk's lines were last written by whichever core had it before
  // (a flight recorder wraps): ask for all of them now, for writing, so the
  // hot path does not wait for each line in turn (2 threads: TRACE_SCOPE
  // 2T/1T 1.17-1.34 -> 1.03-1.07 on the bench host, docs/performance.md).
  // (Unrolled: the loop's compare-and-branch per line was half of the
  // instructions of a chunk change.)
#pragma GCC unroll 8
  for (uint32_t i = 0; i < rt.chunk_words; i += 8) __builtin_prefetch(words + i, 1, 3);

  w.chunk = &c;
  w.begin = w.cur = words;
  w.end = w.begin + rt.chunk_words;
  w.base = now;
  w.records = 0;
}

// Makes room for `words` words at time `now`: attaches the thread, writes a
// time base record or takes a new chunk. False: record nothing.
template <class W>
MT_NOINLINE bool SlowReserve(W& w, unsigned words, uint64_t& now) {
  Runtime* rt = nullptr;
  if (!Attach(w, rt)) return false;
  if (MT_UNLIKELY(SlotOf(w.thread) == kNoSlot)) {  // registry full
    rt->dropped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (w.chunk) {
    uint64_t* const chunk_end = w.begin + rt->chunk_words;
    if (uint64_t(chunk_end - w.cur) >= words + 2u) {
      // Delta out of range (a long pause, or a clock that went back).
      WriteWord(w.cur + 1, now);
      WriteWord(w.cur, MakeHeader(0, RecordType::kTimeBase, 0));
      w.cur += 2;
      w.base = now;
      w.end = chunk_end;
      return true;
    }
  }
  ReleaseChunk(w);
  uint32_t index;
  uint64_t seq;
  if (W::ClaimChunk(*rt, &index, &seq)) {
    TakeChunk(*rt, w, index, seq, now);
    return true;
  }
  rt->dropped.fetch_add(1, std::memory_order_relaxed);
  return false;
}

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_CHUNK_WRITER_H
