// SPDX-License-Identifier: MIT
// Misuse never crashes (R-A9): calls before init / after deinit, double init,
// bad configs, NULL arguments, failing export sinks, re-init.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "mabutrace/mabutrace.h"
#include "test_util.h"

namespace {

using mabutrace::RecordType;
using mt_test::json;

class Misuse : public ::testing::Test {
 protected:
  void SetUp() override { mabutrace_deinit(); }
  void TearDown() override { mabutrace_deinit(); }
};

const char kName[] = "name";

// Every macro once, with every optional argument.
void EveryMacro() {
  TRACE_SCOPE(kName);
  TRACE_SCOPE(kName, COLOR_RED);
  TRC();
  TRACE_INSTANT(kName);
  TRACE_INSTANT(kName, COLOR_RED);
  TRACE_COUNTER(kName, 1);
  TRACE_COUNTER(kName, 1, COLOR_RED);
  uint16_t l1 = 0, l2 = 0, l3 = 0;
  TRACE_FLOW_OUT(&l1);
  TRACE_FLOW_OUT(&l2, kName);
  TRACE_FLOW_OUT(&l3, kName, COLOR_RED);
  TRACE_FLOW_IN(l1 ? l1 : 1);
  TRACE_FLOW_IN(l2 ? l2 : 2, kName);
  TRACE_FLOW_IN(l3 ? l3 : 3, kName, COLOR_RED);
}
constexpr uint64_t kEveryMacroRecords = 16;  // 3 scopes (B+E), 2 i, 2 C, 3 out, 3 in

TEST_F(Misuse, MacrosBeforeInitAndAfterDeinitRecordNothing) {
  ASSERT_EQ(mabutrace_is_initialized(), 0);
  EveryMacro();  // before init
  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  EXPECT_TRUE(mt_test::ReadRecords().empty());
  EveryMacro();
  EXPECT_EQ(mt_test::ReadRecords().size(), kEveryMacroRecords);
  mabutrace_deinit();
  EXPECT_EQ(mabutrace_is_initialized(), 0);
  EveryMacro();  // after deinit
  std::thread(EveryMacro).join();
  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  EXPECT_TRUE(mt_test::ReadRecords().empty());
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_written, 0u);
  EXPECT_EQ(st.events_dropped, 0u);
}

// A scope open across deinit/init records no end in the new session (its
// begin belongs to the old one): no orphan E.
TEST_F(Misuse, ScopeOpenAcrossSessionsEndsNowhere) {
  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  {
    TRACE_SCOPE(kName);
    mabutrace_deinit();
    ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  }
  EXPECT_TRUE(mt_test::ReadRecords().empty());
  // Begun before init, ended after it.
  mabutrace_deinit();
  {
    TRACE_SCOPE(kName);
    ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  }
  EXPECT_TRUE(mt_test::ReadRecords().empty());
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Meta("orphan_scope_ends"), 0u);
}

TEST_F(Misuse, DoubleInitIsAnErrorAndKeepsTheFirstSession) {
  mabutrace_config_t cfg = mt_test::Config(8192);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  TRACE_INSTANT(kName);
  EXPECT_EQ(mabutrace_init(), MABUTRACE_ERR_ALREADY_INITIALIZED);
  EXPECT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_ERR_ALREADY_INITIALIZED);
  EXPECT_EQ(mabutrace_init_with_config(nullptr), MABUTRACE_ERR_ALREADY_INITIALIZED);
  EXPECT_EQ(mabutrace_is_initialized(), 1);
  TRACE_INSTANT(kName);
  EXPECT_EQ(mt_test::ReadRecords().size(), 2u);
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.buffer_size, 8192u);
}

TEST_F(Misuse, DeinitTwiceAndWithoutInit) {
  mabutrace_deinit();
  mabutrace_deinit();
  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  mabutrace_deinit();
  mabutrace_deinit();
  EXPECT_EQ(mabutrace_is_initialized(), 0);
}

