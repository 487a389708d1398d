// SPDX-License-Identifier: MIT
// isr_test.cpp: records made in (simulated) interrupt handlers go to one
// "ISR cpuN" track per core, with the ISR bit set, while tasks of the same
// cores keep recording on their own tracks; an ISR's first record
// registers its track without a task-only critical section; flows go from
// an ISR to a task; interrupts that nest in an ISR of the same core share
// its context without losing, tearing or reordering a record.
#include <atomic>
#include <thread>

#include "freertos_test_util.h"

namespace {

using ft::FreeRtosTest;
using ft::Task;
using json = nlohmann::json;

constexpr int kIrqs = 300;

// An interrupt source: `n` interrupts on `core`, each recording.
void Interrupts(int core, int n, const char* tick_name, const char* scope_name, const char* counter_name) {
  for (int i = 0; i < n; ++i) {
    fake::IsrScope isr(core);
    TRACE_SCOPE(scope_name);
    TRACE_INSTANT(tick_name);
    TRACE_COUNTER(counter_name, i);
  }
}

TEST_F(FreeRtosTest, IsrRecordsGoToPerCoreIsrTracks) {
  Task t0("task0", 0, [] {
    for (int i = 0; i < 200; ++i) {
      TRACE_SCOPE("task0 work");
      TRACE_INSTANT("task0 tick");
    }
  });
  Task t1("task1", 1, [] {
    for (int i = 0; i < 200; ++i) TRACE_SCOPE("task1 work");
  });
  std::thread irq0(Interrupts, 0, kIrqs, "irq0 tick", "irq0 handler", "irq0 n");
  std::thread irq1(Interrupts, 1, kIrqs, "irq1 tick", "irq1 handler", "irq1 n");
  irq0.join();
  irq1.join();
  t0.WaitDone();
  t1.WaitDone();

  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  ASSERT_TRUE(t.ok);
  const uint64_t i0 = ft::TidOf(t, "ISR cpu0"), i1 = ft::TidOf(t, "ISR cpu1");
  const uint64_t k0 = ft::TidOf(t, "task0"), k1 = ft::TidOf(t, "task1");
  EXPECT_EQ(t.thread_names.size(), 4u);
  EXPECT_EQ(ft::Events(t, i0, "B", "irq0 handler").size(), size_t(kIrqs));
  EXPECT_EQ(ft::Events(t, i0, "i", "irq0 tick").size(), size_t(kIrqs));
  EXPECT_EQ(ft::Events(t, i1, "i", "irq1 tick").size(), size_t(kIrqs));
  EXPECT_TRUE(ft::Events(t, i0, "i", "irq1 tick").empty());
  EXPECT_TRUE(ft::Events(t, i1, "i", "irq0 tick").empty());
  EXPECT_EQ(ft::Events(t, k0, "i", "task0 tick").size(), 200u);
  EXPECT_TRUE(ft::Events(t, k0, "i", "irq0 tick").empty());
  EXPECT_EQ(ft::Events(t, k1, "B", "task1 work").size(), 200u);
  const std::vector<json> n0 = ft::Events(t, i0, "C", "irq0 n");
  ASSERT_EQ(n0.size(), size_t(kIrqs));
  for (int i = 0; i < kIrqs; ++i) EXPECT_EQ(n0[i]["args"]["value"], i);

  // The stream keeps the ISR bit and the core of each record.
  int isr_events = 0;
  for (const ft::StreamEvent& e : ft::FlushAndDecode()) {
    const bool from_isr = e.name.rfind("irq", 0) == 0;
    if (e.name.empty()) continue;  // scope ends carry no name
    EXPECT_EQ(e.in_isr, from_isr) << e.name;
    if (from_isr) {
      ++isr_events;
      EXPECT_EQ(e.cpu, e.name[3] == '0' ? 0u : 1u) << e.name;
      EXPECT_EQ(e.thread_name, e.name[3] == '0' ? "ISR cpu0" : "ISR cpu1");
    }
  }
  EXPECT_EQ(isr_events, 2 * 3 * kIrqs);
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_dropped, 0u);
}

// An arrow from an interrupt to the task it wakes, as in the Cortex-M demo.
TEST_F(FreeRtosTest, FlowFromIsrToTask) {
  uint16_t links[20] = {};
  for (uint16_t& l : links) {
    fake::IsrScope isr(1);
    TRACE_FLOW_OUT(&l, "rx");
  }
  Task t("rx_task", 0, [&] {
    for (uint16_t l : links) {
      TRACE_SCOPE("handle rx");
      TRACE_FLOW_IN(l, "rx");
    }
  });
  t.WaitDone();
  const mt_test::TraceInfo tr = mt_test::ExportAndCheck();
  const uint64_t isr = ft::TidOf(tr, "ISR cpu1"), task = ft::TidOf(tr, "rx_task");
  EXPECT_EQ(ft::Events(tr, isr, "s").size(), 20u);
  EXPECT_EQ(ft::Events(tr, task, "f").size(), 20u);
}

