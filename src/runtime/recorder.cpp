// recorder.cpp: init/deinit, the recording hot path, thread registry and
// statistics. The hot path is Emit(): one clock read, a few compares, the
// record's word stores and one release store (ring_buffer.h says why that is
// enough for readers).
#include <string.h>

#include <new>

#include "mabutrace/mabutrace.h"
#include "port.h"
#include "../format/record_format.h"
#include "ring_buffer.h"
#include "chunk_reader.h"
#include "stream_writer.h"

#define MT_LIKELY(x) __builtin_expect(!!(x), 1)
#define MT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MT_NOINLINE __attribute__((noinline))
#define MT_INLINE inline __attribute__((always_inline))
// Init, chunk changes, registration: rare. GCC optimizes cold functions for
// size at any -O (on an MCU, flash matters more than their speed).
#define MT_COLD __attribute__((cold))

namespace mabutrace {
namespace {

// 0 when not initialized; else the session number of the live Runtime.
std::atomic<uint32_t> g_session{0};
std::atomic<Runtime*> g_runtime{nullptr};
uint32_t g_last_session = 0;  // guarded by init/deinit being serial
SpinLock g_lifecycle_lock;
std::atomic<void (*)()> g_deinit_hook{nullptr};

// Per-thread writer state. Trivially constructible: zero means "no chunk".
struct Writer {
  uint64_t* cur;
  uint64_t* end;
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  // Single-core fast path (EmitFast, EmitMasked): `end` is `limit`, or `cur` when
  // PollClock() found the context's base more than 2^31 ticks old and wants
  // its next record on the slow path; deltas are 32-bit, from `base_lo`.
  uint32_t base_lo;    // low 32 bits of `base`
  uint32_t header_hi;  // header bits 32..63 every record of the context has (kInIsr)
  uint64_t* limit;     // the chunk's true end
  uint32_t counted;    // words of the chunk counted into `records` (SyncCommitOf)
#endif
  uint64_t* begin;
  Chunk* chunk;
  uint64_t base;      // time base of records in `chunk`
  uint32_t records;   // records in `chunk`
  uint32_t session;   // the session `chunk` belongs to
  uint32_t thread;    // registry slot | gen << 16
  uint32_t tid;
#if defined(MABUTRACE_PORT_WRITER_CONTEXTS) && !defined(MABUTRACE_PORT_SINGLE_CORE)
  // MCU ports (EmitRecord): reservations in `chunk` not yet committed
  // (nested interrupts), and the chunk a nested writer left while
  // interrupted writers still wrote into it, with its final commit word.
  uint32_t pending;
  uint32_t old_pending;
  Chunk* old_chunk;
  uint64_t old_commit;
#endif
};
#if defined(MABUTRACE_PORT_WRITER_CONTEXTS)
// MCU ports: no TLS. One writer per execution context the port names (on
// Cortex-M: Thread mode and Handler mode); code that shares a context only
// preempts it in nested, last-in-first-out fashion (interrupts), which the
// reservation critical section and `pending` in EmitRecord() make safe.
// A port whose contexts can run out (an RTOS with more tasks than contexts)
// defines MABUTRACE_PORT_CONTEXT_MAY_FAIL and returns an index past the end:
// that caller's events are dropped and counted.
#if defined(MABUTRACE_PORT_SINGLE_CORE)
// The fast clock: a free-running 32-bit up-counter (or a down-counter,
// inverted), read with one load; nullptr when the clock is the config's
// function or needs more work (SysTick), which SlowNow() does. Next to the
// writers, so that the fast path reaches both from one address.
struct FastClock {
  const volatile uint32_t* counter;
  uint32_t invert;
};
struct SingleCoreState {
  FastClock clock;
  Writer writers[MABUTRACE_PORT_WRITER_CONTEXTS];
};
SingleCoreState g_single_core;
Writer* const g_writers = g_single_core.writers;
#else
Writer g_writers[MABUTRACE_PORT_WRITER_CONTEXTS];
#endif
MT_INLINE Writer* CurrentWriter() {
  const uint32_t ctx = port::WriterContext();
#if defined(MABUTRACE_PORT_CONTEXT_MAY_FAIL)
  if (MT_UNLIKELY(ctx >= MABUTRACE_PORT_WRITER_CONTEXTS)) return nullptr;
#endif
  return &g_writers[ctx];
}
#else
MABUTRACE_PORT_TLS Writer tls_writer;
MT_INLINE Writer* CurrentWriter() { return &tls_writer; }
#endif

constexpr uint32_t kNoSlot = 0xFFFF;

// The clock of the live session: the port's unless the config gave one.
std::atomic<mabutrace_clock_fn> g_clock{nullptr};

MT_INLINE uint64_t Now() {
  const mabutrace_clock_fn clock = g_clock.load(std::memory_order_relaxed);
  return MT_UNLIKELY(clock != nullptr) ? clock() : port::NowTicks();
}

// ---- thread registry ----------------------------------------------------

MT_COLD uint32_t RegisterThread(Runtime& rt, uint32_t tid) {
  // A free slot first, then one whose thread has exited (its old chunks
  // then lose their name: the generation tells the exporter).
  for (uint32_t pass = 0; pass < 2; ++pass) {
    const uint32_t want = pass == 0 ? 0u : 2u;
    for (uint32_t i = 0; i < rt.max_threads; ++i) {
      ThreadSlot& s = rt.threads[i];
      uint32_t st = want;
      if (s.state.load(std::memory_order_relaxed) != want) continue;
      if (!s.state.compare_exchange_strong(st, 1, std::memory_order_acq_rel)) continue;
      const uint32_t gen = (s.gen.load(std::memory_order_relaxed) + (pass ? 1 : 0)) & 0xFFFF;
      s.gen.store(gen, std::memory_order_relaxed);
      s.tid.store(tid, std::memory_order_relaxed);
      rt.names_lock.lock();
      s.explicit_name = false;
      port::CurrentThreadName(s.name, sizeof s.name);
      rt.names_lock.unlock();
      return i | (gen << 16);
    }
  }
  return kNoSlot;
}

#if defined(MABUTRACE_PORT_SINGLE_CORE)
// Single core: recording moves only the writer's cursor, not the chunk's
// commit word. Readers run in Thread mode on the same core, so when one
// looks, every reserved record is complete (an interrupt finishes before
// the code it interrupted resumes); they bring the commit word up to date
// first (SyncCommit). A nested interrupt that releases a chunk while the
// interrupted one still writes its record publishes a commit word that
// covers it: the record is complete before any reader runs.
// Interrupt contexts count their records as they reserve them (under the
// mask, EmitMasked). Thread mode's fast path does not: its records are
// counted here, by walking the headers from where the last sync stopped
// (`counted`), with interrupts enabled (nothing else writes that chunk, and
// its reader or slow path is Thread mode itself).
void SyncCommitOf(Writer& w) {
  const uint32_t words = uint32_t(w.cur - w.begin);
  if (&w == &g_writers[0]) {
    uint32_t i = w.counted, n = w.records;
    while (i < words) {
      const uint64_t h = ReadWord(w.begin + i);
      const unsigned k = RecordWords(h);
      if (k == 0) break;  // (a damaged chunk: never for a complete one)
      n += HeaderType(h) != RecordType::kTimeBase;
      i += k;
    }
    w.counted = i, w.records = n;
  }
  PublishCommit(w.chunk->commit, (uint64_t(w.records) << 32) | words);
}
#endif

void ReleaseChunk(Writer& w) {
  if (w.chunk) {
#if defined(MABUTRACE_PORT_SINGLE_CORE)
    SyncCommitOf(w);
#endif
    const uint64_t tag = w.chunk->tag.load(std::memory_order_relaxed);  // ours: stable
    w.chunk->tag.store(MakeTag(TagSeq(tag), kChunkFull), std::memory_order_release);
  }
  w.chunk = nullptr;
  w.cur = w.end = w.begin = nullptr;
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  w.limit = nullptr;
#endif
}

#if !defined(MABUTRACE_PORT_SINGLE_CORE)
// Runs at thread exit. Holds the lifecycle lock so that a concurrent
// mabutrace_deinit() cannot free the runtime under it.
// `arg` is the exiting thread's Writer (what Attach registered): an RTOS
// port may run this from another task (FreeRTOS: the idle task deletes).
void OnThreadExit(void* arg) {
  Writer& w = *static_cast<Writer*>(arg);
  g_lifecycle_lock.lock();
  Runtime* rt = g_runtime.load(std::memory_order_acquire);
  if (rt && w.session == rt->session) {
    ReleaseChunk(w);
    const uint32_t slot = w.thread & 0xFFFF;
    if (slot != kNoSlot) rt->threads[slot].state.store(2, std::memory_order_release);
    w.session = 0;
  }
  g_lifecycle_lock.unlock();
}
#endif

// Binds the calling thread to the live session. False if not initialized.
bool Attach(Writer& w, Runtime*& rt_out) {
  Runtime* rt = g_runtime.load(std::memory_order_acquire);
  if (!rt || g_session.load(std::memory_order_acquire) != rt->session) return false;
  if (w.session != rt->session) {
    w = Writer{};
    w.session = rt->session;
    w.tid = port::CurrentThreadId();
    w.thread = RegisterThread(*rt, w.tid);
#if !defined(MABUTRACE_PORT_SINGLE_CORE)  // (bare metal: contexts never exit)
    port::AtThreadExit(OnThreadExit, &w);
#endif
  }
  rt_out = rt;
  return true;
}

// Makes chunk `index` the writer's, taken at ring position `seq` (its tag
// already says so): stamps the header under the sequence lock and points
// the writer at it.
void TakeChunk(Runtime& rt, Writer& w, uint32_t index, uint64_t seq, uint64_t now) {
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
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  // Zeroed, so that where the cursor ran ahead of the records (a record
  // still being written) a reader sees a zero header (SyncCommitOf, and the
  // host's raw-dump reader: dump::kFlagZeroedChunks).
  memset(words, 0, size_t(rt.chunk_words) * 8);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);  // one core: ordered before the records
#endif
  c.gen.store(gen + 2, std::memory_order_release);

