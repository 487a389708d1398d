// SPDX-License-Identifier: MIT
// stream_roundtrip_test.cpp: record, stream through the output callback,
// decode, and compare with what was recorded (R-C3).
#include <gtest/gtest.h>
#include <stdint.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <random>
#include <thread>

#include "format/stream_format.h"
#include "http/http_service.h"
#include "mabutrace/mabutrace.h"
#include "stream_test_util.h"
#include "stream_to_model.h"
#include "test_util.h"

namespace {

using mabutrace::host::EventType;
using mt_stream::Decode;
using mt_stream::Decoded;
using mt_stream::Ev;
using mt_stream::g_bytes;
using mt_test::FakeClock;

constexpr uint64_t kHz = 1000000;  // fake clock: 1 tick = 1 us
const char kOddName[] = "odd \xff\x01\"\\ name \xc3\xa9";

class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_bytes.clear();
    mt_stream::g_calls = 0;
  }
  void TearDown() override { mabutrace_deinit(); }

  void Init(size_t buffer, bool fake_clock = true) {
    mabutrace_config_t cfg = mt_test::Config(buffer);
    if (fake_clock) {
      FakeClock::now = 5000;
      cfg.clock = FakeClock::Read;
      cfg.clock_hz = kHz;
    }
    cfg.process_name = "stream-proc";
    ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
    ASSERT_EQ(mabutrace_set_output_callback(mt_stream::Capture), MABUTRACE_OK);
  }
};

void Tick() { FakeClock::now += 3; }

// The converter's rules on flows and clocks (host/stream/stream_to_model.h,
// host/model/trace_model.h), the same the device's exporter applies.
using Counts = mt_stream::FlowCounts;

Counts Convert(const std::string& bytes) {
  Counts out;
  mabutrace::host::StreamToModel conv(out);
  EXPECT_TRUE(conv.Feed(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()).ok);
  EXPECT_TRUE(conv.Finish().ok);
  return out;
}

// A link held while 65,535 other flows start (flow 1's link comes round
// again with flow 65536): both outs were streamed and flow 1's has no end
// yet, so the in fits two starts: no arrow, counted. Mutation shown red:
// Resolve() without the open-older-start check: an arrow end id 65536.
TEST_F(StreamTest, ConverterGivesAHeldLinkNoArrow) {
  Init(4 * 1024 * 1024);
  uint16_t held = 0;
  TRACE_FLOW_OUT(&held, "send");
  for (uint32_t i = 2; i <= 65536; ++i) {
    uint16_t l = 0;
    TRACE_FLOW_OUT(&l);
    if (i % 8192 == 0) {
      ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
    }
  }
  TRACE_FLOW_IN(held, "recv");
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  const Counts c = Convert(g_bytes);
  EXPECT_TRUE(c.arrow_ends.empty()) << c.arrow_ends.front();
  EXPECT_EQ(c.meta.at("flow_ends_ambiguous"), 1);
  EXPECT_EQ(c.meta.at("flow_ends_without_start"), 0);
}

// The clock going backwards across a scope (a per-core counter as the
// config clock): counted, as the device's exporter counts it. Mutation
// shown red: Normalizer::Observe() not counting: 0.
TEST_F(StreamTest, ConverterCountsTheClockGoingBackwards) {
  Init(64 * 1024);  // the fake clock
  FakeClock::now = 9000;
  {
    TRACE_SCOPE("migrated");
    FakeClock::now = 8000;
  }
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  EXPECT_EQ(Convert(g_bytes).meta.at("clock_went_backwards"), 1);
}

// HTTP responses the built-in server cut short travel in the LOST record:
// the stream shows them (and so `mabutrace stats`), not only the device's
// exports. Mutation shown red: Flush() not writing the third field (the
// key is missing).
TEST_F(StreamTest, CutHttpResponsesReachTheStream) {
  Init(64 * 1024);
  TRACE_INSTANT("before");
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  EXPECT_EQ(Convert(g_bytes).meta.count("http_responses_cut"), 0u) << "no LOST record yet";
  mabutrace::http::CountCutResponse();
  mabutrace::http::CountCutResponse();
  TRACE_INSTANT("after");
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  const Counts c = Convert(g_bytes);
  ASSERT_EQ(c.meta.count("http_responses_cut"), 1u);
  EXPECT_EQ(c.meta.at("http_responses_cut"), 2);
  EXPECT_EQ(c.meta.at("lost_records"), 0);
}

