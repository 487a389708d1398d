// SPDX-License-Identifier: MIT
// perfetto_writer.cpp: see perfetto_writer.h. Field numbers and enum
// values: perfetto_fields.h (perfetto_trace.proto).
#include "trace_events.h"
#if MABUTRACE_FORMAT_WRITERS  // C++17: see trace_events.h

#include "perfetto_writer.h"

#include "mabutrace/mabutrace.h"
#include "perfetto_fields.h"
#include "trace_vocabulary.h"
#include "utf8.h"

#if defined(__GNUC__)
#define MT_FORMAT_INLINE inline __attribute__((always_inline))
#else
#define MT_FORMAT_INLINE inline
#endif

namespace mabutrace::format {
namespace {

constexpr uint32_t kGlobalSequence = 1;

// Debug annotation names, interned in each thread sequence's clearing
// packet; iid = index.
enum AnnotationIid : uint32_t { kAnnCpu = 1, kAnnColor, kAnnFirstFlag };
const char* const kAnnotationNames[] = {
    nullptr, "cpu", "color", flag::kOpenAtEnd, flag::kTruncated, flag::kThreadExited};
constexpr uint32_t kAnnotationCount = sizeof kAnnotationNames / sizeof *kAnnotationNames;

// The interned iid of a flag name, 0 when it has none (written inline).
uint32_t FlagIid(std::string_view flag) {
  for (uint32_t i = kAnnFirstFlag; i < kAnnotationCount; ++i) {
    if (flag == kAnnotationNames[i]) return i;
  }
  return 0;
}

// "#rrggbb", 7 bytes.
void ColorText(uint32_t color, char* rgb) {
  static const char kHex[] = "0123456789abcdef";
  rgb[0] = '#';
  for (int i = 0; i < 6; ++i) rgb[1 + i] = kHex[(color >> (20 - 4 * i)) & 0xF];
}

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (char c : s) h = (h ^ uint8_t(c)) * 0x100000001B3ull;
  return h;
}

// Room a metadata annotation needs besides its key and value bytes (tags,
// lengths, the value's varint) and what closing the packet needs.
constexpr uint32_t kAnnotationOverhead = 24;

}  // namespace

// A string field holding s made valid UTF-8, cut at kMaxNameBytes.
void PerfettoWriter::Name(uint32_t field, std::string_view s) {
  const uint32_t slot = p_.Begin(field);  // a string is length-delimited too
  PutValidUtf8(s.data(), KeptNameBytes(s.data(), s.size()), [this](const char* d, size_t k) { p_.Raw(d, k); });
  p_.End(slot);
}

void PerfettoWriter::StartPacket() { StartPacketAt(out_.Room(packet_cap_)); }

void PerfettoWriter::StartPacketAt(char* room) {
  in_place_ = room != nullptr;
  p_.Rebind(in_place_ ? reinterpret_cast<uint8_t*>(room) : scratch_, packet_cap_);
  frame_ = p_.Begin(pb::kTracePacket);
}

// Ends the packet's Trace.packet frame (field 1) and writes it.
void PerfettoWriter::Emit() {
  p_.End(frame_);
  if (p_.overflow()) {
    ++packets_dropped_;
    return;
  }
  if (in_place_) {
    out_.Commit(p_.size());
  } else {
    out_.Raw(reinterpret_cast<const char*>(p_.data()), p_.size());
  }
}

// Starts a packet on sequence 1 at absolute time `ns`; the first one
// clears the sequence (which interns nothing).
void PerfettoWriter::GlobalPacket(uint64_t ns) {
  StartPacket();
  p_.U64(pb::kTimestamp, ns + boot_zero_);
  p_.U64(pb::kSequenceId, kGlobalSequence);
  if (!global_cleared_) {
    global_cleared_ = true;
    p_.U64(pb::kSequenceFlags, pb::kIncrementalStateCleared);
  }
}

