// SPDX-License-Identifier: MIT
#include "trace_checks.h"

#include <algorithm>
#include <sstream>
#include <tuple>

using nlohmann::json;

namespace {

using ThreadId = std::pair<uint64_t, uint64_t>;  // (pid, tid)

struct Open {
  std::string name, cat;
  double ts;
};

struct Slice {
  double begin, end;
};

struct ThreadWalk {
  std::vector<Open> stack;
  std::vector<Slice> slices;    // closed ones, for flow ends
  std::vector<double> max_end;  // IndexSlices
  double last_ts = -1;
  bool has_events = false;
};

struct PendingFlowEnd {
  size_t index;
  ThreadId thread;
  double ts;
};

// Sorts t.slices by begin and records, for each prefix, the latest end, so
// that Enclosed() is a binary search.
void IndexSlices(ThreadWalk& t) {
  std::sort(t.slices.begin(), t.slices.end(), [](const Slice& a, const Slice& b) { return a.begin < b.begin; });
  t.max_end.resize(t.slices.size());
  double m = -1;
  for (size_t i = 0; i < t.slices.size(); ++i) t.max_end[i] = m = std::max(m, t.slices[i].end);
}

// Is ts inside a slice of t: begin <= ts < end? The end is exclusive because
// Perfetto sorts an E before anything else at the same ts, so an f there
// would find the slice already closed.
bool Enclosed(const ThreadWalk& t, double ts) {
  const auto after =
      std::upper_bound(t.slices.begin(), t.slices.end(), ts, [](double v, const Slice& s) { return v < s.begin; });
  const size_t n = size_t(after - t.slices.begin());  // slices beginning at or before ts
  return n > 0 && t.max_end[n - 1] > ts;
}

using FlowKey = std::tuple<uint64_t, std::string, std::string>;  // id, cat, name

std::string Str(const json& e, const char* key) {
  const auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A JSON integer >= 0 (parsed ones are "unsigned", built ones may not be).
bool IsUnsigned(const json& v) { return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0); }

bool IsId(const json& v) { return IsUnsigned(v) && v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= 0xFFFFFFFFull; }

std::string Where(size_t i, const json& e) {
  std::ostringstream os;
  os << "event #" << i << " " << e.dump().substr(0, 160);
  return os.str();
}

// The tid -> thread name map of a document (later duplicates ignored).
std::map<ThreadId, std::string> ThreadNames(const json& events) {
  std::map<ThreadId, std::string> names;
  for (const json& e : events) {
    if (!e.is_object() || Str(e, "ph") != "M" || Str(e, "name") != "thread_name") continue;
    if (!IsId(e.value("pid", json())) || !IsId(e.value("tid", json()))) continue;
    const json& args = e.value("args", json::object());
    if (!args.is_object()) continue;
    names.emplace(ThreadId{e["pid"].get<uint64_t>(), e["tid"].get<uint64_t>()}, Str(args, "name"));
  }
  return names;
}

bool IsContiguousRun(const std::vector<int64_t>& run, const std::vector<int64_t>& in) {
  if (run.empty()) return true;
  if (run.size() > in.size()) return false;
  for (size_t start = 0; start + run.size() <= in.size(); ++start) {
    if (std::equal(run.begin(), run.end(), in.begin() + long(start))) return true;
  }
  return false;
}

bool IsSuffix(const std::vector<int64_t>& run, const std::vector<int64_t>& in) {
  return run.size() <= in.size() && std::equal(run.begin(), run.end(), in.end() - long(run.size()));
}

bool IsSubsequence(const std::vector<int64_t>& run, const std::vector<int64_t>& in) {
  size_t j = 0;
  for (size_t i = 0; i < in.size() && j < run.size(); ++i) {
    if (in[i] == run[j]) ++j;
  }
  return j == run.size();
}

std::string Show(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << "[" << v.size() << " values:";
  const size_t n = std::min<size_t>(v.size(), 12);
  for (size_t i = 0; i < n; ++i) os << " " << v[i];
  if (v.size() > n) os << " ... " << v.back();
  os << "]";
  return os.str();
}

uint64_t MetaValue(const json& doc, const char* key) {
  const json& meta = doc.value("metadata", json::object());
  if (!meta.is_object()) return 0;
  const auto it = meta.find(key);
  return it != meta.end() && IsUnsigned(*it) ? it->get<uint64_t>() : 0;
}

}  // namespace

std::optional<json> ParseJson(const std::string& text, std::string* error) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    *error = e.what();
    return std::nullopt;
  }
}

