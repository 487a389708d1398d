// SPDX-License-Identifier: MIT
// perfetto_writer.h: a trace as a Perfetto protobuf trace (.pftrace),
// streamed packet by packet: the one protobuf writer of the toolkit, used
// by the device export (mabutrace_export_perfetto) and every host tool.
// Field numbers: perfetto_trace.proto (perfetto_fields.h).
//
// Layout, as the Perfetto SDK writes it (trace-formats.md §2.5-2.8):
//
//   sequence 1 (absolute times on the default clock, interns nothing)
//     ClockSnapshot    BOOTTIME and MONOTONIC at the trace's time 0, when the
//                      producer knows them (EventSink::OnClock): first packet
//     ClockSnapshot    BOOTTIME and an input's clock (id >= 128), one per
//                      EventSink::OnClockSnapshot (`mabutrace merge`)
//     TrackDescriptor  process  (uuid, pid, name)       first packet clears it
//     TrackDescriptor  thread   (uuid, parent, pid, tid, name)   per thread
//     TrackDescriptor  counter  (uuid, parent, name, unit count) per (pid, name)
//     TrackEvent INSTANT "mabutrace metadata" on the first process track
//                      (no track_uuid when the trace has no process: no
//                      events, Perfetto's default track):
//                      one debug annotation per metadata key     last
//   sequence 2, 3, ... (one per thread track)
//     clearing packet: ClockSnapshot (clock 64 incremental, 0 = the trace's
//       time 0 on the default clock BOOTTIME: 0 without OnClock),
//       TracePacketDefaults (clock 64, the thread's track),
//       interned debug annotation names (cpu, color, the flag:: names)
//     TrackEvent packets: delta timestamps, no track uuid; event names and
//       color strings interned on first use in the packet that uses them.
//       SLICE_BEGIN / INSTANT carry annotations cpu and color; SLICE_END
//       carries no name (it closes the innermost slice) and its flag as a
//       bool annotation; COUNTER names its counter track and carries the
//       exact int64; a flow point is an INSTANT named after it ("flow_out"
//       / "flow_in" when unnamed) carrying flow_ids / terminating_flow_ids
//       (fixed64): Perfetto binds arrows to instants, so no carrier slice
//       is needed. A packet that goes back in time (a late arrow end) gives
//       an absolute time on the default clock instead, which leaves the
//       delta chain alone.
//
// Times: the producer's ns since the trace's time 0 plus BOOTTIME at time
// 0 (OnClock; else 0), so a trace with a clock lines up with a Linux system
// trace, whose default clock is BOOTTIME, and the snapshot relates it to
// CLOCK_MONOTONIC too. (The producer's ns are CLOCK_MONOTONIC's; BOOTTIME
// runs ahead of it by the time the machine slept, taken as fixed over the
// trace.)
//
// Track uuids are small integers in order of first use. Interning is a
// policy (PerfettoTables): a device interns names by address in fixed
// tables, a host by text in maps; the bytes written are the same.
//
// Metadata must come after the last event (an event after it is dropped
// and counted in stat::kEventsAfterMetadata). A packet larger than the
// packet buffer is dropped and counted (stat::kPacketsDropped).
// Not thread-safe. C++17, no heap, no exceptions.
#ifndef MABUTRACE_FORMAT_PERFETTO_WRITER_H
#define MABUTRACE_FORMAT_PERFETTO_WRITER_H

#include <stdint.h>

#include "byte_out.h"
#include "perfetto_sequence.h"
#include "proto_out.h"
#include "trace_events.h"

namespace mabutrace::format {

// The interning policy. A sequence pointer stays valid for the whole trace,
// or (a device's fixed table) until another track's OnThread reuses it.
class PerfettoTables {
 public:
  // The state of track t, zeroed on first use; nullptr when the table is
  // full (the event is dropped and counted in stat::kPacketsDropped).
  virtual PerfettoSequence* Sequence(Track t) = 0;
  // The iid (>= 1) of an event name, the same for the whole trace; 0 when
  // the table is full (the name is then written inline).
  virtual uint64_t NameIid(std::string_view name) = 0;
  // The uuid of the counter track (pid, name): on first use `fresh_uuid`,
  // kept, and *fresh set. 0 when the table is full (the track is then
  // described again at every use, under a uuid hashed from the name).
  virtual uint64_t CounterTrack(uint32_t pid, std::string_view name, uint64_t fresh_uuid, bool* fresh) = 0;
  // The uuid of process pid's track, as CounterTrack. 0 when full (its
  // threads are then described without a parent).
  virtual uint64_t ProcessTrack(uint32_t pid, uint64_t fresh_uuid, bool* fresh) = 0;

