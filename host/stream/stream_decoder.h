// SPDX-License-Identifier: MIT
// stream_decoder.h: host-side decoder of the binary stream that
// mabutrace_set_output_callback() delivers (R-C3, docs/stream-format.md).
//
// Feed it bytes in pieces of any size (one byte at a time works); it keeps
// only the unfinished record, resolves name pointers through the STRING
// records and calls back once per event. It never throws and never reads
// past what it was given: a malformed stream yields a Status naming the
// byte offset (from the start of the stream) and the problem.
//
// Two kinds of problems:
// - fatal (bad magic, unknown version, unsupported word size, a record
//   length beyond kMaxRecordBytes, a stream cut inside a record): Feed and
//   Finish return the error and every later call returns it again;
// - damaged record (its framing is intact, its contents are not, e.g. an
//   EVENTS record whose words do not parse, a name pointer never described):
//   the record (or the rest of it) is skipped, the problem is added to
//   record_errors(), and decoding goes on with the next record, so events
//   before and after the damage are kept.
#ifndef MABUTRACE_HOST_STREAM_STREAM_DECODER_H
#define MABUTRACE_HOST_STREAM_STREAM_DECODER_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/clock_map.h"
#include "format/record_format.h"

namespace mabutrace::host {

struct Status {
  bool ok = true;
  uint64_t offset = 0;  // stream byte offset of the problem
  std::string message;  // "offset N: ..." ready to print
  static Status Ok() { return {}; }
  static Status Error(uint64_t offset, std::string_view what);
};

// The stream header (docs/stream-format.md §2).
struct StreamInfo {
  uint16_t version = 0;
  uint8_t pointer_size = 0;   // bytes of a pointer on the device
  bool big_endian = false;    // fields were byte-swapped while decoding
  uint64_t clock_hz = 0;      // device ticks per second (never 0 once decoded)
  uint64_t origin_ticks = 0;  // ticks at init: time 0 of the trace
  uint32_t pid = 0;
  std::string process_name;
  // The header's clock fields (stream_format.h kClk*): the init sample
  // (none from older writers and clocks without one) and the clock's kind.
  format::ClockSync clock_init;
  uint8_t clock_source = 0;  // stream_format.h kClockSource*
};

// The record types of src/format/record_format.h (the stream carries the
// ring buffer's own records); the decoder never yields kTimeBase.
using EventType = ::mabutrace::RecordType;

// One decoded event. The string_views point into the decoder and are valid
// only during the callback.
struct Event {
  EventType type = EventType::kInstant;
  uint64_t ticks = 0;  // absolute device clock ticks
  uint64_t ns = 0;     // ns since the origin (0 if before it): on
                       // CLOCK_MONOTONIC's timeline where the stream has
                       // clock samples (format/clock_map.h)
  uint32_t cpu = 0;
  bool in_isr = false;
  uint32_t tid = 0;              // OS thread id of the writer
  uint32_t thread_key = 0;       // registry slot | generation << 16
  std::string_view thread_name;  // "" if the stream did not describe it
  uint64_t name_ptr = 0;         // the device pointer (0 for kScopeEnd)
  std::string_view name;         // resolved; "(null)" for a NULL name, "" for kScopeEnd
  bool name_known = true;        // false: pointer never described (record error)
  int64_t value = 0;             // kCounter
  uint16_t link = 0;             // kFlowOut, kFlowIn: the 16-bit link id
  uint32_t flow = 0;             // kFlowOut: flow number; kFlowIn: newest number then
  uint32_t color = 0;            // 0x1000000 | 0xRRGGBB when a color was given, else 0
  uint64_t chunk_seq = 0;        // device chunk tenure the event came in
};

class StreamDecoder {
 public:
  using EventFn = std::function<void(const Event&)>;
  // Records longer than this are taken as a corrupt length (fatal).
  static constexpr uint32_t kMaxRecordBytes = 1u << 20;

  explicit StreamDecoder(EventFn on_event);

  // Decodes as much of data[0, len) as forms whole records; keeps the rest.
  Status Feed(const uint8_t* data, size_t len);
  Status Feed(std::string_view bytes) { return Feed(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()); }
  // The stream ended: an error if it stopped inside the header or a record.
  Status Finish();

  bool header_done() const { return header_done_; }
  const StreamInfo& info() const { return info_; }
  // Totals from the last LOST record: records recycled on the device before
  // they were sent, and records never stored (no free chunk).
  uint64_t lost_records() const { return lost_; }
  uint64_t dropped_records() const { return dropped_; }
  // The device's HTTP responses cut short (since its init), when a LOST
  // record carried the count (writers since issue 17).
  bool has_http_responses_cut() const { return has_http_cut_; }
  uint64_t http_responses_cut() const { return http_cut_; }
  uint64_t events() const { return events_; }
  uint64_t bytes_consumed() const { return consumed_; }
  // Whether times are on CLOCK_MONOTONIC's timeline (the header had a clock
  // sample), and CLOCK_MONOTONIC / CLOCK_BOOTTIME ns at the origin then.
  bool has_clock_samples() const { return !samples_.empty(); }
  uint64_t MonotonicAtOrigin() const;
  uint64_t BoottimeAtOrigin() const;
  size_t clock_samples() const { return samples_.size(); }
  // Damaged records that were skipped (see the file comment).
  const std::vector<Status>& record_errors() const { return record_errors_; }
  // Thread names by thread key, as described by THREAD records.
  const std::unordered_map<uint32_t, std::string>& thread_names() const { return threads_; }

 private:
  // Returns bytes used from p[0, n) (0: need more), or sets fatal_.
  size_t ParseHeader(const uint8_t* p, size_t n);
  size_t ParseRecord(const uint8_t* p, size_t n);
  void DecodeEvents(const uint8_t* p, uint32_t len, uint64_t at);
  void RecordError(uint64_t offset, std::string_view what);
  uint16_t U16(const uint8_t* p) const;
  uint32_t U32(const uint8_t* p) const;
  uint64_t U64(const uint8_t* p) const;
  uint64_t TicksToNs(uint64_t ticks) const;

  EventFn on_event_;
  std::vector<uint8_t> pending_;  // bytes of an unfinished header or record
  uint64_t consumed_ = 0;         // stream offset of pending_[0]
  bool header_done_ = false;
  Status fatal_;
  StreamInfo info_;
  bool swap_ = false;
  std::unordered_map<uint64_t, std::string> strings_;
  std::unordered_map<uint32_t, std::string> threads_;
  std::vector<Status> record_errors_;
  // The init sample and every CLOCK record's, in tick order: the map
  // TicksToNs converts with (format::SamplesNs).
  std::vector<format::ClockSync> samples_;
  uint64_t origin_on_map_ = 0;  // SamplesNs of the origin: what TicksToNs subtracts
  void AddSample(const format::ClockSync& s);
  uint64_t lost_ = 0, dropped_ = 0, events_ = 0, http_cut_ = 0;
  bool has_http_cut_ = false;
};

}  // namespace mabutrace::host

#endif  // MABUTRACE_HOST_STREAM_STREAM_DECODER_H
