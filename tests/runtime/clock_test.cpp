// SPDX-License-Identifier: MIT
// The host clock (docs/runtime.md §10): whichever port clock records (the
// CPU counter or CLOCK_MONOTONIC, MABUTRACE_CLOCK picks it for the whole
// suite), its ticks convert (format/clock_map.h) to ns that never go back
// on a thread and stay within 1 us of CLOCK_MONOTONIC read beside them;
// the dump descriptor carries the clock. Nothing here measures speed.
#include <gtest/gtest.h>
#include <time.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "chunk_reader.h"
#include "format/clock_map.h"
#include "mabutrace/mabutrace.h"
#include "ring_buffer.h"
#include "test_util.h"

namespace {

uint64_t Mono() { return mt_test::MonotonicNs(); }

class Clock : public ::testing::Test {
 protected:
  void TearDown() override { mabutrace_deinit(); }
  void Init(uint32_t source, size_t bytes = 1 << 20) {
    mabutrace_config_t cfg;
    mabutrace_config_default(&cfg);
    cfg.buffer_size = bytes;
    cfg.clock_source = source;
    ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  }
};

// A record's time on CLOCK_MONOTONIC through the exporters' conversion.
uint64_t MonoOf(const mabutrace::format::ClockMap& m, uint64_t ticks) {
  return m.MonotonicAtOrigin() + m.NsSinceOrigin(ticks);
}

TEST_F(Clock, ForcedMonotonicIsCountedInNanoseconds) {
  Init(MABUTRACE_CLOCK_MONOTONIC);
  mabutrace::Runtime& rt = *mabutrace::CurrentRuntime();
  EXPECT_EQ(rt.clock_source, MABUTRACE_CLOCK_MONOTONIC);
  EXPECT_EQ(rt.clock_hz, 1000000000u);
  ASSERT_TRUE(rt.clock_init.valid());
  EXPECT_EQ(rt.clock_init.ticks, rt.clock_init.monotonic_ns);
  EXPECT_GE(rt.clock_init.boottime_ns, rt.clock_init.monotonic_ns);
  const uint64_t before = Mono();
  TRACE_INSTANT("x");
  const uint64_t after = Mono();
  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_GE(recs[0].r.ticks, before);  // the ticks are CLOCK_MONOTONIC itself
  EXPECT_LE(recs[0].r.ticks, after);
}

TEST_F(Clock, AutoPicksTheCounterWhereTheCpuHasOne) {
  Init(MABUTRACE_CLOCK_AUTO);
  const mabutrace::Runtime& rt = *mabutrace::CurrentRuntime();
  const char* env = getenv("MABUTRACE_CLOCK");
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(MABUTRACE_HOST_CLOCK_MONOTONIC)
  if (env && std::string(env) == "monotonic") {
    EXPECT_EQ(rt.clock_source, MABUTRACE_CLOCK_MONOTONIC);
  } else {
    // (An x86-64 CPU without invariant TSC would pick MONOTONIC: say so.)
    EXPECT_EQ(rt.clock_source, MABUTRACE_CLOCK_COUNTER) << "no usable CPU counter here?";
    EXPECT_GT(rt.clock_hz, 1000000u);
  }
#else
  (void)env;
  EXPECT_EQ(rt.clock_source, MABUTRACE_CLOCK_MONOTONIC);
#endif
  EXPECT_EQ(rt.dump.clock_source, uint8_t(rt.clock_source));
  EXPECT_EQ(rt.dump.clock_init_ticks, rt.clock_init.ticks);
  EXPECT_EQ(rt.dump.clock_init_monotonic_ns, rt.clock_init.monotonic_ns);
  EXPECT_EQ(rt.dump.clock_init_boottime_ns, rt.clock_init.boottime_ns);
  EXPECT_EQ(rt.origin, rt.clock_init.ticks);
}

// Four threads (more than the two CPUs: they migrate) record instants for
// a while; each thread's converted times never go back, and all stay within
// 1 us of CLOCK_MONOTONIC read just before and after each record.
void RunBeside(uint32_t source, int seconds) {
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 1 << 20;
  cfg.clock_source = source;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  struct Probe {
    uint64_t before, after;
  };
  constexpr int kThreads = 4, kPerThread = 2000;
  std::vector<std::vector<Probe>> probes(kThreads);
  std::vector<uint32_t> tids(kThreads);
  const uint64_t end = Mono() + uint64_t(seconds) * 1000000000u;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      tids[t] = mt_test::Gettid();
      for (int i = 0; i < kPerThread; ++i) {
        const uint64_t before = Mono();
        TRACE_INSTANT("probe");
        probes[t].push_back({before, Mono()});
        // Spread the records over the run (sleeps also make threads migrate).
        const uint64_t left = end > Mono() ? end - Mono() : 0;
        timespec ts{0, long(left / uint64_t(kPerThread - i))};
        nanosleep(&ts, nullptr);
      }
    });
  }
  for (auto& th : threads) th.join();
  // Converted the way every export converts (the sample of now included).
  const auto map = mabutrace::CurrentClockMap(*mabutrace::CurrentRuntime());
  const auto all = mt_test::ReadAll();
  std::map<uint32_t, std::vector<uint64_t>> by_tid;
  for (const auto& r : all.records) by_tid[r.tid].push_back(MonoOf(map, r.r.ticks));
  ASSERT_EQ(by_tid.size(), size_t(kThreads));
  uint64_t worst = 0;
  for (int t = 0; t < kThreads; ++t) {
    const uint32_t tid = tids[t];
    const std::vector<uint64_t>& times = by_tid[tid];
    ASSERT_EQ(times.size(), size_t(kPerThread));
    const std::vector<Probe>* mine = &probes[t];  // records of a thread come in its order
    for (size_t i = 0; i < times.size(); ++i) {
      if (i) {
        ASSERT_GE(times[i], times[i - 1]) << "went back on thread " << tid << " at " << i;
      }
      const Probe& p = (*mine)[i];
      if (times[i] + 1000 < p.before) worst = std::max(worst, p.before - times[i]);
      if (times[i] > p.after + 1000) worst = std::max(worst, times[i] - p.after);
      EXPECT_GE(times[i] + 1000, p.before) << "record " << i << " of thread " << tid;
      EXPECT_LE(times[i], p.after + 1000) << "record " << i << " of thread " << tid;
    }
  }
  EXPECT_EQ(worst, 0u) << "ns outside [before - 1 us, after + 1 us]";
}