TEST_F(Misuse, InvalidConfigs) {
  auto expect_invalid = [](mabutrace_config_t cfg, const char* what) {
    EXPECT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_ERR_INVALID_ARG) << what;
    EXPECT_EQ(mabutrace_is_initialized(), 0) << what;
    EXPECT_EQ(mabutrace_memory_required(&cfg), 0u) << what;
  };
  mabutrace_config_t cfg = mt_test::Config();
  cfg.buffer_size = 0;
  expect_invalid(cfg, "buffer_size 0");
  cfg.buffer_size = 4095;
  expect_invalid(cfg, "buffer_size 4095");
  cfg.buffer_size = (size_t(1) << 30) + 1;
  expect_invalid(cfg, "buffer_size 1 GiB + 1");
  cfg.buffer_size = SIZE_MAX;
  expect_invalid(cfg, "buffer_size SIZE_MAX");
  cfg = mt_test::Config();
  cfg.max_threads = 0;
  expect_invalid(cfg, "max_threads 0");
  cfg = mt_test::Config();
  cfg.max_depth = 0;
  expect_invalid(cfg, "max_depth 0");
  cfg = mt_test::Config();
  cfg.clock = mt_test::FakeClock::Read;
  cfg.clock_hz = 0;
  expect_invalid(cfg, "clock without clock_hz");
  // Caller memory that is not 64-byte aligned.
  cfg = mt_test::Config(4096);
  const size_t need = mabutrace_memory_required(&cfg);
  ASSERT_GT(need, 4096u);
  void* mem = aligned_alloc(64, need + 64);
  ASSERT_NE(mem, nullptr);
  cfg.memory = static_cast<char*>(mem) + 8;
  EXPECT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_ERR_INVALID_ARG);
  EXPECT_EQ(mabutrace_is_initialized(), 0);
  free(mem);
  // The limits themselves are valid.
  cfg = mt_test::Config(4096);
  cfg.max_threads = 1;
  cfg.max_depth = 1;
  EXPECT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  mabutrace_deinit();
  EXPECT_EQ(mabutrace_init_with_config(nullptr), MABUTRACE_OK);
}

// Caller-provided memory: used as is, never freed by deinit (ASan would
// report a free of memory the library did not allocate).
TEST_F(Misuse, CallerMemory) {
  mabutrace_config_t cfg = mt_test::Config(16 * 1024);
  const size_t need = mabutrace_memory_required(&cfg);
  ASSERT_GT(need, cfg.buffer_size);
  void* mem = aligned_alloc(64, (need + 63) / 64 * 64);
  ASSERT_NE(mem, nullptr);
  cfg.memory = mem;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  for (int i = 0; i < 2000; ++i) TRACE_COUNTER(kName, i);
  const auto trace = mt_test::ExportAndCheck();
  EXPECT_TRUE(trace.ok);
  mabutrace_deinit();
  // Reusable after deinit.
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  TRACE_INSTANT(kName);
  EXPECT_EQ(mt_test::ReadRecords().size(), 1u);
  mabutrace_deinit();
  free(mem);
}

const char* volatile g_null_name = nullptr;

TEST_F(Misuse, NullNamesAreExportedAsNullString) {
  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  const char* null_name = g_null_name;
  uint16_t link = 0;
  {
    TRACE_SCOPE(null_name);
    TRACE_INSTANT(null_name, COLOR_RED);
    TRACE_COUNTER(null_name, 42);
    TRACE_FLOW_OUT(&link, null_name);
    TRACE_FLOW_IN(link, null_name);
  }
  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), 6u);
  for (const auto& r : recs) EXPECT_EQ(r.r.name, nullptr);
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("B", "(null)").size(), 1u);
  EXPECT_EQ(trace.Find("E", "(null)").size(), 1u);
  EXPECT_EQ(trace.Find("i", "(null)").size(), 1u);
  EXPECT_EQ(trace.Find("C", "(null)").size(), 1u);
  EXPECT_EQ(trace.Find("f").size(), 1u);
}

