// SPDX-License-Identifier: MIT
// writer_single_core.cpp: the recording path of single-core MCU ports
// (MABUTRACE_PORT_SINGLE_CORE: bare-metal Cortex-M and RISC-V; docs/ports.md §2).
// Other ports compile this file to nothing (writer.h).
//
// Context 0 (Cortex-M: Thread mode) is written only by code that no other
// writer of context 0 interrupts, so its records need no lock at all:
// EmitFast() reads the 32-bit counter, checks room, moves the cursor and
// writes the words (the header last). Other contexts (ISRs) nest, and
// EmitMasked() reserves their space with interrupts masked. Neither
// touches the chunk's commit word, counts records or checks the session:
// readers sync the commit word (SyncCommit), deinit empties the writers,
// and PollClock() sends a context whose time base grows stale to the slow
// path. What the fast path cannot do (another context, a color, a full
// chunk, a stale base, a clock that is not a plain counter) goes to
// EmitMasked().
//
// Flash is the budget here (docs/ports.md §4: the recording core is under
// 4 KiB at -Os): which paths are inlined and which share one out-of-line
// copy is chosen for size, and says so where it is chosen.
#include "port.h"

#if defined(MABUTRACE_PORT_SINGLE_CORE)

#include "chunk_writer.h"
#include "writer.h"
#include "writer_single_core.h"

namespace mabutrace {
namespace {

struct Writer : ChunkWriter {
  uint32_t header_hi;  // HeaderHi() of this context, for EmitMasked()
  uint32_t counted;    // words of the chunk counted into `records` (SyncCommitOf)

  // (chunk_writer.h) The cursor runs ahead of the commit word; contexts
  // never end (bare metal).
  static constexpr bool kZeroChunks = true;
  static constexpr bool kThreadsExit = false;
  static bool ClaimChunk(Runtime& rt, uint32_t* index, uint64_t* seq);
  void FinishChunk();
};

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

// The fast clock's 32-bit value. A port whose counter is not a memory word
// (RISC-V: mcycle is a CSR) reads it itself (MABUTRACE_PORT_FAST_COUNTER_READ).
MT_INLINE uint32_t ReadFast(const FastClock& fc) {
#if defined(MABUTRACE_PORT_FAST_COUNTER_READ)
  return port::ReadFastCounter(fc.counter, fc.invert);
#else
  return *fc.counter ^ fc.invert;
#endif
}

// Stores a chunk's commit word as two 32-bit halves (a 64-bit atomic store
// is a library call on a 32-bit MCU). Safe where no reader can run between
// them: with interrupts masked (an interrupt context's chunk), or for
// Thread mode's own chunk from Thread mode (readers run in Thread mode, and
// an interrupt's chunk change skips chunks still owned).
void PublishCommitHalves(std::atomic<uint64_t>& commit, uint64_t v) {
  static_assert(sizeof commit == 8, "commit word is 8 bytes");
  auto* half = reinterpret_cast<volatile uint32_t*>(&commit);
  __atomic_signal_fence(__ATOMIC_RELEASE);  // record words before the mark
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  half[1] = uint32_t(v);
  half[0] = uint32_t(v >> 32);
#else
  half[0] = uint32_t(v);
  half[1] = uint32_t(v >> 32);
#endif
}

// Recording moves only the writer's cursor, not the chunk's commit word.
// Readers run in Thread mode on the same core, so when one looks, every
// reserved record is complete (an interrupt finishes before the code it
// interrupted resumes); they bring the commit word up to date first
// (SyncCommit). A nested interrupt that releases a chunk while the
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
  PublishCommitHalves(w.chunk->commit, (uint64_t(w.records) << 32) | words);
}

void Writer::FinishChunk() {
  SyncCommitOf(*this);
  counted = 0;  // (the next chunk's records are counted from its start)
}

// A 64-bit word of the ring, with interrupts masked: on the one core
// nothing else runs, so a plain access is as good as the atomic one (which
// is a library call that masks interrupts again, port/cortex-m/atomic64.c).
uint64_t& Masked(std::atomic<uint64_t>& word) { return *reinterpret_cast<uint64_t*>(&word); }

// Takes the chunk at the ring position; its old records are the oldest.
// One core: with interrupts masked nothing else runs, so the position
// moves without compare-and-swap. A chunk the other context still fills is
// stepped over.
bool Writer::ClaimChunk(Runtime& rt, uint32_t* index_out, uint64_t* seq_out) {
  const uint32_t irq = port::EnterCritical();
  uint64_t seq = Masked(rt.next_seq);
  for (uint32_t tries = 0; tries < rt.num_chunks; ++tries) {
    ++seq;
    const uint32_t index = uint32_t(seq % rt.num_chunks);
    Chunk& c = rt.chunks[index];
    const uint64_t tag = Masked(c.tag);
    if (TagState(tag) == kChunkOwned) continue;
    Masked(c.tag) = MakeTag(seq, kChunkOwned);
    Masked(rt.next_seq) = seq;
    // CountOverwritten(), with plain words:
    if (TagState(tag) == kChunkFull) Masked(rt.overwritten) += Masked(c.commit) >> 32;
    port::ExitCritical(irq);
    // Owned now: interrupt contexts step over it, and only its new owner
    // (with its readers, if that is Thread mode) looks at it.
    *index_out = index;
    *seq_out = seq;
    return true;
  }
  port::ExitCritical(irq);
  return false;
}

// Header bits 32..63 that every record of context `ctx` has (kInIsr). For
// context 0 a constant: the fast path loads nothing for it.
MT_INLINE uint32_t HeaderHi(uint32_t ctx) { return port::ContextIsIsr(ctx) ? uint32_t(kInIsr >> 32) : 0u; }

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
  w.header_hi = HeaderHi(uint32_t(&w - g_writers));
  return ok && uint32_t(w.end - w.cur) >= words;
}