  w.chunk = &c;
  w.begin = w.cur = words;
  w.end = w.begin + rt.chunk_words;
  w.base = now;
  w.records = 0;
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  w.limit = w.end;
  w.base_lo = uint32_t(now);
  w.counted = 0;
#endif
}

void CountOverwritten(Runtime& rt, const Chunk& c, uint64_t old_tag) {
  if (TagState(old_tag) == kChunkFull) {
    rt.overwritten.fetch_add(c.commit.load(std::memory_order_relaxed) >> 32,
                             std::memory_order_relaxed);
  }
}

#if defined(MABUTRACE_PORT_SINGLE_CORE)
// Takes the chunk at the ring position; its old records are the oldest.
// One core: with interrupts masked nothing else runs, so the position
// moves without compare-and-swap. A chunk the other context still fills is
// stepped over.
bool AcquireChunk(Runtime& rt, Writer& w, uint64_t now) {
  const uint32_t irq = port::EnterCritical();
  uint64_t seq = rt.next_seq.load(std::memory_order_relaxed);
  for (uint32_t tries = 0; tries < rt.num_chunks; ++tries) {
    ++seq;
    const uint32_t index = uint32_t(seq % rt.num_chunks);
    Chunk& c = rt.chunks[index];
    const uint64_t tag = c.tag.load(std::memory_order_relaxed);
    if (TagState(tag) == kChunkOwned) continue;
    c.tag.store(MakeTag(seq, kChunkOwned), std::memory_order_relaxed);
    rt.next_seq.store(seq, std::memory_order_relaxed);
    CountOverwritten(rt, c, tag);
    port::ExitCritical(irq);
    // Owned now: interrupt contexts step over it, and only its new owner
    // (with its readers, if that is Thread mode) looks at it.
    TakeChunk(rt, w, index, seq, now);
    return true;
  }
  port::ExitCritical(irq);
  return false;
}
#else
// Takes the chunk at the ring position; its old records are the oldest.
//
// The position (next_seq) only moves past a chunk once it is claimed (or
// seen owned by another writer, which is skipped), so a writer that is
// preempted here cannot make others recycle newer chunks before the one it
// was about to take: each thread's chunks are overwritten oldest first.
bool AcquireChunk(Runtime& rt, Writer& w, uint64_t now) {
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
    TakeChunk(rt, w, index, seq, now);
    return true;
  }
  return false;
}
#endif

