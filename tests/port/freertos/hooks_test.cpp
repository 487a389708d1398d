// SPDX-License-Identifier: MIT
// hooks_test.cpp: the task-switch hooks (mabutrace_freertos_hooks.h, R-A11)
// called the way the kernel calls them -- traceTASK_SWITCHED_OUT(), the
// core's current task changes, traceTASK_SWITCHED_IN(), with the core's
// interrupts masked, from a task-level yield or from the tick interrupt --
// give each core a "CPU N tasks" track with one slice per task run, named
// by the task; a task that migrates between cores never writes into a
// core's scheduler context.
#include <atomic>
#include <thread>

#include "freertos_test_util.h"

namespace {

using ft::FreeRtosTest;
using ft::Task;
using json = nlohmann::json;

constexpr int kRounds = 40;

struct CoreRun {
  TaskHandle_t a = nullptr, b = nullptr;
};

// One core's scheduler: alternately runs virtual tasks A and B (each records
// a scope while it runs), then the idle task.
void RunCore(int core, const char* a_name, const char* b_name, const char* a_work, const char* b_work, CoreRun* out) {
  fake::SetThreadCore(core);
  out->a = fake::CreateVirtualTask(a_name, core);
  out->b = fake::CreateVirtualTask(b_name, core);
  for (int r = 0; r < kRounds; ++r) {
    fake::SwitchContext(core, out->a, r % 2 == 0);  // from the tick ISR, or a yield
    { TRACE_SCOPE(a_work); }
    fake::SwitchContext(core, out->b, r % 2 == 1);
    { TRACE_SCOPE(b_work); }
  }
  fake::SwitchContext(core, fake::IdleTask(core), true);
}

struct Slice {
  std::string name;
  uint64_t b, e;
};

// Closed slices of one track, in order (the track nests no deeper than 1).
std::vector<Slice> Slices(const mt_test::TraceInfo& t, uint64_t tid) {
  std::vector<Slice> out;
  for (const json& ev : t.events) {
    if (ev["tid"] != tid) continue;
    if (ev["ph"] == "B") out.push_back(Slice{ev["name"], mt_test::TsNs(ev), 0});
    if (ev["ph"] == "E" && !out.empty()) out.back().e = mt_test::TsNs(ev);
  }
  return out;
}

// A clock that ticks once per read: every record gets its own time, in
// the order the records were taken (esp_timer's µs would tie).
std::atomic<uint64_t> g_ticks{1000};
uint64_t TickPerRead() { return g_ticks.fetch_add(1000); }

TEST_F(FreeRtosTest, SwitchHooksDrawOneSlicePerTaskRunOnEachCore) {
  mabutrace_deinit();
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.clock = TickPerRead;
  cfg.clock_hz = 1000000000;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);

  CoreRun run0, run1;
  std::thread core0(RunCore, 0, "A0", "B0", "A0 work", "B0 work", &run0);
  std::thread core1(RunCore, 1, "A1", "B1", "A1 work", "B1 work", &run1);
  core0.join();
  core1.join();

  // The slice names are the hooks' copies of the tasks' names.
  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  ASSERT_TRUE(t.ok);
  EXPECT_TRUE(ft::TidsNamed(t, "ISR cpu0").empty()) << "hooks run from the tick ISR stay on CPU tracks";
  EXPECT_TRUE(ft::TidsNamed(t, "ISR cpu1").empty());
  for (int core = 0; core < 2; ++core) {
    const std::string c = std::to_string(core);
    const uint64_t cpu = ft::TidOf(t, "CPU " + c + " tasks");
    ASSERT_NE(cpu, 0u);
    const std::vector<Slice> slices = Slices(t, cpu);
    ASSERT_EQ(slices.size(), size_t(2 * kRounds + 1));
    for (int r = 0; r < kRounds; ++r) {
      EXPECT_EQ(slices[2 * r].name, "A" + c);
      EXPECT_EQ(slices[2 * r + 1].name, "B" + c);
    }
    EXPECT_EQ(slices.back().name, "IDLE" + c);  // still running at export
    const std::vector<json> ends = ft::Events(t, cpu, "E");
    ASSERT_EQ(ends.size(), size_t(2 * kRounds + 1));
    EXPECT_TRUE(ends.back()["args"].value("open_at_end", false));
    for (const json& e : ft::Events(t, cpu, "B")) EXPECT_EQ(e["args"]["cpu"], core);

    // Each task's own scopes lie inside its runs on the CPU track.
    for (const char* task : {"A", "B"}) {
      const std::string name = task + c;
      const uint64_t tid = ft::TidOf(t, name);
      const std::vector<Slice> work = Slices(t, tid);
      ASSERT_EQ(work.size(), size_t(kRounds)) << name;
      for (const Slice& w : work) {
        EXPECT_EQ(w.name, name + " work");
        bool inside = false;
        for (const Slice& s : slices) {
          inside |= s.name == name && s.b <= w.b && w.e <= s.e;
        }
        EXPECT_TRUE(inside) << name << " work at " << w.b << " outside every " << name << " run";
      }
    }
  }
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_dropped, 0u);

  // Not running any more: deleted at once, contexts released.
  for (TaskHandle_t h : {run0.a, run0.b, run1.a, run1.b}) vTaskDelete(h);
}