void PerfettoWriter::OnClock(uint64_t monotonic_ns_at_zero, uint64_t boottime_ns_at_zero) {
  if (global_cleared_) return;  // too late: packets were written on the old clock
  boot_zero_ = boottime_ns_at_zero;
  // The snapshot alone in its packet (one payload per packet); the packet's
  // own timestamp is not used for a snapshot, so it has none.
  StartPacket();
  p_.U64(pb::kSequenceId, kGlobalSequence);
  p_.U64(pb::kSequenceFlags, pb::kIncrementalStateCleared);
  global_cleared_ = true;
  const uint32_t cs = p_.Begin(pb::kClockSnapshot);
  uint32_t c = p_.Begin(pb::kCsClocks);
  p_.U64(pb::kClkId, pb::kClockBoottime);
  p_.U64(pb::kClkTimestamp, boottime_ns_at_zero);
  p_.End(c);
  c = p_.Begin(pb::kCsClocks);
  p_.U64(pb::kClkId, pb::kClockMonotonic);
  p_.U64(pb::kClkTimestamp, monotonic_ns_at_zero);
  p_.End(c);
  p_.End(cs);
  Emit();
}

// A reading of an input's clock against the trace's (BOOTTIME) timeline,
// so trace processor can relate the input's own timestamps too.
void PerfettoWriter::OnClockSnapshot(uint32_t clock_id, uint64_t trace_ns, uint64_t clock_ns) {
  if (!Accept()) return;
  StartPacket();
  p_.U64(pb::kSequenceId, kGlobalSequence);
  if (!global_cleared_) {
    global_cleared_ = true;
    p_.U64(pb::kSequenceFlags, pb::kIncrementalStateCleared);
  }
  const uint32_t cs = p_.Begin(pb::kClockSnapshot);
  uint32_t c = p_.Begin(pb::kCsClocks);
  p_.U64(pb::kClkId, pb::kClockBoottime);
  p_.U64(pb::kClkTimestamp, trace_ns + boot_zero_);
  p_.End(c);
  c = p_.Begin(pb::kCsClocks);
  p_.U64(pb::kClkId, clock_id);
  p_.U64(pb::kClkTimestamp, clock_ns);
  p_.End(c);
  p_.End(cs);
  Emit();
}

bool PerfettoWriter::Accept() {
  if (!metadata_begun_ && !finished_) return true;
  ++events_after_metadata_;
  return false;
}

// ---- tracks -------------------------------------------------------------------

// The uuid of pid's track, described on first use (and again when
// `describe_named` brings a name).
uint64_t PerfettoWriter::ProcessUuid(uint32_t pid, std::string_view name, bool describe_named) {
  bool fresh = false;
  const uint64_t uuid = tables_.ProcessTrack(pid, next_uuid_, &fresh);
  if (!uuid) return 0;
  if (fresh) ++next_uuid_;
  if (!first_process_) first_process_ = uuid;
  if (!fresh && (name.empty() || !describe_named)) return uuid;
  GlobalPacket(0);
  const uint32_t td = p_.Begin(pb::kTrackDescriptor);
  p_.U64(pb::kTdUuid, uuid);
  const uint32_t pd = p_.Begin(pb::kTdProcess);
  p_.I64(pb::kPdPid, int32_t(pid));
  if (!name.empty()) Name(pb::kPdName, name);
  p_.End(pd);
  p_.End(td);
  Emit();
  return uuid;
}

void PerfettoWriter::OnProcess(uint32_t pid, std::string_view name) {
  if (Accept()) ProcessUuid(pid, name, true);
}

// The thread's sequence from the tables (Thread() asks when the track is
// not the last one), its track described and the sequence started on first
// use; nullptr (counted) when the tables are full.
PerfettoSequence* PerfettoWriter::NewThread(Track t, std::string_view name) {
  PerfettoSequence* s = tables_.Sequence(t);
  if (!s) {
    ++packets_dropped_;
    return nullptr;
  }
  last_track_ = t;
  last_seq_ = s;
  if (s->uuid) return s;
  const uint64_t parent = ProcessUuid(t.pid, {}, false);
  s->uuid = next_uuid_++;
  s->sequence_id = next_sequence_++;
  GlobalPacket(0);
  const uint32_t td = p_.Begin(pb::kTrackDescriptor);
  p_.U64(pb::kTdUuid, s->uuid);
  if (parent) p_.U64(pb::kTdParent, parent);
  const uint32_t th = p_.Begin(pb::kTdThread);
  p_.I64(pb::kThPid, int32_t(t.pid));
  p_.I64(pb::kThTid, int32_t(t.tid));
  if (!name.empty()) {
    Name(pb::kThName, name);
  } else {
    char fallback[24];
    size_t n = sizeof kThreadNamePrefix - 1;
    for (size_t i = 0; i < n; ++i) fallback[i] = kThreadNamePrefix[i];
    char digits[10];
    size_t d = 0;
    uint32_t v = t.tid;
    do {
      digits[d++] = char('0' + v % 10);
      v /= 10;
    } while (v);
    while (d) fallback[n++] = digits[--d];
    Name(pb::kThName, std::string_view(fallback, n));
  }
  p_.End(th);
  p_.End(td);
  Emit();
  StartSequence(*s);
  return s;
}

