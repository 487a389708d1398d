// SPDX-License-Identifier: MIT
// stream_decoder.cpp: see stream_decoder.h; layout in docs/stream-format.md.
//
// Every read is bounds-checked against the record's own length before it
// happens, and a record's length is checked against kMaxRecordBytes before
// it is buffered, so a corrupt stream can cost neither a crash nor memory.
#include "stream_decoder.h"

#include <cstdio>

#include <algorithm>
#include <cstring>

#include "format/record_format.h"
#include "format/stream_format.h"

namespace mabutrace::host {

namespace fmt = mabutrace::stream;

Status Status::Error(uint64_t offset, std::string_view what) {
  Status s;
  s.ok = false;
  s.offset = offset;
  s.message = "offset " + std::to_string(offset) + ": " + std::string(what);
  return s;
}

StreamDecoder::StreamDecoder(EventFn on_event) : on_event_(std::move(on_event)) {}

uint16_t StreamDecoder::U16(const uint8_t* p) const {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return swap_ ? __builtin_bswap16(v) : v;
}
uint32_t StreamDecoder::U32(const uint8_t* p) const {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return swap_ ? __builtin_bswap32(v) : v;
}
uint64_t StreamDecoder::U64(const uint8_t* p) const {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return swap_ ? __builtin_bswap64(v) : v;
}

uint64_t StreamDecoder::TicksToNs(uint64_t ticks) const {
  if (ticks <= info_.origin_ticks) return 0;
  if (samples_.empty()) {
    const unsigned __int128 t = ticks - info_.origin_ticks;
    const unsigned __int128 ns = t * 1000000000u / info_.clock_hz;
    return ns > UINT64_MAX ? UINT64_MAX : uint64_t(ns);
  }
  const uint64_t at = format::SamplesNs(samples_.data(), samples_.size(), info_.clock_hz, ticks);
  return at > origin_on_map_ ? at - origin_on_map_ : 0;
}

void StreamDecoder::AddSample(const format::ClockSync& s) {
  samples_.push_back(s);
  // The origin's place on the map moves only while the first segment is
  // being drawn, but working it out once per sample costs nothing.
  origin_on_map_ = MonotonicAtOrigin();
}

uint64_t StreamDecoder::MonotonicAtOrigin() const {
  if (samples_.empty()) return 0;
  return format::SamplesNs(samples_.data(), samples_.size(), info_.clock_hz, info_.origin_ticks);
}

uint64_t StreamDecoder::BoottimeAtOrigin() const {
  if (samples_.empty()) return 0;
  return MonotonicAtOrigin() + (samples_[0].boottime_ns - samples_[0].monotonic_ns);
}

void StreamDecoder::RecordError(uint64_t offset, std::string_view what) {
  // Bounded: a badly damaged stream must not grow this without limit.
  if (record_errors_.size() < 1000) record_errors_.push_back(Status::Error(offset, what));
}

Status StreamDecoder::Feed(const uint8_t* data, size_t len) {
  if (!fatal_.ok) return fatal_;
  if (len == 0) return Status::Ok();
  // Parse straight from `data` when nothing is pending (the common case for
  // big pieces); otherwise append and parse the pending bytes.
  const uint8_t* p = data;
  size_t n = len;
  const bool buffered = !pending_.empty();
  if (buffered) {
    pending_.insert(pending_.end(), data, data + len);
    p = pending_.data();
    n = pending_.size();
  }
  size_t pos = 0;
  while (pos < n && fatal_.ok) {
    const size_t used = header_done_ ? ParseRecord(p + pos, n - pos) : ParseHeader(p + pos, n - pos);
    if (used == 0) break;
    pos += used;
    consumed_ += used;
  }
  if (!fatal_.ok) {
    pending_.clear();
    return fatal_;
  }
  if (buffered) {
    pending_.erase(pending_.begin(), pending_.begin() + std::ptrdiff_t(pos));
  } else {
    pending_.assign(p + pos, p + n);
  }
  return Status::Ok();
}

Status StreamDecoder::Finish() {
  if (!fatal_.ok) return fatal_;
  if (!header_done_) {
    fatal_ = Status::Error(consumed_, "stream ends inside the header (" + std::to_string(pending_.size()) + " bytes)");
  } else if (!pending_.empty()) {
    fatal_ =
        Status::Error(consumed_, "stream ends inside a record (" + std::to_string(pending_.size()) + " bytes of it)");
  }
  return fatal_;
}

size_t StreamDecoder::ParseHeader(const uint8_t* p, size_t n) {
  const size_t need_magic = sizeof fmt::kMagic;
  const size_t have = std::min(n, need_magic);
  if (std::memcmp(p, fmt::kMagic, have) != 0) {
    fatal_ = Status::Error(consumed_, "not a mabutrace stream (bad magic)");
    return 0;
  }
  if (n < fmt::kHdrFixedBytes) return 0;
  const uint8_t endian = p[fmt::kHdrEndianness];
  if (endian != fmt::kLittleEndian && endian != fmt::kBigEndian) {
    fatal_ = Status::Error(consumed_ + fmt::kHdrEndianness, "bad endianness byte " + std::to_string(endian));
    return 0;
  }
  swap_ = (endian == fmt::kBigEndian) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
  info_.big_endian = endian == fmt::kBigEndian;
  info_.version = U16(p + fmt::kHdrVersion);
  if (info_.version != fmt::kVersion) {
    fatal_ = Status::Error(consumed_ + fmt::kHdrVersion, "unsupported stream version " + std::to_string(info_.version) +
                                                             " (this decoder reads version " +
                                                             std::to_string(fmt::kVersion) + ")");
    return 0;
  }
  const uint16_t hdr_len = U16(p + fmt::kHdrLength);
  const uint16_t name_len = U16(p + fmt::kHdrNameLength);
  if (hdr_len < fmt::kHdrFixedBytes + name_len) {
    fatal_ = Status::Error(consumed_ + fmt::kHdrLength,
                           "header length " + std::to_string(hdr_len) + " too small for its process name");
    return 0;
  }
  if (p[fmt::kHdrWordSize] != fmt::kWordBytes) {
    fatal_ =
        Status::Error(consumed_ + fmt::kHdrWordSize, "unsupported word size " + std::to_string(p[fmt::kHdrWordSize]));
    return 0;
  }
  const uint8_t ptr = p[fmt::kHdrPointerSize];
  if (ptr == 0 || ptr > 8) {
    fatal_ = Status::Error(consumed_ + fmt::kHdrPointerSize, "bad pointer size " + std::to_string(ptr));
    return 0;
  }
  const uint64_t hz = U64(p + fmt::kHdrClockHz);
  if (hz == 0) {
    fatal_ = Status::Error(consumed_ + fmt::kHdrClockHz, "clock frequency is 0");
    return 0;
  }
  if (n < hdr_len) return 0;  // fields appended by later writers: skipped
  info_.pointer_size = ptr;
  info_.clock_hz = hz;
  info_.origin_ticks = U64(p + fmt::kHdrOrigin);
  info_.pid = U32(p + fmt::kHdrPid);
  info_.process_name.assign(reinterpret_cast<const char*>(p + fmt::kHdrName), name_len);
  if (hdr_len >= fmt::kHdrFixedBytes + name_len + fmt::kClkHdrBytes) {
    const uint8_t* c = p + fmt::kHdrName + name_len;
    info_.clock_init.ticks = U64(c + fmt::kClkTicks);
    info_.clock_init.monotonic_ns = U64(c + fmt::kClkMonotonic);
    info_.clock_init.boottime_ns = U64(c + fmt::kClkBoottime);
    info_.clock_source = c[fmt::kClkSource];
    if (info_.clock_init.valid()) AddSample(info_.clock_init);
  }
  header_done_ = true;
  return hdr_len;
}

size_t StreamDecoder::ParseRecord(const uint8_t* p, size_t n) {
  if (n < fmt::kRecordHeaderBytes) return 0;
  const uint8_t kind = p[0];
  const uint32_t len = U32(p + 1);
  if (len > kMaxRecordBytes) {
    fatal_ = Status::Error(consumed_, "record of kind " + std::to_string(kind) + " claims " + std::to_string(len) +
                                          " bytes (corrupt length?)");
    return 0;
  }
  if (n < fmt::kRecordHeaderBytes + size_t(len)) return 0;
  const uint8_t* q = p + fmt::kRecordHeaderBytes;
  const uint64_t at = consumed_;
  switch (fmt::Kind(kind)) {
    case fmt::Kind::kString: {
      if (len < fmt::kStringBytes || len < fmt::kStringBytes + U16(q + fmt::kStringLength)) {
        RecordError(at, "STRING record too short");
        break;
      }
      strings_[U64(q + fmt::kStringPtr)].assign(reinterpret_cast<const char*>(q + fmt::kStringBytes),
                                                U16(q + fmt::kStringLength));
      break;
    }
    case fmt::Kind::kThread: {
      if (len < fmt::kThreadName || len < fmt::kThreadName + U16(q + fmt::kThreadLength)) {
        RecordError(at, "THREAD record too short");
        break;
      }
      threads_[U32(q + fmt::kThreadKey)].assign(reinterpret_cast<const char*>(q + fmt::kThreadName),
                                                U16(q + fmt::kThreadLength));
      break;
    }
    case fmt::Kind::kEvents: DecodeEvents(q, len, at); break;
    case fmt::Kind::kLost:
      if (len < fmt::kLostBytes) {
        RecordError(at, "LOST record too short");
        break;
      }
      lost_ = U64(q + fmt::kLostRecords);
      dropped_ = U64(q + fmt::kLostDropped);
      if (len >= fmt::kLostBytesWithHttpCut) {  // (older writers end before it)
        http_cut_ = U64(q + fmt::kLostHttpCut);
        has_http_cut_ = true;
      }
      break;
    case fmt::Kind::kClock: {
      if (len < fmt::kClockBytes) {
        RecordError(at, "CLOCK record too short");
        break;
      }
      const format::ClockSync s{U64(q + fmt::kClockTicks), U64(q + fmt::kClockMonotonic), U64(q + fmt::kClockBoottime)};
      // Only samples that extend the map (a clock without an init sample,
      // or one that did not move on, is left alone).
      if (!samples_.empty() && s.valid() && s.ticks > samples_.back().ticks &&
          s.monotonic_ns >= samples_.back().monotonic_ns)
        AddSample(s);
      break;
    }
    default: break;  // a kind from a later writer: skipped (forward compatible)
  }
  return fmt::kRecordHeaderBytes + len;
}

void StreamDecoder::DecodeEvents(const uint8_t* q, uint32_t len, uint64_t at) {
  if (len < fmt::kEventsWords) {
    RecordError(at, "EVENTS record too short");
    return;
  }
  const uint32_t count = U32(q + fmt::kEventsWordCount);
  if (uint64_t(count) * 8 > len - fmt::kEventsWords) {
    RecordError(at, "EVENTS record holds fewer words than its count " + std::to_string(count));
    return;
  }
  Event e;
  e.thread_key = U32(q + fmt::kEventsKey);
  e.tid = U32(q + fmt::kEventsTid);
  e.chunk_seq = U64(q + fmt::kEventsSeq);
  uint64_t base = U64(q + fmt::kEventsBase);
  const auto th = threads_.find(e.thread_key);
  const std::string empty;
  const std::string& thread_name = th == threads_.end() ? empty : th->second;
  e.thread_name = thread_name;
  const uint8_t* w = q + fmt::kEventsWords;
  auto word = [&](uint32_t i) { return U64(w + size_t(i) * 8); };
  uint32_t i = 0;
  while (i < count) {
    const uint64_t h = word(i);
    const unsigned n = RecordWords(h);
    const uint64_t word_at = at + fmt::kRecordHeaderBytes + fmt::kEventsWords + uint64_t(i) * 8;
    if (n == 0) {
      RecordError(word_at, "unknown event type " + std::to_string(unsigned(HeaderType(h))) +
                               " (rest of the EVENTS record skipped)");
      return;
    }
    if (i + n > count) {
      RecordError(word_at, "event runs past the end of its EVENTS record");
      return;
    }
    const RecordType type = HeaderType(h);
    if (type == RecordType::kTimeBase) {
      base = word(i + 1);
      i += n;
      continue;
    }
    e.type = type;
    e.ticks = base + HeaderDelta(h);
    e.ns = TicksToNs(e.ticks);
    e.cpu = HeaderCpu(h);
    e.in_isr = (h & kInIsr) != 0;
    e.name_ptr = 0;
    e.name = {};
    e.name_known = true;
    e.value = 0;
    e.link = 0;
    e.flow = 0;
    e.color = (h & kHasColor) ? uint32_t(word(i + n - 1) & 0xFFFFFF) | 0x1000000u : 0;
    if (type != RecordType::kScopeEnd) {
      e.name_ptr = word(i + 1);
      if (e.name_ptr == 0) {
        e.name = "(null)";
      } else if (const auto s = strings_.find(e.name_ptr); s != strings_.end()) {
        e.name = s->second;
      } else {
        // Reported once per pointer; the event is kept under a placeholder
        // name (a later STRING record for the pointer replaces it).
        char addr[24];
        std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(e.name_ptr));
        const std::string placeholder = std::string("<") + addr + ">";
        e.name_known = false;
        RecordError(word_at, std::string("name pointer ") + addr +
                                 " never described by a STRING record: events kept, named " + placeholder);
        e.name = strings_.emplace(e.name_ptr, placeholder).first->second;
      }
    }
    if (type == RecordType::kCounter) e.value = int64_t(word(i + 2));
    if (type == RecordType::kFlowOut || type == RecordType::kFlowIn) {
      e.link = uint16_t(word(i + 2));
      e.flow = uint32_t(word(i + 2) >> 16);
    }
    ++events_;
    if (on_event_) on_event_(e);
    i += n;
  }
}

}  // namespace mabutrace::host
