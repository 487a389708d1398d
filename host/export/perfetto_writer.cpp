// perfetto_writer.cpp: see perfetto_writer.h. Field numbers:
// perfetto_trace.proto (../shared/reference/perfetto/).
#include "perfetto_writer.h"

#include "perfetto_fields.h"
#include "proto_out.h"
#include "utf8.h"

namespace mabutrace::exporter {
namespace {


constexpr uint32_t kSequence = 1;
constexpr size_t kMaxName = 1024;  // bytes; longer names are cut (at a character)

uint64_t Mix(uint64_t x) {  // splitmix64: well-spread track uuids
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
uint64_t ProcessUuid(uint32_t pid) { return Mix(0x70726F63ull << 32 | pid); }
uint64_t ThreadUuid(model::Track t) { return Mix((uint64_t(t.pid) << 32) | t.tid); }

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

void PerfettoWriter::Packet(uint64_t ns, bool uses_state) {
  p_->Reset();
  if (!started_) {
    // The sequence's first packet clears its incremental state.
    started_ = true;
    p_->U64(pb::kTimestamp, 0);
    p_->U64(pb::kSequenceId, kSequence);
    p_->U64(pb::kSequenceFlags, pb::kIncrementalStateCleared);
    Emit();
    p_->Reset();
  }
  if (ns > last_ns_) last_ns_ = ns;
  p_->U64(pb::kTimestamp, ns);
  p_->U64(pb::kSequenceId, kSequence);
  if (uses_state) p_->U64(pb::kSequenceFlags, pb::kNeedsIncrementalState);
}

void PerfettoWriter::Name(uint32_t field, std::string_view s) {
  const uint32_t slot = p_->Begin(field);
  size_t written = 0;
  std::string z(s);  // Utf8Length looks ahead until a NUL
  for (auto* c = reinterpret_cast<const unsigned char*>(z.c_str()); *c;) {
    const unsigned n = Utf8Length(c);
    const unsigned out = n ? n : 3;
    if (written + out > kMaxName) break;
    if (n) {
      p_->Raw(c, n);
      c += n;
    } else {
      p_->Raw(kReplacementChar, 3);
      ++c;
    }
    written += out;
  }
  p_->End(slot);
}

uint32_t PerfettoWriter::EventPacket(uint64_t ns, std::string_view name) {
  Packet(ns, true);
  auto [it, fresh] = iids_.try_emplace(std::string(name), iids_.size() + 1);
  if (fresh) {
    const uint32_t id = p_->Begin(pb::kInternedData);
    const uint32_t en = p_->Begin(pb::kIdEventNames);
    p_->U64(pb::kIidIid, it->second);
    Name(pb::kIidName, name);
    p_->End(en);
    p_->End(id);
  }
  const uint32_t te = p_->Begin(pb::kTrackEvent);
  p_->U64(pb::kTeNameIid, it->second);
  return te;
}

void PerfettoWriter::Annotations(uint32_t cpu, uint32_t color) {
  uint32_t da = p_->Begin(pb::kTeAnnotations);
  p_->String(pb::kDaName, "cpu");
  p_->U64(pb::kDaUint, cpu);
  p_->End(da);
  if (color) {
    static const char kHex[] = "0123456789abcdef";
    char rgb[8] = {'#'};
    for (int i = 0; i < 6; ++i) rgb[1 + i] = kHex[(color >> (20 - 4 * i)) & 0xF];
    da = p_->Begin(pb::kTeAnnotations);
    p_->String(pb::kDaName, "color");
    p_->Bytes(pb::kDaString, rgb, 7);
    p_->End(da);
  }
}

void PerfettoWriter::OnProcess(uint32_t pid, std::string_view name) {
  if (!first_process_) first_process_ = ProcessUuid(pid);
  Packet(0, false);
  const uint32_t td = p_->Begin(pb::kTrackDescriptor);
  p_->U64(pb::kTdUuid, ProcessUuid(pid));
  const uint32_t pd = p_->Begin(pb::kTdProcess);
  p_->I64(pb::kPdPid, int32_t(pid));
  if (!name.empty()) Name(pb::kPdName, name);
  p_->End(pd);
  p_->End(td);
  Emit();
}

void PerfettoWriter::OnThread(model::Track t, std::string_view name) {
  Packet(0, false);
  const uint32_t td = p_->Begin(pb::kTrackDescriptor);
  p_->U64(pb::kTdUuid, ThreadUuid(t));
  p_->U64(pb::kTdParent, ProcessUuid(t.pid));
  const uint32_t th = p_->Begin(pb::kTdThread);
  p_->I64(pb::kThPid, int32_t(t.pid));
  p_->I64(pb::kThTid, int32_t(t.tid));
  Name(pb::kThName, name.empty() ? "thread " + std::to_string(t.tid) : std::string(name));
  p_->End(th);
  p_->End(td);
  Emit();
}

// A named TrackEvent of `type` on t's track with the cpu/color annotations.
void PerfettoWriter::ThreadEvent(model::Track t, uint32_t type, std::string_view name, uint64_t ns,
                                 uint32_t cpu, uint32_t color) {
  const uint32_t te = EventPacket(ns, name);
  p_->U64(pb::kTeType, type);
  p_->U64(pb::kTeTrack, ThreadUuid(t));
  Annotations(cpu, color);
  p_->End(te);
  Emit();
}

void PerfettoWriter::OnBegin(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu,
                             uint32_t color) {
  ThreadEvent(t, pb::kSliceBegin, name, ns, cpu, color);
}

void PerfettoWriter::OnEnd(model::Track t, std::string_view, uint64_t ns, std::string_view flag) {
  Packet(ns, false);
  const uint32_t te = p_->Begin(pb::kTrackEvent);
  p_->U64(pb::kTeType, pb::kSliceEnd);
  p_->U64(pb::kTeTrack, ThreadUuid(t));
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
  auto [it, fresh] = counters_.try_emplace({t.pid, std::string(name)}, 0);
  if (fresh) {
    it->second = Mix(ProcessUuid(t.pid) ^ std::hash<std::string>{}(it->first.second)) | (1ull << 63);
    Packet(ns, false);
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
  Packet(ns, false);
  const uint32_t te = p_->Begin(pb::kTrackEvent);
  p_->U64(pb::kTeType, pb::kCounter);
  p_->U64(pb::kTeTrack, it->second);
  p_->I64(pb::kTeCounterValue, value);
  p_->End(te);
  Emit();
}

void PerfettoWriter::OnFlow(model::Track t, bool start, uint64_t id, uint64_t ns) {
  const uint32_t te = EventPacket(ns, "flow");
  p_->U64(pb::kTeType, pb::kInstant);
  p_->U64(pb::kTeTrack, ThreadUuid(t));
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
    const uint32_t te = EventPacket(last_ns_, "mabutrace metadata");
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
