// SPDX-License-Identifier: MIT
// raw_dump.cpp: see raw_dump.h. Layouts: src/format/dump_format.h (the
// descriptor), src/format/record_format.h (records), stream_format.h (the
// stream written here).
#include "raw_dump.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "format/dump_format.h"
#include "format/record_format.h"
#include "format/stream_format.h"

namespace mabutrace::host {
namespace {

namespace fmt = ::mabutrace::stream;
using ::mabutrace::dump::DumpDescriptor;

std::string Hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// Reads device-order integers out of the dump.
struct Reader {
  const uint8_t* data;
  size_t len;
  bool big;
  uint64_t Get(size_t off, unsigned bytes) const {
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) {
      const uint8_t b = data[off + (big ? i : bytes - 1 - i)];
      v = v << 8 | b;
    }
    return v;
  }
  bool Has(uint64_t off, uint64_t n) const { return off <= len && n <= len - off; }
};

// Writes device-order integers into the stream (the header names the order).
struct Writer {
  std::string& out;
  bool big;
  void Put(uint64_t v, unsigned bytes) {
    for (unsigned i = 0; i < bytes; ++i) {
      const unsigned shift = 8 * (big ? bytes - 1 - i : i);
      out.push_back(char(uint8_t(v >> shift)));
    }
  }
  void Bytes(const void* p, size_t n) { out.append(static_cast<const char*>(p), n); }
  // kind, then the u32 payload length patched by End.
  size_t Begin(fmt::Kind kind) {
    out.push_back(char(kind));
    Put(0, 4);
    return out.size();
  }
  void End(size_t start) {
    std::string len;
    Writer w{len, big};
    w.Put(out.size() - start, 4);
    std::memcpy(&out[start - 4], len.data(), 4);
  }
};

struct Chunk {
  uint32_t index;
  uint64_t seq, base;
  uint32_t words, key, tid;
};

}  // namespace

Status RawDumpResult::ToDump(const Status& s) const {
  if (s.ok) return s;
  std::string what = s.message;
  if (const size_t colon = what.find(": "); what.rfind("offset ", 0) == 0 && colon != std::string::npos)
    what = what.substr(colon + 2);
  auto it = std::upper_bound(segments.begin(), segments.end(), s.offset,
                             [](uint64_t o, const Segment& g) { return o < g.stream_offset; });
  if (it != segments.begin()) {
    --it;
    if (s.offset < it->stream_offset + it->bytes)
      return Status::Error(it->dump_offset + (s.offset - it->stream_offset), what);
  }
  return Status::Error(descriptor_offset, what);
}

// Offset of the first descriptor magic in the dump (any alignment: a dump
// may start anywhere), or len.
static size_t FindDescriptor(const uint8_t* data, size_t len) {
  const void* hit = memmem(data, len, dump::kMagic, sizeof dump::kMagic);
  return hit ? size_t(static_cast<const uint8_t*>(hit) - data) : len;
}

bool LooksLikeRawDump(const uint8_t* data, size_t len) { return FindDescriptor(data, len) < len; }

