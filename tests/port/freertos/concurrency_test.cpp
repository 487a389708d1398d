// SPDX-License-Identifier: MIT
// concurrency_test.cpp: three tasks per core and an interrupt source per
// core record as fast as they can (scopes, counters, instants, flows from
// task to task across cores) while an exporter task exports JSON and the
// binary stream over and over. Every export must parse and keep the rules
// CheckTrace knows; no record is torn (every name is one recorded, every
// counter of a track only grows); the final export holds, per track, an
// unbroken run of the newest counter values. Sized to wrap the buffer many
// times.
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "freertos_test_util.h"

namespace {

using ft::FreeRtosTest;
using ft::Task;
using json = nlohmann::json;

constexpr int kTasks = 6;  // = CONFIG_MABUTRACE_MAX_TASKS: every context in use
static_assert(kTasks <= CONFIG_MABUTRACE_MAX_TASKS, "one context per task");
constexpr int kIters = 800;  // at least, per task
constexpr int kIsrs = 1500;  // at least, per interrupt source
constexpr int kExports = 5;  // writers go on until this many exports are done

const char* const kTaskNames[kTasks] = {"ham0", "ham1", "ham2", "ham3", "ham4", "ham5"};
const char* const kCounters[kTasks] = {"n0", "n1", "n2", "n3", "n4", "n5"};
const char* const kIsrCounters[2] = {"isr n0", "isr n1"};

// Lock-free mailbox of flow links between tasks: a slot per task.
std::atomic<uint32_t> g_mail[kTasks];

const std::set<std::string>& KnownNames() {
  static const std::set<std::string> names = [] {
    std::set<std::string> s = {"iter", "inner", "tick", "link", "isr", "isr tick", "flow_out", "flow_in"};
    for (const char* n : kCounters) s.insert(n);
    for (const char* n : kIsrCounters) s.insert(n);
    return s;
  }();
  return names;
}

// The checks of one export that hold even while writers run.
void CheckSnapshot(const mt_test::TraceInfo& t, bool* ok) {
  if (!t.ok) {
    *ok = false;
    return;
  }
  std::map<std::pair<uint64_t, std::string>, int64_t> last;  // (tid, counter) -> value
  for (const json& e : t.events) {
    const std::string name = e["name"];
    if (e["ph"] == "s" || e["ph"] == "f") continue;  // named "flow"
    if (!KnownNames().count(name)) {
      ADD_FAILURE() << "torn or unknown event name: " << e.dump();
      *ok = false;
      continue;
    }
    if (e["ph"] == "C") {
      const auto key = std::make_pair(e["tid"].get<uint64_t>(), name);
      const int64_t v = e["args"]["value"];
      auto it = last.find(key);
      if (it != last.end() && v <= it->second) {
        ADD_FAILURE() << "counter went backwards on its track: " << e.dump();
        *ok = false;
      }
      last[key] = v;
    }
  }
}

TEST_F(FreeRtosTest, TasksAndIsrsHammerWhileExporting) {
  for (auto& m : g_mail) m.store(0);
  std::atomic<int> writers_left{kTasks + 2};
  std::atomic<bool> stop{false};
  int last[kTasks + 2] = {};  // the last counter value of each writer
  std::vector<std::unique_ptr<Task>> tasks;
  for (int i = 0; i < kTasks; ++i) {
    tasks.push_back(std::make_unique<Task>(kTaskNames[i], i / 3, [i, &writers_left, &stop, &last] {
      const int to = (i + 4) % kTasks;  // a task of the other core
      int n = 0;
      for (; n < kIters || !stop.load(std::memory_order_relaxed); ++n) {
        TRACE_SCOPE("iter");
        TRACE_COUNTER(kCounters[i], n);
        {
          TRACE_SCOPE("inner", COLOR_BLUE);
          TRACE_INSTANT("tick");
        }
        if (n % 4 == 0) {
          uint16_t link = 0;
          TRACE_FLOW_OUT(&link, "link");
          g_mail[to].store(link);
        }
        const uint32_t in = g_mail[i].exchange(0);
        if (in) TRACE_FLOW_IN(uint16_t(in), "link");
        if (n % 8 == 7) taskYIELD();  // 8 busy threads share the host's cores with the exporter
      }
      // The last value, on its own: it stays in the task's current chunk,
      // which is never recycled, so the final export has it.
      TRACE_COUNTER(kCounters[i], n);
      last[i] = n;
      writers_left.fetch_sub(1);
    }));
  }
  std::vector<std::thread> isrs;
  for (int core = 0; core < 2; ++core) {
    isrs.emplace_back([core, &writers_left, &stop, &last] {
      int n = 0;
      for (; n < kIsrs || !stop.load(std::memory_order_relaxed); ++n) {
        fake::IsrScope isr(core);
        TRACE_SCOPE("isr");
        TRACE_COUNTER(kIsrCounters[core], n);
        TRACE_INSTANT("isr tick");
        if (n % 8 == 7) std::this_thread::yield();
      }
      {
        fake::IsrScope isr(core);
        TRACE_COUNTER(kIsrCounters[core], n);
      }
      last[kTasks + core] = n;
      writers_left.fetch_sub(1);
    });
  }
  int exports = 0;
  bool ok = true;
  Task exporter("exporter", 1, [&] {
    do {
      CheckSnapshot(mt_test::ExportAndCheck(), &ok);
      const std::vector<ft::StreamEvent> evs = ft::FlushAndDecode();
      for (const ft::StreamEvent& e : evs) {
        if (!e.name.empty() && !KnownNames().count(e.name)) {
          ADD_FAILURE() << "torn name in the stream: " << e.name;
          ok = false;
        }
      }
      const mt_test::ReadResult raw = mt_test::ReadAll();
      EXPECT_EQ(raw.corrupt_chunks, 0u);
      if (++exports == kExports) stop.store(true);
    } while (writers_left.load() > 0 && ok);
    stop.store(true);
  });
  for (auto& t : tasks) t->WaitDone();
  for (auto& th : isrs) th.join();
  exporter.WaitDone();
  EXPECT_GE(exports, kExports);
  RecordProperty("exports_while_writing", exports);
  ASSERT_TRUE(ok);

  // Quiet now: per track, the surviving counter values are the newest ones,
  // without a gap (a thread's chunks are overwritten oldest first).
  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  CheckSnapshot(t, &ok);
  for (int i = 0; i < kTasks + 2; ++i) {
    const bool isr = i >= kTasks;
    const std::string track = isr ? "ISR cpu" + std::to_string(i - kTasks) : kTaskNames[i];
    const char* counter = isr ? kIsrCounters[i - kTasks] : kCounters[i];
    const std::vector<json> c = ft::Events(t, ft::TidOf(t, track), "C", counter);
    ASSERT_FALSE(c.empty()) << track;
    const int64_t first = c.front()["args"]["value"];
    for (size_t k = 0; k < c.size(); ++k) {
      ASSERT_EQ(c[k]["args"]["value"], first + int64_t(k)) << track << " has a gap";
    }
    EXPECT_EQ(c.back()["args"]["value"], last[i]) << track;
  }
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_dropped, 0u);
  EXPECT_GT(st.events_overwritten, 0u) << "the test should wrap the buffer";
}

}  // namespace
