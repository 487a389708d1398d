// SPDX-License-Identifier: MIT
// trace_stats.cpp: see trace_stats.h.
#include "trace_stats.h"

#include <charconv>

#include <algorithm>
#include <cmath>
#include <limits>

#include "format/trace_vocabulary.h"

namespace mabutrace::stats {

namespace {
constexpr std::string_view kUnnamedFlow = "(unnamed)";
}  // namespace

// Fixed at the track's first keyed event (a name announced later does not
// move its slices to another key).
const std::string& TraceStats::ThreadKey(ThreadStats& th) {
  if (!th.key.empty()) return th.key;
  th.key = th.name;
  if (!thread_keys_.insert(th.key).second) {
    th.key += " (pid " + std::to_string(th.track.pid) + " tid " + std::to_string(th.track.tid) + ")";
    thread_keys_.insert(th.key);
  }
  return th.key;
}

std::string TraceStats::Key(Track t, std::string_view name) {
  if (options_.by == GroupBy::kName) return std::string(name);
  const std::string& thread = ThreadKey(Thread(t));
  if (options_.by == GroupBy::kThread) return thread;
  return std::string(name) + "@" + thread;
}

ThreadStats& TraceStats::Thread(Track t) {
  auto [it, fresh] = threads_.try_emplace({t.pid, t.tid});
  if (fresh) {
    it->second.track = t;
    it->second.name = "thread " + std::to_string(t.tid);
  }
  return it->second;
}

DurationStats& TraceStats::Durations(std::map<std::string, DurationStats, std::less<>>& m, const std::string& key) {
  auto it = m.find(key);
  if (it == m.end()) it = m.emplace(key, DurationStats(options_.exact_bound)).first;
  return it->second;
}

void TraceStats::AddInstance(DurationStats& d, Track t, uint64_t ns, uint64_t dur) {
  d.sketch.Add(dur);
  if (options_.top == 0) return;
  // Kept longest first; a tie keeps the earlier instance.
  if (d.longest.size() == options_.top && d.longest.back().dur >= dur) return;
  auto at = std::upper_bound(d.longest.begin(), d.longest.end(), dur,
                             [](uint64_t v, const Instance& i) { return v > i.dur; });
  d.longest.insert(at, Instance{ns, dur, Thread(t).name});
  if (d.longest.size() > options_.top) d.longest.pop_back();
}

void TraceStats::OnProcess(uint32_t pid, std::string_view name) { process_names_[pid] = std::string(name); }

void TraceStats::OnThread(Track t, std::string_view name) {
  ThreadStats& th = Thread(t);
  if (!name.empty()) th.name = std::string(name);
}

void TraceStats::OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t, uint32_t) {
  Seen(ns);
  Thread(t);
  TrackState& s = tracks_[{t.pid, t.tid}];
  DurationStats* d;
  if (options_.by == GroupBy::kName) {
    auto it = slices_.find(name);  // no key string made per event
    d = it != slices_.end() ? &it->second : &Durations(slices_, std::string(name));
  } else {
    d = &Durations(slices_, Key(t, name));
  }
  s.stack.push_back(Open{d, ns, 0, {}});
}

void TraceStats::OnEnd(Track t, std::string_view, uint64_t ns, std::string_view flag) {
  Seen(ns);
  TrackState& s = tracks_[{t.pid, t.tid}];
  if (s.stack.empty()) return;  // not after a Normalizer: nothing to close
  const Open o = s.stack.back();
  s.stack.pop_back();
  const uint64_t dur = ns - o.begin;
  o.stats->self += dur - std::min(dur, o.children);
  if (flag == format::flag::kOpenAtEnd) ++o.stats->open_at_end;
  AddInstance(*o.stats, t, o.begin, dur);
  if (!s.stack.empty()) {
    s.stack.back().children += dur;
    return;
  }
  ThreadStats& th = Thread(t);
  th.busy += dur;
  ++th.top_level;
  if (s.any_top && o.begin - s.last_top_end > th.longest_idle) {
    th.longest_idle = o.begin - s.last_top_end;
    th.idle_from = s.last_top_end;
    th.idle_to = o.begin;
  }
  s.any_top = true;
  s.last_top_end = ns;
}

