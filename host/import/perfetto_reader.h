// SPDX-License-Identifier: MIT
// perfetto_reader.h: a Perfetto protobuf trace (.pftrace) as the toolkit
// writes it (format/perfetto_writer.h) read back into events, streaming.
//
// Feed it the file's bytes in pieces of any size; it keeps only the packet
// being read and the trace's tables (track uuids, interned strings per
// sequence), so memory grows with the number of tracks and names, not with
// the trace's length. Events go to `out` in file order, which is the order
// the writer was called in; put a model::Normalizer after it, as after
// every decoder.
//
// What is read (field numbers: format/perfetto_fields.h, from
// perfetto_trace.proto):
//   Trace.packet (1)                 every TracePacket, framed by its length
//   TracePacket.clock_snapshot       BOOTTIME (6) / MONOTONIC (3) of sequence
//                                    1: the trace's time 0 (EventSink::OnClock);
//                                    clock 64 of a thread sequence: where its
//                                    delta timestamps start
//   TracePacket.track_descriptor     process, thread and counter tracks;
//                                    another producer's async track (a
//                                    name and a parent only) becomes a
//                                    thread track of its own in its parent's
//                                    process (0 without one), its tid from
//                                    2^32 - 1 down, named as the track:
//                                    counted, async_tracks()
//   TracePacket.trace_packet_defaults, interned_data, sequence_flags
//   TrackEvent SLICE_BEGIN / SLICE_END / INSTANT / COUNTER, names (inline
//                                    or interned), the cpu / color / flag
//                                    annotations, flow_ids (47) and
//                                    terminating_flow_ids (48)
//   other producers' TrackEvents      flow ids on a SLICE_BEGIN (bound to
//                                    that slice, OnFlow), flow_ids_old (36),
//                                    terminating_flow_ids_old (42),
//                                    double_counter_value (44, rounded to
//                                    int64); what the model cannot hold is
//                                    counted: fields_ignored(),
//                                    flows_dropped(), counters_rounded()
//   the INSTANT "mabutrace metadata"  every debug annotation → OnMetadata;
//                                    on a process track, or on no track at
//                                    all (a trace with no events)
// Times: ns since the trace's time 0 = BOOTTIME − BOOTTIME at time 0, the
// inverse of the writer's mapping, exact.
//
// The inverse of the writer's choices: a flow INSTANT with the cpu
// annotation is a flow point (OnFlowPoint; the default names "flow_out" /
// "flow_in" read back as unnamed), one without it a late arrow end
// (OnFlow); a thread named "thread <tid>" is unnamed; the writer's own
// packets_dropped = 0 is not passed on (a writer adds its own), a non-zero
// one is, as "source_packets_dropped".
//
// Errors (Status offsets are byte offsets in the file):
// - fatal: the framing of the packet sequence is broken (a top-level field
//   that is not Trace.packet and cannot be skipped, a packet longer than
//   kMaxPacketBytes, the file cut inside a packet): Feed/Finish return it,
//   and later bytes are ignored;
// - damaged packet: its bytes do not parse, or it uses what the reader does
//   not know (a track uuid never described, an annotation iid never given, a
//   packet on a sequence before its clearing packet): the packet is skipped
//   and listed in packet_errors() (the first kMaxErrors; all are counted in
//   skipped_packets()); reading goes on with the next packet. Packets of
//   kinds the toolkit never writes (e.g. ftrace, process stats) are not
//   errors: they are counted in foreign_packets() and left out.
// Not thread-safe.
#ifndef MABUTRACE_HOST_IMPORT_PERFETTO_READER_H
#define MABUTRACE_HOST_IMPORT_PERFETTO_READER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/trace_events.h"
#include "stream_decoder.h"  // host::Status

namespace mabutrace::host {

class PerfettoReader {
 public:
  static constexpr size_t kMaxPacketBytes = size_t(64) << 20;
  static constexpr size_t kMaxErrors = 100;

  explicit PerfettoReader(format::EventSink& out) : out_(out) {}

