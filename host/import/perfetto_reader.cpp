// SPDX-License-Identifier: MIT
// perfetto_reader.cpp: see perfetto_reader.h.
#include "perfetto_reader.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "format/perfetto_fields.h"
#include "format/trace_vocabulary.h"
#include "mabutrace/mabutrace.h"
#include "proto_in.h"
#include "writer_inverse.h"

namespace mabutrace::host {
namespace {

// A TrackEvent.double_counter_value (its IEEE-754 bits) as the model's
// int64 (writer_inverse.h).
int64_t RoundCounter(uint64_t bits, bool* rounded) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return CounterFromDouble(d, rounded);
}

}  // namespace

// ---- framing: Trace { repeated TracePacket packet = 1; } --------------------

Status PerfettoReader::Feed(const uint8_t* data, size_t len) {
  size_t i = 0;
  while (fatal_.ok && i < len) {
    switch (frame_) {
      case Frame::kTag:
      case Frame::kLength: {
        head_.push_back(data[i++]);
        ++offset_;
        if (head_.back() & 0x80) {
          if (head_.size() >= 10)
            fatal_ = Status::Error(offset_ - head_.size(), "a field key or length longer than 10 bytes");
          break;
        }
        uint64_t v = 0;
        ReadVarint(head_.data(), head_.size(), &v);
        const uint64_t at = offset_ - head_.size();
        head_.clear();
        if (frame_ == Frame::kTag) {
          const uint32_t wire = uint32_t(v & 7);
          if ((v >> 3) == pb::kTracePacket && wire == ProtoIn::kLen) {
            frame_ = Frame::kLength;
          } else if (wire == ProtoIn::kLen) {
            frame_ = Frame::kLength;
            skip_left_ = 1;  // marks a foreign top-level field: skip its body
          } else {
            fatal_ = Status::Error(at, "not a Perfetto trace: top-level field " + std::to_string(v >> 3) +
                                           " of wire type " + std::to_string(wire) + " (expected packets, field 1)");
          }
          break;
        }
        // Length of the packet (or of a foreign field to skip).
        if (v > kMaxPacketBytes) {
          fatal_ = Status::Error(
              at, "a packet of " + std::to_string(v) + " bytes (limit " + std::to_string(kMaxPacketBytes) + ")");
          break;
        }
        body_offset_ = offset_;
        if (skip_left_) {
          skip_left_ = v;
          frame_ = skip_left_ ? Frame::kSkip : Frame::kTag;
          ++foreign_;
          break;
        }
        body_len_ = v;
        body_.clear();
        frame_ = Frame::kBody;
        if (v == 0) {
          Packet(body_.data(), 0, body_offset_);
          frame_ = Frame::kTag;
        }
        break;
      }
      case Frame::kSkip: {
        const size_t take = size_t(std::min<uint64_t>(skip_left_, len - i));
        i += take;
        offset_ += take;
        skip_left_ -= take;
        if (!skip_left_) frame_ = Frame::kTag;
        break;
      }
      case Frame::kBody: {
        const size_t take = size_t(std::min<uint64_t>(body_len_ - body_.size(), len - i));
        // A whole packet in this piece is parsed where it lies.
        if (body_.empty() && take == body_len_) {
          Packet(data + i, take, body_offset_);
        } else {
          body_.insert(body_.end(), data + i, data + i + take);
          if (body_.size() == body_len_) Packet(body_.data(), body_.size(), body_offset_);
        }
        i += take;
        offset_ += take;
        if (body_.size() == body_len_ || take == body_len_) frame_ = Frame::kTag;
        break;
      }
    }
  }
  return fatal_;
}

Status PerfettoReader::Finish() {
  if (fatal_.ok && (frame_ != Frame::kTag || !head_.empty())) {
    fatal_ = Status::Error(
        offset_, frame_ == Frame::kBody
                     ? "the file ends inside a packet (" + std::to_string(body_len_ - body_.size()) + " bytes missing)"
                     : "the file ends inside a packet's header");
  }
  return fatal_;
}

void PerfettoReader::Damaged(uint64_t offset, const std::string& why) {
  ++skipped_;
  if (errors_.size() < kMaxErrors) errors_.push_back(Status::Error(offset, "packet skipped: " + why));
}

// ---- one TracePacket ----------------------------------------------------------