void TraceStats::OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t, uint32_t) {
  Seen(ns);
  Thread(t);
  auto it = instants_.find(Key(t, name));
  if (it == instants_.end()) it = instants_.emplace(Key(t, name), 0).first;
  ++it->second;
}

int64_t CounterStats::Quantile(uint32_t per10000) const {
  const uint64_t n = at_or_above_zero.count() + below_zero.count();
  if (n == 0) return 0;
  const uint64_t neg = below_zero.count();
  if (neg == 0) return static_cast<int64_t>(at_or_above_zero.Quantile(per10000));
  // The sample of rank r (1-based, nearest rank) among all of them.
  uint64_t r = static_cast<uint64_t>(std::ceil(static_cast<long double>(per10000) / 10000 * n));
  r = std::clamp<uint64_t>(r, 1, n);
  if (r > neg) {  // among those >= 0: rank r − neg of them
    const uint64_t k = r - neg, m = at_or_above_zero.count();
    return static_cast<int64_t>(at_or_above_zero.Quantile(
        static_cast<uint32_t>(std::clamp<long double>(std::floor(10000.0L * k / m), 0, 10000))));
  }
  // Among the negative ones, rank r from the most negative: the
  // (neg − r + 1)-th smallest magnitude.
  const uint64_t k = neg - r + 1;
  const uint64_t mag =
      below_zero.Quantile(static_cast<uint32_t>(std::clamp<long double>(std::floor(10000.0L * k / neg), 0, 10000)));
  return mag >= uint64_t(1) << 63 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(mag);
}

void TraceStats::OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) {
  Seen(ns);
  Thread(t);
  auto it = counters_.find(name);
  if (it == counters_.end()) it = counters_.try_emplace(std::string(name)).first;
  CounterStats& c = it->second;
  if (value >= 0) {
    c.at_or_above_zero.Add(static_cast<uint64_t>(value));
  } else {
    c.below_zero.Add(0 - static_cast<uint64_t>(value));  // also INT64_MIN
  }
  if (c.count == 0) {
    c.min = c.max = value;
    c.first_ns = c.last_ns = ns;
  } else {
    // Samples of one counter from several threads may arrive out of time
    // order: an earlier one counts from the previous sample's time.
    if (ns < c.last_ns) ns = c.last_ns;
    c.weighted += static_cast<long double>(c.last) * static_cast<long double>(ns - c.last_ns);
    c.last_ns = ns;
    c.min = std::min(c.min, value);
    c.max = std::max(c.max, value);
  }
  if (c.count % c.stride == 0) {
    if (c.series.size() == CounterStats::kMaxSeries) {
      for (size_t i = 0; 2 * i < c.series.size(); ++i) c.series[i] = c.series[2 * i];
      c.series.resize(c.series.size() / 2);
      c.stride *= 2;
    }
    if (c.count % c.stride == 0) c.series.emplace_back(ns, value);
  }
  ++c.count;
  c.sum += value;
  c.last = value;
}

double TraceStats::TimeWeightedMean(const CounterStats& c) const {
  if (c.count == 0) return 0;
  const uint64_t end = std::max(end_ns_, c.last_ns);
  if (end == c.first_ns) return double(c.last);
  const long double total = c.weighted + static_cast<long double>(c.last) * static_cast<long double>(end - c.last_ns);
  return double(total / static_cast<long double>(end - c.first_ns));
}

// An arrow that starts inside a slice an earlier arrow ended in (on this
// track, innermost first) continues that arrow's chain.
void TraceStats::StartFlow(Track t, uint64_t id, std::string_view name, uint64_t ns) {
  if (name.empty()) name = kUnnamedFlow;
  const std::string key = Key(t, name);
  DurationStats& d = Durations(flows_, key);
  FlowStart f{&d, ns, t, Chain{key, ns, t, 1}};
  auto ts = tracks_.find({t.pid, t.tid});
  if (ts != tracks_.end()) {
    for (auto o = ts->second.stack.rbegin(); o != ts->second.stack.rend(); ++o) {
      if (!o->chain.hops) continue;
      f.chain = Chain{o->chain.key + " → " + key, o->chain.first_ns, o->chain.first_track, o->chain.hops + 1};
      break;
    }
  }
  open_flows_[id] = std::move(f);
}