// A slice's name is read at export, and a deleted task's TCB is freed and
// reused (the fake's heap hands the last freed TCB out first): the slices
// of a deleted task must keep its name, not show its TCB's next owner's or
// freed memory. Mutation shown red: the switch-in hook naming the slice
// with pcTaskGetName() (a pointer into the TCB), as it did: the "doomed"
// runs were exported as "reborn".
TEST_F(FreeRtosTest, SliceNamesOutliveTheTasksTcb) {
  std::thread kernel([] {
    fake::SetThreadCore(0);
    const TaskHandle_t doomed = fake::CreateVirtualTask("doomed", 0);
    fake::SwitchContext(0, doomed, false);
    fake::SwitchContext(0, fake::IdleTask(0), true);
    vTaskDelete(doomed);  // not running: its TCB is freed at once
    const TaskHandle_t reborn = fake::CreateVirtualTask("reborn", 0);
    EXPECT_EQ(reborn, doomed) << "the fake's heap reuses the freed TCB";
    fake::SwitchContext(0, reborn, false);
    fake::SwitchContext(0, fake::IdleTask(0), true);
    vTaskDelete(reborn);
  });
  kernel.join();
  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  ASSERT_TRUE(t.ok);
  const std::vector<Slice> slices = Slices(t, ft::TidOf(t, "CPU 0 tasks"));
  std::vector<std::string> names;
  for (const Slice& s : slices) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"doomed", "IDLE0", "reborn", "IDLE0"}));
}

// A task without affinity can read its core, be switched out (the hook
// runs on that core) and resume on the other core while the first core is
// in the hook again: it must still record into its own context, never into
// that core's scheduler context (which the hook is writing at the time).
TEST_F(FreeRtosTest, MigratingTaskNeverWritesIntoTheSchedulerContext) {
  mabutrace_deinit();
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 8u << 20;  // nothing overwritten
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);

  constexpr int kRecords = 1000;
  std::atomic<bool> stop{false};
  TaskHandle_t x = nullptr, y = nullptr;
  std::thread kernel([&] {
    fake::SetThreadCore(0);
    x = fake::CreateVirtualTask("X", 0);
    y = fake::CreateVirtualTask("Y", 0);
    for (int i = 0; i < 100000 && !stop.load(); ++i) {
      fake::SwitchContext(0, x, false);
      fake::SwitchContext(0, y, true);
      std::this_thread::yield();  // core 0 is not always switching
    }
    fake::SwitchContext(0, fake::IdleTask(0), false);
  });
  Task migrant("migrant", tskNO_AFFINITY, [] {
    fake::SetMigrating(true);
    for (int i = 0; i < kRecords; ++i) TRACE_INSTANT("migrant");
    fake::SetMigrating(false);
  });
  migrant.WaitDone();
  stop = true;
  kernel.join();

  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  ASSERT_TRUE(t.ok);
  const uint64_t cpu0 = ft::TidOf(t, "CPU 0 tasks");
  EXPECT_TRUE(ft::Events(t, cpu0, "i", "migrant").empty())
      << ft::Events(t, cpu0, "i", "migrant").size() << " of the task's records on CPU 0's track";
  EXPECT_EQ(ft::Events(t, ft::TidOf(t, "migrant"), "i", "migrant").size(), size_t(kRecords));
  for (const json& e : ft::Events(t, cpu0, "B")) {
    EXPECT_TRUE(e["name"] == "X" || e["name"] == "Y" || e["name"] == "IDLE0") << e.dump();
  }
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_dropped, 0u);
  EXPECT_EQ(st.events_overwritten, 0u);
  vTaskDelete(x);
  vTaskDelete(y);
}

}  // namespace
