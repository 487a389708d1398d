// SPDX-License-Identifier: MIT
// stream_writer.cpp: the binary stream (R-C3, docs/stream-format.md).
//
// mabutrace_flush_output() sends what was recorded since the last flush:
// the ring buffer's own words, chunk by chunk in acquisition order, each
// chunk from the word where the previous flush stopped. Names and threads
// are described once, just before the first EVENTS record that uses them.
// Records recycled before they were sent are counted in a LOST record.
// Nothing is allocated: the state lives in memory reserved at init
// (stream_writer.h) and output is staged in the export workspace.
#include "stream_writer.h"

#include <string.h>

#include <new>

#include "../format/record_format.h"
#include "../format/stream_format.h"
#include "chunk_reader.h"
#include "ring_buffer.h"

namespace mabutrace {
namespace {

size_t AlignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

constexpr uint8_t kEndianness =
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    stream::kBigEndian;
#else
    stream::kLittleEndian;
#endif

// Bytes to the callback through the 4 KiB staging buffer. Multi-byte
// fields are written in the device's own byte order (the header says which).
class ByteOut {
 public:
  ByteOut(uint8_t* buf, uint32_t cap, mabutrace_output_fn cb) : buf_(buf), cap_(cap), cb_(cb) {}
  ~ByteOut() { Flush(); }
  void Flush() {
    if (len_) cb_(buf_, len_);
    len_ = 0;
  }
  void Bytes(const void* p, size_t n) {
    const uint8_t* s = static_cast<const uint8_t*>(p);
    while (n) {
      if (len_ == cap_) Flush();
      const size_t k = cap_ - len_ < n ? cap_ - len_ : n;
      memcpy(buf_ + len_, s, k);
      len_ += uint32_t(k);
      s += k;
      n -= k;
    }
  }
  void U8(uint8_t v) { Bytes(&v, 1); }
  void U16(uint16_t v) { Bytes(&v, 2); }
  void U32(uint32_t v) { Bytes(&v, 4); }
  void U64(uint64_t v) { Bytes(&v, 8); }
  void RecordHeader(stream::Kind kind, uint32_t payload) {
    U8(uint8_t(kind));
    U32(payload);
  }

