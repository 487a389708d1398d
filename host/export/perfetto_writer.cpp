// perfetto_writer.cpp: see perfetto_writer.h. Field numbers:
// perfetto_trace.proto (../shared/reference/perfetto/).
#include "perfetto_writer.h"

#include "format/perfetto_fields.h"
#include "format/perfetto_sequence.h"
#include "format/proto_out.h"
#include "format/utf8.h"

namespace mabutrace::exporter {
namespace {

constexpr uint32_t kSequence = pb::kGlobalSequence;
constexpr size_t kMaxName = 1024;  // bytes; longer names are cut (at a character)

// Debug annotation names, interned in each thread sequence's first packet.
enum AnnotationIid : uint32_t { kAnnCpu = 1, kAnnColor };
const char* const kAnnotationNames[] = {nullptr, "cpu", "color"};

const char* ColorText(uint32_t color, char* rgb) {
  static const char kHex[] = "0123456789abcdef";
  rgb[0] = '#';
  for (int i = 0; i < 6; ++i) rgb[1 + i] = kHex[(color >> (20 - 4 * i)) & 0xF];
  rgb[7] = '\0';
  return rgb;
}

}  // namespace

PerfettoWriter::PerfettoWriter(WriteFn write)
    : write_(std::move(write)), buf_(kMaxName * 4 + 4096) {
  p_ = std::make_unique<ProtoOut>(buf_.data(), uint32_t(buf_.size()));
}

PerfettoWriter::~PerfettoWriter() = default;

void PerfettoWriter::Put(const void* data, size_t n) {
  pending_.append(static_cast<const char*>(data), n);
  if (pending_.size() >= 64 * 1024) {
    if (ok_ && !write_(pending_.data(), pending_.size())) ok_ = false;
    pending_.clear();
  }
}

// Frames the packet as Trace.packet (field 1, length-delimited).
void PerfettoWriter::Emit() {
  if (p_->overflow()) {
    ++packets_dropped_;
    return;
  }
  uint8_t head[16];
  ProtoOut h(head, sizeof head);
  h.Tag(pb::kTracePacket, ProtoOut::kLengthDelimited);
  h.Varint(p_->size());
  Put(h.data(), h.size());
  Put(p_->data(), p_->size());
}

// Starts a packet on sequence 1 at absolute time `ns`; its first packet
// clears the sequence (which interns nothing).
void PerfettoWriter::GlobalPacket(uint64_t ns) {
  p_->Reset();
  if (ns > last_ns_) last_ns_ = ns;
  p_->U64(pb::kTimestamp, ns);
  p_->U64(pb::kSequenceId, kSequence);
  if (!started_) {
    started_ = true;
    p_->U64(pb::kSequenceFlags, pb::kIncrementalStateCleared);
  }
}

void PerfettoWriter::Name(uint32_t field, std::string_view s) {
  const uint32_t slot = p_->Begin(field);
  PutValidUtf8(s.data(), s.size(), kMaxName, [this](const char* d, size_t n) { p_->Raw(d, n); });
  p_->End(slot);
}

uint64_t PerfettoWriter::ProcessUuid(uint32_t pid) {
  auto [it, fresh] = processes_.try_emplace(pid, 0);
  if (!fresh) return it->second;
  it->second = next_uuid_++;
  if (!first_process_) first_process_ = it->second;
  return it->second;
}

void PerfettoWriter::OnProcess(uint32_t pid, std::string_view name) {
  const bool fresh = !processes_.count(pid);
  const uint64_t uuid = ProcessUuid(pid);
  if (!fresh && name.empty()) return;
  GlobalPacket(0);
  const uint32_t td = p_->Begin(pb::kTrackDescriptor);
  p_->U64(pb::kTdUuid, uuid);
  const uint32_t pd = p_->Begin(pb::kTdProcess);
  p_->I64(pb::kPdPid, int32_t(pid));
  if (!name.empty()) Name(pb::kPdName, name);
  p_->End(pd);
  p_->End(td);
  Emit();
}

// The thread's track, described and its sequence started on first use.
PerfettoWriter::ThreadTrack& PerfettoWriter::Thread(model::Track t, std::string_view name) {
  auto [it, fresh] = threads_.try_emplace({t.pid, t.tid});
  ThreadTrack& th = it->second;
  if (!fresh) return th;
  if (!processes_.count(t.pid)) OnProcess(t.pid, {});
  th.uuid = next_uuid_++;
  th.sequence = next_sequence_++;
  GlobalPacket(0);
  const uint32_t td = p_->Begin(pb::kTrackDescriptor);
  p_->U64(pb::kTdUuid, th.uuid);
  p_->U64(pb::kTdParent, ProcessUuid(t.pid));
  const uint32_t tp = p_->Begin(pb::kTdThread);
  p_->I64(pb::kThPid, int32_t(t.pid));
  p_->I64(pb::kThTid, int32_t(t.tid));
  Name(pb::kThName, name.empty() ? "thread " + std::to_string(t.tid) : std::string(name));
  p_->End(tp);
  p_->End(td);
  Emit();
  p_->Reset();
  pb::WriteSequenceStart(*p_, th.sequence, th.uuid, kAnnotationNames,
                         sizeof kAnnotationNames / sizeof *kAnnotationNames);
  Emit();
  return th;
}

void PerfettoWriter::OnThread(model::Track t, std::string_view name) { Thread(t, name); }

uint32_t PerfettoWriter::EventPacket(ThreadTrack& th, uint64_t ns, bool named,
                                     std::string_view name, uint32_t color) {
  p_->Reset();
  if (ns > last_ns_) last_ns_ = ns;
  pb::WriteSequencePacketHead(*p_, th.sequence, &th.last_ns, ns);
  // One interned_data per packet (it is not a repeated field).
  uint64_t name_iid = 0;
  bool send_name = false;
  if (named) {
    auto [it, fresh] = iids_.try_emplace(std::string(name), iids_.size() + 1);
    name_iid = it->second;
    send_name = th.sent_names.insert(name_iid).second;
  }
  color_iid_ = 0;
  bool send_color = false;
  if (color) {
    color_iid_ = color_iids_.try_emplace(color, color_iids_.size() + 1).first->second;
    send_color = th.sent_colors.insert(color_iid_).second;
  }
  if (send_name || send_color) {
    const uint32_t id = p_->Begin(pb::kInternedData);
    if (send_name) {
      const uint32_t en = p_->Begin(pb::kIdEventNames);
      p_->U64(pb::kIidIid, name_iid);
      Name(pb::kIidName, name);
      p_->End(en);
    }
    if (send_color) {
      char rgb[8];
      const uint32_t sv = p_->Begin(pb::kIdAnnotationStrings);
      p_->U64(pb::kIidIid, color_iid_);
      p_->Bytes(pb::kInternedStringStr, ColorText(color, rgb), 7);
      p_->End(sv);
    }
    p_->End(id);
  }
  const uint32_t te = p_->Begin(pb::kTrackEvent);
  if (name_iid) p_->U64(pb::kTeNameIid, name_iid);
  return te;
}

void PerfettoWriter::Annotations(uint32_t cpu, uint32_t color, uint64_t color_iid) {
  uint32_t da = p_->Begin(pb::kTeAnnotations);
  p_->U64(pb::kDaNameIid, kAnnCpu);
  p_->U64(pb::kDaUint, cpu);
  p_->End(da);
  if (color) {
    da = p_->Begin(pb::kTeAnnotations);
    p_->U64(pb::kDaNameIid, kAnnColor);
    p_->U64(pb::kDaStringIid, color_iid);
    p_->End(da);
  }
}

// A named TrackEvent of `type` on t's track with the cpu/color annotations.
void PerfettoWriter::ThreadEvent(model::Track t, uint32_t type, std::string_view name, uint64_t ns,
                                 uint32_t cpu, uint32_t color) {
  ThreadTrack& th = Thread(t);
  const uint32_t te = EventPacket(th, ns, true, name, color);
  p_->U64(pb::kTeType, type);
  Annotations(cpu, color, color_iid_);
  p_->End(te);
  Emit();
}

void PerfettoWriter::OnBegin(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu,
                             uint32_t color) {
  ThreadEvent(t, pb::kSliceBegin, name, ns, cpu, color);
}

void PerfettoWriter::OnEnd(model::Track t, std::string_view, uint64_t ns, std::string_view flag) {
  ThreadTrack& th = Thread(t);
  const uint32_t te = EventPacket(th, ns, false, {}, 0);
  p_->U64(pb::kTeType, pb::kSliceEnd);
  if (!flag.empty()) {
    const uint32_t da = p_->Begin(pb::kTeAnnotations);
    Name(pb::kDaName, flag);
    p_->U64(pb::kDaBool, 1);
    p_->End(da);
  }
  p_->End(te);
  Emit();
}

void PerfettoWriter::OnInstant(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu,
                               uint32_t color) {
  ThreadEvent(t, pb::kInstant, name, ns, cpu, color);
}

void PerfettoWriter::OnCounter(model::Track t, std::string_view name, uint64_t ns, int64_t value) {
  ThreadTrack& th = Thread(t);
  auto [it, fresh] = counters_.try_emplace({t.pid, std::string(name)}, 0);
  if (fresh) {
    it->second = next_uuid_++;
    GlobalPacket(0);
    const uint32_t td = p_->Begin(pb::kTrackDescriptor);
    p_->U64(pb::kTdUuid, it->second);
    p_->U64(pb::kTdParent, ProcessUuid(t.pid));
    Name(pb::kTdName, name);
    const uint32_t cd = p_->Begin(pb::kTdCounter);
    p_->U64(pb::kCdUnit, pb::kUnitCount);
    p_->End(cd);
    p_->End(td);
    Emit();
  }
  const uint32_t te = EventPacket(th, ns, false, {}, 0);
  p_->U64(pb::kTeType, pb::kCounter);
  p_->U64(pb::kTeTrack, it->second);
  p_->I64(pb::kTeCounterValue, value);
  p_->End(te);
  Emit();
}

void PerfettoWriter::OnFlow(model::Track t, bool start, uint64_t id, uint64_t ns) {
  ThreadTrack& th = Thread(t);
  const uint32_t te = EventPacket(th, ns, true, "flow", 0);
  p_->U64(pb::kTeType, pb::kInstant);
  p_->Fixed64(start ? pb::kTeFlowIds : pb::kTeTerminatingFlowIds, id);
  p_->End(te);
  Emit();
}

void PerfettoWriter::OnMetadata(std::string_view key, int64_t value) {
  meta_int_.emplace_back(std::string(key), value);
}

void PerfettoWriter::OnMetadata(std::string_view key, std::string_view value) {
  meta_str_.emplace_back(std::string(key), std::string(value));
}

bool PerfettoWriter::Finish() {
  if (first_process_) {
    meta_int_.emplace_back("packets_dropped", int64_t(packets_dropped_));
    GlobalPacket(last_ns_);
    const uint32_t te = p_->Begin(pb::kTrackEvent);
    Name(pb::kTeName, "mabutrace metadata");
    p_->U64(pb::kTeType, pb::kInstant);
    p_->U64(pb::kTeTrack, first_process_);
    for (const auto& [k, v] : meta_int_) {
      const uint32_t da = p_->Begin(pb::kTeAnnotations);
      Name(pb::kDaName, k);
      p_->I64(pb::kDaInt, v);
      p_->End(da);
    }
    for (const auto& [k, v] : meta_str_) {
      const uint32_t da = p_->Begin(pb::kTeAnnotations);
      Name(pb::kDaName, k);
      Name(pb::kDaString, v);
      p_->End(da);
    }
    p_->End(te);
    Emit();
  }
  if (!pending_.empty() && ok_ && !write_(pending_.data(), pending_.size())) ok_ = false;
  pending_.clear();
  return ok_;
}

}  // namespace mabutrace::exporter