TEST_F(StreamTest, ApiErrors) {
  EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_ERR_NOT_INITIALIZED);
  EXPECT_EQ(mabutrace_set_output_callback(mt_stream::Capture), MABUTRACE_ERR_NOT_INITIALIZED);
  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_ERR_INVALID_ARG);  // no callback yet
  EXPECT_EQ(mabutrace_set_output_callback(mt_stream::Capture), MABUTRACE_OK);
  EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  EXPECT_EQ(mabutrace_set_output_callback(nullptr), MABUTRACE_OK);
  EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_ERR_INVALID_ARG);
}

TEST_F(StreamTest, HeaderFields) {
  Init(64 * 1024);
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  ASSERT_GE(g_bytes.size(), mabutrace::stream::kHdrFixedBytes);
  EXPECT_EQ(0, memcmp(g_bytes.data(), mabutrace::stream::kMagic, 8));
  const Decoded d = Decode(g_bytes);
  ASSERT_TRUE(d.status.ok) << d.status.message;
  EXPECT_EQ(d.info.version, mabutrace::stream::kVersion);
  EXPECT_EQ(d.info.pointer_size, sizeof(void*));
  EXPECT_FALSE(d.info.big_endian);
  EXPECT_EQ(d.info.clock_hz, kHz);
  EXPECT_EQ(d.info.origin_ticks, 5000u);
  EXPECT_EQ(d.info.pid, uint32_t(getpid()));
  EXPECT_EQ(d.info.process_name, "stream-proc");
  EXPECT_TRUE(d.events.empty());
  // Exactly the header: nothing recorded, nothing lost.
  EXPECT_EQ(g_bytes.size(),
            mabutrace::stream::kHdrFixedBytes + strlen("stream-proc") + mabutrace::stream::kClkHdrBytes);
  EXPECT_FALSE(d.info.clock_init.valid()) << "a user clock relates to no OS clock";
  EXPECT_EQ(d.info.clock_source, mabutrace::stream::kClockSourceUser);
  // A flush with nothing new sends nothing; a new callback starts a new stream.
  const size_t size = g_bytes.size();
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  EXPECT_EQ(g_bytes.size(), size);
  g_bytes.clear();
  ASSERT_EQ(mabutrace_set_output_callback(mt_stream::Capture), MABUTRACE_OK);
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  EXPECT_EQ(g_bytes.size(), size);
}