// The clearing packet of a thread sequence: the incremental clock 64
// starts at 0 ns of the default clock (§2.8), events default to clock 64
// and to the thread's track, and the annotation names are interned.
void PerfettoWriter::StartSequence(const PerfettoSequence& s) {
  StartPacket();
  p_.U64(pb::kSequenceId, s.sequence_id);
  p_.U64(pb::kSequenceFlags, pb::kIncrementalStateCleared);
  const uint32_t cs = p_.Begin(pb::kClockSnapshot);
  uint32_t c = p_.Begin(pb::kCsClocks);
  p_.U64(pb::kClkId, pb::kClockBoottime);
  p_.U64(pb::kClkTimestamp, boot_zero_);
  p_.End(c);
  c = p_.Begin(pb::kCsClocks);
  p_.U64(pb::kClkId, pb::kClockIncremental);
  p_.U64(pb::kClkTimestamp, 0);
  p_.U64(pb::kClkIncremental, 1);
  p_.End(c);
  p_.End(cs);
  const uint32_t d = p_.Begin(pb::kTracePacketDefaults);
  p_.U64(pb::kTpdTimestampClockId, pb::kClockIncremental);
  const uint32_t ted = p_.Begin(pb::kTpdTrackEventDefaults);
  p_.U64(pb::kTedTrackUuid, s.uuid);
  p_.End(ted);
  p_.End(d);
  const uint32_t id = p_.Begin(pb::kInternedData);
  for (uint32_t i = 1; i < kAnnotationCount; ++i) {
    const uint32_t e = p_.Begin(pb::kIdAnnotationNames);
    p_.U64(pb::kIidIid, i);
    p_.String(pb::kIidName, kAnnotationNames[i]);
    p_.End(e);
  }
  p_.End(id);
  Emit();
}

void PerfettoWriter::OnThread(Track t, std::string_view name) {
  if (Accept()) NewThread(t, name);
}

// ---- events -------------------------------------------------------------------

// The iid of `color` among the trace's interned color strings (1..64), 0
// when the table is full (the color is then written inline).
uint32_t PerfettoWriter::ColorIid(uint32_t color) {
  const uint32_t key = color | MABUTRACE_COLOR_SET;
  uint32_t i = (key * 2654435761u) >> 26;  // 6 bits
  for (uint32_t probes = 0; probes < kColorSlots; ++probes, i = (i + 1) % kColorSlots) {
    if (colors_[i] == key) return i + 1;
    if (colors_[i] == 0) {
      colors_[i] = key;
      return i + 1;
    }
  }
  return 0;
}

// What an event packet interns and how it gives its time, decided (and the
// sequence's and tables' state updated) before a byte is written, so that
// both encoders (ShortProto, ProtoOut) write the same packet.
struct PerfettoWriter::EventHead {
  uint64_t ts;        // the timestamp field's value
  bool absolute;      // on the default clock (back in time), not a delta
  uint32_t sequence;  // the sequence id
  uint64_t name_iid;  // 0: no name, or written inline (table full)
  bool send_name;     // intern the name in this packet
  bool send_color;    // intern the color string in this packet
  std::string_view name;
  uint32_t color;
};

