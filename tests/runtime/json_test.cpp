// SPDX-License-Identifier: MIT
// The rules the JSON exporter promises (json_exporter.cpp header,
// trace-formats.md Part 3/4): E after B, monotonic time per thread, open
// scopes closed, orphan ends dropped, strings escaped, deep nesting.
#include <gtest/gtest.h>

#include <string>

#include "mabutrace/mabutrace.h"
#include "test_util.h"

namespace {

using mabutrace::RecordType;
using mt_test::FakeClock;
using mt_test::json;

class Json : public ::testing::Test {
 protected:
  void TearDown() override { mabutrace_deinit(); }
  // A session on the fake clock (ns ticks unless told).
  void InitFake(size_t buffer = 64 * 1024, uint64_t hz = 1000000000u, uint32_t max_depth = 64) {
    FakeClock::now = 1000;
    mabutrace_config_t cfg = mt_test::Config(buffer);
    cfg.clock = FakeClock::Read;
    cfg.clock_hz = hz;
    cfg.max_depth = max_depth;
    ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  }
};

const char kA[] = "a";
const char kB[] = "b";
const char kC[] = "c";

TEST_F(Json, ScopeWithinOneNanosecondStillEndsAfterItBegins) {
  InitFake();
  FakeClock::now = 5000;  // constant from here on
  {
    TRACE_SCOPE(kA);
    { TRACE_SCOPE(kB); }
    TRACE_INSTANT(kC);
  }
  { TRACE_SCOPE(kC); }
  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), 7u);
  for (const auto& r : recs) EXPECT_EQ(r.r.ticks, 5000u);
  const auto trace = mt_test::ExportAndCheck();  // checks E > B per pair
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.metadata.value("clock", ""), "user");
  EXPECT_EQ(trace.Meta("clock_hz"), 1000000000u);
  const auto b = trace.Find("B", kA);
  const auto e = trace.Find("E", kA);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(mt_test::TsNs(b[0]), 4000u) << "ns since the origin (init read 1000)";
  EXPECT_GT(mt_test::TsNs(e[0]), mt_test::TsNs(b[0]));
  EXPECT_GT(mt_test::TsNs(trace.Find("E", kB)[0]), mt_test::TsNs(trace.Find("B", kB)[0]));
  EXPECT_GT(mt_test::TsNs(trace.Find("E", kC)[0]), mt_test::TsNs(trace.Find("B", kC)[0]));
}

// Timestamps: exact ns, a clock that is not in ns, and a pause longer than
// the 40-bit delta of a record (a time base record in between).
TEST_F(Json, TimestampsAreExactAndNeverGoBackwards) {
  InitFake();
  const uint64_t times[] = {1000,
                            1001,
                            1999,
                            2000,
                            123456789,
                            123456789,
                            (uint64_t(1) << 41) + 7,
                            (uint64_t(1) << 41) + 8,
                            (uint64_t(1) << 42) + 3};
  for (uint64_t t : times) {
    FakeClock::now = t;
    TRACE_INSTANT(kA);
  }
  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), std::size(times));
  for (size_t i = 0; i < recs.size(); ++i) EXPECT_EQ(recs[i].r.ticks, times[i]) << i;
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  const auto is = trace.Find("i", kA);
  ASSERT_EQ(is.size(), std::size(times));
  for (size_t i = 0; i < is.size(); ++i) {
    // "%llu.%03llu" microseconds; compare as ns.
    EXPECT_EQ(mt_test::TsNs(is[i]), times[i] - 1000) << is[i].dump();
  }
}

TEST_F(Json, ClockInMicroseconds) {
  InitFake(64 * 1024, 1000000u);  // 1 tick = 1 us
  FakeClock::now = 1000 + 5;
  TRACE_INSTANT(kA);
  FakeClock::now = 1000 + 3600u * 1000000u;  // one hour later
  TRACE_INSTANT(kB);
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Meta("clock_hz"), 1000000u);
  EXPECT_EQ(mt_test::TsNs(trace.Find("i", kA)[0]), 5000u);
  EXPECT_EQ(trace.Find("i", kB)[0]["ts"].get<double>(), 3600e6);
}

// Records of one thread written in an order whose times tie or (with carrier
// slices) would step back: the file never goes back (CheckTrace).
TEST_F(Json, CarrierSlicesDoNotMakeTimeGoBack) {
  InitFake();
  FakeClock::now = 2000;
  uint16_t l = 0;
  TRACE_FLOW_OUT(&l, kA);  // carrier [2000, 2001)
  TRACE_INSTANT(kB);       // recorded at 2000
  TRACE_FLOW_IN(l, kC);    // carrier
  { TRACE_SCOPE(kC); }
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("s").size(), 1u);
  EXPECT_EQ(trace.Find("f").size(), 1u);
}

