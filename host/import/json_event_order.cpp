// SPDX-License-Identifier: MIT
// json_event_order.cpp: see json_event_order.h.
#include "json_event_order.h"

#include <algorithm>

namespace mabutrace::host {

void JsonEventOrder::Process(uint32_t pid, std::string_view name) {
  Take({.t = {pid, 0}, .kind = Kind::kProcess}, name);
}

void JsonEventOrder::Thread(format::Track t, std::string_view name) { Take({.t = t, .kind = Kind::kThread}, name); }

void JsonEventOrder::Begin(format::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color,
                           BoundFlows flows) {
  Take({.ns = ns, .id = flows.in, .id2 = flows.out, .t = t, .cpu = cpu, .color = color, .kind = Kind::kBegin}, name);
}

void JsonEventOrder::Complete(format::Track t, std::string_view name, uint64_t ns, uint64_t dur, uint32_t cpu,
                              uint32_t color, BoundFlows flows) {
  Take({.ns = ns,
        .dur = dur,
        .id = flows.in,
        .id2 = flows.out,
        .t = t,
        .cpu = cpu,
        .color = color,
        .kind = Kind::kComplete},
       name);
}

void JsonEventOrder::End(format::Track t, std::string_view name, uint64_t ns, std::string_view flag) {
  Take({.ns = ns, .t = t, .kind = Kind::kEnd}, name, flag);
}

void JsonEventOrder::Instant(format::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) {
  Take({.ns = ns, .t = t, .cpu = cpu, .color = color, .kind = Kind::kInstant}, name);
}

void JsonEventOrder::Counter(format::Track t, std::string_view name, uint64_t ns, int64_t value) {
  Take({.ns = ns, .id = uint64_t(value), .t = t, .kind = Kind::kCounter}, name);
}

void JsonEventOrder::FlowPoint(format::Track t, bool start, uint64_t id, std::string_view name, uint64_t ns,
                               uint32_t cpu, uint32_t color, bool alone) {
  Take({.ns = ns,
        .id = id,
        .t = t,
        .cpu = cpu,
        .color = color,
        .kind = Kind::kFlowPoint,
        .start = start,
        .alone = alone},
       name);
}

void JsonEventOrder::Flow(format::Track t, bool start, uint64_t id, uint64_t ns) {
  Take({.ns = ns, .id = id, .t = t, .kind = Kind::kFlow, .start = start}, {});
}

void JsonEventOrder::Take(Held h, std::string_view name, std::string_view flag) {
  // "s"/"f" arrow ends keep their place: the writer puts them after the
  // slice events they bind to.
  if (!IsName(h.kind) && h.kind != Kind::kFlow) {
    TrackState& s = tracks_[h.t];
    if (h.ns < s.last_in) {
      if (mode_ == Mode::kStream) {
        ++out_of_order_;
      } else {
        ++reordered_;
        mode_ = Mode::kSort;
      }
    }
    s.last_in = std::max(s.last_in, h.ns);
  }
  if (mode_ == Mode::kStream) return Apply(h, name, flag);
  h.name = Intern(name);
  h.flag = Intern(flag);
  held_.push_back(h);
  if (mode_ == Mode::kHold && held_.size() >= hold_limit_) {
    Release();
    mode_ = Mode::kStream;
  }
}

uint32_t JsonEventOrder::Intern(std::string_view s) {
  if (s.empty()) return 0;
  const auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  const std::string_view stored = names_.emplace_back(s);
  const auto i = uint32_t(names_.size() - 1);
  index_.emplace(stored, i);
  return i;
}

void JsonEventOrder::Release() {
  for (const Held& h : held_) Apply(h, names_[h.name], names_[h.flag]);
  held_.clear();
  held_.shrink_to_fit();
}

// Time order, stable; names first. "X" events of one track that start
// together: longest first (a caller before its callees, so that they nest),
// in the places those "X" events had.
void JsonEventOrder::SortHeld() {
  const auto events = std::stable_partition(held_.begin(), held_.end(), [](const Held& h) { return IsName(h.kind); });
  std::stable_sort(events, held_.end(), [](const Held& a, const Held& b) { return a.ns < b.ns; });
  std::vector<std::pair<format::Track, size_t>> xs;  // a run's "X" events: track, place
  std::vector<Held> group;
  for (auto run = events; run != held_.end();) {
    const auto run_end = std::find_if(run, held_.end(), [&](const Held& h) { return h.ns != run->ns; });
    xs.clear();
    for (auto x = run; x != run_end; ++x) {
      if (x->kind == Kind::kComplete) xs.emplace_back(x->t, size_t(x - held_.begin()));
    }
    run = run_end;
    if (xs.size() < 2) continue;
    std::stable_sort(xs.begin(), xs.end(), [](const auto& a, const auto& b) { return TrackLess()(a.first, b.first); });
    for (size_t i = 0, j; i < xs.size(); i = j) {
      for (j = i + 1; j < xs.size() && xs[j].first == xs[i].first;) ++j;
      group.clear();
      for (size_t k = i; k < j; ++k) group.push_back(held_[xs[k].second]);
      std::stable_sort(group.begin(), group.end(), [](const Held& a, const Held& b) { return a.dur > b.dur; });
      for (size_t k = i; k < j; ++k) held_[xs[k].second] = group[k - i];
    }
  }
}

void JsonEventOrder::Finish() {
  if (mode_ == Mode::kSort) SortHeld();
  Release();
  for (auto& [t, s] : tracks_) CloseX(t, s, UINT64_MAX);
}

// Ends of "X" slices that end at or before `ns`, innermost first.
void JsonEventOrder::CloseX(format::Track t, TrackState& s, uint64_t ns) {
  while (!s.x_ends.empty() && s.x_ends.back() <= ns) {
    out_.OnEnd(t, {}, s.x_ends.back(), {});
    s.x_ends.pop_back();
  }
}

void JsonEventOrder::Apply(const Held& h, std::string_view name, std::string_view flag) {
  switch (h.kind) {
    case Kind::kProcess: return out_.OnProcess(h.t.pid, name);
    case Kind::kThread: return out_.OnThread(h.t, name);
    default: break;
  }
  // Before any event of a track, the "X" slices that ended before it end.
  TrackState& s = tracks_[h.t];
  CloseX(h.t, s, h.ns);
  switch (h.kind) {
    case Kind::kBegin:
    case Kind::kComplete: {
      out_.OnBegin(h.t, name, h.ns, h.cpu, h.color);
      if (h.id) out_.OnFlow(h.t, false, h.id, h.ns);
      if (h.id2) out_.OnFlow(h.t, true, h.id2, h.ns);
      if (h.kind == Kind::kBegin) return;
      // A slice on a track nests: one that would outlast the "X" around
      // it ends with it (else that one would be stretched to its end).
      uint64_t end = h.dur > UINT64_MAX - h.ns ? UINT64_MAX : h.ns + h.dur;
      if (!s.x_ends.empty() && end > s.x_ends.back()) {
        end = s.x_ends.back();
        ++x_clipped_;
      }
      s.x_ends.push_back(end);
      return;
    }
    case Kind::kEnd: return out_.OnEnd(h.t, name, h.ns, flag);
    case Kind::kInstant: return out_.OnInstant(h.t, name, h.ns, h.cpu, h.color);
    case Kind::kCounter: return out_.OnCounter(h.t, name, h.ns, int64_t(h.id));
    case Kind::kFlowPoint: return out_.OnFlowPoint(h.t, h.start, h.id, name, h.ns, h.cpu, h.color, h.alone);
    case Kind::kFlow: return out_.OnFlow(h.t, h.start, h.id, h.ns);
    default: return;
  }
}

}  // namespace mabutrace::host
