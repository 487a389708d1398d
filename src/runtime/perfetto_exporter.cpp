// SPDX-License-Identifier: MIT
// perfetto_exporter.cpp: the ring buffer as a Perfetto protobuf trace
// (R-C2), streamed packet by packet while writers keep writing. The walk
// and its rules are trace_walker.h's; the format is the format layer's one
// protobuf writer (format/perfetto_writer.h), the same that `mabutrace
// convert` uses on a host. What is the device's own is the interning
// policy, DeviceTables: fixed tables in the export workspace.
//
// - Thread tracks: each thread's track and sequence state lives in the
//   walker's ThreadState (export_workspace.h), found by tid, so the export
//   needs no table of its own for them. A thread whose state the walker has
//   already handed to another thread (its slot was reused) has none left:
//   its late flow ends are dropped and counted (packets_dropped).
// - Event names by address: names are static strings (R-A7), so one
//   pointer is one name; an open-addressing table of kExportInternEntries.
// - Counter tracks by text: equal names share a track whatever their
//   address; in the same table, marked as such.
#include "../format/trace_events.h"
#if MABUTRACE_FORMAT_WRITERS  // C++17: see trace_events.h

#include <string.h>

#include "../format/perfetto_writer.h"
#include "mabutrace/mabutrace.h"
#include "trace_walker.h"

namespace mabutrace {
namespace {

enum InternKind : uint32_t { kEventName = 1, kCounterTrack = 2 };

// Spreads addresses (Fibonacci hashing: the product's middle bits depend
// on all the low ones, where addresses differ). Only where a name lands in
// the table depends on it, never an iid or a uuid.
uint32_t Mix(uint64_t x) { return uint32_t((x * 0x9E3779B97F4A7C15ull) >> 32); }

uint32_t Fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ uint8_t(c)) * 16777619u;
  return h;
}

class DeviceTables final : public format::PerfettoTables {
 public:
  explicit DeviceTables(const Runtime& rt) : rt_(rt), ws_(*rt.workspace) {
    memset(ws_.interned, 0, sizeof(InternEntry) * ws_.intern_cap);
  }

  format::PerfettoSequence* Sequence(format::Track t) override {
    if (t.pid != rt_.pid) return nullptr;
    // The walker writes one chunk (one thread) at a time: the last hit is
    // nearly always the answer.
    if (Matches(last_, t.tid)) return &ws_.threads[last_].sequence;
    for (uint32_t i = 0; i <= rt_.max_threads; ++i) {
      if (Matches(i, t.tid)) {
        last_ = i;
        return &ws_.threads[i].sequence;
      }
    }
    return nullptr;
  }

  uint64_t NameIid(std::string_view name) override {
    InternEntry* e = Probe(Mix(uintptr_t(name.data())),
                           [&](const InternEntry& x) { return x.kind == kEventName && x.name == name.data(); });
    if (!e) return 0;
    if (!e->name) *e = InternEntry{name.data(), ++next_iid_, kEventName};
    return e->value;
  }

  uint64_t CounterTrack(uint32_t pid, std::string_view name, uint64_t fresh_uuid, bool* fresh) override {
    *fresh = false;
    if (pid != rt_.pid || fresh_uuid > UINT32_MAX) return 0;
    // A counter is sampled again and again under one address: look there
    // first, before hashing its text.
    AddressHit& hit = counter_hits_[Mix(uintptr_t(name.data())) % kAddressHits];
    if (hit.name == name.data() && hit.uuid) return hit.uuid;
    InternEntry* e = Probe(Fnv1a(name), [&](const InternEntry& x) {
      return x.kind == kCounterTrack && strncmp(x.name, name.data(), name.size()) == 0 && x.name[name.size()] == '\0';
    });
    if (!e) return 0;
    if (!e->name) {
      *e = InternEntry{name.data(), uint32_t(fresh_uuid), kCounterTrack};
      *fresh = true;
    }
    hit = AddressHit{name.data(), e->value};
    return e->value;
  }

  uint64_t ProcessTrack(uint32_t pid, uint64_t fresh_uuid, bool* fresh) override {
    *fresh = false;
    if (pid != rt_.pid) return 0;
    *fresh = process_uuid_ == 0;
    if (*fresh) process_uuid_ = fresh_uuid;
    return process_uuid_;
  }

 private:
  bool Matches(uint32_t i, uint32_t tid) const { return ws_.threads[i].seen && ws_.threads[i].tid == tid; }

  // The entry `same` accepts, or the empty one where it would go; nullptr
  // when the table is full.
  template <class Same>
  InternEntry* Probe(uint32_t hash, Same&& same) {
    const uint32_t mask = ws_.intern_cap - 1;
    for (uint32_t i = hash & mask, probes = 0; probes < ws_.intern_cap; ++probes, i = (i + 1) & mask) {
      InternEntry& e = ws_.interned[i];
      if (!e.name || same(e)) return &e;
    }
    return nullptr;
  }

  struct AddressHit {
    const char* name;
    uint32_t uuid;
  };
  static constexpr uint32_t kAddressHits = 16;

  const Runtime& rt_;
  ExportWorkspace& ws_;
  AddressHit counter_hits_[kAddressHits] = {};
  uint32_t last_ = 0;
  uint32_t next_iid_ = 0;
  uint64_t process_uuid_ = 0;
};

}  // namespace
}  // namespace mabutrace

extern "C" int mabutrace_export_perfetto(mabutrace_write_fn write, void* user) {
  using namespace mabutrace;
  if (!write) return MABUTRACE_ERR_INVALID_ARG;
  Runtime* rt = BeginExport();
  if (!rt) return MABUTRACE_ERR_NOT_INITIALIZED;
  ExportWorkspace& ws = *rt->workspace;
  ByteOut out(ws.out, ws.out_cap, write, user);
  DeviceTables tables(*rt);
  format::PerfettoWriter writer(tables, ws.packet, ws.packet_cap, out);
  const bool ok = ExportTrace(*rt, writer, out);
  EndExport(rt);
  return ok ? MABUTRACE_OK : MABUTRACE_ERR_IO;
}

#endif  // MABUTRACE_FORMAT_WRITERS