TEST_F(Json, ScopesOpenAtExportAreClosed) {
  InitFake();
  FakeClock::now = 3000;
  TRACE_SCOPE(kA);
  FakeClock::now = 3500;
  TRACE_SCOPE(kB, COLOR_RED);
  FakeClock::now = 4000;
  TRACE_INSTANT(kC);
  const auto trace = mt_test::ExportAndCheck();  // checks nothing is left open
  ASSERT_TRUE(trace.ok);
  const auto ea = trace.Find("E", kA);
  const auto eb = trace.Find("E", kB);
  ASSERT_EQ(ea.size(), 1u);
  ASSERT_EQ(eb.size(), 1u);
  EXPECT_EQ(ea[0]["args"]["open_at_end"], true);
  EXPECT_EQ(eb[0]["args"]["open_at_end"], true);
  EXPECT_GE(mt_test::TsNs(eb[0]), 3000u) << "closed at the last timestamp of the trace";
  EXPECT_EQ(trace.Meta("open_scopes_closed"), 2u);
  // The scopes are still open in the buffer: ending them later is normal.
}

// A scope whose begin was overwritten: its end is not written, and counted.
TEST_F(Json, EndsWhoseBeginWasOverwrittenAreDropped) {
  mabutrace_config_t cfg = mt_test::Config(4096);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  {
    TRACE_SCOPE(kA);
    {
      TRACE_SCOPE(kB);
      for (int i = 0; i < 1000; ++i) TRACE_COUNTER(kC, i);
    }
  }
  const auto begins = mt_test::OfType(mt_test::ReadRecords(), RecordType::kScopeBegin);
  ASSERT_TRUE(begins.empty()) << "the begins should have been overwritten";
  const auto trace = mt_test::ExportAndCheck();  // checks no E without B
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("E").size(), 0u);
  EXPECT_EQ(trace.Find("B").size(), 0u);
  EXPECT_EQ(trace.Meta("orphan_scope_ends"), 2u);
}

// Chunks recycled while the export runs (records written by the export's
// own sink, deterministic): they are counted in chunks_lost_during_export,
// the scope they cut is closed ("truncated") and its later end is dropped as
// an orphan, so B/E stay balanced (CheckTrace).
struct RecyclingSink {
  std::string text;
  int calls = 0;
};
int RecyclingWrite(void* user, const char* data, size_t len) {
  auto* s = static_cast<RecyclingSink*>(user);
  if (s->calls++ == 0) {
    for (int i = 0; i < 100; ++i) TRACE_COUNTER(kC, 1000 + i);
  }
  s->text.append(data, len);
  return 0;
}

TEST_F(Json, ChunksRecycledDuringTheExportAreCountedAndScopesStayBalanced) {
  mabutrace_config_t cfg = mt_test::Config(4096);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  {
    TRACE_SCOPE(kA);  // chunk 1
    for (int i = 0; i < 150; ++i) TRACE_COUNTER(kC, i);
  }  // its end in chunk 15
  const auto before = mt_test::ReadAll();
  ASSERT_EQ(before.records.size(), 152u) << "nothing overwritten yet";

  RecyclingSink sink;
  ASSERT_EQ(mabutrace_export_json(RecyclingWrite, &sink), MABUTRACE_OK);
  ASSERT_GT(sink.calls, 1);
  const json j = mt_test::ParseStrict(sink.text);
  ASSERT_FALSE(j.is_null());
  const auto trace = mt_test::CheckTrace(j);
  ASSERT_TRUE(trace.ok);
  EXPECT_GT(trace.Meta("chunks_lost_during_export"), 0u);
  const auto b = trace.Find("B", kA);
  const auto e = trace.Find("E", kA);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0]["args"]["truncated"], true) << e[0].dump();
  EXPECT_EQ(trace.Meta("orphan_scope_ends"), 1u);
  // The counters that were written: increasing, with one gap where the lost
  // chunks were.
  const auto cs = trace.Find("C", kC);
  ASSERT_FALSE(cs.empty());
  int gaps = 0;
  for (size_t i = 1; i < cs.size(); ++i) {
    const int64_t prev = cs[i - 1]["args"]["value"], v = cs[i]["args"]["value"];
    EXPECT_GT(v, prev);
    if (v != prev + 1) ++gaps;
  }
  EXPECT_EQ(gaps, 1);
}

