// SPDX-License-Identifier: MIT
// Threads (R-A10): OS names, explicit names, real OS tids, one track each.
#include <gtest/gtest.h>
#include <pthread.h>

#include <string>
#include <thread>

#include "mabutrace/mabutrace.h"
#include "test_util.h"

namespace {

using mabutrace::RecordType;
using mt_test::json;

class Threads : public ::testing::Test {
 protected:
  void SetUp() override {
    mabutrace_config_t cfg = mt_test::Config(64 * 1024);
    ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  }
  void TearDown() override { mabutrace_deinit(); }
};

const char kA[] = "event_a";
const char kB[] = "event_b";

TEST_F(Threads, PthreadNameIsTheThreadName) {
  uint32_t tid = 0;
  std::thread([&] {
    pthread_setname_np(pthread_self(), "worker-os");
    tid = mt_test::Gettid();
    TRACE_INSTANT(kA);
  }).join();
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  ASSERT_EQ(trace.thread_names.count(tid), 1u);
  EXPECT_EQ(trace.thread_names.at(tid), "worker-os");
}

TEST_F(Threads, SetThreadNameOverridesThePthreadName) {
  uint32_t tid = 0;
  std::thread([&] {
    pthread_setname_np(pthread_self(), "worker-os");
    tid = mt_test::Gettid();
    TRACE_INSTANT(kA);
    EXPECT_EQ(mabutrace_set_thread_name("explicit name"), MABUTRACE_OK);
    TRACE_INSTANT(kA);
  }).join();
  // Set before the first event, on the main thread, and longer than 31 bytes
  // (truncated, NUL-terminated).
  EXPECT_EQ(mabutrace_set_thread_name("main thread with a very long name 0123456789"), MABUTRACE_OK);
  TRACE_INSTANT(kB);
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  ASSERT_EQ(trace.thread_names.count(tid), 1u);
  EXPECT_EQ(trace.thread_names.at(tid), "explicit name");
  ASSERT_EQ(trace.thread_names.count(mt_test::Gettid()), 1u);
  EXPECT_EQ(trace.thread_names.at(mt_test::Gettid()), std::string("main thread with a very long name").substr(0, 31));
}

// Two threads attach at the same time (under TSan this caught the plain
// g_exit_fn write in port.cpp, now atomic).
// A name cut to the slot's 31 bytes is cut before a multi-byte character,
// never inside it (which would make the exporters write U+FFFD).
TEST_F(Threads, LongNameIsCutAtACharacterBoundary) {
  const std::string thirty(30, 'n');
  uint32_t tid = 0;
  std::thread([&] {
    tid = mt_test::Gettid();
    EXPECT_EQ(mabutrace_set_thread_name((thirty + "\xC3\xA9tail").c_str()), MABUTRACE_OK);
    TRACE_INSTANT(kA);
  }).join();
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  ASSERT_EQ(trace.thread_names.count(tid), 1u);
  EXPECT_EQ(trace.thread_names.at(tid), thirty);
}

TEST_F(Threads, DistinctOsTidsAndOwnTracks) {
  uint32_t tid_a = 0, tid_b = 0;
  std::thread ta([&] {
    tid_a = mt_test::Gettid();
    for (int i = 0; i < 100; ++i) {
      TRACE_SCOPE(kA);
      TRACE_INSTANT(kA);
    }
  });
  std::thread tb([&] {
    tid_b = mt_test::Gettid();
    for (int i = 0; i < 100; ++i) {
      TRACE_SCOPE(kB);
      TRACE_COUNTER(kB, i);
    }
  });
  ta.join();
  tb.join();
  ASSERT_NE(tid_a, tid_b);
  EXPECT_NE(tid_a, mt_test::Gettid());

  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), 600u);
  for (const auto& r : recs) {
    if (r.r.name == kA) {
      EXPECT_EQ(r.tid, tid_a);
    } else if (r.r.name == kB) {
      EXPECT_EQ(r.tid, tid_b);
    }
  }
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  for (const json& ev : trace.events) {
    const uint64_t tid = ev["tid"].get<uint64_t>();
    EXPECT_TRUE(tid == tid_a || tid == tid_b) << ev.dump();
    if (ev["name"] == kA) {
      EXPECT_EQ(tid, tid_a) << ev.dump();
    } else if (ev["name"] == kB) {
      EXPECT_EQ(tid, tid_b) << ev.dump();
    }
  }
  EXPECT_EQ(trace.OnTid(tid_a).size(), 300u);
  EXPECT_EQ(trace.OnTid(tid_b).size(), 300u);
  EXPECT_EQ(trace.thread_names.size(), 2u);
  EXPECT_EQ(trace.Meta("threads"), 2u);
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.threads, 2u);
}

// A thread that exits keeps its events and its name; a new thread that
// reuses the registry slot gets its own tid and name.
TEST_F(Threads, ExitedThreadsKeepTheirNamesAndSlotsAreReused) {
  mabutrace_deinit();
  mabutrace_config_t cfg = mt_test::Config(64 * 1024);
  cfg.max_threads = 2;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  TRACE_INSTANT(kB);  // main thread: slot 0
  uint32_t tids[3] = {};
  const char* names[3] = {"first", "second", "third"};
  for (int i = 0; i < 3; ++i) {
    std::thread([&, i] {
      tids[i] = mt_test::Gettid();
      mabutrace_set_thread_name(names[i]);
      TRACE_INSTANT(kA);
    }).join();
  }
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_dropped, 0u) << "slots of exited threads are reused";
  EXPECT_EQ(st.events_written, 4u);
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  const auto is = trace.Find("i", kA);
  ASSERT_EQ(is.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(is[i]["tid"], tids[i]);
  // The last thread's name is certain; earlier ones may have lost theirs to
  // the slot's new owner, but never show another thread's name.
  ASSERT_EQ(trace.thread_names.count(tids[2]), 1u);
  EXPECT_EQ(trace.thread_names.at(tids[2]), "third");
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(trace.thread_names.count(tids[i]), 1u);
    const std::string n = trace.thread_names.at(tids[i]);
    EXPECT_TRUE(n == names[i] || n == "thread " + std::to_string(tids[i])) << n;
  }
}

}  // namespace
