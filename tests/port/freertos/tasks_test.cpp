// SPDX-License-Identifier: MIT
// tasks_test.cpp: tasks of two simulated cores record through the FreeRTOS
// adapter; the real exporters show one track per task, named by
// pcTaskGetName(), with stable ids, the events' core, and flows that pair
// up across tasks and cores.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>

#include "esp_heap_caps.h"
#include "freertos_test_util.h"

namespace {

using ft::FreeRtosTest;
using ft::Task;
using json = nlohmann::json;

// A queue of flow links between tasks (test plumbing, not traced).
class LinkQueue {
 public:
  void Push(uint16_t v) {
    {
      std::lock_guard<std::mutex> lock(m_);
      q_.push_back(v);
    }
    cv_.notify_one();
  }
  uint16_t Pop() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return !q_.empty(); });
    const uint16_t v = q_.front();
    q_.pop_front();
    return v;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<uint16_t> q_;
};

// A one-shot signal between the test and its tasks.
class Gate {
 public:
  void Open() {
    {
      std::lock_guard<std::mutex> lock(m_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = false;
};

constexpr int kItems = 200;

TEST_F(FreeRtosTest, TasksOnTwoCoresGetTheirOwnNamedTracks) {
  LinkQueue q;
  Task prod("producer", 0, [&] {
    for (int i = 0; i < kItems; ++i) {
      TRACE_SCOPE("produce");
      TRACE_COUNTER("produced", i);
      uint16_t link = 0;
      TRACE_FLOW_OUT(&link, "item");
      q.Push(link);
    }
  });
  Task cons("consumer", 1, [&] {
    for (int i = 0; i < kItems; ++i) {
      const uint16_t link = q.Pop();
      TRACE_SCOPE("consume", COLOR_GREEN);
      TRACE_FLOW_IN(link, "item");
    }
  });
  Task w0("worker0", 0, [] {
    for (int i = 0; i < 50; ++i) {
      TRACE_SCOPE("outer");
      TRACE_SCOPE("inner");
      TRACE_INSTANT("tick");
    }
  });
  Task w1("worker1", 1, [] {
    for (int i = 0; i < 50; ++i) {
      TRACE_SCOPE("outer");
      TRACE_INSTANT("tick");
    }
  });
  prod.WaitDone();
  cons.WaitDone();
  w0.WaitDone();
  w1.WaitDone();

  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.process_name, CONFIG_IDF_TARGET);  // ProcessName(): CONFIG_IDF_TARGET
  EXPECT_EQ(t.thread_names.size(), 4u) << "one track per recording task, nothing else";
  const uint64_t tp = ft::TidOf(t, "producer"), tc = ft::TidOf(t, "consumer");
  const uint64_t t0 = ft::TidOf(t, "worker0"), t1 = ft::TidOf(t, "worker1");
  EXPECT_EQ((std::set<uint64_t>{tp, tc, t0, t1}.size()), 4u) << "tids are distinct";
  EXPECT_EQ(ft::Events(t, tp, "B", "produce").size(), size_t(kItems));
  EXPECT_EQ(ft::Events(t, tc, "B", "consume").size(), size_t(kItems));
  EXPECT_EQ(ft::Events(t, t0, "B", "inner").size(), 50u);
  EXPECT_EQ(ft::Events(t, t1, "i", "tick").size(), 50u);
  EXPECT_TRUE(ft::Events(t, tp, "B", "consume").empty());

  // Every event names the core its task runs on (xPortGetCoreID()).
  for (const json& e : t.events) {
    if (!e.contains("args") || !e["args"].contains("cpu")) continue;
    const uint64_t tid = e["tid"];
    const int want = (tid == tp || tid == t0) ? 0 : 1;
    ASSERT_EQ(e["args"]["cpu"], want) << e.dump();
  }

  // The counter: every value, in order, on the producer's track.
  const std::vector<json> produced = ft::Events(t, tp, "C", "produced");
  ASSERT_EQ(produced.size(), size_t(kItems));
  for (int i = 0; i < kItems; ++i) EXPECT_EQ(produced[i]["args"]["value"], i);

  // Flows: every arrow starts on the producer (core 0) and ends on the
  // consumer (core 1), each id once at each end.
  std::multiset<uint64_t> out_ids, in_ids;
  for (const json& e : t.Find("s")) {
    EXPECT_EQ(e["tid"], tp);
    out_ids.insert(e["id"].get<uint64_t>());
  }
  for (const json& e : t.Find("f")) {
    EXPECT_EQ(e["tid"], tc);
    in_ids.insert(e["id"].get<uint64_t>());
  }
  EXPECT_EQ(out_ids.size(), size_t(kItems));
  EXPECT_EQ(out_ids, in_ids);
  EXPECT_EQ(std::set<uint64_t>(out_ids.begin(), out_ids.end()).size(), size_t(kItems));

  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_dropped, 0u);
  EXPECT_EQ(st.threads, 4u);
  EXPECT_EQ(t.Meta("events_dropped"), 0u);
}

// A task keeps its track id across exports, across other tasks coming and
// going, and across a re-init (its context stays with it).
TEST_F(FreeRtosTest, TrackIdsAreStable) {
  Gate step2, step3;
  Gate did1, did2;
  Task a("alpha", 0, [&] {
    TRACE_INSTANT("a1");
    did1.Open();
    step2.Wait();
    TRACE_INSTANT("a2");
    did2.Open();
    step3.Wait();
    TRACE_INSTANT("a3");
  });
  did1.Wait();
  const mt_test::TraceInfo e1 = mt_test::ExportAndCheck();
  const uint64_t tid1 = ft::TidOf(e1, "alpha");
  ASSERT_NE(tid1, 0u);
  EXPECT_EQ(ft::Events(e1, tid1, "i", "a1").size(), 1u);

  {  // another task records and goes away meanwhile
    Task b("beta", 1, [] { TRACE_INSTANT("b1"); });
    b.WaitDone();
  }
  fake::RunIdle(1);
  step2.Open();
  did2.Wait();
  const mt_test::TraceInfo e2 = mt_test::ExportAndCheck();
  EXPECT_EQ(ft::TidOf(e2, "alpha"), tid1);
  EXPECT_EQ(ft::Events(e2, tid1, "i").size(), 2u);

  // A new session: same task, same context, same track id.
  mabutrace_deinit();
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  step3.Open();
  a.WaitDone();
  const mt_test::TraceInfo e3 = mt_test::ExportAndCheck();
  EXPECT_EQ(ft::TidOf(e3, "alpha"), tid1);
  const std::vector<json> ev3 = ft::Events(e3, tid1, "i");
  ASSERT_EQ(ev3.size(), 1u);
  EXPECT_EQ(ev3[0]["name"], "a3");
}

// mabutrace_set_thread_name() overrides pcTaskGetName(); the binary stream
// carries the same names and cores as the JSON export.
TEST_F(FreeRtosTest, ExplicitNameAndBinaryStream) {
  Task a("pc_name", 1, [] {
    EXPECT_EQ(mabutrace_set_thread_name("renamed"), MABUTRACE_OK);
    TRACE_COUNTER("level", 7);
  });
  Task b("plain", 0, [] { TRACE_INSTANT("hello"); });
  a.WaitDone();
  b.WaitDone();
  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  EXPECT_TRUE(ft::TidsNamed(t, "pc_name").empty());
  ASSERT_NE(ft::TidOf(t, "renamed"), 0u);

  const std::vector<ft::StreamEvent> evs = ft::FlushAndDecode();
  int seen = 0;
  for (const ft::StreamEvent& e : evs) {
    if (e.name == "level") {
      ++seen;
      EXPECT_EQ(e.thread_name, "renamed");
      EXPECT_EQ(e.cpu, 1u);
      EXPECT_EQ(e.value, 7);
      EXPECT_FALSE(e.in_isr);
      EXPECT_EQ(e.tid, ft::TidOf(t, "renamed"));
    } else if (e.name == "hello") {
      ++seen;
      EXPECT_EQ(e.thread_name, "plain");
      EXPECT_EQ(e.cpu, 0u);
      EXPECT_FALSE(e.in_isr);
    }
  }
  EXPECT_EQ(seen, 2);
}

// The clock is esp_timer_get_time() in µs: a 20 ms vTaskDelay() between two
// records shows as 20 ms in the export.
TEST_F(FreeRtosTest, ClockIsTheEspTimerInMicroseconds) {
  Task t("sleeper", 0, [] {
    TRACE_INSTANT("before");
    vTaskDelay(pdMS_TO_TICKS(20));
    TRACE_INSTANT("after");
  });
  t.WaitDone();
  const mt_test::TraceInfo tr = mt_test::ExportAndCheck();
  const uint64_t tid = ft::TidOf(tr, "sleeper");
  const std::vector<json> a = ft::Events(tr, tid, "i", "before"), b = ft::Events(tr, tid, "i", "after");
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  const uint64_t ns = mt_test::TsNs(b[0]) - mt_test::TsNs(a[0]);
  EXPECT_GE(ns, 19000000u);
  EXPECT_LT(ns, 2000000000u);
  EXPECT_EQ(ns % 1000, 0u) << "µs ticks";
}

// init's one allocation: 64-byte aligned internal RAM (heap_caps).
TEST_F(FreeRtosTest, InitAllocatesAlignedInternalRam) {
  const fake::AllocRequest r = fake::LastAlloc();
  EXPECT_EQ(r.alignment, 64u);
  EXPECT_TRUE(r.caps & MALLOC_CAP_INTERNAL);
  EXPECT_TRUE(r.caps & MALLOC_CAP_8BIT);
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 256 * 1024;
  EXPECT_EQ(r.size, mabutrace_memory_required(&cfg));
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.buffer_size, 256u * 1024u);
}

}  // namespace
