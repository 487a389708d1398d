// SPDX-License-Identifier: MIT
// contexts_test.cpp: the adapter's task contexts (CONFIG_MABUTRACE_MAX_TASKS
// of them): more recording tasks than contexts are dropped and counted; a
// deleted task's context is released through its TLS deletion callback (in
// the deleting task, or in the idle task for a task that deleted itself)
// and reused, with a track of its own, by the next task, and its chunk is
// recycled; the callback never blocks in the idle task. Without a spare TLS
// pointer (the notls build) the deletion hook (traceTASK_DELETE) marks the
// context and the next task to take one releases it: the same outcome.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "freertos_test_util.h"

namespace {

using ft::FreeRtosTest;
using ft::Task;
using json = nlohmann::json;

constexpr int kMaxTasks = CONFIG_MABUTRACE_MAX_TASKS;
constexpr int kEach = 10;  // instants per task

// Task names t0, t1, ... (static: the fake copies them, the trace does not
// need them).
const char* Name(int i) {
  static const char* const kNames[] = {"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11", "t12"};
  return kNames[i];
}

// Starts task i (core i % 2): kEach instants, then parks.
std::unique_ptr<Task> Recorder(int i) {
  auto t = std::make_unique<Task>(Name(i), i % 2, [] {
    for (int k = 0; k < kEach; ++k) TRACE_INSTANT("work");
  });
  t->WaitDone();
  return t;
}

TEST_F(FreeRtosTest, MoreTasksThanContextsAreDroppedAndCounted) {
  std::vector<std::unique_ptr<Task>> tasks;
  for (int i = 0; i < kMaxTasks + 2; ++i) tasks.push_back(Recorder(i));
  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  EXPECT_EQ(t.thread_names.size(), size_t(kMaxTasks));
  for (int i = 0; i < kMaxTasks + 2; ++i) {
    const std::vector<uint64_t> tids = ft::TidsNamed(t, Name(i));
    if (i < kMaxTasks) {
      ASSERT_EQ(tids.size(), 1u) << Name(i);
      EXPECT_EQ(ft::Events(t, tids[0], "i", "work").size(), size_t(kEach));
    } else {
      EXPECT_TRUE(tids.empty()) << Name(i) << " got a context";
    }
  }
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_dropped, uint64_t(2 * kEach));
  EXPECT_EQ(t.Meta("events_dropped"), uint64_t(2 * kEach));
  // A task without a context cannot be named either.
  Task late(Name(kMaxTasks + 2), 0, [] { EXPECT_EQ(mabutrace_set_thread_name("late"), MABUTRACE_ERR_NO_MEMORY); });
  late.WaitDone();
}

// vTaskDelete() of a blocked task runs its deletion callback at once, in
// the deleting task (TLS), or marks its context for the next task to
// release (no TLS): the context goes to the next task, which records on a
// new track of its own even while the old task's events are still shown.
// The next task gets the deleted one's TCB (the fake's heap), so without
// TLS the search by handle would find the deleted task's context.
// Mutation shown red (notls): mabutrace_freertos_task_deleted doing
// nothing, as before: one track for both tasks, old_tid == new_tid.
TEST_F(FreeRtosTest, DeletedTaskContextIsReleasedAndReused) {
  std::vector<std::unique_ptr<Task>> tasks;
  for (int i = 0; i < kMaxTasks; ++i) tasks.push_back(Recorder(i));
  const TaskHandle_t old_handle = tasks[2]->handle();
  tasks[2]->Delete();                                // from this thread (callbacks run here)
  std::unique_ptr<Task> next = Recorder(kMaxTasks);  // takes t2's context
  EXPECT_EQ(next->handle(), old_handle) << "the fake's heap reuses the freed TCB";
  std::unique_ptr<Task> extra = Recorder(kMaxTasks + 1);  // none left

  const mt_test::TraceInfo t = mt_test::ExportAndCheck();  // also: one thread_name per tid
  const uint64_t old_tid = ft::TidOf(t, Name(2));
  const uint64_t new_tid = ft::TidOf(t, Name(kMaxTasks));
  EXPECT_NE(old_tid, 0u);
  EXPECT_NE(new_tid, 0u);
  EXPECT_NE(old_tid, new_tid) << "a reused context must not merge two tasks into one track";
  EXPECT_EQ(ft::Events(t, old_tid, "i", "work").size(), size_t(kEach));
  EXPECT_EQ(ft::Events(t, new_tid, "i", "work").size(), size_t(kEach));
  EXPECT_TRUE(ft::TidsNamed(t, Name(kMaxTasks + 1)).empty());
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_dropped, uint64_t(kEach));
}