 private:
  uint8_t* buf_;
  uint32_t cap_;
  uint32_t len_ = 0;
  mabutrace_output_fn cb_;
};

// Bounded strlen: a name longer than the format allows is cut.
uint32_t NameLength(const char* s, uint32_t max) {
  uint32_t n = 0;
  while (n < max && s[n]) ++n;
  return n;
}

uint32_t Fnv1a(const char* s, uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; ++i) h = (h ^ uint8_t(s[i])) * 16777619u;
  return h | 1;  // never 0: 0 means "not described"
}

void WriteHeader(const Runtime& rt, ByteOut& out) {
  const uint16_t name_len = uint16_t(NameLength(rt.process_name, sizeof rt.process_name));
  out.Bytes(stream::kMagic, sizeof stream::kMagic);
  out.U16(stream::kVersion);
  out.U16(uint16_t(stream::kHdrFixedBytes + name_len + stream::kClkHdrBytes));
  out.U8(uint8_t(sizeof(void*)));
  out.U8(kEndianness);
  out.U8(stream::kWordBytes);
  out.U8(0);
  out.U64(rt.clock_hz);
  out.U64(rt.origin);
  out.U32(rt.pid);
  out.U16(name_len);
  out.Bytes(rt.process_name, name_len);
  out.U64(rt.clock_init.ticks);
  out.U64(rt.clock_init.monotonic_ns);
  out.U64(rt.clock_init.boottime_ns);
  out.U8(rt.clock_source == kClockUser ? stream::kClockSourceUser : uint8_t(rt.clock_source));
}

// Forgets a chunk tenure that was recycled: its records that were sent are
// not lost, the rest (counted by Runtime::overwritten) are.
void Retire(StreamState& s, uint32_t index) {
  s.sent_recycled += s.sent[index].records;
  s.sent[index] = StreamSent{0, 0, 0};
}

// True if `p` was sent already; otherwise remembers it (if there is room).
bool StringSent(StreamState& s, uintptr_t p) {
  const uint32_t mask = kStreamStrings - 1;
  uint32_t i = uint32_t((uint64_t(p) * 0x9E3779B97F4A7C15ull) >> 40) & mask;
  for (uint32_t n = 0; n < kStreamStrings; ++n, i = (i + 1) & mask) {
    if (s.strings[i] == p) return true;
    if (s.strings[i] == 0) {
      if (s.strings_used < kStreamStrings / 4 * 3) {
        s.strings[i] = p;
        ++s.strings_used;
      }
      return false;
    }
  }
  return false;
}

void SendString(ByteOut& out, uintptr_t p) {
  const char* name = reinterpret_cast<const char*>(p);
  const uint32_t n = NameLength(name, stream::kMaxStringBytes);
  out.RecordHeader(stream::Kind::kString, stream::kStringBytes + n);
  out.U64(uint64_t(p));
  out.U16(uint16_t(n));
  out.Bytes(name, n);
}

// Describes the chunk's thread if it is the slot's current thread and was
// not described with this name yet. Older generations of a reused slot have
// lost their name: they are not described (the host shows the tid).
void MaybeSendThread(const Runtime& rt, StreamState& s, ByteOut& out, uint32_t key, uint32_t tid) {
  const uint32_t slot = key & 0xFFFF;
  if (slot >= rt.max_threads) return;
  const ThreadSlot& ts = rt.threads[slot];
  char name[kMaxThreadName];
  rt.names_lock.lock();
  const bool current = ts.gen.load(std::memory_order_relaxed) == (key >> 16);
  memcpy(name, ts.name, sizeof name);
  rt.names_lock.unlock();
  if (!current) return;
  name[sizeof name - 1] = '\0';
  const uint32_t n = NameLength(name, sizeof name);
  const uint32_t hash = Fnv1a(name, n);
  StreamThread& st = s.threads[slot];
  if (st.key == key && st.hash == hash) return;
  st = StreamThread{key, hash};
  out.RecordHeader(stream::Kind::kThread, stream::kThreadName + n);
  out.U32(key);
  out.U32(tid);
  out.U16(uint16_t(n));
  out.Bytes(name, n);
}

// Sends the words [from, info.nwords) of the chunk copied in the workspace.
void SendChunk(const Runtime& rt, StreamState& s, ByteOut& out, uint32_t index, const ChunkCopy& info) {
  const uint64_t* w = rt.workspace->copy;
  StreamSent& sent = s.sent[index];
  const uint32_t from = sent.words;
  // The time base in force at `from`: the chunk's, or the last kTimeBase
  // record already sent (the EVENTS record must stand on its own).
  uint64_t base = info.base;
  uint32_t i = 0;
  while (i < from) {
    const unsigned n = RecordWords(w[i]);
    if (n == 0 || i + n > info.nwords) break;  // corrupt: cannot happen in practice
    if (HeaderType(w[i]) == RecordType::kTimeBase) base = w[i + 1];
    i += n;
  }
  // Names first, and the extent of whole, well-formed records.
  uint32_t end = from, records = 0;
  while (end < info.nwords) {
    const uint64_t h = w[end];
    const unsigned n = RecordWords(h);
    if (n == 0 || end + n > info.nwords) break;  // keep the valid prefix only
    const RecordType type = HeaderType(h);
    if (type != RecordType::kTimeBase) {
      ++records;
      if (type != RecordType::kScopeEnd) {
        const uintptr_t p = uintptr_t(w[end + 1]);
        if (p != 0 && !StringSent(s, p)) SendString(out, p);
      }
    }
    end += n;
  }
  sent.words = info.nwords;  // a corrupt tail is skipped for good
  sent.records += records;
  if (end == from) return;
  MaybeSendThread(rt, s, out, info.thread, info.tid);
  const uint32_t count = end - from;
  out.RecordHeader(stream::Kind::kEvents, stream::kEventsWords + count * 8u);
  out.U32(info.thread);
  out.U32(info.tid);
  out.U64(info.seq);
  out.U64(base);
  out.U32(from);
  out.U32(count);
  out.Bytes(w + from, size_t(count) * 8);
}

void ResetStream(const Runtime& rt, StreamState& s, mabutrace_output_fn cb) {
  s.cb = cb;
  s.header_sent = false;
  s.overwritten_base = rt.overwritten.load(std::memory_order_acquire);
  s.dropped_base = rt.dropped.load(std::memory_order_relaxed);
  s.sent_recycled = 0;
  s.lost_reported = 0;
  s.dropped_reported = 0;
  s.cut_reported = 0;
  s.strings_used = 0;
  memset(s.sent, 0, sizeof(StreamSent) * s.num_chunks);
  memset(s.threads, 0, sizeof(StreamThread) * s.max_threads);
  memset(s.strings, 0, sizeof(uintptr_t) * kStreamStrings);
}

void Flush(Runtime& rt, StreamState& s) {
  ByteOut out(reinterpret_cast<uint8_t*>(rt.workspace->out), rt.workspace->out_cap, s.cb);
  if (!s.header_sent) {
    WriteHeader(rt, out);
    s.header_sent = true;
  }
  // A sample of the clock before the events it helps convert (their ticks
  // are mostly older: format/clock_map.h maps them between samples).
  // Sent just before the flush's first EVENTS record (a flush with
  // nothing new sends nothing).
  const format::ClockMap clock = CurrentClockMap(rt);
  bool clock_sent = !clock.last.valid();
  // Read the loss counters before looking at the chunks: every recycle they
  // count has already changed its chunk's tag (AcquireChunk), so it is seen
  // below and its sent records are not counted as lost. A recycle seen but
  // not yet counted makes the total low for a moment, never high.
  const uint64_t overwritten = rt.overwritten.load(std::memory_order_acquire);
  const uint64_t dropped = rt.dropped.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < rt.num_chunks; ++i) {
    const uint64_t seq = TagSeq(rt.chunks[i].tag.load(std::memory_order_acquire));
    if (s.sent[i].seq != 0 && seq != s.sent[i].seq) Retire(s, i);
  }
  ChunkReader snap(rt);
  for (uint32_t k = 0; k < snap.size(); ++k) {
    ChunkCopy info;
    if (!snap.Load(k, &info)) continue;  // recycled: the runtime counts it
    const uint32_t index = snap.ref(k).index;
    if (s.sent[index].seq != info.seq) {
      if (s.sent[index].seq != 0) Retire(s, index);
      s.sent[index] = StreamSent{info.seq, 0, 0};
    }
    if (info.nwords > s.sent[index].words) {
      if (!clock_sent) {
        clock_sent = true;
        out.RecordHeader(stream::Kind::kClock, stream::kClockBytes);
        out.U64(clock.last.ticks);
        out.U64(clock.last.monotonic_ns);
        out.U64(clock.last.boottime_ns);
      }
      SendChunk(rt, s, out, index, info);
    }
  }
  const uint64_t gone = overwritten - s.overwritten_base;
  const uint64_t lost = gone > s.sent_recycled ? gone - s.sent_recycled : 0;
  const uint64_t drop = dropped - s.dropped_base;
  const uint64_t cut = rt.responses_cut.load(std::memory_order_relaxed);  // (http::CountCutResponse)
  if (lost > s.lost_reported || drop > s.dropped_reported || cut > s.cut_reported) {
    if (lost > s.lost_reported) s.lost_reported = lost;
    s.dropped_reported = drop;
    s.cut_reported = cut;
    out.RecordHeader(stream::Kind::kLost, stream::kLostBytesWithHttpCut);
    out.U64(s.lost_reported);
    out.U64(s.dropped_reported);
    out.U64(s.cut_reported);
  }
}

}  // namespace