void TraceStats::EndFlow(Track t, uint64_t id, uint64_t ns, bool attach) {
  auto it = open_flows_.find(id);
  if (it == open_flows_.end()) return;  // not after a Normalizer
  FlowStart f = std::move(it->second);
  open_flows_.erase(it);
  // Chunks of threads arrive out of order, but an arrow end is recorded
  // after its start; an end stamped earlier (clock skew) counts as 0.
  AddInstance(*f.stats, f.track, f.ns, ns > f.ns ? ns - f.ns : 0);
  if (f.chain.hops >= 2) {
    AddInstance(Durations(chains_, f.chain.key), f.chain.first_track, f.chain.first_ns,
                ns > f.chain.first_ns ? ns - f.chain.first_ns : 0);
  }
  // The slice this arrow ends in carries its chain on (an arrow end bound
  // late, OnFlow, is no longer in the slice open now).
  if (!attach) return;
  auto ts = tracks_.find({t.pid, t.tid});
  if (ts != tracks_.end() && !ts->second.stack.empty()) ts->second.stack.back().chain = std::move(f.chain);
}

void TraceStats::OnFlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t, uint32_t,
                             bool) {
  Seen(ns);
  Thread(t);
  if (start) {
    if (id) {
      StartFlow(t, id, name, ns);
    } else {
      unbound_starts_[{t.pid, t.tid, ns}] = std::string(name);
    }
  } else if (id) {
    EndFlow(t, id, ns, true);
  }
}

void TraceStats::OnFlow(Track t, bool start, uint64_t id, uint64_t ns) {
  Seen(ns);
  if (!start) {
    EndFlow(t, id, ns, false);
    return;
  }
  auto it = unbound_starts_.find({t.pid, t.tid, ns});
  std::string name = it != unbound_starts_.end() ? std::move(it->second) : std::string();
  if (it != unbound_starts_.end()) unbound_starts_.erase(it);
  StartFlow(t, id, name, ns);
}

namespace {

// "[INPUT.]ete.function_instructions[_total].NAME" → the function's key
// ("[INPUT.]NAME") and which count; false for any other key.
bool FunctionKey(std::string_view key, std::string* function, bool* total, bool* prefixed) {
  constexpr std::string_view kSelf = "ete.function_instructions.", kTotal = "ete.function_instructions_total.";
  for (const std::string_view tag : {kSelf, kTotal}) {
    const size_t at = key.find(tag);
    if (at == std::string_view::npos || (at && key[at - 1] != '.')) continue;
    *function = std::string(key.substr(0, at)) + std::string(key.substr(at + tag.size()));
    *prefixed = at != 0;
    *total = tag == kTotal;
    return true;
  }
  return false;
}

}  // namespace

void TraceStats::OnMetadata(std::string_view key, int64_t value) {
  std::string function;
  bool total = false, prefixed = false;
  if (FunctionKey(key, &function, &total, &prefixed) && value >= 0) {
    function_inputs_ = function_inputs_ || prefixed;
    FunctionInstructions& f = functions_[function];
    (total ? f.total : f.self) += static_cast<uint64_t>(value);
    return;
  }
  metadata_.push_back({std::string(key), std::to_string(value), true});
}

void TraceStats::OnMetadata(std::string_view key, std::string_view value) {
  std::string function;
  bool total = false, prefixed = false;
  uint64_t n = 0;
  if (FunctionKey(key, &function, &total, &prefixed)) {  // a reader that gives numbers as text (.json)
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec == std::errc() && end == value.data() + value.size()) {
      function_inputs_ = function_inputs_ || prefixed;
      FunctionInstructions& f = functions_[function];
      (total ? f.total : f.self) += n;
      return;
    }
  }
  metadata_.push_back({std::string(key), std::string(value), false});
}

bool TraceStats::Finish() {
  for (auto& [key, t] : threads_) {
    const auto it = process_names_.find(t.track.pid);
    if (it != process_names_.end()) t.process = it->second;
  }
  return true;
}

}  // namespace mabutrace::stats