void PerfettoReader::Packet(const uint8_t* data, size_t size, uint64_t offset) {
  ++packets_;
  packet_offset_ = offset;
  // First pass: the scalar fields, which apply to the whole packet whatever
  // their place in it.
  uint64_t ts = 0, clock_id = 0, flags = 0;
  uint32_t seq_id = 0;
  bool has_ts = false, ours = false;
  ProtoIn p(data, size);
  while (p.Next()) {
    switch (p.field()) {
      case pb::kTimestamp: ts = p.u64(), has_ts = true; break;
      case pb::kTimestampClockId: clock_id = p.u64(); break;
      case pb::kSequenceId: seq_id = uint32_t(p.u64()); break;
      case pb::kSequenceFlags: flags = p.u64(); break;
      case pb::kClockSnapshot:
      case pb::kTrackEvent:
      case pb::kInternedData:
      case pb::kTracePacketDefaults:
      case pb::kTrackDescriptor: ours = true; break;
      default: break;
    }
  }
  if (p.error()) return Damaged(offset + p.offset(), "malformed field");
  if (!ours) {
    ++foreign_;
    return;
  }
  Sequence& seq = sequences_[seq_id];
  if (flags & pb::kIncrementalStateCleared) {
    seq = Sequence{};
    seq.cleared = true;
  } else if ((flags & pb::kNeedsIncrementalState) && !seq.cleared) {
    return Damaged(offset, "sequence " + std::to_string(seq_id) + " used before its state was cleared");
  }
  // Second pass, in order: the state the event needs comes first (the
  // writer puts interned data ahead of the event; defaults and snapshots
  // travel in the clearing packet).
  ProtoIn q(data, size);
  std::string_view event;
  while (q.Next()) {
    bool ok = true;
    switch (q.field()) {
      case pb::kClockSnapshot: ok = ClockSnapshot(seq, seq_id, q.bytes()); break;
      case pb::kTracePacketDefaults: ok = Defaults(seq, q.bytes()); break;
      case pb::kInternedData: ok = Interned(seq, q.bytes()); break;
      case pb::kTrackDescriptor: ok = TrackDescriptor(q.bytes()); break;
      case pb::kTrackEvent: event = q.bytes(); break;
      default: break;
    }
    if (!ok) return Damaged(offset + q.offset(), "malformed field " + std::to_string(q.field()));
  }
  if (event.data() == nullptr) return;
  // The event's time on BOOTTIME, then on the trace's timeline.
  const uint64_t clock = clock_id ? clock_id : seq.default_clock ? seq.default_clock : pb::kClockBoottime;
  uint64_t boot = ts;
  if (clock == pb::kClockIncremental) {
    seq.inc_ns += ts;
    boot = seq.inc_boot + seq.inc_ns;
  } else if (clock != pb::kClockBoottime) {
    return Damaged(offset, "timestamp on clock " + std::to_string(clock) + ", which the reader does not know");
  } else if (!has_ts) {
    return Damaged(offset, "a track event without a timestamp");
  }
  const uint64_t ns = boot > boot_zero_ ? boot - boot_zero_ : 0;
  std::string why;
  if (!TrackEvent(seq, event, ns, &why)) Damaged(offset, why);
}

bool PerfettoReader::ClockSnapshot(Sequence& seq, uint32_t, std::string_view bytes) {
  uint64_t boot = 0, mono = 0, inc = 0;
  bool has_boot = false, has_mono = false, has_inc = false, has_input_clock = false;
  ProtoIn s(bytes);
  while (s.Next()) {
    if (s.field() != pb::kCsClocks) continue;
    uint64_t id = 0, value = 0;
    ProtoIn c = s.Sub();
    while (c.Next()) {
      if (c.field() == pb::kClkId) id = c.u64();
      if (c.field() == pb::kClkTimestamp) value = c.u64();
    }
    if (c.error()) return false;
    if (id == pb::kClockBoottime) boot = value, has_boot = true;
    if (id == pb::kClockMonotonic) mono = value, has_mono = true;
    if (id == pb::kClockIncremental) inc = value, has_inc = true;
    if (id >= 128) has_input_clock = true;
  }
  if (s.error()) return false;
  // A merged input's clock (EventSink::OnClockSnapshot) says nothing of the
  // trace's time 0.
  if (has_boot && !clock_known_ && !has_input_clock) {
    // The first snapshot fixes the trace's time 0 (the writer's first
    // packet, or every thread sequence's: all say the same BOOTTIME).
    clock_known_ = true;
    boot_zero_ = boot;
    if (has_mono) out_.OnClock(mono, boot);
  }
  if (has_inc && has_boot) {
    seq.inc_boot = boot;
    seq.inc_ns = inc;
    seq.inc_boot -= inc;  // boot = inc_boot + value of clock 64
  }
  return true;
}

