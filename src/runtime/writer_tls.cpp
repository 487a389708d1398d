// SPDX-License-Identifier: MIT
// writer_tls.cpp: the recording path of ports with thread-local storage
// (MABUTRACE_PORT_TLS: the host). Every thread has its own Writer; a record
// is one clock read, three compares, the record's word stores and one
// release store of the chunk's commit word (ring_buffer.h says why that is
// enough for readers). Other ports compile this file to nothing (writer.h).
#include "port.h"

#if defined(MABUTRACE_PORT_TLS)

#include "chunk_writer.h"
#include "writer.h"

namespace mabutrace {
namespace {

// Writer::fast_session when the fast path must not record: no g_session
// value (32 bits) ever equals it.
constexpr uint64_t kNoFastPath = uint64_t{1} << 32;

// Per-thread writer state (chunk_writer.h). Trivially constructible: TLS
// starts zeroed, which means "no chunk", without an initialization guard.
struct Writer : ChunkWriter {
  static constexpr bool kZeroChunks = false;
  static constexpr bool kThreadsExit = true;
  static bool ClaimChunk(Runtime& rt, uint32_t* index, uint64_t* seq) { return ClaimChunkConcurrent(rt, index, seq); }
  void FinishChunk() {}  // every record published the commit word
  // The g_session value under which the fast path records: `session` when
  // the session's clock is the port's counter and the CPU number is one
  // load (rseq), else kNoFastPath. So one compare with g_session checks the
  // session, the clock and the CPU source; set by the slow path, which
  // alone binds the writer. 0 (as TLS starts, and as Attach leaves it)
  // only while there is no chunk (end == nullptr), so that it matching
  // g_session == 0 after deinit still fails the room check.
  uint64_t fast_session;
  // The fast path's bound on a record's delta from `base`: kDeltaLimit,
  // set with fast_session (0 until then: every delta fails it). A memory
  // operand, so that the compare is one instruction on the delta itself
  // (a 2^40 immediate is no x86 operand: it took a copy and a shift).
  uint64_t delta_limit;
};

MABUTRACE_PORT_TLS Writer tls_writer;

// Words of a record with kFixedWords header and payload words: the color
// takes one more.
template <unsigned kFixedWords>
MT_INLINE unsigned RecordWords(uint32_t color) {
  return kFixedWords + (color ? 1u : 0u);
}

// A record of `words` at `now` can go at w.cur: same session, room in the
// chunk, time base fresh enough for the header's delta.
MT_INLINE bool Fits(const Writer& w, unsigned words, uint64_t now) {
  return w.session == g_session.load(std::memory_order_relaxed) && uint64_t(w.end - w.cur) >= words &&
         now - w.base < kDeltaLimit;
}

// The record's words at p (room checked), the header last: it waits for
// the counter read, the others do not, and stores leave the core in
// program order, so those that can go first do. (Readers see none of
// them before the commit word.)
template <unsigned kFixedWords>
MT_INLINE void StoreWords(uint64_t* p, uint64_t h, uint32_t color, uint64_t w1, uint64_t w2) {
  if (color) h |= kHasColor;
  if (port::InIsr()) h |= kInIsr;
  if (kFixedWords > 1) WriteWord(p + 1, w1);
  if (kFixedWords > 2) WriteWord(p + 2, w2);
  if (color) WriteWord(p + kFixedWords, color & 0xFFFFFFu);
  WriteWord(p, h);
}

// A record type where the header has it (MakeHeader with delta and CPU 0).
constexpr uint64_t TypeField(RecordType type) { return uint64_t(type) << kTypeShift; }

// Stores the CPU number into the header at p, written just before with
// CPU 0: on a little-endian core the header's bits 48..63 (kCpuShift) are
// its last two bytes, so the number is stored as it was loaded, with no
// shift and or into the header (record_format.h: the field keeps the
// number's low 16 bits, as MakeHeader does). The 16-bit type may alias
// the header word and both stores are volatile or atomic, so the compiler
// keeps them in order; the commit word's release store publishes both.
MT_INLINE void StoreCpu(uint64_t* p, uint32_t cpu) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  static_assert(kCpuShift == 48, "the CPU number is the header's top 16 bits");
  typedef uint16_t __attribute__((may_alias)) HeaderHalf;
#if defined(MT_TSAN)
  __atomic_store_n(reinterpret_cast<HeaderHalf*>(p) + 3, uint16_t(cpu), __ATOMIC_RELAXED);
#else
  // (volatile, not __atomic: GCC 12 zero-extends the value first.)
  *(reinterpret_cast<volatile HeaderHalf*>(p) + 3) = HeaderHalf(cpu);
#endif
#else
  WriteWord(p, ReadWord(p) | uint64_t(cpu & 0xFFFF) << kCpuShift);
#endif
}

// Everything the fast path leaves to it: a user clock, a writer not bound
// to the live session, a full chunk, a stale time base, no rseq. Returns
// the writer's session (scope handles carry it).
template <unsigned kFixedWords>
MT_NOINLINE mabutrace_scope_t EmitSlow(RecordType type, uint32_t color, uint64_t w1, uint64_t w2) {
  Writer& w = tls_writer;
  uint64_t now = Now();
  const unsigned words = RecordWords<kFixedWords>(color);
  if (!Fits(w, words, now)) {
    if (!SlowReserve(w, words, now)) return {w.session};
    // Bound to the live session now (Attach read g_session with acquire,
    // after init stored the session's clock): may the fast path record?
    w.fast_session = g_clock.load(std::memory_order_relaxed) == nullptr && port::HasRseqCpu() ? w.session : kNoFastPath;
    w.delta_limit = kDeltaLimit;
    if (now - w.base >= kDeltaLimit) return {w.session};  // clock misbehaves; drop
  }
  uint64_t* const p = w.cur;
  StoreWords<kFixedWords>(p, MakeHeader(now - w.base, type, port::CurrentCpu()), color, w1, w2);
  w.cur = p + words;
  // (A time base record that SlowReserve wrote is in the offset, not in
  // the record count.)
  const uint64_t records = (w.chunk->commit.load(std::memory_order_relaxed) >> 32) + 1;
  PublishCommit(w.chunk->commit, (records << 32) | uint64_t(w.cur - w.begin));
  return {w.session};
}

// Appends one record of kFixedWords + kColor words, of the type in
// type_field (TypeField), while `live` is
// g_session, else returns false (nothing written): its caller then
// tail-calls a slow path, which does it all again from the top (its clock
// read is the record's time). The fast path makes no call, so it needs no
// stack frame: one counter read; the session (with clock and CPU source),
// room and time base compares; the stores (the CPU number last, into the
// header); the commit word, which grows by one record and its words (the
// slow path leaves it equal to the cursor).
template <unsigned kFixedWords, bool kColor>
MT_INLINE bool EmitLive(uint32_t live, uint64_t type_field, uint32_t color, uint64_t w1, uint64_t w2) {
  constexpr unsigned kWords = kFixedWords + (kColor ? 1 : 0);
  Writer& w = tls_writer;
  const uint64_t now = port::NowTicks();
  uint64_t* const p = w.cur;
  const uint64_t delta = now - w.base;
  // (No chunk: cur and end are nullptr, and the room compare fails.)
  if (MT_UNLIKELY(w.fast_session != live || uintptr_t(p) + kWords * 8 > uintptr_t(w.end) || delta >= w.delta_limit)) {
    return false;
  }
  StoreWords<kFixedWords>(p, delta | type_field, kColor ? color : 0, w1, w2);
  StoreCpu(p, port::RseqCpu());
  w.cur = p + kWords;
  GrowCommit(w.chunk->commit, (uint64_t{1} << 32) | kWords);
  return true;
}

// The same for a record whose color is known only at run time.
template <unsigned kFixedWords>
MT_INLINE bool EmitLiveAnyColor(uint32_t live, RecordType type, uint32_t color, uint64_t w1, uint64_t w2) {
  return color ? EmitLive<kFixedWords, true>(live, TypeField(type), color, w1, w2)
               : EmitLive<kFixedWords, false>(live, TypeField(type), 0, w1, w2);
}

// Appends one record: header, then up to two payload words, then the color.
template <unsigned kFixedWords>
MT_INLINE mabutrace_scope_t Emit(RecordType type, uint32_t color, uint64_t w1, uint64_t w2) {
  const uint32_t live = g_session.load(std::memory_order_relaxed);
  if (MT_UNLIKELY(!EmitLiveAnyColor<kFixedWords>(live, type, color, w1, w2))) {
    return EmitSlow<kFixedWords>(type, color, w1, w2);
  }
  return {live};
}

// The end of a scope that its fast path did not record: only in the
// session of its begin (0: nothing was recorded).
MT_NOINLINE mabutrace_scope_t EndSlow(const mabutrace_scope_t* scope) {
  if (scope->session == 0 || scope->session != g_session.load(std::memory_order_relaxed)) return {0};
  return EmitSlow<1>(RecordType::kScopeEnd, 0, 0, 0);
}

MT_NOINLINE void FlowSlow(uintptr_t name, uint32_t kind, uint64_t payload) {
  EmitSlow<3>(writer::KindType(kind), writer::KindColor(kind), uint64_t(name), payload);
}

MT_NOINLINE void FlowColored(uintptr_t name, uint32_t kind, uint64_t payload) {
  const bool recorded = EmitLive<3, true>(g_session.load(std::memory_order_relaxed), writer::KindTypeField(kind),
                                          writer::KindColor(kind), name, payload);
  if (MT_UNLIKELY(!recorded)) FlowSlow(name, kind, payload);
}

}  // namespace

