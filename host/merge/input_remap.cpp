// SPDX-License-Identifier: MIT
#include "input_remap.h"

#include "format/trace_vocabulary.h"

namespace mabutrace::merge {

uint32_t InputRemap::Pid(uint32_t pid, std::string_view name) {
  const auto it = pids_.find(pid);
  if (it != pids_.end()) return it->second;
  const uint32_t fresh = out_.NewPid();
  pids_.emplace(pid, fresh);
  std::string full = name_;
  if (!name.empty()) full += ": " + std::string(name);
  if (several_) full += " (pid " + std::to_string(pid) + ")";
  sink_.OnProcess(fresh, full);
  return fresh;
}

void InputRemap::OnProcess(uint32_t pid, std::string_view name) { Pid(pid, name); }

void InputRemap::OnThread(format::Track t, std::string_view name) {
  const format::Track m = Map(t);
  if (!name.empty()) {
    sink_.OnThread(m, name);
  } else {
    sink_.OnThread(m, std::string(format::kThreadNamePrefix) + std::to_string(t.tid));
  }
}

format::Track InputRemap::Map(format::Track t) {
  const auto key = std::make_pair(t.pid, t.tid);
  const auto it = tracks_.find(key);
  if (it != tracks_.end()) return it->second;
  const format::Track m{Pid(t.pid, {}), out_.NewTid()};
  tracks_.emplace(key, m);
  return m;
}

void InputRemap::OnFlow(format::Track t, bool start, uint64_t id, uint64_t ns) {
  const uint64_t at = line_.Apply(ns);
  if (start || !(id & model::kUnresolvedLink)) {
    sink_.OnFlow(Map(t), start, MergedFlowId(index_, id), at);
    return;
  }
  const uint64_t joined = join_ ? join_->Take(uint16_t(id), at) : 0;
  if (!joined) {
    ++unjoined_;  // the point stays, without an arrow
    return;
  }
  ++joined_;
  sink_.OnFlow(Map(t), false, joined, at);
}

}  // namespace mabutrace::merge