Problems CheckTrace(const json& doc, TraceFacts* facts) {
  Problems p;
  TraceFacts local;
  TraceFacts& f = facts ? *facts : local;
  f = TraceFacts{};
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    p.push_back("not an object with a traceEvents array");
    return p;
  }
  const json& events = doc["traceEvents"];
  std::map<ThreadId, ThreadWalk> threads;
  std::map<ThreadId, std::string> thread_names;
  std::set<uint64_t> named_processes, pids_with_events;
  std::map<uint64_t, FlowKey> flow_starts;            // id -> key
  std::vector<std::pair<size_t, FlowKey>> flow_ends;  // checked after the walk
  std::vector<PendingFlowEnd> pending_ends;           // enclosure, after the walk

  for (size_t i = 0; i < events.size(); ++i) {
    const json& e = events[i];
    if (!e.is_object()) {
      p.push_back(Where(i, e) + ": not an object");
      continue;
    }
    const std::string ph = Str(e, "ph");
    const std::string name = Str(e, "name");
    if (!IsId(e.value("pid", json())) || !IsId(e.value("tid", json()))) {
      p.push_back(Where(i, e) + ": pid/tid missing or not an integer in 1..2^32-1");
      continue;
    }
    const ThreadId id{e["pid"].get<uint64_t>(), e["tid"].get<uint64_t>()};
    if (ph == "M") {
      const json& args = e.value("args", json());
      const std::string value = args.is_object() ? Str(args, "name") : std::string();
      if (name == "process_name") {
        if (value.empty()) p.push_back(Where(i, e) + ": empty process name");
        named_processes.insert(id.first);
      } else if (name == "thread_name") {
        if (value.empty()) p.push_back(Where(i, e) + ": empty thread name");
        const auto [it, fresh] = thread_names.emplace(id, value);
        if (!fresh && it->second != value) {
          p.push_back(Where(i, e) + ": second, different name for the thread ('" + it->second + "')");
        }
        f.thread_names.insert(value);
      } else {
        p.push_back(Where(i, e) + ": unexpected metadata event");
      }
      continue;
    }
    if (ph.size() != 1 || std::string("BEiCsf").find(ph) == std::string::npos) {
      p.push_back(Where(i, e) + ": unexpected phase");
      continue;
    }
    if (name.empty()) p.push_back(Where(i, e) + ": no name (DevTools rejects it)");
    const auto ts_it = e.find("ts");
    if (ts_it == e.end() || !ts_it->is_number() || ts_it->get<double>() < 0) {
      p.push_back(Where(i, e) + ": ts missing or negative");
      continue;
    }
    const double ts = ts_it->get<double>();
    ThreadWalk& t = threads[id];
    t.has_events = true;
    pids_with_events.insert(id.first);
    // Flow ends are exempt: their position in the file does not matter to
    // the viewers ("bp":"e" binds by time), and the exporter may write an
    // end after the walk, once it knows its start was written.
    if (ph != "f") {
      if (ts < t.last_ts) {
        p.push_back(Where(i, e) + ": ts goes back on its thread (previous " + std::to_string(t.last_ts) + ")");
      }
      t.last_ts = std::max(t.last_ts, ts);
    }
    const std::string cat = Str(e, "cat");
    switch (ph[0]) {
      case 'B':
        t.stack.push_back(Open{name, cat, ts});
        ++f.slices[name];
        break;
      case 'E':
        if (t.stack.empty()) {
          p.push_back(Where(i, e) + ": E without an open B on its thread");
        } else {
          if (t.stack.back().name != name || t.stack.back().cat != cat) {
            p.push_back(Where(i, e) + ": E does not match the innermost open B ('" + t.stack.back().name + "', cat '" +
                        t.stack.back().cat + "')");
          }
          t.slices.push_back(Slice{t.stack.back().ts, ts});
          t.stack.pop_back();
        }
        break;
      case 'i':
        if (e.contains("s") && Str(e, "s") != "t") p.push_back(Where(i, e) + ": not thread-scoped");
        ++f.instants[name];
        break;
      case 'C': {
        const json& args = e.value("args", json());
        if (!args.is_object() || !args.contains("value") || !args["value"].is_number_integer()) {
          p.push_back(Where(i, e) + ": counter without an integer args.value");
        }
        break;
      }
      case 's':
      case 'f': {
        if (!e.contains("id") || !IsUnsigned(e["id"])) {
          p.push_back(Where(i, e) + ": flow id missing or not an unsigned integer");
          break;
        }
        const FlowKey key{e["id"].get<uint64_t>(), cat, name};
        if (ph[0] == 's') {
          // Binds to the slice open when it is read (same in time order,
          // since everything but flow ends is in time order on a thread).
          if (t.stack.empty()) p.push_back(Where(i, e) + ": flow start outside any slice");
          ++f.flow_starts;
          if (!flow_starts.emplace(std::get<0>(key), key).second) {
            p.push_back(Where(i, e) + ": flow id used by an earlier s");
          }
        } else {
          if (Str(e, "bp") != "e") p.push_back(Where(i, e) + ": f without \"bp\":\"e\"");
          flow_ends.emplace_back(i, key);
          pending_ends.push_back(PendingFlowEnd{i, id, ts});
        }
        break;
      }
    }
  }

  for (const auto& [i, key] : flow_ends) {
    const auto it = flow_starts.find(std::get<0>(key));
    if (it == flow_starts.end() || it->second != key) {
      p.push_back(Where(i, events[i]) + ": f without an s of the same id, cat and name");
    } else {
      ++f.flow_ends;
    }
  }
  for (auto& [id, t] : threads) IndexSlices(t);
  for (const PendingFlowEnd& end : pending_ends) {
    if (!Enclosed(threads[end.thread], end.ts)) {
      p.push_back(Where(end.index, events[end.index]) + ": flow end inside no slice of its thread (begin <= ts < end)");
    }
  }
  for (const auto& [id, t] : threads) {
    const std::string where = "thread pid " + std::to_string(id.first) + " tid " + std::to_string(id.second);
    for (const Open& o : t.stack) p.push_back(where + ": B '" + o.name + "' never ends");
    if (t.has_events && !thread_names.count(id)) p.push_back(where + ": no thread_name");
  }
  for (uint64_t pid : pids_with_events) {
    if (!named_processes.count(pid)) p.push_back("pid " + std::to_string(pid) + ": no process_name");
  }

  const auto meta = doc.find("metadata");
  if (meta == doc.end() || !meta->is_object()) {
    p.push_back("no metadata object");
  } else {
    for (const auto& [key, value] : meta->items()) {
      if (IsUnsigned(value)) f.metadata[key] = value.get<uint64_t>();
    }
    for (const char* key : {"events_written", "events_overwritten", "events_dropped"}) {
      if (!f.metadata.count(key)) p.push_back(std::string("metadata: no unsigned ") + key);
    }
    if (f.metadata["events_overwritten"] > f.metadata["events_written"]) {
      p.push_back("metadata: more events overwritten than written");
    }
  }
  return p;
}