TEST_F(Misuse, NullAndUninitializedApiArguments) {
  mabutrace_stats_t st;
  memset(&st, 0xAB, sizeof st);
  EXPECT_EQ(mabutrace_get_stats(&st), MABUTRACE_ERR_NOT_INITIALIZED);
  EXPECT_EQ(st.events_written, 0u) << "stats are zeroed when not initialized";
  EXPECT_EQ(mabutrace_get_stats(nullptr), MABUTRACE_ERR_INVALID_ARG);
  std::string out;
  int rc = 0;
  out = mt_test::ExportText(&rc);
  EXPECT_EQ(rc, MABUTRACE_ERR_NOT_INITIALIZED);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(mabutrace_set_thread_name("x"), MABUTRACE_ERR_NOT_INITIALIZED);
  EXPECT_EQ(mabutrace_set_thread_name(nullptr), MABUTRACE_ERR_INVALID_ARG);
  EXPECT_EQ(mabutrace_export_json(nullptr, nullptr), MABUTRACE_ERR_INVALID_ARG);
  EXPECT_EQ(mabutrace_export_perfetto(nullptr, nullptr), MABUTRACE_ERR_INVALID_ARG);
  mabutrace_config_default(nullptr);
  EXPECT_GT(mabutrace_memory_required(nullptr), 64u * 1024);
  mabutrace_scope_end(nullptr);
  mabutrace_flow_out(nullptr, kName, 0);

  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  EXPECT_EQ(mabutrace_set_thread_name(nullptr), MABUTRACE_ERR_INVALID_ARG);
  EXPECT_EQ(mabutrace_get_stats(nullptr), MABUTRACE_ERR_INVALID_ARG);
  EXPECT_EQ(mabutrace_export_json(nullptr, nullptr), MABUTRACE_ERR_INVALID_ARG);
  mabutrace_scope_end(nullptr);
  mabutrace_flow_out(nullptr, kName, 0);
  EXPECT_TRUE(mt_test::ReadRecords().empty());
}

struct FailingSink {
  int calls = 0;
  int fail_at = 1;  // the call that fails (1 = the first)
  std::string got;
};
int FailingWrite(void* user, const char* data, size_t len) {
  auto* s = static_cast<FailingSink*>(user);
  ++s->calls;
  if (s->calls >= s->fail_at) return -1;
  s->got.append(data, len);
  return 0;
}

TEST_F(Misuse, ExportWithAFailingSinkReturnsIoError) {
  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  for (int i = 0; i < 2000; ++i) TRACE_COUNTER(kName, i);  // > 4 KiB of JSON
  FailingSink first;
  EXPECT_EQ(mabutrace_export_json(FailingWrite, &first), MABUTRACE_ERR_IO);
  EXPECT_EQ(first.calls, 1) << "no more writes after the sink refused";
  FailingSink later;
  later.fail_at = 3;
  EXPECT_EQ(mabutrace_export_json(FailingWrite, &later), MABUTRACE_ERR_IO);
  EXPECT_EQ(later.calls, 3);
  // The runtime is still fine: a good export works.
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Meta("exported_records"), mt_test::ReadRecords().size());
}