// Inlined into each EventPacket: it returns a struct, which a call would
// pass through memory.
MT_FORMAT_INLINE PerfettoWriter::EventHead PerfettoWriter::Intern(PerfettoSequence& s, uint64_t ns,
                                                                  std::string_view name, uint32_t color) {
  if (ns > max_ns_) max_ns_ = ns;
  EventHead h;
  h.absolute = ns < s.last_ns;
  if (!h.absolute) {
    h.ts = ns - s.last_ns;
    s.last_ns = ns;
  } else {  // back in time: absolute, on the default clock
    h.ts = ns + boot_zero_;
  }
  h.sequence = s.sequence_id;
  h.name_iid = name.empty() ? 0 : tables_.NameIid(name);
  h.send_name = false;
  if (h.name_iid) {
    uint16_t& sent = s.sent_iids[h.name_iid % kSentIids];
    h.send_name = sent != uint16_t(h.name_iid);
    sent = uint16_t(h.name_iid);
  }
  color_iid_ = color ? ColorIid(color) : 0;
  const uint64_t color_bit = color_iid_ ? uint64_t(1) << (color_iid_ - 1) : 0;
  h.send_color = color_bit && !(s.sent_colors & color_bit);
  s.sent_colors |= color_bit;
  h.name = name;
  h.color = color;
  return h;
}

// The packet's head as EventHead says, up to the open TrackEvent (with its
// name); returns the TrackEvent's slot.
// Inlined (as Annotations): a ShortProto's cursor then stays in a
// register, where a call would keep it in memory, reloaded after every byte
// stored (a byte store may alias it).
template <class Enc>
MT_FORMAT_INLINE auto PerfettoWriter::Head(Enc& e, const EventHead& h) {
  e.U64(pb::kTimestamp, h.ts);
  if (h.absolute) e.U64(pb::kTimestampClockId, pb::kClockBoottime);
  e.U64(pb::kSequenceId, h.sequence);
  e.U64(pb::kSequenceFlags, pb::kNeedsIncrementalState);
  // One interned_data per packet (it is not a repeated field): the name and
  // the color go in together.
  if (h.send_name || h.send_color) {
    const auto id = e.Begin(pb::kInternedData);
    if constexpr (Enc::kChecked) {  // (ShortProto never sends a name)
      if (h.send_name) {
        const uint32_t en = e.Begin(pb::kIdEventNames);
        e.U64(pb::kIidIid, h.name_iid);
        Name(pb::kIidName, h.name);
        e.End(en);
      }
    }
    if (h.send_color) {
      char rgb[7];
      ColorText(h.color, rgb);
      const auto sv = e.Begin(pb::kIdAnnotationStrings);
      e.U64(pb::kIidIid, color_iid_);
      e.Bytes(pb::kInternedStringStr, rgb, sizeof rgb);
      e.End(sv);
    }
    e.End(id);
  }
  const auto te = e.Begin(pb::kTrackEvent);
  if (h.name_iid) {
    e.U64(pb::kTeNameIid, h.name_iid);
  } else if constexpr (Enc::kChecked) {
    if (!h.name.empty()) Name(pb::kTeName, h.name);  // table full: inline
  }
  return te;
}

// A packet at `ns` on s's sequence holding a TrackEvent named `name` (none
// when empty) whose fields body(encoder) writes, interning the name and
// `color` as needed. A packet that writes no name and whose body is short
// (every body here: at most 48 bytes) is under 128 bytes, so it goes
// through ShortProto straight into its room; the others through ProtoOut.
template <class Body>
void PerfettoWriter::EventPacket(PerfettoSequence& s, uint64_t ns, std::string_view name, uint32_t color,
                                 const Body& body) {
  const EventHead h = Intern(s, ns, name, color);
  char* const room = out_.Room(packet_cap_);
  if (packet_cap_ >= kShortPacketCap && !h.send_name && (h.name_iid || name.empty())) {
    uint8_t* const base = room ? reinterpret_cast<uint8_t*>(room) : scratch_;
    ShortProto e(base);
    uint8_t* const frame = e.Begin(pb::kTracePacket);
    uint8_t* const te = Head(e, h);
    body(e);
    e.End(te);
    e.End(frame);
    const uint32_t n = uint32_t(e.end() - base);
    if (room) {
      out_.Commit(n);
    } else {
      out_.Raw(reinterpret_cast<const char*>(base), n);
    }
    return;
  }
  StartPacketAt(room);
  const uint32_t te = Head(p_, h);
  body(p_);
  p_.End(te);
  Emit();
}