// Makes room for `words` words at time `now`: attaches the thread, writes a
// time base record or takes a new chunk. False: record nothing.
MT_NOINLINE bool SlowReserve(Writer& w, unsigned words, uint64_t& now) {
  Runtime* rt = nullptr;
  if (!Attach(w, rt)) return false;
  if (MT_UNLIKELY((w.thread & 0xFFFF) == kNoSlot)) {  // registry full
    rt->dropped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  uint64_t* const room_end = w.limit;
#else
  uint64_t* const room_end = w.end;
#endif
  if (w.chunk && uint64_t(room_end - w.cur) >= words + 2u) {
    // Delta out of range (a long pause, or a clock that went back).
    WriteWord(w.cur + 1, now);
    WriteWord(w.cur, MakeHeader(0, RecordType::kTimeBase, 0));
    w.cur += 2;
    w.base = now;
#if defined(MABUTRACE_PORT_SINGLE_CORE)
    w.end = w.limit;
    w.base_lo = uint32_t(now);
#endif
    return true;
  }
  ReleaseChunk(w);
  if (AcquireChunk(*rt, w, now)) return true;
  rt->dropped.fetch_add(1, std::memory_order_relaxed);
  return false;
}

#if defined(MABUTRACE_PORT_SINGLE_CORE)
// Single-core MCU form of Emit() (R-B3; Cortex-M: docs/ports.md §2).
//
// Context 0 (Cortex-M: Thread mode) is written only by code that no other
// writer of context 0 interrupts, so its records need no lock at all:
// EmitFast() reads the 32-bit counter, checks room and the delta, moves the
// cursor and writes the words (the header last). Other contexts (ISRs)
// nest, and EmitMasked() reserves their space with interrupts masked.
// Neither touches the chunk's commit word, counts records or checks the
// session: readers sync the commit word (SyncCommit), deinit empties the
// writers, and PollClock() sends a context whose time base grows stale to
// the slow path. What the fast path cannot do (another context, a color,
// a full chunk, a stale base, a clock that is not a plain counter) goes to
// EmitMasked(). A dropped record returns 0, else the session.

MT_NOINLINE uint64_t SlowNow() {
  const mabutrace_clock_fn clock = g_clock.load(std::memory_order_relaxed);
  return clock != nullptr ? clock() : port::NowTicksInCritical();
}

// Makes room for `words` words: binds the context, writes a time base
// record or takes a new chunk, either based at the clock's time now (so
// the record's delta is 0).
MT_NOINLINE bool SlowReserveSingleCore(Writer& w, unsigned words) {
  const uint32_t irq = port::EnterCritical();  // the clock's extension is shared
  uint64_t now = SlowNow();
  port::ExitCritical(irq);
  const bool ok = SlowReserve(w, words, now);
  w.header_hi = port::ContextIsIsr(uint32_t(&w - g_writers)) ? uint32_t(kInIsr >> 32) : 0u;
  return ok && uint32_t(w.end - w.cur) >= words;
}

MT_INLINE void WriteRecord(uint64_t* p, uint32_t header_hi, uint32_t delta, unsigned words,
                           uintptr_t name, uint64_t value, uint32_t color) {
  const unsigned fixed = color ? words - 1 : words;
  if (fixed > 1) WriteWord(p + 1, name);
  if (fixed > 2) WriteWord(p + 2, value);
  if (color) WriteWord(p + fixed, color & 0xFFFFFFu);
  // The header last (WriteWord is a volatile store: program order): a dump
  // taken while the words go in sees a zero header, not a half record.
  WriteWord(p, uint64_t(header_hi) << 32 | delta);
}

// What EmitMasked() records, in one register: bits 0..23 the color,
// bit 24 MABUTRACE_COLOR_SET, bits 25..27 the RecordType, bits 28..30 the
// words without the color word.
constexpr uint32_t MaskedKind(RecordType type, unsigned words, uint32_t color = 0) {
  return (color & 0x1FFFFFFu) | uint32_t(type) << 25 | uint32_t(words) << 28;
}

MT_NOINLINE mabutrace_scope_t EmitMasked(uintptr_t name, uint32_t kind, uint64_t value) {
  const RecordType type = RecordType((kind >> 25) & 7);
  const uint32_t color = kind & 0x1FFFFFFu;
  const unsigned words = ((kind >> 28) & 7) + (color ? 1u : 0u);
  const uint32_t ctx = port::WriterContext();
  Writer& w = g_writers[ctx];
  // Interrupts masked from here to the cursor bump; the clock read is
  // inside so that records of a context are in time order.
  uint32_t irq = port::EnterCritical();
  const FastClock fc = g_single_core.clock;
  uint32_t now;
  bool stale;
  if (fc.counter != nullptr) {
    now = *fc.counter ^ fc.invert;
    stale = int32_t(now - w.base_lo) < 0;  // and PollClock()
  } else {
    // No fast counter, or no poll yet: check the delta in 64 bits.
    const uint64_t t = SlowNow();
    now = uint32_t(t);
    stale = t - w.base >= (uint64_t{1} << 31);
  }
  uint64_t* p = w.cur;
  uint32_t delta = now - w.base_lo;
  if (uintptr_t(p) + words * 8 > uintptr_t(w.end) || stale) {
    // Thread mode's slow path runs with interrupts enabled, masking only
    // what it shares (the clock, the ring): its chunk's records are counted
    // and a new chunk zeroed without holding interrupts off.
    if (ctx == 0) port::ExitCritical(irq);
    const bool ok = SlowReserveSingleCore(w, words);
    if (ctx == 0) irq = port::EnterCritical();
    if (!ok) {
      port::ExitCritical(irq);
      return mabutrace_scope_t{0};
    }
    p = w.cur;
    delta = 0;
  }
  w.cur = p + words;
  if (ctx != 0) ++w.records;  // (SyncCommitOf)
  const uint32_t hi = w.header_hi | uint32_t(type) << (kTypeShift - 32) | (color ? uint32_t(kHasColor >> 32) : 0u);
  port::ExitCritical(irq);
  WriteRecord(p, hi, delta, words, name, value, color);
  return mabutrace_scope_t{uint32_t(uintptr_t(p))};
}

// Thread mode with a counter clock: no interrupt mask, no delta check (see
// PollClock). Everything else goes to EmitMasked(). The name comes as a
// 64-bit word (on a 32-bit core the caller's zero high half is a register
// the store pairs with), and the scope token is the record's address (any
// non-zero value means "recorded").
template <RecordType kType, unsigned kWords>
MT_INLINE mabutrace_scope_t EmitFast(uint64_t name, uint64_t value) {
  SingleCoreState& sc = g_single_core;
  Writer& w = sc.writers[0];
  uint64_t* const p = w.cur;
  if (MT_UNLIKELY(port::WriterContext() != 0 || uintptr_t(p) + kWords * 8 > uintptr_t(w.end) ||
                  sc.clock.counter == nullptr)) {
    return EmitMasked(uintptr_t(name), MaskedKind(kType, kWords), value);
  }
  const uint32_t delta = (*sc.clock.counter ^ sc.clock.invert) - w.base_lo;
  // An interrupt may run PollClock() here and set `end` to the old cursor:
  // then the next record takes the slow path, as it wants.
  w.cur = p + kWords;
  if (kWords > 1) WriteWord(p + 1, name);
  if (kWords > 2) WriteWord(p + 2, value);
  WriteWord(p, uint64_t(w.header_hi | uint32_t(kType) << (kTypeShift - 32)) << 32 | delta);
  static_assert(sizeof p == 4, "the token is the record's address: 32-bit cores");
  return mabutrace_scope_t{uint32_t(uintptr_t(p))};
}

template <RecordType kType, unsigned kWords>
MT_INLINE mabutrace_scope_t EmitSC(uintptr_t name, uint64_t value, uint32_t color) {
  if (MT_UNLIKELY(color != 0)) return EmitMasked(name, MaskedKind(kType, kWords, color), value);
  return EmitFast<kType, kWords>(name, value);
}

// The fast path once more, out of line for instants and counters (record
// type and size in `kind`, as EmitMasked takes them): flash for the
// recording core stays under 4 KiB (docs/ports.md §4) at a few
// instructions more than the inlined copies scopes get.
MT_NOINLINE void EmitFastAny(uintptr_t name, uint32_t kind, uint64_t value) {
  SingleCoreState& sc = g_single_core;
  Writer& w = sc.writers[0];
  uint64_t* const p = w.cur;
  const unsigned words = kind >> 28;
  if (MT_UNLIKELY(port::WriterContext() != 0 || (kind & 0x1FFFFFFu) != 0 ||
                  uintptr_t(p) + words * 8 > uintptr_t(w.end) || sc.clock.counter == nullptr)) {
    EmitMasked(name, kind, value);
    return;
  }
  const uint32_t delta = (*sc.clock.counter ^ sc.clock.invert) - w.base_lo;
  w.cur = p + words;
  WriteWord(p + 1, name);
  if (words > 2) WriteWord(p + 2, value);
  WriteWord(p, uint64_t(w.header_hi | ((kind >> 25) & 7) << (kTypeShift - 32)) << 32 | delta);
}
#endif

#if defined(MABUTRACE_PORT_WRITER_CONTEXTS) && !defined(MABUTRACE_PORT_SINGLE_CORE)
// MCU form of Emit() below (R-B3). Interrupts are masked only while the
// record's place is taken: clock read, room check, cursor bump. The words
// are written with interrupts enabled; an interrupt that records in the same
// context meanwhile reserves after us and, finding `pending` non-zero, does
// not publish. The last writer to finish (the interrupted one: interrupts
// nest) publishes the commit word for both, so a reader never sees a
// reserved but unwritten record. A nested writer that finds the chunk full
// while interrupted writers still fill it takes a new chunk and leaves the
// old one's final commit word to the last of them (`old_*`). Dropped and
// counted instead, both vanishingly rare: a second chunk change before
// that commit, or a kTimeBase/session change under a pending write.
MT_NOINLINE void CountDropped() {
  if (Runtime* rt = CurrentRuntime()) rt->dropped.fetch_add(1, std::memory_order_relaxed);
}

// One out-of-line body for every record type: on an MCU flash is dear, and
// six inlined copies cost more than the call (docs/ports.md §4).
MT_NOINLINE void EmitRecord(RecordType type, unsigned fixed_words, uint32_t color, uint64_t w1,
                            uint64_t w2) {
  const uint32_t ctx = port::WriterContext();
#if defined(MABUTRACE_PORT_CONTEXT_MAY_FAIL)
  if (MT_UNLIKELY(ctx >= MABUTRACE_PORT_WRITER_CONTEXTS)) {
    CountDropped();
    return;
  }
#endif
  Writer& w = g_writers[ctx];
  const unsigned words = fixed_words + (color ? 1u : 0u);
  uint32_t irq = port::EnterCritical();
  // Inside the critical section: the port's clock state is shared by the
  // contexts, and records of a context must be in time order.
  const mabutrace_clock_fn clock = g_clock.load(std::memory_order_relaxed);
  uint64_t now = MT_UNLIKELY(clock != nullptr) ? clock() : port::NowTicksInCritical();
  uint64_t delta = now - w.base;
  if (MT_UNLIKELY(w.session != g_session.load(std::memory_order_relaxed) ||
                  uint64_t(w.end - w.cur) < words || delta >= kDeltaLimit)) {
    if (w.pending != 0) {
      // Interrupted writers of this context still fill the chunk.
      if (w.old_pending != 0 || w.session != g_session.load(std::memory_order_relaxed) ||
          delta >= kDeltaLimit) {
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

template <unsigned kFixedWords>
MT_INLINE void Emit(RecordType type, uint32_t color, uint64_t w1, uint64_t w2) {
  EmitRecord(type, kFixedWords, color, w1, w2);
}
#elif !defined(MABUTRACE_PORT_SINGLE_CORE)
// Appends one record: header, then up to two payload words, then the color.
template <unsigned kFixedWords>
MT_INLINE void Emit(RecordType type, uint32_t color, uint64_t w1, uint64_t w2) {
  Writer& w = tls_writer;
  uint64_t now = Now();
  const unsigned words = kFixedWords + (color ? 1u : 0u);
  if (MT_UNLIKELY(w.session != g_session.load(std::memory_order_relaxed) ||
                  uint64_t(w.end - w.cur) < words || now - w.base >= kDeltaLimit)) {
    if (!SlowReserve(w, words, now)) return;
    if (now - w.base >= kDeltaLimit) return;  // clock misbehaves; drop
  }
  uint64_t* p = w.cur;
  uint64_t h = MakeHeader(now - w.base, type, port::CurrentCpu());
  if (color) h |= kHasColor;
  if (port::InIsr()) h |= kInIsr;
  WriteWord(p, h);
  if (kFixedWords > 1) WriteWord(p + 1, w1);
  if (kFixedWords > 2) WriteWord(p + 2, w2);
  if (color) WriteWord(p + kFixedWords, color & 0xFFFFFFu);
  w.cur = p + words;
  ++w.records;
  w.chunk->commit.store((uint64_t(w.records) << 32) | uint64_t(w.cur - w.begin),
                        std::memory_order_release);
}
#endif

// ---- layout -----------------------------------------------------------------

size_t AlignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

uint32_t FlowWindow(size_t data_bytes) {
  // The exporter checks flows among the newest `window` flow numbers: at
  // least as many as flow-out records (24 bytes) fit in the buffer.
  uint64_t need = data_bytes / 24 + 1;
  uint32_t bits = 1024;
  while (bits < need) bits <<= 1;
  return bits;
}

// Flow ends the exporter can hold back until their start is written: one
// per 256 bytes of storage, 256 .. 8192 (16 bytes each).
uint32_t DeferredFlowEnds(size_t data_bytes) {
  const size_t n = data_bytes / 256;
  return uint32_t(n < 256 ? 256 : n > 8192 ? 8192 : n);
}

}  // namespace

Runtime* CurrentRuntime() { return g_runtime.load(std::memory_order_acquire); }

#if defined(MABUTRACE_PORT_SINGLE_CORE)
void SyncCommit(const Runtime& rt, uint32_t index) {
  // From an interrupt (not supported, docs/ports.md §3) a writer may be
  // mid-record: leave the commit words as they are, which is always safe.
  if (port::InIsr()) return;
  const Chunk* const c = &rt.chunks[index];
  if (g_writers[0].chunk == c) {
    SyncCommitOf(g_writers[0]);  // Thread mode's: this code is Thread mode
    return;
  }
  const uint32_t irq = port::EnterCritical();
  for (uint32_t i = 1; i < MABUTRACE_PORT_WRITER_CONTEXTS; ++i) {
    if (g_writers[i].chunk == c) SyncCommitOf(g_writers[i]);
  }
  port::ExitCritical(irq);
}

void PollClock() {
  if (!CurrentRuntime()) return;
  const uint32_t irq = port::EnterCritical();
  const uint32_t now = uint32_t(SlowNow());
  // The first poll turns the fast path on (with a counter clock): from now
  // on the application polls, which is what keeps its 32-bit deltas exact.
  // Until then every record takes EmitMasked()'s 64-bit check.
  FastClock& fc = g_single_core.clock;
  if (fc.counter == nullptr && g_clock.load(std::memory_order_relaxed) == nullptr) {
    fc.counter = port::FastCounter(&fc.invert);
  }
  for (Writer& w : g_single_core.writers) {
    // The fast path's delta is 32 bits and unchecked: with a poll at least
    // every 2^31 ticks, a context whose base is 2^31 old is sent to the slow
    // path (a time base record) before its delta can reach 2^32.
    if (w.chunk && int32_t(now - w.base_lo) < 0) w.end = w.cur;
  }
  port::ExitCritical(irq);
}
#endif

void SetDeinitHook(void (*fn)()) { g_deinit_hook.store(fn, std::memory_order_release); }

Runtime* BeginExport() {
  g_lifecycle_lock.lock();
  Runtime* rt = g_runtime.load(std::memory_order_relaxed);
  if (rt) rt->export_lock.lock();
  g_lifecycle_lock.unlock();
  return rt;
}

void EndExport(Runtime* rt) {
  if (rt) rt->export_lock.unlock();
}

MT_COLD Layout ComputeLayout(const mabutrace_config_t& cfg) {
  Layout l;
  // Chunk: a power of two of 256 B .. 4 KiB giving at least 32 chunks.
  size_t chunk_bytes = 4096;
  while (chunk_bytes > 256 && cfg.buffer_size / chunk_bytes < 32) chunk_bytes >>= 1;
  l.chunk_words = uint32_t(chunk_bytes / 8);
  l.num_chunks = uint32_t(cfg.buffer_size / chunk_bytes);
  const size_t data_bytes = size_t(l.num_chunks) * chunk_bytes;
  const uint32_t flow_window = FlowWindow(data_bytes);

  size_t off = AlignUp(sizeof(Runtime), 64);
  l.chunks_offset = off;
  off = AlignUp(off + sizeof(Chunk) * l.num_chunks, 64);
  l.threads_offset = off;
  off = AlignUp(off + sizeof(ThreadSlot) * cfg.max_threads, 64);
  l.workspace_offset = off;
  off += sizeof(ExportWorkspace);
  off = AlignUp(off, 64) + sizeof(ChunkRef) * l.num_chunks;
  off = AlignUp(off, 64) + chunk_bytes;
  off = AlignUp(off, 64) + sizeof(ThreadState) * (cfg.max_threads + 1);
  off = AlignUp(off, 64) + sizeof(OpenScope) * (cfg.max_threads + 1) * cfg.max_depth;
  off = AlignUp(off, 64) + flow_window / 8 * 2;
  off = AlignUp(off, 64) + sizeof(FlowEnd) * DeferredFlowEnds(data_bytes);
  off = AlignUp(off, 64) + kExportOutBytes;
  off = AlignUp(off, 64) + kExportPacketBytes;
  off = AlignUp(off, 64) + sizeof(InternEntry) * kExportInternEntries;
  off = AlignUp(off, 64) + StreamStateBytes(l.num_chunks, cfg.max_threads);
  l.data_offset = AlignUp(off, 64);
  l.total = l.data_offset + data_bytes;
  return l;
}

}  // namespace mabutrace

using namespace mabutrace;

extern "C" {

void mabutrace_config_default(mabutrace_config_t* cfg) {
  if (!cfg) return;
  memset(cfg, 0, sizeof *cfg);
#ifdef CONFIG_MABUTRACE_BUFFER_SIZE
  cfg->buffer_size = CONFIG_MABUTRACE_BUFFER_SIZE;
#else
  cfg->buffer_size = 64 * 1024;
#endif
  cfg->max_threads = 64;
  cfg->max_depth = 32;
}

static bool ConfigValid(const mabutrace_config_t& c) {
  return c.buffer_size >= 4096 && c.buffer_size <= (size_t(1) << 30) && c.max_threads >= 1 &&
         c.max_threads <= 4096 && c.max_depth >= 1 && c.max_depth <= 1024 &&
         (c.clock == nullptr || c.clock_hz != 0);
}

size_t mabutrace_memory_required(const mabutrace_config_t* cfg) {
  mabutrace_config_t c;
  mabutrace_config_default(&c);
  if (cfg) c = *cfg;
  return ConfigValid(c) ? ComputeLayout(c).total : 0;
}

MT_COLD static void CarveWorkspace(Runtime& rt, uint8_t* base, const Layout& l, const mabutrace_config_t& c) {
  uint8_t* p = base + l.workspace_offset;
  auto* ws = new (p) ExportWorkspace{};
  size_t off = l.workspace_offset + sizeof(ExportWorkspace);
  auto take = [&](size_t bytes) {
    off = AlignUp(off, 64);
    uint8_t* q = base + off;
    off += bytes;
    return q;
  };
  ws->order = reinterpret_cast<ChunkRef*>(take(sizeof(ChunkRef) * l.num_chunks));
  ws->copy = reinterpret_cast<uint64_t*>(take(size_t(l.chunk_words) * 8));
  // One spare thread state past max_threads (see json_exporter.cpp).
  ws->threads = reinterpret_cast<ThreadState*>(take(sizeof(ThreadState) * (c.max_threads + 1)));
  ws->stacks =
      reinterpret_cast<OpenScope*>(take(sizeof(OpenScope) * (c.max_threads + 1) * c.max_depth));
  const uint32_t flow_window = FlowWindow(size_t(l.num_chunks) * l.chunk_words * 8);
  ws->flow_present = reinterpret_cast<uint64_t*>(take(flow_window / 8 * 2));
  ws->flow_written = ws->flow_present + flow_window / 64;
  ws->flow_window = flow_window;
  const size_t data_bytes = size_t(l.num_chunks) * l.chunk_words * 8;
  ws->deferred_cap = DeferredFlowEnds(data_bytes);
  ws->deferred = reinterpret_cast<FlowEnd*>(take(sizeof(FlowEnd) * ws->deferred_cap));
  ws->out = reinterpret_cast<char*>(take(kExportOutBytes));
  ws->out_cap = kExportOutBytes;
  ws->packet = take(kExportPacketBytes);
  ws->packet_cap = kExportPacketBytes;
  ws->interned = reinterpret_cast<InternEntry*>(take(sizeof(InternEntry) * kExportInternEntries));
  ws->intern_cap = kExportInternEntries;
  ws->stream = CarveStreamState(take(StreamStateBytes(l.num_chunks, c.max_threads)), l.num_chunks,
                                c.max_threads);
  rt.workspace = ws;
}

MT_COLD int mabutrace_init_with_config(const mabutrace_config_t* cfg) {
  mabutrace_config_t c;
  mabutrace_config_default(&c);
  if (cfg) c = *cfg;
  if (!ConfigValid(c)) return MABUTRACE_ERR_INVALID_ARG;

  g_lifecycle_lock.lock();
  if (g_runtime.load(std::memory_order_relaxed)) {
    g_lifecycle_lock.unlock();
    return MABUTRACE_ERR_ALREADY_INITIALIZED;
  }
  const Layout l = ComputeLayout(c);
  void* mem = c.memory;
  const bool owns = mem == nullptr;
  if (owns) mem = port::Allocate(l.total);
  if (!mem || (uintptr_t(mem) & 63) != 0) {
    if (owns && mem) port::Free(mem);
    g_lifecycle_lock.unlock();
    return mem ? MABUTRACE_ERR_INVALID_ARG : MABUTRACE_ERR_NO_MEMORY;
  }
  auto* base = static_cast<uint8_t*>(mem);
  memset(base, 0, l.data_offset);  // bookkeeping; the data needs no clearing
  auto* rt = new (base) Runtime{};
  rt->memory = mem;
  rt->owns_memory = owns;
  rt->memory_bytes = l.total;
  rt->chunks = reinterpret_cast<Chunk*>(base + l.chunks_offset);
  for (uint32_t i = 0; i < l.num_chunks; ++i) new (&rt->chunks[i]) Chunk{};
  rt->num_chunks = l.num_chunks;
  rt->chunk_words = l.chunk_words;
  rt->threads = reinterpret_cast<ThreadSlot*>(base + l.threads_offset);
  for (uint32_t i = 0; i < c.max_threads; ++i) new (&rt->threads[i]) ThreadSlot{};
  rt->max_threads = c.max_threads;
  rt->max_depth = c.max_depth;
  rt->data = reinterpret_cast<uint64_t*>(base + l.data_offset);
  CarveWorkspace(*rt, base, l, c);
  rt->clock = c.clock;
  rt->clock_hz = c.clock ? c.clock_hz : port::ClockHz();
  g_clock.store(c.clock, std::memory_order_relaxed);
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  g_single_core.clock = FastClock{};  // off until the first PollClock()
#endif
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  {
    const uint32_t irq = port::EnterCritical();
    rt->origin = SlowNow();  // (port::NowTicks() would be a second copy of the clock)
    port::ExitCritical(irq);
  }
#else
  rt->origin = Now();
#endif
  rt->pid = port::ProcessId();
  if (c.process_name) {
    strncpy(rt->process_name, c.process_name, sizeof rt->process_name - 1);
  } else {
    port::ProcessName(rt->process_name, sizeof rt->process_name);
  }
  if (++g_last_session == 0) g_last_session = 1;
  rt->session = g_last_session;
  WriteDumpDescriptor(*rt, l);

  g_runtime.store(rt, std::memory_order_release);
  g_session.store(rt->session, std::memory_order_release);
  g_lifecycle_lock.unlock();
  return MABUTRACE_OK;
}

int mabutrace_init(void) { return mabutrace_init_with_config(nullptr); }

int mabutrace_is_initialized(void) { return g_session.load(std::memory_order_acquire) != 0; }

MT_COLD void mabutrace_deinit(void) {
  // Servers stop first: they export from the memory that goes below.
  if (auto hook = g_deinit_hook.load(std::memory_order_acquire)) hook();
  g_lifecycle_lock.lock();
  Runtime* rt = g_runtime.load(std::memory_order_relaxed);
  if (!rt) {
    g_lifecycle_lock.unlock();
    return;
  }
  g_session.store(0, std::memory_order_release);
  g_clock.store(nullptr, std::memory_order_relaxed);  // the user's clock is not called again
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  {
    // The fast path checks no session: empty writers send it to the slow
    // path, which finds none.
    const uint32_t irq = port::EnterCritical();
    for (Writer& w : g_single_core.writers) w = Writer{};
    g_single_core.clock = FastClock{};
    port::ExitCritical(irq);
  }
#endif
  // Wait out a running export before the memory goes.
  rt->export_lock.lock();
  g_runtime.store(nullptr, std::memory_order_release);
  rt->export_lock.unlock();
  ClearDumpRegion();
  const bool owns = rt->owns_memory;
  void* mem = rt->memory;
  rt->~Runtime();
  if (owns) port::Free(mem);
  g_lifecycle_lock.unlock();
}

MT_COLD int mabutrace_set_thread_name(const char* name) {
  if (!name) return MABUTRACE_ERR_INVALID_ARG;
  Writer* wp = CurrentWriter();
  if (!wp) return MABUTRACE_ERR_NO_MEMORY;  // MCU: out of writer contexts
  Writer& w = *wp;
  Runtime* rt = nullptr;
  if (!Attach(w, rt)) return MABUTRACE_ERR_NOT_INITIALIZED;
  const uint32_t slot = w.thread & 0xFFFF;
  if (slot == kNoSlot) return MABUTRACE_ERR_NO_MEMORY;
  ThreadSlot& s = rt->threads[slot];
  rt->names_lock.lock();
  // Cut to the slot's 31 bytes at a UTF-8 character boundary.
  size_t n = 0;  // strnlen is POSIX, not in a strict C++17 newlib
  while (n < sizeof s.name && name[n] != '\0') ++n;
  if (n == sizeof s.name) {
    n = sizeof s.name - 1;
    while (n > 0 && (uint8_t(name[n]) & 0xC0) == 0x80) --n;
  }
  memcpy(s.name, name, n);
  s.name[n] = '\0';
  s.explicit_name = true;
  rt->names_lock.unlock();
  return MABUTRACE_OK;
}

MT_COLD int mabutrace_get_stats(mabutrace_stats_t* out) {
  if (!out) return MABUTRACE_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  Runtime* rt = CurrentRuntime();
  if (!rt) return MABUTRACE_ERR_NOT_INITIALIZED;
  uint64_t live = 0, words = 0;
  for (uint32_t i = 0; i < rt->num_chunks; ++i) {
#if defined(MABUTRACE_PORT_SINGLE_CORE)
    SyncCommit(*rt, i);
#endif
    const uint64_t c = rt->chunks[i].commit.load(std::memory_order_acquire);
    live += c >> 32;
    words += c & 0xFFFFFFFFu;
  }
  out->events_overwritten = rt->overwritten.load(std::memory_order_relaxed);
  out->events_written = out->events_overwritten + live;
  out->events_dropped = rt->dropped.load(std::memory_order_relaxed);
  out->bytes_in_use = words * 8;
  out->buffer_size = uint64_t(rt->num_chunks) * rt->chunk_words * 8;
  out->chunk_size = rt->chunk_words * 8;
  for (uint32_t i = 0; i < rt->max_threads; ++i) {
    if (rt->threads[i].state.load(std::memory_order_relaxed) != 0) ++out->threads;
  }
  return MABUTRACE_OK;
}

// ---- the recording functions behind the macros ----------------------------

#if defined(MABUTRACE_PORT_SINGLE_CORE)
mabutrace_scope_t mabutrace_scope_begin(const char* name, uint32_t color) {
  return EmitSC<RecordType::kScopeBegin, 2>(uintptr_t(name), 0, color);
}

void mabutrace_scope_end(mabutrace_scope_t* scope) {
  // Only after a recorded begin. (A re-init between the two makes this end
  // one without a begin in the new session: the exporters drop and count
  // such ends. Before init and after deinit the slow path refuses it.)
  if (!scope || scope->session == 0) return;
  EmitFast<RecordType::kScopeEnd, 1>(0, 0);
}

void mabutrace_instant(const char* name, uint32_t color) {
  EmitFastAny(uintptr_t(name), MaskedKind(RecordType::kInstant, 2, color), 0);
}

void mabutrace_counter(const char* name, int64_t value, uint32_t color) {
  EmitFastAny(uintptr_t(name), MaskedKind(RecordType::kCounter, 3, color), uint64_t(value));
}
#else
mabutrace_scope_t mabutrace_scope_begin(const char* name, uint32_t color) {
  Emit<2>(RecordType::kScopeBegin, color, uint64_t(uintptr_t(name)), 0);
  // The end is recorded only if the begin could have been: same session.
#if defined(MABUTRACE_PORT_CONTEXT_MAY_FAIL)
  const Writer* w = CurrentWriter();
  return mabutrace_scope_t{w ? w->session : 0u};
#else
  return mabutrace_scope_t{CurrentWriter()->session};
#endif
}

void mabutrace_scope_end(mabutrace_scope_t* scope) {
  if (!scope || scope->session == 0) return;
  if (MT_UNLIKELY(scope->session != g_session.load(std::memory_order_relaxed))) return;
  Emit<1>(RecordType::kScopeEnd, 0, 0, 0);
}

void mabutrace_instant(const char* name, uint32_t color) {
  Emit<2>(RecordType::kInstant, color, uint64_t(uintptr_t(name)), 0);
}

void mabutrace_counter(const char* name, int64_t value, uint32_t color) {
  Emit<3>(RecordType::kCounter, color, uint64_t(uintptr_t(name)), uint64_t(value));
}
#endif

void mabutrace_flow_out(uint16_t* link, const char* name, uint32_t color) {
  Runtime* rt = CurrentRuntime();
  if (!link || !rt) return;
  // Every out starts a new arrow with a fresh id (R-A4: never 0, cycling).
  // A variable that still holds the id of an earlier hop gets a new one, so
  // forwarding the same message variable chains arrows hop by hop.
  uint32_t n = rt->flow_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  if (MT_UNLIKELY(n == 0)) n = rt->flow_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  *link = LinkForFlow(n);
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  // (Flows take the masked path: one copy of the record code instead of
  // two more inlined fast paths, docs/ports.md §4.)
  EmitMasked(uintptr_t(name), MaskedKind(RecordType::kFlowOut, 3, color), uint64_t(*link) | (uint64_t(n) << 16));
#else
  Emit<3>(RecordType::kFlowOut, color, uint64_t(uintptr_t(name)),
          uint64_t(*link) | (uint64_t(n) << 16));
#endif
}

void mabutrace_flow_in(uint16_t link, const char* name, uint32_t color) {
  Runtime* rt = CurrentRuntime();
  if (link == 0 || !rt) return;
  const uint32_t newest = rt->flow_seq.load(std::memory_order_relaxed);
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  EmitMasked(uintptr_t(name), MaskedKind(RecordType::kFlowIn, 3, color), uint64_t(link) | (uint64_t(newest) << 16));
#else
  Emit<3>(RecordType::kFlowIn, color, uint64_t(uintptr_t(name)),
          uint64_t(link) | (uint64_t(newest) << 16));
#endif
}

}  // extern "C"
