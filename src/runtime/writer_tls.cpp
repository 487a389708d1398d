// SPDX-License-Identifier: MIT
// writer_tls.cpp: the recording path of ports with thread-local storage
// (MABUTRACE_PORT_TLS: the host). Every thread has its own Writer; a record
// is one clock read, a few compares, the record's word stores and one
// release store of the chunk's commit word (ring_buffer.h says why that is
// enough for readers). Other ports compile this file to nothing (writer.h).
#include "port.h"

#if defined(MABUTRACE_PORT_TLS)

#include "chunk_writer.h"
#include "writer.h"

namespace mabutrace {
namespace {

// Per-thread writer state (chunk_writer.h). Trivially constructible: TLS
// starts zeroed, which means "no chunk", without an initialization guard.
struct Writer : ChunkWriter {
  static constexpr bool kZeroChunks = false;
  static constexpr bool kThreadsExit = true;
  static bool ClaimChunk(Runtime& rt, uint32_t* index, uint64_t* seq) { return ClaimChunkConcurrent(rt, index, seq); }
  void FinishChunk() {}  // every record published the commit word
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

// The record's words at w.cur (Fits() held) and the commit word after them.
template <unsigned kFixedWords>
MT_INLINE void Store(Writer& w, uint64_t now, uint32_t cpu, RecordType type, uint32_t color, uint64_t w1, uint64_t w2) {
  const unsigned words = RecordWords<kFixedWords>(color);
  uint64_t* p = w.cur;
  uint64_t h = MakeHeader(now - w.base, type, cpu);
  if (color) h |= kHasColor;
  if (port::InIsr()) h |= kInIsr;
  WriteWord(p, h);
  if (kFixedWords > 1) WriteWord(p + 1, w1);
  if (kFixedWords > 2) WriteWord(p + 2, w2);
  if (color) WriteWord(p + kFixedWords, color & 0xFFFFFFu);
  w.cur = p + words;
  ++w.records;
  PublishCommit(w.chunk->commit, (uint64_t(w.records) << 32) | uint64_t(w.cur - w.begin));
}

// Everything the fast path leaves to it: a user clock, a writer not bound
// to the live session, a full chunk, a stale time base, a CPU number that
// needs a call. Returns the writer's session (scope handles carry it).
template <unsigned kFixedWords>
MT_NOINLINE uint32_t EmitSlow(RecordType type, uint32_t color, uint64_t w1, uint64_t w2) {
  Writer& w = tls_writer;
  uint64_t now = Now();
  const unsigned words = RecordWords<kFixedWords>(color);
  if (!Fits(w, words, now)) {
    if (!SlowReserve(w, words, now)) return w.session;
    if (now - w.base >= kDeltaLimit) return w.session;  // clock misbehaves; drop
  }
  Store<kFixedWords>(w, now, port::CurrentCpu(), type, color, w1, w2);
  return w.session;
}

// Appends one record: header, then up to two payload words, then the color.
// The fast path makes no call, so it needs no stack frame: one counter
// read, the session/room/time-base compares, the stores, the commit word.
// Anything else tail-calls EmitSlow, which does it all again from the top
// (its clock read is the record's time).
template <unsigned kFixedWords>
MT_INLINE uint32_t Emit(RecordType type, uint32_t color, uint64_t w1, uint64_t w2) {
  if (MT_UNLIKELY(g_clock.load(std::memory_order_relaxed) != nullptr)) {
    return EmitSlow<kFixedWords>(type, color, w1, w2);
  }
  const uint64_t now = port::NowTicks();
  Writer& w = tls_writer;
  uint32_t cpu;
  if (MT_UNLIKELY(!Fits(w, RecordWords<kFixedWords>(color), now) || !port::CurrentCpuNoCall(&cpu))) {
    return EmitSlow<kFixedWords>(type, color, w1, w2);
  }
  Store<kFixedWords>(w, now, cpu, type, color, w1, w2);
  return w.session;
}

}  // namespace

namespace writer {

uint64_t StartSession() { return Now(); }  // (threads notice the new session themselves)

void EndSession() {}

int CallerSlot(Runtime** rt, uint32_t* slot) { return BindCaller(&tls_writer, rt, slot); }

void RecordFlow(uintptr_t name, uint32_t kind, uint64_t payload) {
  Emit<3>(KindType(kind), KindColor(kind), uint64_t(name), payload);
}

void SyncCommit(const Runtime&, uint32_t) {}  // every record publishes it

}  // namespace writer
}  // namespace mabutrace

using namespace mabutrace;

extern "C" {

mabutrace_scope_t mabutrace_scope_begin(const char* name, uint32_t color) {
  // The end is recorded only if the begin could have been: same session.
  return mabutrace_scope_t{Emit<2>(RecordType::kScopeBegin, color, uint64_t(uintptr_t(name)), 0)};
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

}  // extern "C"

#endif  // MABUTRACE_PORT_TLS
