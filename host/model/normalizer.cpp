// SPDX-License-Identifier: MIT
// normalizer.cpp: see trace_model.h (Normalizer).
#include "format/trace_rules.h"
#include "format/trace_vocabulary.h"
#include "trace_model.h"

namespace mabutrace::model {

namespace {
// A name as every writer keeps it (format::kMaxNameBytes, cut at a
// character), so that what reads the model (stats, merge) sees the names a
// written file would hold, whatever the input: a .json read back holds
// them whole.
std::string_view Kept(std::string_view name) { return name.substr(0, format::KeptNameBytes(name.data(), name.size())); }
}  // namespace

Normalizer::ThreadState& Normalizer::State(Track t) {
  auto [it, fresh] = threads_.try_emplace({t.pid, t.tid});
  if (fresh) {
    it->second.track = t;
    if (processes_.insert(t.pid).second) out_.OnProcess(t.pid, "");
    out_.OnThread(t, "");
  }
  return it->second;
}

uint64_t Normalizer::Clamp(ThreadState& s, uint64_t ns) {
  if (ns < s.last) ns = s.last;
  s.last = ns;
  if (ns > max_ns_) max_ns_ = ns;
  return ns;
}

void Normalizer::OnProcess(uint32_t pid, std::string_view name) {
  if (processes_.insert(pid).second) return out_.OnProcess(pid, Kept(name));
  names_late_ += !name.empty();
}

void Normalizer::OnThread(Track t, std::string_view name) {
  OnProcess(t.pid, "");
  auto [it, fresh] = threads_.try_emplace({t.pid, t.tid});
  if (!fresh) {  // already announced (possibly under a default name)
    names_late_ += !name.empty();
    return;
  }
  it->second.track = t;
  out_.OnThread(t, Kept(name));
}

void Normalizer::OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) {
  ThreadState& s = State(t);
  ns = Clamp(s, ns);
  name = Kept(name);
  s.stack.emplace_back(name);
  s.begins.push_back(ns);
  out_.OnBegin(t, name, ns, cpu, color);
}

void Normalizer::OnEnd(Track t, std::string_view, uint64_t ns, std::string_view flag) {
  ThreadState& s = State(t);
  if (s.stack.empty()) {
    ++orphan_ends_;  // its begin came before the capture started
    return;
  }
  // An end before its own begin: the clock is not one global monotonic
  // clock (a per-core counter and a thread that migrated). Records of a
  // track out of order are no such sign: on an MCU, nested interrupts share
  // a track and write in an order other than that of their times.
  if (ns < s.begins.back()) ++clock_went_backwards_;
  ns = Clamp(s, format::EndTime(s.begins.back(), ns));
  out_.OnEnd(t, s.stack.back(), ns, flag);
  s.stack.pop_back();
  s.begins.pop_back();
}

void Normalizer::OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) {
  ThreadState& s = State(t);
  out_.OnInstant(t, Kept(name), Clamp(s, ns), cpu, color);
}

void Normalizer::OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) {
  ThreadState& s = State(t);
  out_.OnCounter(t, Kept(name), Clamp(s, ns), value);
}

bool Normalizer::ArrowEnd(bool start, uint64_t id) {
  if (start) {
    flow_starts_.insert(id);
    return true;
  }
  if (flow_starts_.erase(id)) return true;
  ++flow_ends_dropped_;  // an arrow needs both ends
  return false;
}

void Normalizer::OnFlow(Track t, bool start, uint64_t id, uint64_t ns) {
  if (id == 0 || !ArrowEnd(start, id)) return;
  // A late end keeps its own time: it binds to the slice open then.
  State(t);
  if (ns > max_ns_) max_ns_ = ns;
  out_.OnFlow(t, start, id, ns);
}

void Normalizer::UnresolvedLinkEnd(Track t, uint16_t link, uint64_t ns) {
  State(t);
  if (ns > max_ns_) max_ns_ = ns;
  out_.OnFlow(t, false, kUnresolvedLink | link, ns);
}

void Normalizer::OnFlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                             uint32_t color, bool) {
  ThreadState& s = State(t);
  ns = Clamp(s, ns);
  if (id && !ArrowEnd(start, id)) id = 0;  // the point stays, without its arrow
  Clamp(s, format::FlowPoint(out_, t, start, id, Kept(name), ns, cpu, color, !s.stack.empty()));
}

void Normalizer::OnMetadata(std::string_view key, int64_t value) {
  meta_.push_back({std::string(key), false, value, {}});
}

void Normalizer::OnMetadata(std::string_view key, std::string_view value) {
  meta_.push_back({std::string(key), true, 0, std::string(value)});
}

bool Normalizer::Finish() {
  for (auto& [key, s] : threads_) {
    while (!s.stack.empty()) {
      ++open_closed_;
      const uint64_t ns = Clamp(s, format::EndTime(s.begins.back(), max_ns_));
      out_.OnEnd(s.track, s.stack.back(), ns, format::flag::kOpenAtEnd);
      s.stack.pop_back();
      s.begins.pop_back();
    }
  }
  // The repair counts: added to the same keys of the input's own metadata
  // (a trace this toolkit wrote, read back, was repaired once already), so
  // each key is written once.
  const std::pair<const char*, uint64_t> repairs[] = {
      {format::stat::kOrphanScopeEnds, orphan_ends_},
      {format::stat::kOpenScopesClosed, open_closed_},
      {format::stat::kFlowEndsWithoutStart, flow_ends_dropped_},
      {format::stat::kClockWentBackwards, clock_went_backwards_},
  };
  std::vector<bool> written(sizeof repairs / sizeof *repairs, false);
  for (Meta& m : meta_) {
    for (size_t i = 0; i < written.size(); ++i) {
      if (!m.is_string && !written[i] && m.key == repairs[i].first) {
        m.number += int64_t(repairs[i].second);
        written[i] = true;
      }
    }
  }
  for (const Meta& m : meta_) {
    if (m.is_string) {
      out_.OnMetadata(m.key, m.text);
    } else {
      out_.OnMetadata(m.key, m.number);
    }
  }
  for (size_t i = 0; i < written.size(); ++i) {
    if (!written[i]) out_.OnMetadata(repairs[i].first, int64_t(repairs[i].second));
  }
  return out_.Finish();
}

}  // namespace mabutrace::model