template <class Enc>
MT_FORMAT_INLINE void PerfettoWriter::Annotations(Enc& e, uint32_t cpu, uint32_t color) {
  auto da = e.Begin(pb::kTeAnnotations);
  e.U64(pb::kDaNameIid, kAnnCpu);
  e.U64(pb::kDaUint, cpu);
  e.End(da);
  if (!color) return;
  da = e.Begin(pb::kTeAnnotations);
  e.U64(pb::kDaNameIid, kAnnColor);
  if (color_iid_) {  // interned by Intern
    e.U64(pb::kDaStringIid, color_iid_);
  } else {
    char rgb[7];
    ColorText(color, rgb);
    e.Bytes(pb::kDaString, rgb, sizeof rgb);
  }
  e.End(da);
}

// A named TrackEvent of `type` on t's track with the cpu/color annotations.
void PerfettoWriter::NamedEvent(Track t, uint32_t type, std::string_view name, uint64_t ns, uint32_t cpu,
                                uint32_t color) {
  if (!Accept()) return;
  PerfettoSequence* s = Thread(t);
  if (!s) return;
  EventPacket(*s, ns, name, color, [&](auto& e) {
    e.U64(pb::kTeType, type);
    Annotations(e, cpu, color);
  });
}

void PerfettoWriter::OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) {
  NamedEvent(t, pb::kSliceBegin, name, ns, cpu, color);
}

void PerfettoWriter::OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) {
  NamedEvent(t, pb::kInstant, name, ns, cpu, color);
}

// SLICE_END carries no name: it closes the innermost slice (§2.5). Its CPU
// is the begin's, not written again (ends are a third of the events).
void PerfettoWriter::OnEnd(Track t, std::string_view, uint64_t ns, std::string_view flag) {
  if (!Accept()) return;
  PerfettoSequence* s = Thread(t);
  if (!s) return;
  if (flag.empty()) {
    EventPacket(*s, ns, {}, 0, [](auto& e) { e.U64(pb::kTeType, pb::kSliceEnd); });
    return;
  }
  // A made-up end: rare, and its flag may be any text, so always checked.
  const EventHead h = Intern(*s, ns, {}, 0);
  StartPacketAt(out_.Room(packet_cap_));
  const uint32_t te = Head(p_, h);
  p_.U64(pb::kTeType, pb::kSliceEnd);
  const uint32_t da = p_.Begin(pb::kTeAnnotations);
  if (const uint32_t iid = FlagIid(flag)) {
    p_.U64(pb::kDaNameIid, iid);
  } else {
    Name(pb::kDaName, flag);
  }
  p_.U64(pb::kDaBool, 1);
  p_.End(da);
  p_.End(te);
  Emit();
}

// The uuid of counter track (pid, name), described on first use.
uint64_t PerfettoWriter::CounterUuid(uint32_t pid, std::string_view name) {
  bool fresh = false;
  uint64_t uuid = tables_.CounterTrack(pid, name, next_uuid_, &fresh);
  if (uuid && !fresh) return uuid;
  if (fresh) {
    ++next_uuid_;
  } else {  // table full: a uuid from the name, above every sequential one
    uuid = (uint64_t(1) << 40) | (Fnv1a(name) & 0xFFFFFFFFu);
  }
  const uint64_t parent = ProcessUuid(pid, {}, false);
  GlobalPacket(0);
  const uint32_t td = p_.Begin(pb::kTrackDescriptor);
  p_.U64(pb::kTdUuid, uuid);
  if (parent) p_.U64(pb::kTdParent, parent);
  Name(pb::kTdName, name);
  const uint32_t cd = p_.Begin(pb::kTdCounter);
  p_.U64(pb::kCdUnit, pb::kUnitCount);
  p_.End(cd);
  p_.End(td);
  Emit();
  return uuid;
}

void PerfettoWriter::OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) {
  if (!Accept()) return;
  PerfettoSequence* s = Thread(t);
  if (!s) return;
  const uint64_t uuid = CounterUuid(t.pid, name);
  EventPacket(*s, ns, {}, 0, [&](auto& e) {
    e.U64(pb::kTeType, pb::kCounter);
    e.U64(pb::kTeTrack, uuid);
    e.I64(pb::kTeCounterValue, value);
  });
}