// Interrupts nest in an ISR of the same core and share its context: the
// reservation (portSET_INTERRUPT_MASK_FROM_ISR around the cursor bump) and
// the commit protocol must keep both the interrupted and the nesting
// handler's records whole and in order (docs/ports.md §2).
std::atomic<int> g_nested{0};

void NestedHandler(void*) {  // runs in a signal handler: no allocation
  const int k = g_nested.fetch_add(1, std::memory_order_relaxed);
  TRACE_SCOPE("nested");
  TRACE_COUNTER("nested n", k);
}

TEST_F(FreeRtosTest, NestedInterruptsKeepEveryRecordWhole) {
  // At least kMinOuter records of the interrupted handler, and on until
  // kMinNested interrupts nested (signal delivery rates vary), at most
  // kMaxOuter; the buffer holds them all.
  constexpr int kMinOuter = 2000, kMaxOuter = 20000, kMinNested = 300;
  mabutrace_deinit();
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 4u << 20;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  g_nested = 0;
  int outer_records = 0;
  std::atomic<bool> outer_done{false}, raising_done{false};
  std::atomic<int> progress{0};  // outer records so far: at most one raise per record
  std::atomic<const fake::NestedInterrupts*> nest_ptr{nullptr};
  std::thread isr([&] {
    fake::IsrScope outer(0);
    TRACE_INSTANT("registered");  // the track exists before any nesting
    {
      fake::NestedInterrupts nest(NestedHandler, nullptr);
      nest_ptr = &nest;
      int i = 0;
      for (; i < kMinOuter || (i < kMaxOuter && g_nested.load() < kMinNested); ++i) {
        TRACE_SCOPE("outer");
        TRACE_COUNTER("outer n", i);
        progress.store(i + 1, std::memory_order_relaxed);
      }
      outer_records = i;
      outer_done = true;
      while (!raising_done.load()) std::this_thread::yield();
    }
  });
  std::thread raiser([&] {
    const fake::NestedInterrupts* nest = nullptr;
    while (!(nest = nest_ptr.load())) std::this_thread::yield();
    int raised_at = -1;
    while (!outer_done.load()) {
      const int p = progress.load(std::memory_order_relaxed);
      if (p != raised_at) {
        nest->Raise();
        raised_at = p;
      }
      std::this_thread::yield();
    }
    raising_done = true;
  });
  raiser.join();
  isr.join();
  const int nested = g_nested.load();
  RecordProperty("nested_interrupts", nested);
  ASSERT_GT(nested, 0) << "no interrupt nested";
  const int kOuter = outer_records;

  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.thread_names.size(), 1u);
  const uint64_t tid = ft::TidOf(t, "ISR cpu0");
  const std::vector<json> outer_n = ft::Events(t, tid, "C", "outer n");
  ASSERT_EQ(outer_n.size(), size_t(kOuter));
  for (int i = 0; i < kOuter; ++i) ASSERT_EQ(outer_n[i]["args"]["value"], i);
  const std::vector<json> nested_n = ft::Events(t, tid, "C", "nested n");
  ASSERT_EQ(nested_n.size(), size_t(nested));
  for (int k = 0; k < nested; ++k) ASSERT_EQ(nested_n[k]["args"]["value"], k);
  EXPECT_EQ(ft::Events(t, tid, "B", "nested").size(), size_t(nested));
  // The records of a context are in time order (the clock is read inside
  // the reservation, docs/ports.md §2): the raw device ticks, as the
  // binary stream carries them, never go back.
  uint64_t last_ticks = 0;
  size_t isr_records = 0;
  for (const ft::StreamEvent& e : ft::FlushAndDecode()) {
    if (e.thread_name != "ISR cpu0") continue;
    ++isr_records;
    ASSERT_GE(e.ticks, last_ticks) << "record " << isr_records << " (" << e.name << ") goes back in time";
    last_ticks = e.ticks;
  }
  EXPECT_EQ(isr_records, size_t(3 * kOuter + 3 * nested + 1));  // begin, counter, end each
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_dropped, 0u);
  EXPECT_EQ(st.events_overwritten, 0u);
}

}  // namespace