// The deletion callback hands the deleted task's chunk back (the core's
// thread-exit hook): it is recycled like any other when the buffer wraps.
TEST_F(FreeRtosTest, DeletedTaskChunkIsRecycled) {
  {
    Task a("short_lived", 0, [] {
      for (int k = 0; k < kEach; ++k) TRACE_INSTANT("work");
    });
    a.WaitDone();
  }  // deleted here
  Task filler("filler", 1, [] {
    for (int i = 0; i < 40000; ++i) TRACE_INSTANT("fill");  // 640 KB through 256 KB
  });
  filler.WaitDone();
  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  EXPECT_TRUE(ft::TidsNamed(t, "short_lived").empty()) << "the deleted task's chunk was not released: never recycled";
  EXPECT_FALSE(ft::TidsNamed(t, "filler").empty());
}

#if defined(MABUTRACE_FREERTOS_USE_TLS)

// A task that deletes itself is freed by the idle task of its core, which
// runs the deletion callback: the context is free only after that.
TEST_F(FreeRtosTest, SelfDeletedTaskIsReleasedByTheIdleTask) {
  std::vector<std::unique_ptr<Task>> tasks;
  for (int i = 0; i < kMaxTasks - 1; ++i) tasks.push_back(Recorder(i));
  Task self(
      Name(kMaxTasks - 1), 1, [] { TRACE_INSTANT("last words"); }, Task::kSelfDelete);
  self.WaitDone();
  std::unique_ptr<Task> before = Recorder(kMaxTasks);  // all contexts taken
  EXPECT_EQ(fake::RunIdle(1), 1);                      // the idle task of core 1 cleans up
  std::unique_ptr<Task> after = Recorder(kMaxTasks + 1);

  const mt_test::TraceInfo t = mt_test::ExportAndCheck();
  EXPECT_TRUE(ft::TidsNamed(t, Name(kMaxTasks)).empty());
  const uint64_t tid = ft::TidOf(t, Name(kMaxTasks + 1));
  EXPECT_EQ(ft::Events(t, tid, "i", "work").size(), size_t(kEach));
  EXPECT_EQ(ft::Events(t, ft::TidOf(t, Name(kMaxTasks - 1)), "i", "last words").size(), 1u);
}

// The deletion callback of a task that deleted itself runs in the idle
// task, which must never block: while an export waits for another one
// (holding the lifecycle lock that the callback needs), the idle task must
// spin, not vTaskDelay() (the fake records a violation if it does).
TEST_F(FreeRtosTest, DeletionCallbackNeverBlocksTheIdleTask) {
  Task rec(
      "doomed", 0, [] { TRACE_INSTANT("x"); }, Task::kSelfDelete);
  rec.WaitDone();

  // Export 1 holds the export lock until `release`.
  std::mutex m;
  std::condition_variable cv;
  bool writing = false, release = false;
  struct Ctx {
    std::mutex* m;
    std::condition_variable* cv;
    bool* writing;
    bool* release;
  } ctx{&m, &cv, &writing, &release};
  auto slow_write = [](void* user, const char*, size_t) -> int {
    Ctx* c = static_cast<Ctx*>(user);
    std::unique_lock<std::mutex> lock(*c->m);
    *c->writing = true;
    c->cv->notify_all();
    c->cv->wait(lock, [c] { return *c->release; });
    return 0;
  };
  Task exporter1("export1", 1, [&] { EXPECT_EQ(mabutrace_export_json(slow_write, &ctx), MABUTRACE_OK); });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return writing; });
  }
  // Export 2 waits for the export lock while holding the lifecycle lock.
  auto discard = [](void*, const char*, size_t) -> int { return 0; };
  Task exporter2("export2", 1, [&] { EXPECT_EQ(mabutrace_export_json(discard, nullptr), MABUTRACE_OK); });
  while (fake::DelayCount(exporter2.handle()) < 2) std::this_thread::yield();  // it waits

  // Export 1 finishes once the idle task has waited a little for the lock.
  const TaskHandle_t idle = fake::IdleTask(0);
  const int idle_waits = fake::DelayCount(idle) + fake::YieldCount(idle);
  std::thread releaser([&] {
    while (fake::DelayCount(idle) + fake::YieldCount(idle) < idle_waits + 3) std::this_thread::yield();
    std::lock_guard<std::mutex> lock(m);
    release = true;
    cv.notify_all();
  });
  EXPECT_EQ(fake::RunIdle(0), 1);  // the callback waits for the lifecycle lock here
  releaser.join();
  exporter1.WaitDone();
  exporter2.WaitDone();
}

#endif  // MABUTRACE_FREERTOS_USE_TLS

}  // namespace