// Re-init after deinit works, also for a thread that traced in the first
// session and keeps running into the second.
TEST_F(Misuse, ReinitAndAThreadThatOutlivesASession) {
  std::mutex m;
  std::condition_variable cv;
  int phase = 0, done = 0;
  auto wait_for = [&](int p) {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return phase >= p; });
  };
  auto signal_done = [&] {
    std::lock_guard<std::mutex> lock(m);
    ++done;
    cv.notify_all();
  };
  uint32_t worker_tid = 0;
  std::thread worker([&] {
    worker_tid = mt_test::Gettid();
    for (int p = 1; p <= 3; ++p) {
      wait_for(p);
      {
        TRACE_SCOPE(kName);
        TRACE_COUNTER(kName, p);
      }
      signal_done();
    }
  });
  auto step = [&](int p) {
    std::unique_lock<std::mutex> lock(m);
    phase = p;
    cv.notify_all();
    cv.wait(lock, [&] { return done >= p; });
  };
  auto check_session = [&](int p) {
    // Main thread B C E (first chunk), then the worker's B C E.
    const auto recs = mt_test::ReadRecords();
    ASSERT_EQ(recs.size(), 6u) << "session " << p;
    EXPECT_EQ(recs[1].r.type, RecordType::kCounter);
    EXPECT_EQ(recs[1].r.value, p);
    EXPECT_EQ(recs[1].tid, mt_test::Gettid());
    EXPECT_EQ(recs[4].r.type, RecordType::kCounter);
    EXPECT_EQ(recs[4].r.value, p);
    EXPECT_EQ(recs[4].tid, worker_tid);
    const auto trace = mt_test::ExportAndCheck();
    ASSERT_TRUE(trace.ok);
    EXPECT_EQ(trace.Find("C", kName).size(), 2u);
    EXPECT_EQ(trace.Find("B", kName).size(), 2u);
    EXPECT_EQ(trace.Find("E", kName).size(), 2u);
  };
  for (int p = 1; p <= 3; ++p) {
    mabutrace_config_t cfg = mt_test::Config(p == 2 ? 4096 : 32 * 1024);
    ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
    {
      TRACE_SCOPE(kName);
      TRACE_COUNTER(kName, p);
    }
    step(p);
    check_session(p);
    // The worker exits after its last phase: join it before the last deinit
    // (its exit hook must not race with deinit; see ThreadExitRacingDeinit).
    if (p == 3) worker.join();
    mabutrace_deinit();
  }
}

// A thread that traced and then simply exits while another thread calls
// mabutrace_deinit(). The thread made no tracing call after deinit began,
// which the API allows, but the runtime's thread-exit hook (OnThreadExit,
// src/runtime/chunk_writer.h) still reads and writes the Runtime that deinit
// frees, with no synchronisation: a use-after-free when the exit hook runs
// while deinit frees (e.g. a thread pool shutting down during deinit).
//
// Regression: OnThreadExit (chunk_writer.h) once read rt->session and
// rt->threads and released its chunk while mabutrace_deinit freed them; TSan
// reported the race. It now takes the lifecycle lock, as BeginExport does.
// Other builds pass either way (the exit hook here runs before deinit).
TEST_F(Misuse, ThreadExitRacingDeinit) {
  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  std::atomic<uint32_t> tid{0};
  std::thread t([&] {
    TRACE_INSTANT(kName);
    tid = mt_test::Gettid();
  });
  while (tid.load() == 0) std::this_thread::yield();
  // Wait until the thread has really exited (exit hooks run), without
  // joining: a join would order its exit hook before deinit.
  const std::string task = "/proc/self/task/" + std::to_string(tid.load());
  for (int i = 0; i < 5000 && access(task.c_str(), F_OK) == 0; ++i) usleep(1000);
  mabutrace_deinit();
  t.join();
}

// More threads than registry slots: the extra thread's events are dropped
// and counted, nothing crashes.
TEST_F(Misuse, MoreThreadsThanMaxThreads) {
  mabutrace_config_t cfg = mt_test::Config(8192);
  cfg.max_threads = 1;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  TRACE_INSTANT(kName);
  std::thread([] {
    TRACE_SCOPE(kName);
    TRACE_INSTANT(kName);
    EXPECT_EQ(mabutrace_set_thread_name("extra"), MABUTRACE_ERR_NO_MEMORY);
  }).join();
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_written, 1u);
  EXPECT_EQ(st.events_dropped, 3u);
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Meta("events_dropped"), 3u);
  EXPECT_EQ(trace.Meta("orphan_scope_ends"), 0u);
}

}  // namespace