bool PerfettoReader::Defaults(Sequence& seq, std::string_view bytes) {
  ProtoIn d(bytes);
  while (d.Next()) {
    if (d.field() == pb::kTpdTimestampClockId) seq.default_clock = uint32_t(d.u64());
    if (d.field() == pb::kTpdTrackEventDefaults) {
      ProtoIn e = d.Sub();
      while (e.Next()) {
        if (e.field() == pb::kTedTrackUuid) seq.default_track = e.u64();
      }
      if (e.error()) return false;
    }
  }
  return !d.error();
}

bool PerfettoReader::Interned(Sequence& seq, std::string_view bytes) {
  ProtoIn d(bytes);
  while (d.Next()) {
    std::unordered_map<uint64_t, std::string>* table = nullptr;
    uint32_t text_field = pb::kIidName;
    if (d.field() == pb::kIdEventNames) table = &seq.event_names;
    if (d.field() == pb::kIdAnnotationNames) table = &seq.annotation_names;
    if (d.field() == pb::kIdAnnotationStrings) table = &seq.annotation_strings, text_field = pb::kInternedStringStr;
    if (!table) continue;
    uint64_t iid = 0;
    std::string_view text;
    ProtoIn e = d.Sub();
    while (e.Next()) {
      if (e.field() == pb::kIidIid) iid = e.u64();
      if (e.field() == text_field) text = e.bytes();
    }
    if (e.error()) return false;
    (*table)[iid] = std::string(text);
  }
  return !d.error();
}

bool PerfettoReader::TrackDescriptor(std::string_view bytes) {
  uint64_t uuid = 0, parent = 0;
  std::string_view name;
  bool is_counter = false, is_process = false, is_thread = false;
  uint32_t pid = 0, tid = 0;
  std::string_view pname, tname;
  ProtoIn d(bytes);
  while (d.Next()) {
    switch (d.field()) {
      case pb::kTdUuid: uuid = d.u64(); break;
      case pb::kTdName: name = d.bytes(); break;
      case pb::kTdParent: parent = d.u64(); break;
      case pb::kTdCounter: is_counter = true; break;
      case pb::kTdProcess: {
        is_process = true;
        ProtoIn s = d.Sub();
        while (s.Next()) {
          if (s.field() == pb::kPdPid) pid = uint32_t(s.u64());
          if (s.field() == pb::kPdName) pname = s.bytes();
        }
        if (s.error()) return false;
        break;
      }
      case pb::kTdThread: {
        is_thread = true;
        ProtoIn s = d.Sub();
        while (s.Next()) {
          if (s.field() == pb::kThPid) pid = uint32_t(s.u64());
          if (s.field() == pb::kThTid) tid = uint32_t(s.u64());
          if (s.field() == pb::kThName) tname = s.bytes();
        }
        if (s.error()) return false;
        break;
      }
      default: break;
    }
  }
  if (d.error()) return false;
  TrackInfo& info = tracks_[uuid];
  if (is_thread) {
    info = {TrackInfo::kThread, {pid, tid}, {}};
    out_.OnThread(info.track, ThreadName(tname, tid));
  } else if (is_process) {
    info = {TrackInfo::kProcess, {pid, pid}, {}};
    if (!pname.empty()) out_.OnProcess(pid, pname);
  } else if (is_counter) {
    auto p = tracks_.find(parent);
    const uint32_t cpid = p != tracks_.end() ? p->second.track.pid : 0;
    info = {TrackInfo::kCounter, {cpid, cpid}, std::string(name)};
  } else {
    // An async track (Perfetto SDK's, Chrome's): slices on it nest, as on
    // a thread's, but no thread owns it. On thread 0 of process 0 they
    // would be merged with every other such track's.
    const auto [tid, fresh] = async_tids_.try_emplace(uuid, uint32_t(UINT32_MAX - async_tids_.size()));
    const auto p = tracks_.find(parent);
    info = {TrackInfo::kThread, {p != tracks_.end() ? p->second.track.pid : 0, tid->second}, {}};
    if (fresh) out_.OnThread(info.track, name);
  }
  return true;
}