MT_INLINE void WriteRecord(uint64_t* p, uint32_t header_hi, uint32_t delta, unsigned words, uintptr_t name,
                           uint64_t value, uint32_t color) {
  const unsigned fixed = color ? words - 1 : words;
  if (fixed > 1) WriteWord(p + 1, name);
  if (fixed > 2) WriteWord(p + 2, value);
  if (color) WriteWord(p + fixed, color & 0xFFFFFFu);
  // The header last (WriteWord is a volatile store: program order): a dump
  // taken while the words go in sees a zero header, not a half record.
  WriteWord(p, uint64_t(header_hi) << 32 | delta);
}

// What EmitMasked() records, in one register: writer::RecordKind() and,
// in bits 28..30, the words without the color word.
constexpr uint32_t MaskedKind(RecordType type, unsigned words, uint32_t color = 0) {
  return writer::RecordKind(type, color) | uint32_t(words) << 28;
}

// Every context, every record; the masked reservation. A dropped record
// returns 0, else the record's address (the scope token).
MT_NOINLINE mabutrace_scope_t EmitMasked(uintptr_t name, uint32_t kind, uint64_t value) {
  const RecordType type = writer::KindType(kind);
  const uint32_t color = writer::KindColor(kind);
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
    now = ReadFast(fc);
    stale = int32_t(now - uint32_t(w.base)) < 0;  // and PollClock()
  } else {
    // No fast counter, or no poll yet: check the delta in 64 bits.
    const uint64_t t = SlowNow();
    now = uint32_t(t);
    stale = t - w.base >= (uint64_t{1} << 31);
  }
  uint64_t* p = w.cur;
  uint32_t delta = now - uint32_t(w.base);
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
  const uint32_t delta = ReadFast(sc.clock) - uint32_t(w.base);
  // An interrupt may run PollClock() here and set `end` to the old cursor:
  // then the next record takes the slow path, as it wants.
  w.cur = p + kWords;
  if (kWords > 1) WriteWord(p + 1, name);
  if (kWords > 2) WriteWord(p + 2, value);
  WriteWord(p, uint64_t(HeaderHi(0) | uint32_t(kType) << (kTypeShift - 32)) << 32 | delta);
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
  if (MT_UNLIKELY(port::WriterContext() != 0 || writer::KindColor(kind) != 0 ||
                  uintptr_t(p) + words * 8 > uintptr_t(w.end) || sc.clock.counter == nullptr)) {
    EmitMasked(name, kind, value);
    return;
  }
  const uint32_t delta = ReadFast(sc.clock) - uint32_t(w.base);
  w.cur = p + words;
  WriteWord(p + 1, name);
  if (words > 2) WriteWord(p + 2, value);
  WriteWord(p, uint64_t(HeaderHi(0) | uint32_t(writer::KindType(kind)) << (kTypeShift - 32)) << 32 | delta);
}

}  // namespace

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
    if (w.chunk && int32_t(now - uint32_t(w.base)) < 0) w.end = w.cur;
  }
  port::ExitCritical(irq);
}

namespace writer {

uint64_t StartSession() {
  g_single_core.clock = FastClock{};  // off until the first PollClock()
  const uint32_t irq = port::EnterCritical();
  const uint64_t origin = SlowNow();  // (port::NowTicks() would be a second copy of the clock)
  port::ExitCritical(irq);
  return origin;
}

void EndSession() {
  // The fast path checks no session: empty writers send it to the slow
  // path, which finds none.
  const uint32_t irq = port::EnterCritical();
  for (Writer& w : g_single_core.writers) w = Writer{};
  g_single_core.clock = FastClock{};
  port::ExitCritical(irq);
}

int CallerSlot(Runtime** rt, uint32_t* slot) { return BindCaller(&g_writers[port::WriterContext()], rt, slot); }

// (Flows take the masked path: one copy of the record code instead of two
// more inlined fast paths, docs/ports.md §4.)
void RecordFlow(uintptr_t name, uint32_t kind, uint64_t payload) {
  // (Unpacked and packed again: GCC then knows the bits above 30 are
  // clear in every caller's kind, and EmitMasked() needs no mask for them.)
  EmitMasked(name, MaskedKind(writer::KindType(kind), 3, writer::KindColor(kind)), payload);
}

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

}  // namespace writer
}  // namespace mabutrace

using namespace mabutrace;

extern "C" {

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

}  // extern "C"

#endif  // MABUTRACE_PORT_SINGLE_CORE
