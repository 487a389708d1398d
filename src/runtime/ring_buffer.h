// SPDX-License-Identifier: MIT
// ring_buffer.h: the pre-allocated event store (R-B1..R-B4).
//
// The storage is cut into N chunks of equal size (256 B .. 4 KiB, at least
// 32 chunks when the buffer allows). A writing thread owns one chunk at a
// time and appends records to it with plain (relaxed atomic) stores and one
// release store of the chunk's commit word per record: no lock, no
// read-modify-write, nothing shared with other writers on the hot path
// (R-B3). When its chunk is full the thread takes the next chunk in
// acquisition order (a fetch_add on a global counter, once per chunk); that
// chunk's old records, the oldest in the buffer, are overwritten whole and
// counted (R-B2). A chunk still owned by another thread is skipped; if every
// chunk is owned the event is dropped and counted.
//
// Readers copy a chunk under a sequence lock: the chunk's generation is odd
// while its owner changes and grows by two per change, so a copy taken while
// the chunk was recycled is detected and discarded, never torn (R-B4).
// Writers are never paused by a reader.
//
// MCU ports replace the thread-local writer with per-context writers, a
// short interrupt-masked reservation and plain word stores (the port macros
// below and the writer strategies of writer.h; docs/ports.md §1-2). The
// layout of Chunk does not change.
#ifndef MABUTRACE_RUNTIME_RING_BUFFER_H
#define MABUTRACE_RUNTIME_RING_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "../format/clock_map.h"
#include "../format/dump_format.h"
#include "compiler.h"
#include "mabutrace/mabutrace.h"
#include "port.h"

namespace mabutrace {

// Runtime::clock_source of a session with a user clock (mabutrace_config_t.clock).
constexpr uint32_t kClockUser = 255;

enum ChunkState : uint64_t { kChunkFree = 0, kChunkOwned = 1, kChunkFull = 2 };

// A chunk's tenure and state in one word, so that a claim is a single
// compare-and-swap that fails if anyone took the chunk since it was looked
// at (no ABA): acquisition number << 2 | ChunkState.
constexpr uint64_t MakeTag(uint64_t seq, ChunkState state) { return seq << 2 | state; }
constexpr uint64_t TagSeq(uint64_t tag) { return tag >> 2; }
constexpr ChunkState TagState(uint64_t tag) { return ChunkState(tag & 3); }

// Bookkeeping of one chunk. Its own cache line: only its owner writes it.
struct alignas(64) Chunk {
  std::atomic<uint32_t> gen{0};     // sequence lock, odd while changing owner
  std::atomic<uint64_t> tag{0};     // MakeTag(acquisition number, state): for claiming
  std::atomic<uint64_t> commit{0};  // (records << 32) | valid words
  // Readers use this copy of the acquisition number: it changes under the
  // sequence lock together with the fields below (the tag changes first,
  // while the old records are still there).
  std::atomic<uint64_t> seq{0};     // 0 = never used
  std::atomic<uint64_t> base{0};    // time base of the first record (ticks)
  std::atomic<uint32_t> thread{0};  // registry slot | slot generation << 16
  std::atomic<uint32_t> tid{0};     // OS thread id of the owner
};

constexpr uint32_t kMaxThreadName = 32;

// One registered thread. The name is guarded by Runtime::names_lock.
struct ThreadSlot {
  std::atomic<uint32_t> state{0};  // 0 free, 1 live, 2 exited
  std::atomic<uint32_t> gen{0};    // bumped when the slot is reused
  std::atomic<uint32_t> tid{0};
  bool explicit_name = false;
  char name[kMaxThreadName] = {};
};

// A tiny test-and-set lock for the rare paths (names, export).
class SpinLock {
 public:
  void lock() {
    while (flag_.exchange(true, std::memory_order_acquire)) {
      while (flag_.load(std::memory_order_relaxed)) port::CpuRelax();
    }
  }
  bool try_lock() { return !flag_.exchange(true, std::memory_order_acquire); }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

// The lock of the thread registry's names. On MCU ports an ISR may take it
// (its first record registers the ISR track), so there it masks interrupts
// rather than spin on a lock the interrupted code holds.
#if defined(MABUTRACE_PORT_HAS_IRQ_LOCK)
using NamesLock = port::IrqLock;
#else
using NamesLock = SpinLock;
#endif

struct ExportWorkspace;  // reader memory, carved at init (export_workspace.h)

// Everything init sets up; lives in the one allocation of init.
struct Runtime {
  // First, so a debugger's dump of the block finds the geometry at once
  // (dump_format.h, docs/raw-dump.md).
  dump::DumpDescriptor dump;
  uint32_t session = 0;  // this init's number (never 0)
  void* memory = nullptr;
  bool owns_memory = false;
  size_t memory_bytes = 0;