namespace writer {

uint64_t StartSession() { return Now(); }  // (threads notice the new session themselves)

void EndSession() {}

int CallerSlot(Runtime** rt, uint32_t* slot) { return BindCaller(&tls_writer, rt, slot); }

void RecordFlow(uintptr_t name, uint32_t kind, uint64_t payload) {
  // (A colored flow and the slow path are tail calls with the arguments as
  // they came: fewer values live across the fast path, no callee-saved
  // register to save.)
  if (KindColor(kind)) return FlowColored(name, kind, payload);
  const bool recorded =
      EmitLive<3, false>(g_session.load(std::memory_order_relaxed), KindTypeField(kind), 0, name, payload);
  if (MT_UNLIKELY(!recorded)) FlowSlow(name, kind, payload);
}

void SyncCommit(const Runtime&, uint32_t) {}  // every record publishes it

}  // namespace writer
}  // namespace mabutrace

using namespace mabutrace;

extern "C" {

mabutrace_scope_t mabutrace_scope_begin(const char* name, uint32_t color) {
  // The end is recorded only if the begin could have been: same session.
  return Emit<2>(RecordType::kScopeBegin, color, uint64_t(uintptr_t(name)), 0);
}

void mabutrace_scope_end(mabutrace_scope_t* scope) {
  if (!scope) return;
  const uint32_t live = g_session.load(std::memory_order_relaxed);
  if (MT_UNLIKELY(scope->session != live)) return;  // another session's scope
  // (live == 0, no session: the writer's fast_session is 0 only without a
  // chunk, so this goes to EndSlow, which records nothing.)
  const bool recorded = EmitLive<1, false>(live, TypeField(RecordType::kScopeEnd), 0, 0, 0);
  if (MT_UNLIKELY(!recorded)) EndSlow(scope);
}

void mabutrace_instant(const char* name, uint32_t color) {
  Emit<2>(RecordType::kInstant, color, uint64_t(uintptr_t(name)), 0);
}

void mabutrace_counter(const char* name, int64_t value, uint32_t color) {
  Emit<3>(RecordType::kCounter, color, uint64_t(uintptr_t(name)), uint64_t(value));
}

}  // extern "C"

#endif  // MABUTRACE_PORT_TLS