// A flow point is an INSTANT carrying the arrow's id (§2.5: flows attach
// to BEGIN, END and INSTANT events), inside the enclosing slice or alone:
// Perfetto needs no carrier slice.
void PerfettoWriter::OnFlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                                 uint32_t color, bool enclosed) {
  // An unnamed end inside a slice whose arrow comes later (OnFlow) is
  // written then, once: an instant now would only say the same twice.
  if (!start && id == 0 && name.empty() && enclosed) return;
  FlowInstant(t, start, id, name.empty() ? (start ? kFlowOutName : kFlowInName) : name, ns, cpu, color, true);
}

// A late arrow end: an instant at the flow-in point that carries it.
void PerfettoWriter::OnFlow(Track t, bool start, uint64_t id, uint64_t ns) {
  FlowInstant(t, start, id, start ? kFlowOutName : kFlowInName, ns, 0, 0, false);
}

void PerfettoWriter::FlowInstant(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                                 uint32_t color, bool annotate) {
  if (!Accept()) return;
  PerfettoSequence* s = Thread(t);
  if (!s) return;
  EventPacket(*s, ns, name, color, [&](auto& e) {
    e.U64(pb::kTeType, pb::kInstant);
    if (annotate) Annotations(e, cpu, color);
    if (id) {
      e.Fixed64(start ? pb::kTeFlowIds : pb::kTeTerminatingFlowIds, id);
    } else if (annotate) {
      // A point whose arrow end comes later (OnFlow): marked, so that a
      // reader tells it from an instant (host/import/perfetto_reader.h).
      const auto da = e.Begin(pb::kTeAnnotations);
      e.String(pb::kDaName, start ? kFlowOutName : kFlowInName);
      e.U64(pb::kDaBool, 1);
      e.End(da);
    }
  });
}

// ---- metadata -------------------------------------------------------------------
// The debug annotations of INSTANTs "mabutrace metadata" on the first
// process track at the trace's last time; a new packet when one is full.

void PerfettoWriter::MetadataAnnotation(std::string_view key, size_t value_bytes) {
  const size_t need = key.size() + value_bytes + kAnnotationOverhead;
  if (meta_open_ && p_.room() < need) CloseMetadata();
  if (!meta_open_) {
    metadata_begun_ = meta_open_ = true;
    GlobalPacket(max_ns_);
    meta_event_ = p_.Begin(pb::kTrackEvent);
    Name(pb::kTeName, kMetadataEvent);
    p_.U64(pb::kTeType, pb::kInstant);
    if (first_process_) p_.U64(pb::kTeTrack, first_process_);
  }
}

void PerfettoWriter::CloseMetadata() {
  if (!meta_open_) return;
  p_.End(meta_event_);
  Emit();
  meta_open_ = false;
}

void PerfettoWriter::OnMetadata(std::string_view key, int64_t value) {
  if (finished_) return;
  MetadataAnnotation(key, 10);
  const uint32_t da = p_.Begin(pb::kTeAnnotations);
  Name(pb::kDaName, key);
  p_.I64(pb::kDaInt, value);
  p_.End(da);
}

void PerfettoWriter::OnMetadata(std::string_view key, std::string_view value) {
  if (finished_) return;
  MetadataAnnotation(key, value.size() < kMaxNameBytes ? value.size() : kMaxNameBytes);
  const uint32_t da = p_.Begin(pb::kTeAnnotations);
  Name(pb::kDaName, key);
  Name(pb::kDaString, value);
  p_.End(da);
}

bool PerfettoWriter::Finish() {
  if (finished_) return !out_.failed();
  if (events_after_metadata_) OnMetadata(stat::kEventsAfterMetadata, int64_t(events_after_metadata_));
  // Last, so that it counts every packet before it (this one cannot overflow:
  // MetadataAnnotation made room).
  OnMetadata(stat::kPacketsDropped, int64_t(packets_dropped_));
  CloseMetadata();
  finished_ = true;
  out_.Flush();
  return !out_.failed();
}

}  // namespace mabutrace::format

#endif  // MABUTRACE_FORMAT_WRITERS