// Records a known sequence on two threads, flushing in between, and checks
// the decoded events against the ring buffer and the expected values.
TEST_F(StreamTest, KnownSequenceRoundTrip) {
  Init(64 * 1024);
  ASSERT_EQ(mabutrace_set_thread_name("main-thread"), MABUTRACE_OK);
  uint32_t main_tid = mt_test::Gettid(), worker_tid = 0;
  uint16_t link = 0, back = 0;
  {
    TRACE_SCOPE("outer", COLOR_RED);
    Tick();
    TRACE_INSTANT("inst");
    Tick();
    TRACE_COUNTER("cnt", INT32_MIN);
    TRACE_COUNTER("cnt", INT32_MAX, 0x123456);
    ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);  // mid-chunk, scope open
    TRACE_COUNTER("cnt64", INT64_MIN);
    TRACE_COUNTER("cnt64", INT64_MAX);
    TRACE_INSTANT(kOddName);
    TRACE_INSTANT("");
    mabutrace_instant(nullptr, 0);
    Tick();
    TRACE_FLOW_OUT(&link, "send", COLOR_BLUE);
  }
  std::thread worker([&] {
    mabutrace_set_thread_name("worker \xe2\x9c\x93");
    worker_tid = mt_test::Gettid();
    Tick();
    TRACE_SCOPE("work");
    TRACE_FLOW_IN(link, "recv");
    TRACE_FLOW_OUT(&back, "reply");
  });
  worker.join();
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  Tick();
  TRACE_FLOW_IN(back);
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);  // nothing new

  const Decoded d = Decode(g_bytes);
  ASSERT_TRUE(d.status.ok) << d.status.message;
  EXPECT_TRUE(d.record_errors.empty()) << d.record_errors[0].message;
  EXPECT_EQ(d.lost, 0u);

  // Against the ring buffer, read the way the exporters read it.
  const auto recs = mt_test::ReadRecords();
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  ASSERT_EQ(d.events.size(), recs.size());
  ASSERT_EQ(d.events.size(), st.events_written);
  for (uint32_t tid : {main_tid, worker_tid}) {
    const auto evs = mt_stream::OnTid(d.events, tid);
    std::vector<mt_test::Rec> want;
    for (const auto& r : recs) {
      if (r.tid == tid) want.push_back(r);
    }
    ASSERT_EQ(evs.size(), want.size()) << tid;
    for (size_t i = 0; i < evs.size(); ++i) {
      const auto& r = want[i].r;
      SCOPED_TRACE(i);
      EXPECT_EQ(uint8_t(evs[i].type), uint8_t(r.type));
      EXPECT_EQ(evs[i].ticks, r.ticks);
      EXPECT_EQ(evs[i].ns, (r.ticks - 5000) * 1000);
      EXPECT_EQ(evs[i].cpu, r.cpu);
      EXPECT_EQ(evs[i].key, want[i].thread);
      EXPECT_EQ(evs[i].value, r.value);
      EXPECT_EQ(evs[i].link, r.link);
      EXPECT_EQ(evs[i].flow, r.flow);
      EXPECT_EQ(evs[i].color, r.color);
      EXPECT_TRUE(evs[i].name_known);
      if (r.type != mabutrace::RecordType::kScopeEnd) {
        EXPECT_EQ(evs[i].name, r.name ? std::string(r.name) : std::string("(null)"));
      }
    }
  }

  // The expected sequence, by hand.
  const auto m = mt_stream::OnTid(d.events, main_tid);
  ASSERT_EQ(m.size(), 12u);
  EXPECT_EQ(m[0].type, EventType::kScopeBegin);
  EXPECT_EQ(m[0].name, "outer");
  EXPECT_EQ(m[0].color, MABUTRACE_COLOR(COLOR_RED));
  EXPECT_EQ(m[0].thread_name, "main-thread");
  EXPECT_EQ(m[1].name, "inst");
  EXPECT_EQ(m[1].ns - m[0].ns, 3000u);
  EXPECT_EQ(m[2].value, INT32_MIN);
  EXPECT_EQ(m[2].color, 0u);
  EXPECT_EQ(m[3].value, INT32_MAX);
  EXPECT_EQ(m[3].color, MABUTRACE_COLOR(0x123456));
  EXPECT_EQ(m[4].name, "cnt64");
  EXPECT_EQ(m[4].value, INT64_MIN);
  EXPECT_EQ(m[5].value, INT64_MAX);
  EXPECT_EQ(m[6].name, kOddName);
  EXPECT_EQ(m[7].name, "");
  EXPECT_EQ(m[8].name, "(null)");
  EXPECT_EQ(m[9].type, EventType::kFlowOut);
  EXPECT_EQ(m[9].name, "send");
  EXPECT_EQ(m[9].link, link);
  EXPECT_EQ(m[9].color, MABUTRACE_COLOR(COLOR_BLUE));
  EXPECT_EQ(m[10].type, EventType::kScopeEnd);
  EXPECT_EQ(m[11].type, EventType::kFlowIn);
  EXPECT_EQ(m[11].link, back);
  const auto w = mt_stream::OnTid(d.events, worker_tid);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0].thread_name, "worker \xe2\x9c\x93");
  EXPECT_EQ(w[0].name, "work");
  EXPECT_EQ(w[1].type, EventType::kFlowIn);
  EXPECT_EQ(w[1].name, "recv");
  EXPECT_EQ(w[1].link, link);
  // The newest flow number when it arrived: at or past "send"'s, and its
  // link leads back to "send".
  EXPECT_GE(w[1].flow, m[9].flow);
  EXPECT_EQ(mabutrace::FlowForLink(w[1].link, w[1].flow), m[9].flow);
  EXPECT_EQ(w[2].type, EventType::kFlowOut);
  EXPECT_GT(w[2].flow, m[9].flow);  // a fresh number (the worker's own block)
  EXPECT_EQ(w[3].type, EventType::kScopeEnd);

  // Each name travelled once, each thread was described once.
  std::map<std::string, int> strings;
  int threads = 0;
  for (const auto& [kind, payload] : mt_stream::Records(g_bytes)) {
    if (kind == uint8_t(mabutrace::stream::Kind::kString)) {
      ++strings[payload.substr(mabutrace::stream::kStringBytes)];
    }
    if (kind == uint8_t(mabutrace::stream::Kind::kThread)) ++threads;
  }
  EXPECT_EQ(strings.size(), 10u);  // the literals (kOddName and "" included); NULL is no string
  for (const auto& [name, count] : strings) EXPECT_EQ(count, 1) << name;
  EXPECT_EQ(threads, 2);

  // The same stream fed one byte at a time decodes the same.
  const Decoded one = Decode(g_bytes, 1);
  ASSERT_TRUE(one.status.ok) << one.status.message;
  EXPECT_EQ(one.events, d.events);
  const Decoded odd = Decode(g_bytes, 7);
  EXPECT_EQ(odd.events, d.events);
}

