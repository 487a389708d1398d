// SPDX-License-Identifier: MIT
// roundtrip_property_test.cpp: the round-trip property of R-C3 / issue 3.
//
// For many random event programs: record them with the real runtime (a fake
// clock, each thread pinned to a CPU), stream them through the output
// callback, run the real `mabutrace convert` on the stream, parse the Chrome
// JSON it writes, and check that what comes out equals what went in:
// names, timestamps (exact ns), counter values, flows (both ends, on the
// right thread and time), thread names and the CPU of every event.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "child_process.h"
#include "mabutrace/mabutrace.h"
#include "test_util.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using mt_test::FakeClock;

namespace {

// Names exercise JSON escaping and UTF-8 on the way through. They are
// string literals: the runtime stores the pointer.
const char* const kNames[] = {"parse",           "render",    "a \"quoted\" name",
                              "back\\slash",     "tab\there", "caf\xc3\xa9",
                              "\xe2\x9c\x93 ok", "x",         "long name long name long name long name long name"};
const char* const kCounters[] = {"queue depth",
                                 "temp \xc2\xb0"
                                 "C",
                                 "bytes"};
constexpr size_t kNumNames = sizeof(kNames) / sizeof(kNames[0]);
constexpr size_t kNumCounters = sizeof(kCounters) / sizeof(kCounters[0]);

std::string g_stream;
void Capture(const uint8_t* data, size_t len) { g_stream.append(reinterpret_cast<const char*>(data), len); }

// One event as the JSON should show it.
struct Expected {
  char ph;           // 'B', 'E', 'i', 'C'
  std::string name;  // "" for E
  uint64_t ns;
  uint32_t cpu;   // B and i only
  int64_t value;  // C only
  bool operator==(const Expected&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Expected& e) {
  return os << e.ph << " '" << e.name << "' ns=" << e.ns << " cpu=" << e.cpu << " v=" << e.value;
}

struct FlowEnd {
  uint32_t tid;
  uint64_t ns;
  auto operator<=>(const FlowEnd&) const = default;
};

struct Program {
  uint64_t origin = 0;
  std::map<uint32_t, std::vector<Expected>> per_tid;
  std::map<uint32_t, std::string> thread_names;
  std::set<std::pair<FlowEnd, FlowEnd>> flows;  // (out, in)
};

uint64_t Ns(const Program& p) { return FakeClock::now.load() - p.origin; }

// Runs one random thread body on the calling thread (already pinned).
// `open_links` carries started-but-unfinished flows between threads.
struct OpenFlow {
  uint16_t link;
  FlowEnd out;
};

void RunThread(std::mt19937& rng, Program& p, int index, std::vector<OpenFlow>& open_links) {
  const uint32_t tid = uint32_t(::gettid());
  const uint32_t cpu = uint32_t(::sched_getcpu());
  char name[32];
  std::snprintf(name, sizeof name, "worker %d \xe2\x9c\x93", index);
  mabutrace_set_thread_name(name);
  p.thread_names[tid] = name;
  auto& out = p.per_tid[tid];
  std::vector<mabutrace_scope_t> stack;
  auto tick = [&] { FakeClock::now += 1 + rng() % 5000; };

  const int ops = 20 + int(rng() % 150);
  for (int i = 0; i < ops; ++i) {
    tick();
    const uint64_t ns = Ns(p);
    switch (rng() % 7) {
      case 0:
      case 1:
        if (stack.size() < 12) {
          const char* n = kNames[rng() % kNumNames];
          stack.push_back(mabutrace_scope_begin(n, 0));
          out.push_back({'B', n, ns, cpu, 0});
          break;
        }
        [[fallthrough]];
      case 2:
        if (!stack.empty()) {
          mabutrace_scope_end(&stack.back());
          stack.pop_back();
          out.push_back({'E', "", ns, 0, 0});
        }
        break;
      case 3: {
        const char* n = kNames[rng() % kNumNames];
        mabutrace_instant(n, 0);
        out.push_back({'i', n, ns, cpu, 0});
        break;
      }
      case 4: {
        const char* n = kCounters[rng() % kNumCounters];
        int64_t v = int32_t(rng());
        if (rng() % 8 == 0) v = (rng() % 2) ? INT32_MAX : INT32_MIN;
        mabutrace_counter(n, v, 0);
        out.push_back({'C', n, ns, 0, v});
        break;
      }
      case 5:  // an unnamed flow start, inside a slice (it binds to it)
        if (!stack.empty()) {
          uint16_t link = 0;
          mabutrace_flow_out(&link, nullptr, 0);
          open_links.push_back({link, {tid, ns}});
        }
        break;
      case 6:  // finish a flow started here or on an earlier thread
        if (!stack.empty() && !open_links.empty()) {
          const size_t k = rng() % open_links.size();
          const OpenFlow f = open_links[k];
          open_links.erase(open_links.begin() + long(k));
          mabutrace_flow_in(f.link, nullptr, 0);
          p.flows.insert({f.out, {tid, ns}});
        }
        break;
    }
  }
  while (!stack.empty()) {  // close everything: no synthesized ends expected
    tick();
    mabutrace_scope_end(&stack.back());
    stack.pop_back();
    out.push_back({'E', "", Ns(p), 0, 0});
  }
}

std::string RunConvert(const std::string& stream, std::string* err) {
  char tmpl[] = "/tmp/mabutrace_prop_XXXXXX";
  if (!::mkdtemp(tmpl)) return "";
  const fs::path dir = tmpl;
  const fs::path in = dir / "trace.bin", out = dir / "trace.json";
  std::ofstream(in, std::ios::binary) << stream;
  ChildProcess cli(MABUTRACE_CLI_PATH, {"convert", in.string(), "-o", out.string()});
  const auto rc = cli.Wait(std::chrono::seconds(60));
  *err = cli.Stderr();
  std::string text;
  if (rc && *rc == 0) {
    std::ifstream f(out, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    text = s.str();
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return text;
}

// The JSON back as the same shape as Program.
Program FromJson(const json& doc) {
  Program got;
  std::map<uint64_t, FlowEnd> starts, ends;
  for (const json& e : doc.at("traceEvents")) {
    const std::string ph = e.at("ph");
    const uint32_t tid = e.at("tid");
    if (ph == "M") {
      if (e.at("name") == "thread_name") got.thread_names[tid] = e["args"]["name"];
      continue;
    }
    const uint64_t ns = uint64_t(std::llround(e.at("ts").get<double>() * 1000.0));
    if (ph == "B" || ph == "i") {
      got.per_tid[tid].push_back({ph[0], e.at("name"), ns, e["args"].at("cpu").get<uint32_t>(), 0});
    } else if (ph == "E") {
      got.per_tid[tid].push_back({'E', "", ns, 0, 0});
    } else if (ph == "C") {
      got.per_tid[tid].push_back({'C', e.at("name"), ns, 0, e["args"].at("value").get<int64_t>()});
    } else if (ph == "s") {
      starts[e.at("id")] = {tid, ns};
    } else if (ph == "f") {
      ends[e.at("id")] = {tid, ns};
    }
  }
  for (const auto& [id, s] : starts) {
    auto it = ends.find(id);
    if (it != ends.end()) got.flows.insert({s, it->second});
  }
  return got;
}

class RoundTripProperty : public ::testing::TestWithParam<int> {};

TEST_P(RoundTripProperty, EventsStreamConvertEqual) {
  const int seed = GetParam();
  std::mt19937 rng(uint32_t(seed) * 7919u + 1);
  const unsigned ncpu = std::max(1u, std::thread::hardware_concurrency());

  mabutrace_config_t cfg = mt_test::Config(1 << 20);  // never wraps here
  FakeClock::now = 1000 + rng() % 100000;
  cfg.clock = FakeClock::Read;
  cfg.clock_hz = 1000000000;  // 1 tick = 1 ns: exact in the JSON's us.ns
  cfg.process_name = "property";
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  g_stream.clear();
  ASSERT_EQ(mabutrace_set_output_callback(Capture), MABUTRACE_OK);

  Program want;
  want.origin = FakeClock::now.load();
  std::vector<OpenFlow> open_links;
  const int threads = 1 + int(rng() % 3);
  for (int t = 0; t < threads; ++t) {
    // One thread after another: the fake clock is shared, so the expected
    // times are exact; pinning makes the recorded CPU known.
    std::thread th([&, t] {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(unsigned(t) % ncpu, &set);
      ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
      RunThread(rng, want, t, open_links);
    });
    th.join();
    if (rng() % 2) {  // flushes at any points
      ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
    }
  }
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  mabutrace_deinit();

  std::string err;
  const std::string text = RunConvert(g_stream, &err);
  ASSERT_FALSE(text.empty()) << "convert failed: " << err;
  json doc;
  ASSERT_NO_THROW(doc = json::parse(text));
  const Program got = FromJson(doc);

  ASSERT_EQ(got.per_tid.size(), want.per_tid.size());
  for (const auto& [tid, evs] : want.per_tid) {
    auto it = got.per_tid.find(tid);
    ASSERT_NE(it, got.per_tid.end()) << "no events for tid " << tid;
    // C events on a tid are ordered by time like the rest; compare as lists.
    ASSERT_EQ(it->second.size(), evs.size()) << "tid " << tid;
    for (size_t i = 0; i < evs.size(); ++i) {
      EXPECT_EQ(it->second[i], evs[i]) << "tid " << tid << " #" << i;
    }
    EXPECT_EQ(got.thread_names.at(tid), want.thread_names.at(tid));
  }
  EXPECT_EQ(got.flows, want.flows);
  EXPECT_EQ(doc["metadata"].at("lost_records"), 0);
  EXPECT_EQ(doc["metadata"].at("orphan_scope_ends"), 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RoundTripProperty, ::testing::Range(0, 40));

}  // namespace