TEST_F(Clock, TenSecondsStayWithinOneMicrosecondOfMonotonic) { RunBeside(MABUTRACE_CLOCK_AUTO, 10); }

TEST_F(Clock, ForcedFallbackStaysWithinOneMicrosecondOfMonotonic) { RunBeside(MABUTRACE_CLOCK_MONOTONIC, 1); }

// The conversion itself: monotonic in the ticks across segments, exact at
// the samples, the rate alone without samples.
// A config clock that is not one global monotonic clock (a per-core cycle
// counter passed as config.clock, the thread migrating between its begin
// and its end) goes backwards across a scope: the end is drawn 1 ns after
// the begin, as before, but no longer silently: counted in
// clock_went_backwards (docs/runtime.md §4: config clocks must be global).
// Mutation shown red: the walker's check removed (trace_walker.cpp Write):
// clock_went_backwards 0.
TEST(UserClock, BackwardsTimeAcrossAScopeIsCounted) {
  mabutrace_config_t cfg = mt_test::Config(64 * 1024);
  cfg.clock = mt_test::FakeClock::Read;
  cfg.clock_hz = 1000000000;  // 1 tick = 1 ns
  mt_test::FakeClock::now = 1000;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  {
    TRACE_SCOPE("steady");  // 1000 .. 2000: forwards
    mt_test::FakeClock::now = 2000;
  }
  mt_test::FakeClock::now = 5000;
  {
    TRACE_SCOPE("migrated");         // begins at 5000 on "core 0"
    mt_test::FakeClock::now = 4000;  // ends on "core 1", whose counter is behind
  }
  mt_test::FakeClock::now = 6000;
  TRACE_INSTANT("later");                        // forwards again: not counted
  const auto trace = mt_test::ExportAndCheck();  // also: ts never goes back
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Meta("clock_went_backwards"), 1u);
  const auto begins = trace.Find("B", "migrated");
  const auto ends = trace.Find("E", "migrated");
  ASSERT_EQ(begins.size(), 1u);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_GT(mt_test::TsNs(ends[0]), mt_test::TsNs(begins[0]));
  mabutrace_deinit();
}