namespace {

// What a valid descriptor says, in dump offsets.
struct Geometry {
  size_t at = 0;  // the descriptor
  bool big = false;
  uint8_t endian = 0;
  uint64_t pointer_size = 0, clock_hz = 0, origin = 0, pid = 0, session = 0;
  uint64_t flags = 0;  // dump::kFlag*
  // The clock fields (descriptors of dump::kClockFieldsBytes or more; else 0).
  uint64_t clk[6] = {};  // init ticks, monotonic, boottime; last ticks, monotonic, boottime
  uint64_t clock_source = 0;
  uint64_t num_chunks = 0, chunk_words = 0, max_threads = 0;
  uint64_t chunks_off = 0, threads_off = 0, data_off = 0, chunk_stride = 0, thread_stride = 0;
  uint64_t c_gen = 0, c_seq = 0, c_base = 0, c_commit = 0, c_thread = 0, c_tid = 0;
  unsigned seq_bytes = 0, base_bytes = 0, commit_bytes = 0;
  uint64_t s_state = 0, s_gen = 0, s_tid = 0, s_name = 0, s_name_bytes = 0;
};

// Checks the descriptor at `at` and fills *g; an error names the field.
Status CheckDescriptor(const uint8_t* data, size_t len, size_t at, Geometry* g) {
  if (len - at < offsetof(DumpDescriptor, clock_init_ticks))
    return Status::Error(at, "dump descriptor cut off by the end of the dump");
  g->at = at;
  g->endian = data[at + offsetof(DumpDescriptor, endianness)];
  if (g->endian != fmt::kLittleEndian && g->endian != fmt::kBigEndian)
    return Status::Error(at + offsetof(DumpDescriptor, endianness),
                         "dump descriptor: bad endianness byte " + std::to_string(g->endian));
  g->big = g->endian == fmt::kBigEndian;
  const Reader r{data, len, g->big};
#define FIELD(name) r.Get(at + offsetof(DumpDescriptor, name), sizeof(DumpDescriptor::name))
#define AT(name) (at + offsetof(DumpDescriptor, name))
  const uint64_t version = FIELD(version);
  if (version != dump::kVersion) {
    const uint64_t swapped = ((version & 0xFF) << 8) | (version >> 8);
    return Status::Error(AT(version), "dump descriptor version " + std::to_string(version) +
                                          " is not supported (this tool reads version " +
                                          std::to_string(dump::kVersion) + ")" +
                                          (swapped == dump::kVersion ? "; the endianness byte looks wrong" : ""));
  }
  if (FIELD(word_size) != 8) return Status::Error(AT(word_size), "dump descriptor: word size is not 8");
  g->pointer_size = FIELD(pointer_size);
  g->flags = FIELD(flags);
  if (g->pointer_size != 4 && g->pointer_size != 8)
    return Status::Error(AT(pointer_size),
                         "dump descriptor: pointer size " + std::to_string(g->pointer_size) + " (4 or 8 expected)");
  const uint64_t desc_off = FIELD(descriptor_offset);
  if (desc_off > at)
    return Status::Error(AT(descriptor_offset), "dump descriptor: the dump starts after the memory block does (" +
                                                    std::to_string(at) +
                                                    " bytes of the block are in the dump, the descriptor is " +
                                                    std::to_string(desc_off) + " bytes in)");
  const uint64_t block = at - desc_off;  // the block's start, in dump offsets
  g->num_chunks = FIELD(num_chunks), g->chunk_words = FIELD(chunk_words);
  g->chunks_off = block + FIELD(chunks_offset), g->data_off = block + FIELD(data_offset);
  g->threads_off = block + FIELD(threads_offset);
  g->chunk_stride = FIELD(chunk_stride), g->thread_stride = FIELD(thread_stride);
  g->max_threads = FIELD(max_threads);
  // Every field the reader touches must lie inside its struct, with a width
  // it can read: a damaged descriptor must not steer reads out of the dump.
  g->c_gen = FIELD(chunk_gen), g->c_seq = FIELD(chunk_seq), g->c_base = FIELD(chunk_base);
  g->c_commit = FIELD(chunk_commit), g->c_thread = FIELD(chunk_thread), g->c_tid = FIELD(chunk_tid);
  g->seq_bytes = unsigned(FIELD(chunk_seq_bytes)), g->base_bytes = unsigned(FIELD(chunk_base_bytes));
  g->commit_bytes = unsigned(FIELD(chunk_commit_bytes));
  g->s_state = FIELD(slot_state), g->s_gen = FIELD(slot_gen), g->s_tid = FIELD(slot_tid);
  g->s_name = FIELD(slot_name), g->s_name_bytes = FIELD(slot_name_bytes);
  bool layout_ok = g->max_threads <= 65536 && g->chunk_stride <= 4096 && g->thread_stride <= 4096 &&
                   g->s_name + g->s_name_bytes <= g->thread_stride;
  for (uint64_t f : {g->c_gen, g->c_thread, g->c_tid}) layout_ok &= f + 4 <= g->chunk_stride;
  const uint64_t wide[][2] = {{g->c_seq, g->seq_bytes}, {g->c_base, g->base_bytes}, {g->c_commit, g->commit_bytes}};
  for (const auto& fw : wide) layout_ok &= fw[1] >= 1 && fw[1] <= 8 && fw[0] + fw[1] <= g->chunk_stride;
  for (uint64_t f : {g->s_state, g->s_gen, g->s_tid}) layout_ok &= f + 4 <= g->thread_stride;
  if (!layout_ok)
    return Status::Error(AT(chunk_stride),
                         "dump descriptor: a field offset lies outside its structure (damaged descriptor)");
  if (g->num_chunks == 0 || g->chunk_words == 0 || g->num_chunks > (1u << 24) || g->chunk_words > (1u << 20) ||
      !r.Has(g->chunks_off, g->num_chunks * g->chunk_stride) ||
      !r.Has(g->data_off, g->num_chunks * g->chunk_words * 8) ||
      !r.Has(g->threads_off, g->max_threads * g->thread_stride))
    return Status::Error(at, "dump descriptor: the buffer (" + std::to_string(g->num_chunks) + " chunks of " +
                                 std::to_string(g->chunk_words * 8) + " bytes) is not inside the dump (" +
                                 std::to_string(len) + " bytes): dump the whole memory block");
  g->clock_hz = FIELD(clock_hz);
  if (g->clock_hz == 0) return Status::Error(AT(clock_hz), "dump descriptor: clock_hz is 0");
  g->origin = FIELD(origin), g->pid = FIELD(pid), g->session = FIELD(session);
  if (FIELD(descriptor_bytes) >= dump::kClockFieldsBytes && len - at >= sizeof(DumpDescriptor)) {
    g->clk[0] = FIELD(clock_init_ticks), g->clk[1] = FIELD(clock_init_monotonic_ns);
    g->clk[2] = FIELD(clock_init_boottime_ns), g->clk[3] = FIELD(clock_last_ticks);
    g->clk[4] = FIELD(clock_last_monotonic_ns), g->clk[5] = FIELD(clock_last_boottime_ns);
    g->clock_source = FIELD(clock_source);
  }
#undef FIELD
#undef AT
  return Status::Ok();
}

}  // namespace