bool PerfettoReader::ReadAnnotations(const Sequence& seq, std::string_view bytes, Annotations* a, std::string* why) {
  std::string_view name, text;
  uint64_t name_iid = 0, uvalue = 0, string_iid = 0;
  bool has_bool = false, has_uint = false, has_text = false;
  ProtoIn d(bytes);
  while (d.Next()) {
    switch (d.field()) {
      case pb::kDaNameIid: name_iid = d.u64(); break;
      case pb::kDaName: name = d.bytes(); break;
      case pb::kDaBool: has_bool = d.u64() != 0; break;
      case pb::kDaUint: uvalue = d.u64(), has_uint = true; break;
      case pb::kDaString: text = d.bytes(), has_text = true; break;
      case pb::kDaStringIid: string_iid = d.u64(); break;
      default: break;
    }
  }
  if (d.error()) return *why = "malformed debug annotation", false;
  if (name_iid) {
    auto it = seq.annotation_names.find(name_iid);
    if (it == seq.annotation_names.end())
      return *why = "annotation name iid " + std::to_string(name_iid) + " never interned", false;
    name = it->second;
  }
  if (string_iid) {
    auto it = seq.annotation_strings.find(string_iid);
    if (it == seq.annotation_strings.end())
      return *why = "annotation string iid " + std::to_string(string_iid) + " never interned", false;
    text = it->second;
    has_text = true;
  }
  if (name == "cpu" && has_uint) {
    a->has_cpu = true;
    a->cpu = uint32_t(uvalue);
  } else if (name == "color" && has_text) {
    a->color = ParseColor(text);
  } else if (has_bool) {
    a->flag = std::string(name);
  }
  return true;
}

bool PerfettoReader::Metadata(const Sequence& seq, std::string_view event) {
  ProtoIn e(event);
  while (e.Next()) {
    if (e.field() != pb::kTeAnnotations) continue;
    std::string_view key, text;
    int64_t number = 0;
    bool is_text = false, has_value = false;
    ProtoIn d = e.Sub();
    while (d.Next()) {
      switch (d.field()) {
        case pb::kDaName: key = d.bytes(); break;
        case pb::kDaNameIid: {
          auto it = seq.annotation_names.find(d.u64());
          if (it != seq.annotation_names.end()) key = it->second;
          break;
        }
        case pb::kDaInt:
        case pb::kDaUint:
        case pb::kDaBool: number = d.i64(), has_value = true; break;
        case pb::kDaString: text = d.bytes(), is_text = has_value = true; break;
        default: break;
      }
    }
    if (d.error()) return false;
    if (!has_value || key.empty()) continue;
    if (WriterOwnKey(key) && !is_text) {
      if (number) out_.OnMetadata(SourceKey(key), number);
      continue;
    }
    if (is_text) {
      out_.OnMetadata(key, text);
    } else {
      out_.OnMetadata(key, number);
    }
  }
  return !e.error();
}