size_t StreamStateBytes(uint32_t num_chunks, uint32_t max_threads) {
  return AlignUp(sizeof(StreamState), 64) + AlignUp(sizeof(StreamSent) * num_chunks, 64) +
         AlignUp(sizeof(StreamThread) * max_threads, 64) + sizeof(uintptr_t) * kStreamStrings;
}

StreamState* CarveStreamState(void* mem, uint32_t num_chunks, uint32_t max_threads) {
  auto* p = static_cast<uint8_t*>(mem);
  auto* s = new (p) StreamState{};
  p += AlignUp(sizeof(StreamState), 64);
  s->sent = reinterpret_cast<StreamSent*>(p);
  p += AlignUp(sizeof(StreamSent) * num_chunks, 64);
  s->threads = reinterpret_cast<StreamThread*>(p);
  p += AlignUp(sizeof(StreamThread) * max_threads, 64);
  s->strings = reinterpret_cast<uintptr_t*>(p);
  s->num_chunks = num_chunks;
  s->max_threads = max_threads;
  return s;
}

}  // namespace mabutrace

using namespace mabutrace;

extern "C" {

int mabutrace_set_output_callback(mabutrace_output_fn cb) {
  // Under the export lock: a flush in progress finishes its stream first.
  // (So the callback must not call this: it would wait for itself.)
  Runtime* rt = BeginExport();
  if (!rt) return MABUTRACE_ERR_NOT_INITIALIZED;
  ResetStream(*rt, *rt->workspace->stream, cb);
  EndExport(rt);
  return MABUTRACE_OK;
}

int mabutrace_flush_output(void) {
  Runtime* rt = BeginExport();
  if (!rt) return MABUTRACE_ERR_NOT_INITIALIZED;
  StreamState& s = *rt->workspace->stream;
  int rc = MABUTRACE_OK;
  if (s.cb == nullptr) {
    rc = MABUTRACE_ERR_INVALID_ARG;
  } else {
    Flush(*rt, s);
  }
  EndExport(rt);
  return rc;
}

}  // extern "C"