RawDumpResult RawDumpToStream(const uint8_t* data, size_t len, const ElfStrings* elf) {
  RawDumpResult res;
  // ---- find the descriptor: the first candidate that checks out ------------
  // The magic may also appear elsewhere (in code running from RAM, or a
  // stale block): every match is checked, the first valid one is used, and
  // further valid ones are reported.
  Geometry g;
  Status first_error;
  size_t candidates = 0, valid = 0;
  std::string others;
  for (size_t at = FindDescriptor(data, len); at < len; at = at + 1 + FindDescriptor(data + at + 1, len - at - 1)) {
    ++candidates;
    Geometry cand;
    const Status st = CheckDescriptor(data, len, at, &cand);
    if (!st.ok) {
      if (first_error.ok) first_error = st;
      continue;
    }
    if (valid++ == 0) {
      g = cand;
    } else {
      others += (others.empty() ? "" : ", ") + std::to_string(at) + " (session " + std::to_string(cand.session) + ")";
    }
  }
  if (candidates == 0) {
    res.fatal = Status::Error(0,
                              "no mabutrace dump descriptor (magic \"MABUDMP\\x1a\") in the dump: "
                              "dump the memory block mabutrace_init uses (docs/raw-dump.md)");
    return res;
  }
  if (valid == 0) {
    res.fatal = first_error;
    if (candidates > 1)
      res.fatal.message += " (and " + std::to_string(candidates - 1) + " more candidate(s), none valid)";
    return res;
  }
  const size_t at = g.at;
  res.descriptor_offset = at;
  if (!others.empty())
    res.errors.push_back(Status::Error(at,
                                       "the dump holds more than one valid descriptor: used this one "
                                       "(session " +
                                           std::to_string(g.session) + "), not those at " + others));
  if (elf && (elf->pointer_size() != g.pointer_size || elf->big_endian() != g.big)) {
    auto what = [](unsigned bits, bool big) {
      return std::to_string(bits) + "-bit " + (big ? "big" : "little") + "-endian";
    };
    res.fatal = Status::Error(at, "the ELF is " + what(elf->pointer_size() * 8, elf->big_endian()) +
                                      " but the dump's device is " + what(unsigned(g.pointer_size) * 8, g.big) +
                                      ": is --elf the firmware that wrote this dump?");
    return res;
  }
  const Reader r{data, len, g.big};
  const uint8_t endian = g.endian;
  const uint64_t clock_hz = g.clock_hz;
  const uint64_t num_chunks = g.num_chunks, chunk_words = g.chunk_words, max_threads = g.max_threads;
  const uint64_t chunks_off = g.chunks_off, data_off = g.data_off, threads_off = g.threads_off;
  const uint64_t chunk_stride = g.chunk_stride, thread_stride = g.thread_stride;
#define FIELD(name) r.Get(at + offsetof(DumpDescriptor, name), sizeof(DumpDescriptor::name))

  // ---- the stream header ---------------------------------------------------
  Writer w{res.stream, r.big};
  const char* pname = reinterpret_cast<const char*>(data + at + offsetof(DumpDescriptor, process_name));
  const size_t pname_room = std::min<size_t>(64, len - (at + offsetof(DumpDescriptor, process_name)));
  const size_t pname_len = strnlen(pname, pname_room);
  w.Bytes(fmt::kMagic, sizeof fmt::kMagic);
  w.Put(fmt::kVersion, 2);
  w.Put(fmt::kHdrFixedBytes + pname_len + fmt::kClkHdrBytes, 2);
  w.Put(FIELD(pointer_size), 1);
  w.Put(endian, 1);
  w.Put(fmt::kWordBytes, 1);
  w.Put(0, 1);
  w.Put(clock_hz, 8);
  w.Put(FIELD(origin), 8);
  w.Put(FIELD(pid), 4);
  w.Put(pname_len, 2);
  w.Bytes(pname, pname_len);
  w.Put(g.clk[0], 8);
  w.Put(g.clk[1], 8);
  w.Put(g.clk[2], 8);
  w.Put(g.clock_source, 1);
  if (g.clk[1] != 0 && g.clk[4] != 0) {
    // The sample of the last export or flush before the dump.
    const size_t rec = w.Begin(fmt::Kind::kClock);
    w.Put(g.clk[3], 8);
    w.Put(g.clk[4], 8);
    w.Put(g.clk[5], 8);
    w.End(rec);
  }

  // ---- threads: names from the registry -------------------------------------
  const uint64_t s_state = g.s_state, s_gen = g.s_gen, s_tid = g.s_tid;
  const uint64_t s_name = g.s_name, s_name_bytes = g.s_name_bytes;
  for (uint64_t i = 0; i < max_threads; ++i) {
    const uint64_t slot = threads_off + i * thread_stride;
    if (r.Get(slot + s_state, 4) == 0) continue;
    const char* name = reinterpret_cast<const char*>(data + slot + s_name);
    const size_t n = strnlen(name, s_name_bytes);
    const size_t rec = w.Begin(fmt::Kind::kThread);
    w.Put(uint32_t(i | (r.Get(slot + s_gen, 4) & 0xFFFF) << 16), 4);
    w.Put(r.Get(slot + s_tid, 4), 4);
    w.Put(n, 2);
    w.Bytes(name, n);
    w.End(rec);
  }

  // ---- chunks, oldest first -----------------------------------------------
  const uint64_t c_gen = g.c_gen, c_seq = g.c_seq, c_base = g.c_base;
  const uint64_t c_commit = g.c_commit, c_thread = g.c_thread, c_tid = g.c_tid;
  const unsigned seq_bytes = g.seq_bytes, base_bytes = g.base_bytes, commit_bytes = g.commit_bytes;
#undef FIELD
  std::vector<Chunk> chunks;
  for (uint32_t i = 0; i < num_chunks; ++i) {
    const uint64_t c = chunks_off + uint64_t(i) * chunk_stride;
    Chunk ch{i, r.Get(c + c_seq, seq_bytes),      r.Get(c + c_base, base_bytes),
             0, uint32_t(r.Get(c + c_thread, 4)), uint32_t(r.Get(c + c_tid, 4))};
    if (ch.seq == 0) continue;  // never used
    const uint64_t commit = r.Get(c + c_commit, commit_bytes);
    ch.words = uint32_t(commit & 0xFFFFFFFFu);  // (records << 32) | valid words
    if (r.Get(c + c_gen, 4) & 1) {
      ++res.chunks_skipped;
      res.errors.push_back(
          Status::Error(c, "chunk " + std::to_string(i) + " was changing owner when the dump was taken: skipped"));
      continue;
    }
    if (ch.words > chunk_words) {
      ++res.chunks_skipped;
      res.errors.push_back(Status::Error(c + c_commit, "chunk " + std::to_string(i) + ": " + std::to_string(ch.words) +
                                                           " valid words in a " + std::to_string(chunk_words) +
                                                           "-word chunk: skipped"));
      continue;
    }
    if (g.flags & dump::kFlagZeroedChunks) {
      // The commit word may lag (single-core writers): the records go on
      // to the first zero header word or the chunk's end.
      const uint64_t words_off = data_off + uint64_t(i) * chunk_words * 8;
      while (ch.words < chunk_words) {
        const uint64_t h = r.Get(words_off + uint64_t(ch.words) * 8, 8);
        const unsigned n = RecordWords(h);
        if (h == 0 || n == 0 || ch.words + n > chunk_words) break;
        ch.words += n;
      }
    }
    if (ch.words) chunks.push_back(ch);
  }
  std::sort(chunks.begin(), chunks.end(), [](const Chunk& a, const Chunk& b) { return a.seq < b.seq; });

  std::unordered_set<uint64_t> described;
  uint64_t resolved = 0, mid_string = 0;  // the wrong-ELF check below
  for (const Chunk& ch : chunks) {
    const uint64_t words_off = data_off + uint64_t(ch.index) * chunk_words * 8;
    // Describe the names this chunk uses, then send its words verbatim (the
    // stream decoder checks the records themselves).
    for (uint32_t k = 0; k < ch.words;) {
      const uint64_t h = r.Get(words_off + k * 8, 8);
      const unsigned n = RecordWords(h);
      if (n == 0 || k + n > ch.words) break;  // the decoder reports it
      const RecordType type = HeaderType(h);
      if (type != RecordType::kScopeEnd && type != RecordType::kTimeBase) {
        const uint64_t ptr = r.Get(words_off + (k + 1) * 8, 8);
        if (ptr != 0 && described.insert(ptr).second) {
          std::optional<std::string> name = elf ? elf->At(ptr) : std::nullopt;
          if (name) {
            ++resolved;
            mid_string += !elf->StartsString(ptr);
          } else {
            res.errors.push_back(
                Status::Error(words_off + (k + 1) * 8,
                              "name pointer " + Hex(ptr) +
                                  (elf ? " is not in the ELF's loaded sections" : " cannot be resolved without --elf") +
                                  ": shown as <" + Hex(ptr) + ">"));
            name = "<" + Hex(ptr) + ">";
          }
          const size_t rec = w.Begin(fmt::Kind::kString);
          w.Put(ptr, 8);
          const size_t nlen = std::min<size_t>(name->size(), fmt::kMaxStringBytes);
          w.Put(nlen, 2);
          w.Bytes(name->data(), nlen);
          w.End(rec);
        }
      }
      k += n;
    }
    const size_t rec = w.Begin(fmt::Kind::kEvents);
    w.Put(ch.key, 4);
    w.Put(ch.tid, 4);
    w.Put(ch.seq, 8);
    w.Put(ch.base, 8);
    w.Put(0, 4);
    w.Put(ch.words, 4);
    res.segments.push_back({res.stream.size(), words_off, uint64_t(ch.words) * 8});
    w.Bytes(data + words_off, size_t(ch.words) * 8);  // device order, as the stream wants
    w.End(rec);
    ++res.chunks;
  }
  if (resolved >= 3 && mid_string * 2 > resolved)
    res.errors.push_back(Status::Error(at, std::to_string(mid_string) + " of " + std::to_string(resolved) +
                                               " names do not start a string in the ELF: is --elf "
                                               "the firmware that wrote this dump?"));
  return res;
}

}  // namespace mabutrace::host