CounterLog ParseCounterLog(std::istream& in, Problems* problems) {
  CounterLog log;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    std::istringstream ls(line);
    std::string counter, thread, extra;
    int64_t value = 0;
    if (!(ls >> counter >> value >> thread) || (ls >> extra)) {
      problems->push_back("counter log line " + std::to_string(n) + " malformed: '" + line + "'");
      continue;
    }
    log[{counter, thread}].push_back(value);
  }
  return log;
}

Problems CheckCounters(const json& doc, const CounterLog& log, bool final) {
  Problems p;
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    p.push_back("not an object with a traceEvents array");
    return p;
  }
  const json& events = doc["traceEvents"];
  const std::map<ThreadId, std::string> names = ThreadNames(events);
  CounterLog traced;
  for (const json& e : events) {
    if (!e.is_object() || Str(e, "ph") != "C") continue;
    if (!IsId(e.value("pid", json())) || !IsId(e.value("tid", json()))) continue;
    const json& args = e.value("args", json());
    if (!args.is_object() || !args.contains("value") || !args["value"].is_number_integer()) continue;
    const ThreadId id{e["pid"].get<uint64_t>(), e["tid"].get<uint64_t>()};
    const auto it = names.find(id);
    const std::string thread = it != names.end() ? it->second : "tid " + std::to_string(id.second);
    traced[{Str(e, "name"), thread}].push_back(args["value"].get<int64_t>());
  }

  const bool gaps = MetaValue(doc, "events_dropped") > 0 || MetaValue(doc, "chunks_lost_during_export") > 0;
  const bool complete = final && !gaps && MetaValue(doc, "events_overwritten") == 0;
  for (const auto& [key, values] : traced) {
    const std::string what = "counter '" + key.first + "' of thread '" + key.second + "'";
    const auto it = log.find(key);
    if (it == log.end()) {
      p.push_back(what + ": in the trace " + Show(values) + " but never logged");
      continue;
    }
    const std::vector<int64_t>& logged = it->second;
    if (gaps) {
      if (!IsSubsequence(values, logged)) {
        p.push_back(what + ": trace " + Show(values) + " is not in the logged order " + Show(logged));
      }
    } else if (complete) {
      if (values != logged) {
        p.push_back(what + ": nothing was overwritten, but trace " + Show(values) + " != log " + Show(logged));
      }
    } else if (final) {
      if (!IsSuffix(values, logged)) {
        p.push_back(what + ": trace " + Show(values) + " is not the newest part of the log " + Show(logged));
      }
    } else if (!IsContiguousRun(values, logged)) {
      p.push_back(what + ": trace " + Show(values) + " is not a contiguous run of the log " + Show(logged));
    }
  }
  if (complete) {
    for (const auto& [key, values] : log) {
      if (!traced.count(key)) {
        p.push_back("counter '" + key.first + "' of thread '" + key.second + "': logged " + Show(values) +
                    " but not in the trace, though nothing was overwritten");
      }
    }
  }
  return p;
}

std::string Summarize(const Problems& problems, size_t max) {
  std::ostringstream os;
  for (size_t i = 0; i < problems.size() && i < max; ++i) os << "  " << problems[i] << "\n";
  if (problems.size() > max) os << "  ... and " << problems.size() - max << " more\n";
  return os.str();
}