  uint64_t* data = nullptr;  // num_chunks * chunk_words words
  Chunk* chunks = nullptr;
  uint32_t num_chunks = 0;
  uint32_t chunk_words = 0;

  ThreadSlot* threads = nullptr;
  uint32_t max_threads = 0;
  uint32_t max_depth = 0;

  ExportWorkspace* workspace = nullptr;

  mabutrace_clock_fn clock = nullptr;  // the user's; nullptr: the port's
  uint64_t clock_hz = 0;
  uint64_t origin = 0;  // ticks at init: time 0 of the trace
  // MABUTRACE_CLOCK_* the port chose (AUTO: the port's own), or
  // kClockUser; and the port's sample of it beside the OS clocks at init
  // (none for user clocks and MCU ports). Set by init, then read-only.
  uint32_t clock_source = 0;
  format::ClockSync clock_init;
  uint32_t pid = 0;
  char process_name[64] = {};

  alignas(64) std::atomic<uint64_t> next_seq{0};
  alignas(64) std::atomic<uint64_t> overwritten{0};
  std::atomic<uint64_t> dropped{0};
  alignas(64) std::atomic<uint32_t> flow_seq{0};
  // HTTP responses a built-in server could not send whole (budget spent,
  // client gone): http::CountCutResponse, metadata http_responses_cut.
  std::atomic<uint32_t> responses_cut{0};
  alignas(64) mutable NamesLock names_lock;  // readers lock it too
  SpinLock export_lock;
};

// The live runtime, or nullptr (before init, after deinit).
Runtime* CurrentRuntime();
// For readers: the live runtime with its export_lock held (deinit waits for
// it), or nullptr. Release with EndExport.
Runtime* BeginExport();
void EndExport(Runtime* rt);
// fn runs at the start of mabutrace_deinit (a port's server stops there).
void SetDeinitHook(void (*fn)());

struct Layout;  // the block's geometry (layout.h)

// Fills rt.dump and publishes mabutrace_dump_region (dump_descriptor.cpp);
// init calls it once rt is complete. ClearDumpRegion at deinit.
void WriteDumpDescriptor(Runtime& rt, const Layout& l);
void ClearDumpRegion();

// Copies chunk `index` if it still holds acquisition `seq` (0 = any):
// records into words[0 .. *nwords), and its header fields. False when the
// chunk is unused or was recycled during the copy.
struct ChunkCopy {
  uint64_t seq = 0;
  uint64_t base = 0;
  uint32_t thread = 0;
  uint32_t tid = 0;
  uint32_t records = 0;
  uint32_t nwords = 0;
};
bool CopyChunk(const Runtime& rt, uint32_t index, uint64_t* words, ChunkCopy* out);

#if defined(MABUTRACE_PORT_SINGLE_CORE) || defined(MABUTRACE_PORT_PLAIN_WORDS)
// MCU ports: a word below the commit mark is never written while it is read
// (a recycled chunk is caught by its sequence lock), so plain volatile
// accesses do, ordered by the commit word; 64-bit atomics would be library
// calls on 32-bit MCUs.
inline uint64_t ReadWord(const uint64_t* p) { return *static_cast<const volatile uint64_t*>(p); }
inline void WriteWord(uint64_t* p, uint64_t v) { *static_cast<volatile uint64_t*>(p) = v; }
#else
inline uint64_t ReadWord(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
inline void WriteWord(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#endif

// Publishes a chunk's commit word: a release store (readers load it with
// acquire), so the record words below the mark are visible with it.
// (Single core: writer_single_core.cpp has a cheaper form.)
inline void PublishCommit(std::atomic<uint64_t>& commit, uint64_t v) { commit.store(v, std::memory_order_release); }

// Publishes `add` more on a commit word that only the caller writes: the
// word's new value is a release store, as PublishCommit's. On x86-64 one
// add to memory (not locked: no other writer), whose store, like every
// x86 store, is a release; the memory clobber keeps the compiler from
// moving the record's word stores after it. (ThreadSanitizer does not see
// into assembly: it gets the portable load and store.)
inline void GrowCommit(std::atomic<uint64_t>& commit, uint64_t add) {
#if defined(__x86_64__) && !defined(MT_TSAN)
  static_assert(sizeof(commit) == 8, "the commit word is one 64-bit word");
  __asm__ volatile("addq %1, %0" : "+m"(*reinterpret_cast<uint64_t*>(&commit)) : "er"(add) : "memory");
#else
  commit.store(commit.load(std::memory_order_relaxed) + add, std::memory_order_release);
#endif
}

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_RING_BUFFER_H