 protected:
  ~PerfettoTables() = default;
};

class PerfettoWriter : public EventSink {
 public:
  // `packet[0 .. packet_cap)` holds one packet being encoded; 2 KiB holds
  // every packet but those with names near kMaxNameBytes. All three must
  // outlive the writer.
  PerfettoWriter(PerfettoTables& tables, uint8_t* packet, uint32_t packet_cap, ByteOut& out)
      : tables_(tables), p_(packet, packet_cap), out_(out), scratch_(packet), packet_cap_(packet_cap) {}

  // Before any other call (else ignored): see the layout above.
  void OnClock(uint64_t monotonic_ns_at_zero, uint64_t boottime_ns_at_zero) override;
  void OnClockSnapshot(uint32_t clock_id, uint64_t trace_ns, uint64_t clock_ns) override;
  void OnProcess(uint32_t pid, std::string_view name) override;
  void OnThread(Track t, std::string_view name) override;
  void OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnEnd(Track t, std::string_view name, uint64_t ns, std::string_view flag) override;
  void OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) override;
  void OnFlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color,
                   bool enclosed) override;
  void OnFlow(Track t, bool start, uint64_t id, uint64_t ns) override;
  void OnMetadata(std::string_view key, int64_t value) override;
  void OnMetadata(std::string_view key, std::string_view value) override;
  // Writes the metadata packet and flushes `out`; false if a write failed.
  bool Finish() override;

 private:
  void GlobalPacket(uint64_t ns);
  uint64_t ProcessUuid(uint32_t pid, std::string_view name, bool describe_named);
  // Producers write a thread's events in runs (a device walks one chunk,
  // one thread, at a time): the last track asked for is nearly always the
  // next one.
  PerfettoSequence* Thread(Track t) { return last_seq_ && t == last_track_ ? last_seq_ : NewThread(t, {}); }
  PerfettoSequence* NewThread(Track t, std::string_view name);
  void StartSequence(const PerfettoSequence& s);
  struct EventHead;
  EventHead Intern(PerfettoSequence& s, uint64_t ns, std::string_view name, uint32_t color);
  template <class Enc>
  auto Head(Enc& e, const EventHead& h);
  template <class Body>
  void EventPacket(PerfettoSequence& s, uint64_t ns, std::string_view name, uint32_t color, const Body& body);
  void NamedEvent(Track t, uint32_t type, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color);
  template <class Enc>
  void Annotations(Enc& e, uint32_t cpu, uint32_t color);
  void FlowInstant(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color,
                   bool annotate);
  uint32_t ColorIid(uint32_t color);
  uint64_t CounterUuid(uint32_t pid, std::string_view name);
  bool Accept();  // false (event dropped) once metadata has begun
  void MetadataAnnotation(std::string_view key, size_t value_bytes);
  void CloseMetadata();
  void Name(uint32_t field, std::string_view s);
  // Every packet is framed as Trace.packet and encoded straight into the
  // output's staging buffer when packet_cap bytes are free there (Emit then
  // only commits it), else into `packet` and copied at Emit.
  void StartPacket();
  void StartPacketAt(char* room);  // room: out_.Room(packet_cap_)
  void Emit();

  static constexpr uint32_t kColorSlots = 64;
  // Event packets go through ShortProto when the packet buffer holds this
  // much (every event packet that writes no name is shorter).
  static constexpr uint32_t kShortPacketCap = 128;

  PerfettoTables& tables_;
  ProtoOut p_;
  ByteOut& out_;
  uint8_t* const scratch_;
  const uint32_t packet_cap_;
  uint32_t frame_ = 0;     // the open Trace.packet's length slot
  bool in_place_ = false;  // the open packet is in out_'s staging buffer
  uint64_t next_uuid_ = 1;
  uint32_t next_sequence_ = 2;  // 1 is the global sequence
  uint64_t first_process_ = 0;
  Track last_track_;  // the track Thread() returned last
  PerfettoSequence* last_seq_ = nullptr;
  uint64_t max_ns_ = 0;
  uint64_t boot_zero_ = 0;  // BOOTTIME ns at the trace's time 0 (OnClock)
  bool global_cleared_ = false;
  uint32_t colors_[kColorSlots] = {};  // MABUTRACE_COLOR_SET | rgb; slot + 1 = iid
  uint32_t color_iid_ = 0;             // of the event being written
  uint32_t meta_event_ = 0;            // open TrackEvent of the metadata packet
  bool metadata_begun_ = false;        // events are refused from then on
  bool meta_open_ = false;             // a metadata packet is being encoded
  bool finished_ = false;
  uint64_t packets_dropped_ = 0;
  uint64_t events_after_metadata_ = 0;
};

}  // namespace mabutrace::format

#endif  // MABUTRACE_FORMAT_PERFETTO_WRITER_H