// The TLS writer's fast path reads the CPU counter itself; it may record
// only in a session whose clock that is (its one compare with g_session
// covers the clock: writer_tls.cpp). A thread that recorded on the counter
// and then records in a user-clock session, and back, uses each session's
// clock for every kind of record. Mutation shown red: the writer's
// fast_session set to its session whatever the clock (every record of the
// user-clock session then carries counter ticks).
TEST(UserClock, ThreadSwitchingSessionsRecordsOnEachSessionsClock) {
  const auto record_all_kinds = [] {
    { TRACE_SCOPE("scope"); }
    TRACE_INSTANT("instant");
    TRACE_COUNTER("counter", 1);
    uint16_t link = 0;
    TRACE_FLOW_OUT(&link, "flow");
    TRACE_FLOW_IN(link, "flow");
  };
  // The user clock reads just behind the counter, so that a record taking
  // the counter instead still has a delta that fits its chunk's time base.
  const uint64_t kFake = mabutrace::port::NowTicks() - 1000;
  for (int round = 0; round < 2; ++round) {
    mabutrace_config_t port_cfg = mt_test::Config(64 * 1024);
    ASSERT_EQ(mabutrace_init_with_config(&port_cfg), MABUTRACE_OK);
    record_all_kinds();
    auto recs = mt_test::ReadRecords();
    ASSERT_EQ(recs.size(), 6u);
    for (const auto& r : recs) EXPECT_NE(r.r.ticks, kFake) << "round " << round;
    mabutrace_deinit();

    mabutrace_config_t user_cfg = mt_test::Config(64 * 1024);
    user_cfg.clock = mt_test::FakeClock::Read;
    user_cfg.clock_hz = 1000000000;
    mt_test::FakeClock::now = kFake;
    ASSERT_EQ(mabutrace_init_with_config(&user_cfg), MABUTRACE_OK);
    record_all_kinds();
    recs = mt_test::ReadRecords();
    ASSERT_EQ(recs.size(), 6u);
    for (const auto& r : recs) EXPECT_EQ(r.r.ticks, kFake) << "round " << round << " type " << int(r.r.type);
    mabutrace_deinit();
  }
}

TEST(ClockMap, PiecewiseIsMonotonicAndExactAtSamples) {
  using mabutrace::format::ClockSync;
  const ClockSync s[] = {{1000, 5000, 9000}, {4001000, 6005000, 10005000}, {9001000, 7005100, 11005100}};
  uint64_t prev = 0;
  for (uint64_t t = 0; t < 12000000; t += 997) {
    const uint64_t ns = mabutrace::format::SamplesNs(s, 3, 2000000000u, t);
    ASSERT_GE(ns, prev) << t;
    prev = ns;
  }
  for (const ClockSync& x : s) EXPECT_EQ(mabutrace::format::SamplesNs(s, 3, 1, x.ticks), x.monotonic_ns);
  mabutrace::format::ClockMap m;
  m.hz = 3000000000u;
  m.origin = 300;
  EXPECT_EQ(m.NsSinceOrigin(300 + 3000000000u), 1000000000u);
  EXPECT_EQ(m.NsSinceOrigin(100), 0u);
}

// Samples come from untrusted bytes (stream headers, CLOCK records, dump
// descriptors): the extremes of every field give exact, saturated results,
// not 128-bit overflow (a fuzzer found dt * span overflowing a signed
// __int128; UBSan in `make fuzz`/`make test-asan` reports it).
TEST(ClockMap, ExtremeSamplesAreExactOrSaturate) {
  using mabutrace::format::ClockSync;
  using mabutrace::format::LineNs;
  constexpr uint64_t kMax = UINT64_MAX;
  // Slope (2^64 - 2) / (2^64 - 1) over 2^64 - 2 ticks: 1 + floor((M-1)^2 / M) = M - 1.
  const ClockSync a{0, 1, 1}, b{kMax, kMax, kMax};
  EXPECT_EQ(LineNs(a, b, 1, kMax - 1), kMax - 1);
  EXPECT_EQ(LineNs(a, b, 1, kMax), kMax);
  // Steep slope far past the last sample saturates high.
  const ClockSync c{1, 1, 1}, d{2, kMax, kMax};
  EXPECT_EQ(LineNs(c, d, 1, kMax), kMax);
  // Far before the sample, on the rate alone (hz 1: 1e9 ns a tick), saturates at 0.
  const ClockSync e{kMax, kMax, kMax};
  EXPECT_EQ(LineNs(e, ClockSync{}, 1, 0), 0u);
  EXPECT_EQ(LineNs(e, ClockSync{}, 1, kMax - 1), kMax - 1000000000u);
  // hz 0 (a corrupt header) is treated as 1, not a division by zero.
  EXPECT_EQ(LineNs(c, ClockSync{}, 0, 3), 1u + 2000000000u);
}

}  // namespace
