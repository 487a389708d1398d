// SPDX-License-Identifier: MIT
// chunk_reader.cpp: consistent copies of chunks under their sequence lock.
#include "chunk_reader.h"

#include <algorithm>

#include "writer.h"

namespace mabutrace {

namespace {

// Reads chunk `index` under its sequence lock: its header into *out and
// its words through read(const uint64_t* words, uint32_t nwords), where
// they lie. False (read's results to be dropped) if the chunk changed
// owner meanwhile or was not stamped yet.
template <class Read>
bool ReadChunk(const Runtime& rt, uint32_t index, Read&& read, ChunkCopy* out) {
  writer::SyncCommit(rt, index);
  const Chunk& c = rt.chunks[index];
  const uint32_t gen1 = c.gen.load(std::memory_order_acquire);
  if (gen1 & 1) return false;  // changing owner right now
  ChunkCopy info;
  info.seq = c.seq.load(std::memory_order_relaxed);
  info.base = c.base.load(std::memory_order_relaxed);
  info.thread = c.thread.load(std::memory_order_relaxed);
  info.tid = c.tid.load(std::memory_order_relaxed);
  const uint64_t commit = c.commit.load(std::memory_order_acquire);
  info.records = uint32_t(commit >> 32);
  info.nwords = std::min<uint32_t>(uint32_t(commit), rt.chunk_words);
  read(rt.data + size_t(index) * rt.chunk_words, info.nwords);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (c.gen.load(std::memory_order_relaxed) != gen1) return false;  // recycled meanwhile
  if (info.seq == 0) return false;
  // Claimed by a new tenure whose owner has not stamped it yet: its old
  // records are still intact but already count as overwritten, and newer
  // chunks of the same thread may be gone too. Treat it as recycled.
  if (TagSeq(c.tag.load(std::memory_order_acquire)) != info.seq) return false;
  *out = info;
  return true;
}

}  // namespace

bool CopyChunk(const Runtime& rt, uint32_t index, uint64_t* words, ChunkCopy* out) {
  return ReadChunk(
      rt, index,
      [words](const uint64_t* src, uint32_t nwords) {
        if (words) {
          for (uint32_t i = 0; i < nwords; ++i) words[i] = ReadWord(src + i);
        }
      },
      out);
}

ChunkReader::ChunkReader(const Runtime& rt) : rt_(rt) {
  // Only chunks taken before the listing began: the listing reads one chunk
  // after another, so a chunk taken meanwhile may land where the listing has
  // already been while the same thread's next one lands ahead of it, which
  // would leave a hole in that thread. Without them each thread's records
  // stay one run (its chunks taken later are simply not in this export).
  const uint64_t limit = rt.next_seq.load(std::memory_order_acquire);
  ChunkRef* order = rt.workspace->order;
  for (uint32_t i = 0; i < rt.num_chunks; ++i) {
    ChunkCopy info;
    if (!CopyChunk(rt, i, nullptr, &info) || info.nwords == 0 || info.seq > limit) continue;
    order[count_++] = ChunkRef{info.seq, i, info.thread};
  }
  std::sort(order, order + count_, [](const ChunkRef& a, const ChunkRef& b) { return a.seq < b.seq; });
}

bool ChunkReader::Load(uint32_t i, ChunkCopy* info) const {
  const ChunkRef& r = ref(i);
  if (!CopyChunk(rt_, r.index, rt_.workspace->copy, info)) return false;
  return info->seq == r.seq;
}

void ChunkReader::Prefetch(uint32_t i) const {
#if defined(__GNUC__)
  if (i >= count_) return;
  const char* words = reinterpret_cast<const char*>(rt_.data + size_t(ref(i).index) * rt_.chunk_words);
  for (size_t at = 0; at < size_t(rt_.chunk_words) * 8; at += 64) __builtin_prefetch(words + at);
#else
  (void)i;
#endif
}

bool ChunkReader::FlowStarts(uint32_t i, uint64_t* flows, uint32_t* count) const {
  const ChunkRef& r = ref(i);
  uint32_t n = 0;
  // Headers and flow words only, as ForEach decodes them: a third of the
  // words, and no copy of the rest.
  const auto scan = [&](const uint64_t* w, uint32_t nwords) {
    for (uint32_t k = 0; k < nwords;) {
      const uint64_t h = ReadWord(w + k);
      const unsigned words = RecordWords(h);
      if (words == 0 || k + words > nwords) return;  // corrupt: ForEach stops here too
      if (HeaderType(h) == RecordType::kFlowOut) flows[n++] = uint32_t(ReadWord(w + k + 2) >> 16);
      k += words;
    }
  };
  ChunkCopy info;
  if (!ReadChunk(rt_, r.index, scan, &info) || info.seq != r.seq) return false;
  *count = n;
  return true;
}

namespace {
// A new clock sample replaces the published one once it is this old (ns).
constexpr uint64_t kResample = 1000000000u;
}  // namespace

format::ClockMap CurrentClockMap(Runtime& rt) {
  format::ClockMap m;
  m.hz = rt.clock_hz;
  m.origin = rt.origin;
  m.first = rt.clock_init;
#if defined(MABUTRACE_PORT_HAS_OS_CLOCKS)
  if (m.first.valid()) {
    format::ClockSync& s = m.last;
    if (!port::SampleClocks(&s.ticks, &s.monotonic_ns, &s.boottime_ns)) s = {};
    dump::DumpDescriptor& d = rt.dump;
    if (d.clock_last_monotonic_ns != 0 && s.monotonic_ns - d.clock_last_monotonic_ns < kResample) {
      // Exports and flushes close together convert alike: the same sample.
      s = format::ClockSync{d.clock_last_ticks, d.clock_last_monotonic_ns, d.clock_last_boottime_ns};
    } else {
      d.clock_last_ticks = s.ticks;
      d.clock_last_monotonic_ns = s.monotonic_ns;
      d.clock_last_boottime_ns = s.boottime_ns;
    }
  }
#endif
  return m;
}

}  // namespace mabutrace
