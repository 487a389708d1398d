// SPDX-License-Identifier: MIT
// perfetto_writer.cpp: the host's interning policy (perfetto_writer.h).
#include "perfetto_writer.h"

namespace mabutrace::exporter {

format::PerfettoSequence* HostPerfettoTables::Sequence(format::Track t) {
  return &sequences_.try_emplace({t.pid, t.tid}).first->second;  // value-initialised: zeroed
}

uint64_t HostPerfettoTables::NameIid(std::string_view name) {
  Recent& r = recent_[(reinterpret_cast<uintptr_t>(name.data()) >> 3) % kRecent];
  if (r.key && *r.key == name) return r.iid;
  auto it = names_.find(name);
  if (it == names_.end()) it = names_.emplace(std::string(name), names_.size() + 1).first;
  r = Recent{&it->first, it->second};
  return it->second;
}

uint64_t HostPerfettoTables::CounterTrack(uint32_t pid, std::string_view name, uint64_t fresh_uuid, bool* fresh) {
  auto [it, inserted] = counters_.try_emplace({pid, std::string(name)}, fresh_uuid);
  *fresh = inserted;
  return it->second;
}

uint64_t HostPerfettoTables::ProcessTrack(uint32_t pid, uint64_t fresh_uuid, bool* fresh) {
  auto [it, inserted] = processes_.try_emplace(pid, fresh_uuid);
  *fresh = inserted;
  return it->second;
}

}  // namespace mabutrace::exporter