  Status Feed(const uint8_t* data, size_t len);
  // The end of the file: a cut packet is fatal. Does not call out.Finish().
  Status Finish();

  const std::vector<Status>& packet_errors() const { return errors_; }
  uint64_t skipped_packets() const { return skipped_; }
  uint64_t foreign_packets() const { return foreign_; }
  uint64_t packets() const { return packets_; }
  // Events whose interned name never arrived (its packet was damaged):
  // passed on named "<unknown name>", the first one listed in packet_errors().
  uint64_t names_lost() const { return names_lost_; }
  // What of other producers' TrackEvents the model cannot hold, counted:
  // fields the reader does not read (categories, source locations, ...),
  // arrow ids past one per direction on an event (or on a slice end), and
  // double_counter_value samples rounded to int64.
  uint64_t fields_ignored() const { return fields_ignored_; }
  uint64_t flows_dropped() const { return flows_dropped_; }
  uint64_t counters_rounded() const { return counters_rounded_; }
  uint64_t async_tracks() const { return async_tids_.size(); }

 private:
  struct Sequence {
    bool cleared = false;
    uint64_t default_track = 0;
    uint32_t default_clock = 0;  // TracePacketDefaults.timestamp_clock_id
    uint64_t inc_ns = 0;         // clock 64's value (delta chain)
    uint64_t inc_boot = 0;       // BOOTTIME where clock 64 is 0 (its snapshot)
    std::unordered_map<uint64_t, std::string> event_names, annotation_names, annotation_strings;
  };
  struct TrackInfo {
    enum Kind { kProcess, kThread, kCounter } kind = kThread;
    format::Track track;  // pid (and tid for a thread)
    std::string name;     // a counter's
  };
  struct Annotations {
    bool has_cpu = false;
    uint32_t cpu = 0;
    uint32_t color = 0;
    std::string flag;  // a bool annotation other than cpu / color
  };

  void Packet(const uint8_t* data, size_t size, uint64_t offset);
  bool ClockSnapshot(Sequence& seq, uint32_t seq_id, std::string_view bytes);
  bool Defaults(Sequence& seq, std::string_view bytes);
  bool Interned(Sequence& seq, std::string_view bytes);
  bool TrackDescriptor(std::string_view bytes);
  bool TrackEvent(Sequence& seq, std::string_view bytes, uint64_t ns, std::string* why);
  bool ReadAnnotations(const Sequence& seq, std::string_view bytes, Annotations* a, std::string* why);
  bool Metadata(const Sequence& seq, std::string_view event);
  void Damaged(uint64_t offset, const std::string& why);

  format::EventSink& out_;
  // Framing: the packet being gathered.
  enum class Frame { kTag, kLength, kBody, kSkip } frame_ = Frame::kTag;
  std::vector<uint8_t> head_;  // bytes of a tag or length varint so far
  std::vector<uint8_t> body_;
  uint64_t body_len_ = 0, skip_left_ = 0;
  uint64_t offset_ = 0;       // file bytes consumed
  uint64_t body_offset_ = 0;  // of the packet's first byte
  Status fatal_;

  std::unordered_map<uint32_t, Sequence> sequences_;
  std::unordered_map<uint64_t, TrackInfo> tracks_;
  std::unordered_map<uint64_t, uint32_t> async_tids_;  // async track uuid -> the tid given to it
  std::unordered_map<uint32_t, bool> processes_named_;
  uint64_t boot_zero_ = 0;  // BOOTTIME at the trace's time 0
  bool clock_known_ = false;
  std::vector<Status> errors_;
  uint64_t skipped_ = 0, foreign_ = 0, packets_ = 0, names_lost_ = 0;
  uint64_t fields_ignored_ = 0, flows_dropped_ = 0, counters_rounded_ = 0;
  uint64_t packet_offset_ = 0;
  std::string lost_name_;
};

}  // namespace mabutrace::host

#endif  // MABUTRACE_HOST_IMPORT_PERFETTO_READER_H