TEST_F(Json, NamesAreEscapedAndValidUtf8) {
  mabutrace_config_t cfg = mt_test::Config(64 * 1024);
  cfg.process_name = "proc \"quoted\" \\ \x01";
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  struct Case {
    const char* raw;
    const char* want;  // UTF-8 after JSON decoding; nullptr: only validity
  };
  static const Case kCases[] = {
      {"quote \" here", "quote \" here"},
      {"back\\slash", "back\\slash"},
      {"new\nline\r\ttab", "new\nline\r\ttab"},
      {"ctl \x01\x02\x1f\x7f end", "ctl \x01\x02\x1f\x7f end"},
      {"utf8 \xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", "utf8 \xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80"},
      {"bad \xff end", "bad \xef\xbf\xbd end"},
      {"lone \x80", "lone \xef\xbf\xbd"},
      {"cut \xc3( x", "cut \xef\xbf\xbd( x"},
      {"overlong \xc0\xaf", "overlong \xef\xbf\xbd\xef\xbf\xbd"},
      {"surrogate \xed\xa0\x80", "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
      {"too big \xf4\x90\x80\x80", "too big \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
      {"truncated at end \xe2\x82", nullptr},
      {"truncated 4 \xf0\x9f\x98", nullptr},
      {"", ""},
  };
  for (const Case& c : kCases) {
    TRACE_INSTANT(c.raw);
    TRACE_COUNTER(c.raw, 1);
    TRACE_SCOPE(c.raw);
  }
  EXPECT_EQ(mabutrace_set_thread_name("thr \"\xff\" \n"), MABUTRACE_OK);
  int rc = 0;
  const std::string text = mt_test::ExportText(&rc);
  ASSERT_EQ(rc, MABUTRACE_OK);
  for (unsigned char ch : text) {
    ASSERT_FALSE(ch < 0x20 && ch != '\n') << "raw control character in the JSON text";
  }
  const json j = mt_test::ParseStrict(text);  // rejects invalid UTF-8 too
  ASSERT_FALSE(j.is_null());
  const auto trace = mt_test::CheckTrace(j);
  ASSERT_TRUE(trace.ok);
  const auto is = trace.Find("i");
  ASSERT_EQ(is.size(), std::size(kCases));
  for (size_t i = 0; i < std::size(kCases); ++i) {
    const std::string got = is[i]["name"].get<std::string>();
    if (kCases[i].want) {
      EXPECT_EQ(got, kCases[i].want) << "case " << i;
    } else {
      EXPECT_NE(got.find("\xef\xbf\xbd"), std::string::npos) << "case " << i;
    }
  }
  EXPECT_EQ(trace.process_name, "proc \"quoted\" \\ \x01");
  EXPECT_EQ(trace.thread_names.at(mt_test::Gettid()), "thr \"\xef\xbf\xbd\" \n");
}

TEST_F(Json, NestingDeeperThanMaxDepthIsCountedAndStaysBalanced) {
  InitFake(64 * 1024, 1000000000u, /*max_depth=*/4);
  auto nest = [](auto& self, int depth) -> void {
    if (depth == 0) return;
    TRACE_SCOPE(kA);
    TRACE_INSTANT(kB);
    self(self, depth - 1);
  };
  nest(nest, 10);
  // Deep scopes again, with a flow inside the too-deep part.
  uint16_t l = 0;
  {
    TRACE_SCOPE(kC);
    TRACE_SCOPE(kC);
    TRACE_SCOPE(kC);
    TRACE_SCOPE(kC);
    TRACE_SCOPE(kC);
    TRACE_FLOW_OUT(&l);
    TRACE_FLOW_IN(l);
  }
  const auto trace = mt_test::ExportAndCheck();  // checks B/E balance per tid
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("B", kA).size(), 4u);
  EXPECT_EQ(trace.Find("E", kA).size(), 4u);
  EXPECT_EQ(trace.Find("i", kB).size(), 10u) << "instants inside deep scopes are kept";
  EXPECT_EQ(trace.Find("B", kC).size(), 4u);
  EXPECT_EQ(trace.Find("E", kC).size(), 4u);
  EXPECT_EQ(trace.Meta("scopes_too_deep"), 6u + 1u);
  EXPECT_EQ(trace.Find("s").size(), 1u);
  EXPECT_EQ(trace.Find("f").size(), 1u);
  // Too-deep scopes still open at export are not drawn either.
  TRACE_SCOPE(kA);
  TRACE_SCOPE(kA);
  TRACE_SCOPE(kA);
  TRACE_SCOPE(kA);
  TRACE_SCOPE(kA);
  TRACE_SCOPE(kA);
  const auto open = mt_test::ExportAndCheck();
  ASSERT_TRUE(open.ok);
  EXPECT_EQ(open.Find("B", kA).size(), 8u);
  EXPECT_EQ(open.Find("E", kA).size(), 8u);
  EXPECT_EQ(open.Meta("open_scopes_closed"), 4u);
}

}  // namespace
