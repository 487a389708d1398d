// SPDX-License-Identifier: MIT
#include "test_util.h"
#include <algorithm>

#include <gtest/gtest.h>
#include <math.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <set>

#include "ring_buffer.h"

namespace mt_test {

using mabutrace::RecordType;

ReadResult ReadAll() {
  ReadResult res;
  mabutrace::Runtime* rt = mabutrace::BeginExport();
  if (!rt) return res;
  res.initialized = true;
  {
    mabutrace::ChunkReader snap(*rt);
    res.chunks_listed = snap.size();
    for (uint32_t i = 0; i < snap.size(); ++i) {
      mabutrace::ChunkCopy info;
      if (!snap.Load(i, &info)) {
        ++res.chunks_lost;
        continue;
      }
      const bool ok = snap.ForEach(info, [&](const mabutrace::Record& r) {
        res.records.push_back(Rec{r, info.tid, info.thread, info.seq});
      });
      if (!ok) ++res.corrupt_chunks;
    }
  }
  mabutrace::EndExport(rt);
  return res;
}

std::vector<Rec> OfType(const std::vector<Rec>& recs, RecordType type) {
  std::vector<Rec> out;
  for (const Rec& r : recs)
    if (r.r.type == type) out.push_back(r);
  return out;
}

uint64_t MonotonicNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

uint32_t Gettid() { return uint32_t(syscall(SYS_gettid)); }

std::atomic<uint64_t> FakeClock::now{1000};
std::atomic<uint64_t> FakeClock::calls{0};
uint64_t FakeClock::Read() {
  calls.fetch_add(1, std::memory_order_relaxed);
  return now.load(std::memory_order_relaxed);
}

static int AppendToString(void* user, const char* data, size_t len) {
  static_cast<std::string*>(user)->append(data, len);
  return 0;
}

std::string ExportText(int* rc) {
  std::string s;
  const int r = mabutrace_export_json(AppendToString, &s);
  if (rc) *rc = r;
  return s;
}

json ParseStrict(const std::string& text) {
  try {
    return json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const json::parse_error& e) {
    const size_t at = e.byte > 0 ? e.byte - 1 : 0;
    const size_t from = at > 120 ? at - 120 : 0;
    ADD_FAILURE() << "invalid JSON: " << e.what() << "\n  near: "
                  << json(text.substr(from, 240)).dump(-1, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace);
    return json();
  }
}

uint64_t TraceInfo::Meta(const char* key) const {
  if (!metadata.is_object() || !metadata.contains(key) || !metadata[key].is_number_unsigned()) {
    ADD_FAILURE() << "metadata." << key << " missing or not an unsigned integer";
    return ~uint64_t{0};
  }
  return metadata[key].get<uint64_t>();
}

std::vector<json> TraceInfo::Find(const std::string& ph, const std::string& name) const {
  std::vector<json> out;
  for (const json& e : events)
    if (e["ph"] == ph && (name.empty() || e["name"] == name)) out.push_back(e);
  return out;
}

std::vector<json> TraceInfo::OnTid(uint64_t tid) const {
  std::vector<json> out;
  for (const json& e : events)
    if (e["tid"] == tid) out.push_back(e);
  return out;
}

uint64_t TsNs(const json& ev) {
  const double us = ev.at("ts").get<double>();
  return uint64_t(llround(us * 1000.0));
}

bool IsReservedCname(const std::string& name) {
  static const std::set<std::string> kNames = {"thread_state_uninterruptible",
                                               "thread_state_iowait",
                                               "thread_state_running",
                                               "thread_state_runnable",
                                               "thread_state_sleeping",
                                               "thread_state_unknown",
                                               "background_memory_dump",
                                               "light_memory_dump",
                                               "detailed_memory_dump",
                                               "vsync_highlight_color",
                                               "generic_work",
                                               "good",
                                               "bad",
                                               "terrible",
                                               "black",
                                               "grey",
                                               "white",
                                               "yellow",
                                               "olive",
                                               "rail_response",
                                               "rail_animation",
                                               "rail_idle",
                                               "rail_load",
                                               "startup",
                                               "heap_dump_stack_frame",
                                               "heap_dump_object_type",
                                               "heap_dump_child_node_arrow",
                                               "cq_build_running",
                                               "cq_build_passed",
                                               "cq_build_failed",
                                               "cq_build_abandoned",
                                               "cq_build_attempt_runnig",
                                               "cq_build_attempt_passed",
                                               "cq_build_attempt_failed"};
  return kNames.count(name) != 0;
}

static bool IsId(const json& v) {
  return v.is_number_unsigned() && v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= 0xFFFFFFFFull;
}

static bool IsColorString(const json& v) {
  if (!v.is_string()) return false;
  const std::string s = v.get<std::string>();
  if (s.size() != 7 || s[0] != '#') return false;
  for (size_t i = 1; i < 7; ++i)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
  return true;
}

TraceInfo CheckTrace(const json& j) {
  TraceInfo info;
  if (!j.is_object()) {
    ADD_FAILURE() << "trace is not a JSON object";
    return info;
  }
  if (!j.contains("traceEvents") || !j["traceEvents"].is_array()) {
    ADD_FAILURE() << "no traceEvents array";
    return info;
  }
  EXPECT_EQ(j.value("displayTimeUnit", ""), "ns");
  if (!j.contains("metadata") || !j["metadata"].is_object()) {
    ADD_FAILURE() << "no metadata object";
  } else {
    info.metadata = j["metadata"];
    EXPECT_EQ(info.metadata.value("producer", ""), "mabutrace");
  }

  struct Open {
    std::string name, cat;
    uint64_t ts;
  };
  struct PerTid {
    std::vector<Open> stack;
    std::vector<std::pair<uint64_t, uint64_t>> slices;  // [B, E] of closed slices
    bool have_ts = false;
    uint64_t last_ts = 0;
  };
  // Flow ends bind by time, not by file position: the exporter writes an end
  // whose start came later in its walk after all slices (as Perfetto's own
  // JSON export does), so it is checked against the closed slices at the end.
  struct FlowEndAt {
    uint64_t tid, ts;
    json ev;
  };
  std::vector<FlowEndAt> flow_end_points;
  std::map<uint64_t, PerTid> tids;
  std::set<uint64_t> flow_starts;
  std::vector<std::pair<uint64_t, size_t>> flow_ends;  // id, event index
  uint64_t pid = 0;
  bool sound = true;
  auto fail = [&](const json& ev, const std::string& why) {
    ADD_FAILURE() << why << ": " << ev.dump();
    sound = false;
  };

  size_t index = 0;
  for (const json& ev : j["traceEvents"]) {
    ++index;
    if (!ev.is_object() || !ev.contains("ph") || !ev["ph"].is_string() || ev["ph"].get<std::string>().size() != 1) {
      fail(ev, "event without a one-character ph");
      continue;
    }
    const char ph = ev["ph"].get<std::string>()[0];
    if (!ev.contains("name") || !ev["name"].is_string()) fail(ev, "event without a name");
    if (!ev.contains("pid") || !IsId(ev["pid"])) fail(ev, "pid not an integer in 1..2^32-1");
    if (!ev.contains("tid") || !IsId(ev["tid"])) fail(ev, "tid not an integer in 1..2^32-1");
    if (!sound) continue;
    if (pid == 0) pid = ev["pid"].get<uint64_t>();
    if (ev["pid"].get<uint64_t>() != pid) fail(ev, "more than one pid");
    const uint64_t tid = ev["tid"].get<uint64_t>();
    const std::string name = ev["name"].get<std::string>();

    if (ph == 'M') {
      if (!ev.contains("args") || !ev["args"].contains("name") || !ev["args"]["name"].is_string()) {
        fail(ev, "M event without args.name");
      } else if (name == "process_name") {
        info.process_name = ev["args"]["name"].get<std::string>();
      } else if (name == "thread_name") {
        if (info.thread_names.count(tid)) fail(ev, "second thread_name for a tid");
        info.thread_names[tid] = ev["args"]["name"].get<std::string>();
      } else {
        fail(ev, "unexpected M event");
      }
      continue;
    }
    if (!ev.contains("ts") || !ev["ts"].is_number() || ev["ts"].get<double>() < 0) {
      fail(ev, "event without a non-negative numeric ts");
      continue;
    }
    if (!info.thread_names.count(tid)) fail(ev, "event before its thread's thread_name");
    const uint64_t ts = TsNs(ev);
    PerTid& t = tids[tid];
    if (ph != 'f') {
      if (t.have_ts && ts < t.last_ts) fail(ev, "ts goes backwards on this tid");
      t.have_ts = true;
      t.last_ts = ts;
    }

    if (ev.contains("cname") && (!ev["cname"].is_string() || !IsReservedCname(ev["cname"].get<std::string>()))) {
      fail(ev, "cname is not a Catapult reserved colour name");
    }
    if (ev.contains("args") && ev["args"].is_object() && ev["args"].contains("color") &&
        !IsColorString(ev["args"]["color"])) {
      fail(ev, "args.color is not #rrggbb");
    }
    const std::string cat = ev.value("cat", "");
    switch (ph) {
      case 'B': t.stack.push_back(Open{name, cat, ts}); break;
      case 'E':
        if (t.stack.empty()) {
          fail(ev, "E without an open B");
        } else {
          const Open& o = t.stack.back();
          if (o.name != name || o.cat != cat) fail(ev, "E does not match its B (" + o.name + ")");
          if (ts <= o.ts) fail(ev, "E not later than its B");
          t.slices.emplace_back(o.ts, ts);
          t.stack.pop_back();
        }
        break;
      case 'i':
        if (ev.value("s", "") != "t") fail(ev, "instant without \"s\":\"t\"");
        break;
      case 'C': {
        const json& a = ev.contains("args") ? ev["args"] : json();
        if (!a.is_object() || a.size() != 1 || !a.contains("value") || !a["value"].is_number_integer())
          fail(ev, "counter args must be exactly {\"value\":<integer>}");
        break;
      }
      case 's':
      case 'f': {
        if (ph == 's' && t.stack.empty()) fail(ev, "flow start outside any open slice");
        if (ph == 'f') flow_end_points.push_back(FlowEndAt{tid, ts, ev});
        if (!ev.contains("id") || !ev["id"].is_number_unsigned()) {
          fail(ev, "flow without a numeric id");
          break;
        }
        const uint64_t id = ev["id"].get<uint64_t>();
        if (ph == 's') {
          if (!flow_starts.insert(id).second) fail(ev, "flow id started twice");
        } else {
          if (ev.value("bp", "") != "e") fail(ev, "flow end without \"bp\":\"e\"");
          flow_ends.emplace_back(id, index);
        }
        break;
      }
      default: fail(ev, "unexpected ph");
    }
    info.events.push_back(ev);
  }
  for (const auto& [id, at] : flow_ends) {
    if (!flow_starts.count(id)) {
      ADD_FAILURE() << "flow end (f) id " << id << " (event #" << at << ") has no flow start (s) in the file";
      sound = false;
    }
  }
  for (const FlowEndAt& f : flow_end_points) {
    const auto& sl = tids[f.tid].slices;
    const bool enclosed =
        std::any_of(sl.begin(), sl.end(), [&](const auto& s) { return s.first <= f.ts && f.ts <= s.second; });
    if (!enclosed) fail(f.ev, "flow end outside every slice of its thread");
  }
  for (const auto& [tid, t] : tids) {
    if (!t.stack.empty()) {
      ADD_FAILURE() << "tid " << tid << " ends with " << t.stack.size() << " open slice(s), innermost "
                    << t.stack.back().name;
      sound = false;
    }
  }
  if (info.process_name.empty() && index > 0) {
    ADD_FAILURE() << "no process_name";
    sound = false;
  }
  info.ok = sound;
  return info;
}

TraceInfo ExportAndCheck() {
  int rc = -100;
  const std::string text = ExportText(&rc);
  EXPECT_EQ(rc, MABUTRACE_OK);
  if (rc != MABUTRACE_OK) return TraceInfo{};
  EXPECT_FALSE(text.empty());
  if (!text.empty()) {
    EXPECT_EQ(text.back(), '\n');
  }
  const json j = ParseStrict(text);
  if (j.is_null()) return TraceInfo{};
  return CheckTrace(j);
}

mabutrace_config_t Config(size_t buffer_size) {
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = buffer_size;
  return cfg;
}

}  // namespace mt_test