bool PerfettoReader::TrackEvent(Sequence& seq, std::string_view bytes, uint64_t ns, std::string* why) {
  uint64_t type = 0, name_iid = 0, track_uuid = seq.default_track, flow_out = 0, flow_in = 0;
  bool track_given = seq.default_track != 0;
  int64_t counter_value = 0;
  bool counter_rounded = false;
  std::string_view name;
  bool has_name = false;
  Annotations a;
  // The model binds one arrow end of each direction to a point: ids past
  // the first are counted (flows_dropped).
  auto first_id = [this](uint64_t* kept, uint64_t id) {
    if (*kept)
      ++flows_dropped_;
    else
      *kept = id;
  };
  ProtoIn e(bytes);
  while (e.Next()) {
    switch (e.field()) {
      case pb::kTeType: type = e.u64(); break;
      case pb::kTeNameIid: name_iid = e.u64(); break;
      case pb::kTeName: name = e.bytes(), has_name = true; break;
      case pb::kTeTrack: track_uuid = e.u64(), track_given = true; break;
      case pb::kTeCounterValue: counter_value = e.i64(); break;
      case pb::kTeDoubleCounterValue: counter_value = RoundCounter(e.u64(), &counter_rounded); break;
      case pb::kTeFlowIds:
      case pb::kTeFlowIdsOld: first_id(&flow_out, e.u64()); break;
      case pb::kTeTerminatingFlowIds:
      case pb::kTeTerminatingFlowIdsOld: first_id(&flow_in, e.u64()); break;
      case pb::kTeAnnotations: break;     // read below, once the track is known
      default: ++fields_ignored_; break;  // another producer's (categories, source locations, ...)
    }
  }
  if (e.error()) return *why = "malformed track event", false;
  counters_rounded_ += counter_rounded;
  if (name_iid && !has_name) {
    auto it = seq.event_names.find(name_iid);
    if (it != seq.event_names.end()) {
      name = it->second;
    } else {
      // Its packet was damaged (or never written): the event stays, with
      // a name that says so.
      ++names_lost_;
      if (lost_name_.empty() && errors_.size() < kMaxErrors)
        errors_.push_back(
            Status::Error(packet_offset_, "event name iid " + std::to_string(name_iid) +
                                              " never interned: such events are named \"<unknown name>\""));
      lost_name_ = "<unknown name>";
      name = lost_name_;
    }
  }
  auto track = tracks_.find(track_uuid);
  // The metadata goes on the first process track; a trace with no events
  // has none, and the writer then names no track at all (Perfetto's default
  // track, which is never described). An event on a track named but never
  // described stays an error.
  const bool metadata_track = track != tracks_.end() ? track->second.kind == TrackInfo::kProcess : !track_given;
  if (type == pb::kInstant && name == format::kMetadataEvent && metadata_track) {
    return Metadata(seq, bytes) || (*why = "malformed metadata annotation", false);
  }
  if (track == tracks_.end()) return *why = "track uuid " + std::to_string(track_uuid) + " never described", false;
  const TrackInfo& info = track->second;
  if (type == pb::kCounter) {
    if (info.kind != TrackInfo::kCounter) return *why = "a counter value on a track that is not a counter", false;
    // The sample's thread: the sequence's own track.
    auto own = tracks_.find(seq.default_track);
    const format::Track t = own != tracks_.end() ? own->second.track : info.track;
    out_.OnCounter(t, info.name, ns, counter_value);
    return true;
  }
  if (info.kind != TrackInfo::kThread) return *why = "a slice or instant on a track that is not a thread's", false;
  ProtoIn an(bytes);
  while (an.Next()) {
    if (an.field() == pb::kTeAnnotations && !ReadAnnotations(seq, an.bytes(), &a, why)) return false;
  }
  const format::Track t = info.track;
  switch (type) {
    case pb::kSliceBegin:
      out_.OnBegin(t, name, ns, a.cpu, a.color);
      // Another producer's arrows on a slice (the toolkit puts them on
      // instants): bound to the slice just begun.
      if (flow_in) out_.OnFlow(t, false, flow_in, ns);
      if (flow_out) out_.OnFlow(t, true, flow_out, ns);
      return true;
    case pb::kSliceEnd:
      flows_dropped_ += (flow_out != 0) + (flow_in != 0);  // its slice is closed: nothing to bind them to
      out_.OnEnd(t, {}, ns, a.flag);
      return true;
    case pb::kInstant: {
      flows_dropped_ += flow_out && flow_in;  // one arrow end per point: the start is kept
      const bool start = flow_out != 0 || name == format::kFlowOutName;
      const uint64_t id = flow_out ? flow_out : flow_in;
      const bool flow_marker = a.flag == format::kFlowInName || a.flag == format::kFlowOutName;
      if (!id && !flow_marker) {
        out_.OnInstant(t, name, ns, a.cpu, a.color);
      } else if (a.has_cpu) {  // a flow point as recorded
        out_.OnFlowPoint(t, flow_marker ? a.flag == format::kFlowOutName : start, id, FlowPointName(name), ns, a.cpu,
                         a.color, true);
      } else {  // a late arrow end
        out_.OnFlow(t, start, id, ns);
      }
      return true;
    }
    default: return *why = "track event type " + std::to_string(type), false;
  }
}

}  // namespace mabutrace::host