// One writer wraps a small buffer many times; flushes at random intervals.
// Nothing is sent twice, what was overwritten unsent is reported as lost.
TEST_F(StreamTest, WrapReportsLostNeverDuplicates) {
  Init(4096);
  std::mt19937 rng(7);
  const int kCount = 6000;
  int next_flush = 1;
  for (int i = 0; i < kCount; ++i) {
    Tick();
    TRACE_COUNTER("seq", i);
    if (i == next_flush) {
      ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
      next_flush = i + 1 + int(rng() % 300);
    }
  }
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  const Decoded d = Decode(g_bytes, 100);
  ASSERT_TRUE(d.status.ok) << d.status.message;
  EXPECT_TRUE(d.record_errors.empty());
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  ASSERT_EQ(st.events_written, uint64_t(kCount));
  EXPECT_GT(d.lost, 0u);
  EXPECT_EQ(d.events.size() + d.lost, st.events_written);
  int64_t last = -1;
  for (const Ev& e : d.events) {
    ASSERT_EQ(e.name, "seq");
    ASSERT_GT(e.value, last);
    last = e.value;
  }
  EXPECT_EQ(last, kCount - 1);
  // Staging: the callback gets pieces of at most 4 KiB.
  EXPECT_GE(mt_stream::g_calls, g_bytes.size() / 4096);
}

// Writers keep writing while another thread flushes.
TEST_F(StreamTest, ConcurrentWritersAndFlushes) {
  Init(16 * 1024, /*fake_clock=*/false);
  std::atomic<bool> go{false};
  constexpr int kPerThread = 20000;
  auto writer = [&] {
    while (!go.load()) std::this_thread::yield();
    for (int i = 0; i < kPerThread; ++i) {
      TRACE_SCOPE("loop");
      TRACE_COUNTER("i", i);
    }
  };
  std::thread a(writer), b(writer);
  go = true;
  std::atomic<bool> done{false};
  std::thread flusher([&] {
    while (!done.load()) {
      EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
      std::this_thread::yield();
    }
  });
  a.join();
  b.join();
  done = true;
  flusher.join();
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  const Decoded d = Decode(g_bytes);
  ASSERT_TRUE(d.status.ok) << d.status.message;
  EXPECT_TRUE(d.record_errors.empty());
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(d.events.size() + d.lost, st.events_written);
  // Per thread: counter values strictly increase, times never go back.
  std::map<uint32_t, std::pair<int64_t, uint64_t>> last;
  for (const Ev& e : d.events) {
    auto [it, fresh] = last.try_emplace(e.tid, -1, 0);
    ASSERT_GE(e.ticks, it->second.second);
    it->second.second = e.ticks;
    if (e.type == EventType::kCounter) {
      ASSERT_GT(e.value, it->second.first);
      it->second.first = e.value;
    }
  }
  EXPECT_GE(last.size(), 1u);  // a thread may have been overwritten whole before a flush
}

// More names than the sent-name table holds: they are sent again, and all
// still resolve.
TEST_F(StreamTest, ManyNamesStillResolve) {
  Init(256 * 1024);
  static char names[600][16];
  for (int i = 0; i < 600; ++i) snprintf(names[i], sizeof names[i], "name-%d", i);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 600; ++i) TRACE_INSTANT(names[i]);
    ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  }
  const Decoded d = Decode(g_bytes);
  ASSERT_TRUE(d.status.ok) << d.status.message;
  EXPECT_TRUE(d.record_errors.empty());
  ASSERT_EQ(d.events.size(), 1200u);
  for (int i = 0; i < 1200; ++i) EXPECT_EQ(d.events[i].name, names[i % 600]);
}

// A kTimeBase record (long pause) inside an already sent part of a chunk:
// the next EVENTS record carries the base in force where it starts.
TEST_F(StreamTest, TimeBaseAcrossFlushes) {
  Init(64 * 1024);
  TRACE_INSTANT("a");
  FakeClock::now += (uint64_t{1} << 40) + 5;  // beyond the 40-bit delta
  TRACE_INSTANT("b");
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  FakeClock::now += 7;
  TRACE_INSTANT("c");
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  const Decoded d = Decode(g_bytes);
  ASSERT_TRUE(d.status.ok) << d.status.message;
  ASSERT_EQ(d.events.size(), 3u);
  EXPECT_EQ(d.events[0].ticks, 5000u);
  EXPECT_EQ(d.events[1].ticks, 5000u + (uint64_t{1} << 40) + 5);
  EXPECT_EQ(d.events[2].ticks, 5000u + (uint64_t{1} << 40) + 12);
}

}  // namespace
