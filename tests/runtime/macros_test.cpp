// SPDX-License-Identifier: MIT
// Every C++ macro: the record it leaves in the ring buffer (read back through
// mabutrace::ChunkReader) and the JSON the exporter writes for it (R-A1..R-A6).
#include <gtest/gtest.h>
#include <sched.h>
#include <string.h>
#include <sys/sysinfo.h>

#include <string>

#include "format/chrome_colors.h"
#include "mabutrace/mabutrace.h"
#include "test_util.h"

namespace {

using mabutrace::RecordType;
using mt_test::json;
using mt_test::Rec;

class Macros : public ::testing::Test {
 protected:
  void SetUp() override {
    mabutrace_config_t cfg = mt_test::Config(64 * 1024);
    ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
    t0_ = mt_test::MonotonicNs();
  }
  void TearDown() override { mabutrace_deinit(); }

  // The fields every record has: plausible cpu, not ISR, this thread, time
  // between SetUp and now.
  void CheckCommon(const Rec& r) {
    EXPECT_LT(r.r.cpu, uint32_t(get_nprocs_conf())) << "cpu out of range";
    EXPECT_FALSE(r.r.in_isr);
    EXPECT_EQ(r.tid, mt_test::Gettid());
    // On CLOCK_MONOTONIC through the one conversion (any port clock).
    const auto clock = mabutrace::CurrentClockMap(*mabutrace::CurrentRuntime());
    const uint64_t mono = clock.MonotonicAtOrigin() + clock.NsSinceOrigin(r.r.ticks);
    EXPECT_GE(mono + 1000, t0_);  // within 1 us of CLOCK_MONOTONIC
    EXPECT_LE(mono, mt_test::MonotonicNs() + 1000);
  }

  static std::string Hex(uint32_t rgb) {
    char buf[8];
    snprintf(buf, sizeof buf, "#%06x", rgb & 0xFFFFFF);
    return buf;
  }

  // An event's color fields: cname (reserved, nearest to rgb) and
  // args.color, or neither when the record had no color.
  static void CheckColor(const json& ev, uint32_t color) {
    SCOPED_TRACE(ev.dump());
    if (color == 0) {
      EXPECT_FALSE(ev.contains("cname"));
      EXPECT_FALSE(ev["args"].contains("color"));
      return;
    }
    ASSERT_TRUE(ev.contains("cname"));
    EXPECT_TRUE(mt_test::IsReservedCname(ev["cname"].get<std::string>()));
    EXPECT_EQ(ev["cname"], mabutrace::NearestReservedColor(color & 0xFFFFFF));
    EXPECT_EQ(ev["args"]["color"], Hex(color));
  }

  uint64_t t0_ = 0;
};

const char kScopePlain[] = "scope_plain";
const char kScopeColor[] = "scope_color";

TEST_F(Macros, ScopeWithoutColor) {
  const uint64_t before = mt_test::MonotonicNs();
  { TRACE_SCOPE(kScopePlain); }
  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].r.type, RecordType::kScopeBegin);
  EXPECT_EQ(recs[0].r.name, kScopePlain);
  EXPECT_EQ(recs[0].r.color, 0u);
  EXPECT_GE(recs[0].r.ticks, before);
  EXPECT_EQ(recs[1].r.type, RecordType::kScopeEnd);
  EXPECT_EQ(recs[1].r.name, nullptr);
  EXPECT_EQ(recs[1].r.color, 0u);
  EXPECT_GE(recs[1].r.ticks, recs[0].r.ticks);
  for (const Rec& r : recs) CheckCommon(r);

  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  ASSERT_EQ(trace.events.size(), 2u);
  const json& b = trace.events[0];
  const json& e = trace.events[1];
  EXPECT_EQ(b["ph"], "B");
  EXPECT_EQ(b["name"], kScopePlain);
  EXPECT_EQ(b["cat"], "mabutrace");
  EXPECT_EQ(b["tid"], mt_test::Gettid());
  EXPECT_EQ(b["args"], json({{"cpu", recs[0].r.cpu}}));
  CheckColor(b, 0);
  EXPECT_EQ(e["ph"], "E");
  EXPECT_EQ(e["name"], kScopePlain);
  EXPECT_FALSE(e.contains("args"));  // an end carries no cpu: its begin has it
  EXPECT_EQ(mt_test::TsNs(b), mabutrace::CurrentClockMap(*mabutrace::CurrentRuntime()).NsSinceOrigin(recs[0].r.ticks));
  EXPECT_EQ(trace.Meta("exported_records"), 2u);
  EXPECT_EQ(trace.thread_names.count(mt_test::Gettid()), 1u);
}

TEST_F(Macros, ScopeWithColor) {
  {
    TRACE_SCOPE(kScopeColor, COLOR_BLUE);
    TRACE_SCOPE(kScopeColor, 0x123456);
    TRACE_SCOPE(kScopeColor, COLOR_BLACK);  // 0: still a color
    TRACE_SCOPE(kScopeColor, 0xFF654321u);  // bits above 24 ignored
  }
  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), 8u);
  const uint32_t want[] = {COLOR_BLUE, 0x123456, COLOR_BLACK, 0x654321};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(recs[i].r.type, RecordType::kScopeBegin);
    EXPECT_EQ(recs[i].r.name, kScopeColor);
    EXPECT_EQ(recs[i].r.color, MABUTRACE_COLOR_SET | want[i]) << i;
    EXPECT_EQ(recs[4 + i].r.type, RecordType::kScopeEnd);
    EXPECT_EQ(recs[4 + i].r.color, 0u);
  }
  for (const Rec& r : recs) CheckCommon(r);

  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  const auto bs = trace.Find("B", kScopeColor);
  ASSERT_EQ(bs.size(), 4u);
  for (int i = 0; i < 4; ++i) CheckColor(bs[i], MABUTRACE_COLOR_SET | want[i]);
  EXPECT_EQ(bs[0]["args"]["color"], "#1e88e5");
  EXPECT_EQ(bs[2]["cname"], "black");
  EXPECT_EQ(trace.Find("E", kScopeColor).size(), 4u);
}

const char* g_lambda_func = nullptr;

// TRC() names the function it is in: __func__, also in nested blocks. In a
// lambda, __func__ is the lambda's own (operator()), as C++ defines it.
const char* TracedFunction() {
  TRC();
  {
    { TRC(); }
  }
  auto lambda = [] {
    TRC();
    g_lambda_func = __func__;
  };
  lambda();
  return __func__;
}

TEST_F(Macros, TrcNamesTheEnclosingFunction) {
  const char* func = TracedFunction();
  ASSERT_STREQ(func, "TracedFunction");
  const auto begins = mt_test::OfType(mt_test::ReadRecords(), RecordType::kScopeBegin);
  ASSERT_EQ(begins.size(), 3u);
  EXPECT_EQ(begins[0].r.name, func);
  EXPECT_EQ(begins[1].r.name, func) << "TRC() in a nested block names the function";
  EXPECT_EQ(begins[2].r.name, g_lambda_func);
  for (const Rec& r : begins) EXPECT_EQ(r.r.color, 0u);

  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("B", "TracedFunction").size(), 2u);
  EXPECT_EQ(trace.Find("E", "TracedFunction").size(), 2u);
  EXPECT_EQ(trace.Find("B", g_lambda_func).size(), 1u);
}

const char kInstant[] = "instant";

TEST_F(Macros, Instant) {
  TRACE_INSTANT(kInstant);
  TRACE_INSTANT(kInstant, COLOR_RED);
  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), 2u);
  for (const Rec& r : recs) {
    EXPECT_EQ(r.r.type, RecordType::kInstant);
    EXPECT_EQ(r.r.name, kInstant);
    CheckCommon(r);
  }
  EXPECT_EQ(recs[0].r.color, 0u);
  EXPECT_EQ(recs[1].r.color, MABUTRACE_COLOR_SET | COLOR_RED);

  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  const auto is = trace.Find("i", kInstant);
  ASSERT_EQ(is.size(), 2u);
  for (const json& ev : is) {
    EXPECT_EQ(ev["s"], "t");
    EXPECT_EQ(ev["tid"], mt_test::Gettid());
  }
  CheckColor(is[0], 0);
  CheckColor(is[1], MABUTRACE_COLOR_SET | COLOR_RED);
  EXPECT_EQ(is[1]["args"]["cpu"], recs[1].r.cpu);
}

const char kCounter[] = "counter";

TEST_F(Macros, Counter) {
  TRACE_COUNTER(kCounter, -5);
  TRACE_COUNTER(kCounter, 7, COLOR_GREEN);
  short s = -3;
  TRACE_COUNTER(kCounter, s);  // any integer type
  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), 3u);
  for (const Rec& r : recs) {
    EXPECT_EQ(r.r.type, RecordType::kCounter);
    EXPECT_EQ(r.r.name, kCounter);
    CheckCommon(r);
  }
  EXPECT_EQ(recs[0].r.value, -5);
  EXPECT_EQ(recs[0].r.color, 0u);
  EXPECT_EQ(recs[1].r.value, 7);
  EXPECT_EQ(recs[1].r.color, MABUTRACE_COLOR_SET | COLOR_GREEN);
  EXPECT_EQ(recs[2].r.value, -3);

  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  const auto cs = trace.Find("C", kCounter);
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0]["args"], json({{"value", -5}}));
  EXPECT_EQ(cs[1]["args"], json({{"value", 7}}));
  EXPECT_EQ(cs[2]["args"], json({{"value", -3}}));
}

const char kOuter[] = "outer";
const char kOut2[] = "out2";
const char kOut3[] = "out3";
const char kIn2[] = "in2";
const char kIn3[] = "in3";

// The header's CPU number is the CPU the record was made on, for every
// record type and on the fast path too (the writer stores it into the
// header apart from the rest). Pinned to the highest CPU the thread may
// use, so that a number never stored (0) cannot pass.
TEST_F(Macros, EveryRecordCarriesTheCpuItWasMadeOn) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int cpu = CPU_SETSIZE - 1;
  while (cpu > 0 && !CPU_ISSET(cpu, &allowed)) --cpu;
  if (cpu == 0) GTEST_SKIP() << "this thread may run on CPU 0 only";
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  uint16_t link = 0;
  for (int i = 0; i < 2; ++i) {  // the first record binds the thread (slow path); then the fast path
    TRACE_SCOPE(kOuter);
    TRACE_SCOPE(kOuter, COLOR_RED);
    TRACE_INSTANT(kInstant);
    TRACE_COUNTER(kCounter, i);
    TRACE_FLOW_OUT(&link);
    TRACE_FLOW_IN(link);
    TRACE_FLOW_OUT(&link, kOut2, COLOR_GREEN);
    TRACE_FLOW_IN(link, kIn2, COLOR_GREEN);
  }
  const int on = sched_getcpu();
  ASSERT_EQ(sched_setaffinity(0, sizeof allowed, &allowed), 0);
  ASSERT_EQ(on, cpu);
  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), 2u * 10u);  // 2 scopes, an instant, a counter, 2 outs, 2 ins
  for (const Rec& r : recs) EXPECT_EQ(r.r.cpu, uint32_t(cpu)) << "record type " << int(r.r.type);
}

// Flow out/in with 1, 2 and 3 arguments inside a scope: the flow points bind
// to it; named ones also leave an instant with their name.
TEST_F(Macros, FlowOutAndInInsideAScope) {
  uint16_t l1 = 0, l2 = 0, l3 = 0;
  {
    TRACE_SCOPE(kOuter);
    TRACE_FLOW_OUT(&l1);
    TRACE_FLOW_OUT(&l2, kOut2);
    TRACE_FLOW_OUT(&l3, kOut3, COLOR_PURPLE);
    TRACE_FLOW_IN(l1);
    TRACE_FLOW_IN(l2, kIn2);
    TRACE_FLOW_IN(l3, kIn3, COLOR_ORANGE);
  }
  EXPECT_NE(l1, 0);
  EXPECT_NE(l2, 0);
  EXPECT_NE(l3, 0);
  EXPECT_NE(l1, l2);
  EXPECT_NE(l2, l3);

  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), 8u);
  const auto outs = mt_test::OfType(recs, RecordType::kFlowOut);
  const auto ins = mt_test::OfType(recs, RecordType::kFlowIn);
  ASSERT_EQ(outs.size(), 3u);
  ASSERT_EQ(ins.size(), 3u);
  const uint16_t links[] = {l1, l2, l3};
  const char* out_names[] = {nullptr, kOut2, kOut3};
  const char* in_names[] = {nullptr, kIn2, kIn3};
  const uint32_t out_colors[] = {0, 0, MABUTRACE_COLOR_SET | COLOR_PURPLE};
  const uint32_t in_colors[] = {0, 0, MABUTRACE_COLOR_SET | COLOR_ORANGE};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(outs[i].r.link, links[i]);
    EXPECT_EQ(outs[i].r.name, out_names[i]);
    EXPECT_EQ(outs[i].r.color, out_colors[i]);
    EXPECT_EQ(outs[i].r.flow, uint32_t(i + 1)) << "flow numbers count outs from 1";
    EXPECT_EQ(mabutrace::LinkForFlow(outs[i].r.flow), links[i]);
    EXPECT_EQ(ins[i].r.link, links[i]);
    EXPECT_EQ(ins[i].r.name, in_names[i]);
    EXPECT_EQ(ins[i].r.color, in_colors[i]);
    // A flow-in carries the newest flow number taken (at or past every
    // out's: threads take numbers in blocks), which leads back to its out.
    EXPECT_GE(ins[i].r.flow, 3u);
    EXPECT_EQ(mabutrace::FlowForLink(ins[i].r.link, ins[i].r.flow), outs[i].r.flow);
    CheckCommon(outs[i]);
    CheckCommon(ins[i]);
  }

  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  const auto ss = trace.Find("s");
  const auto fs = trace.Find("f");
  ASSERT_EQ(ss.size(), 3u);
  ASSERT_EQ(fs.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ss[i]["id"], outs[i].r.flow);
    EXPECT_EQ(fs[i]["id"], outs[i].r.flow);
    EXPECT_EQ(fs[i]["bp"], "e");
    EXPECT_FALSE(ss[i].contains("bp"));
    EXPECT_EQ(ss[i]["name"], fs[i]["name"]);
    EXPECT_EQ(ss[i]["cat"], fs[i]["cat"]);
  }
  // Inside a scope: no carrier slices, one B/E pair only.
  EXPECT_EQ(trace.Find("B").size(), 1u);
  EXPECT_EQ(trace.Find("E").size(), 1u);
  // Named points leave an instant with their name and color.
  const auto i_out3 = trace.Find("i", kOut3);
  ASSERT_EQ(i_out3.size(), 1u);
  CheckColor(i_out3[0], MABUTRACE_COLOR_SET | COLOR_PURPLE);
  const auto i_in3 = trace.Find("i", kIn3);
  ASSERT_EQ(i_in3.size(), 1u);
  CheckColor(i_in3[0], MABUTRACE_COLOR_SET | COLOR_ORANGE);
  EXPECT_EQ(trace.Find("i", kOut2).size(), 1u);
  EXPECT_EQ(trace.Find("i", kIn2).size(), 1u);
  EXPECT_EQ(trace.Find("i").size(), 4u);
  EXPECT_EQ(trace.Meta("flow_ends_without_start"), 0u);
}

// Outside any scope, a flow point gets a 1 ns carrier slice named after the
// flow ("flow_out"/"flow_in" when unnamed).
TEST_F(Macros, FlowOutsideAScopeGetsACarrierSlice) {
  uint16_t l1 = 0, l2 = 0, l3 = 0;
  TRACE_FLOW_OUT(&l1);
  TRACE_FLOW_OUT(&l2, kOut2);
  TRACE_FLOW_OUT(&l3, kOut3, COLOR_PURPLE);
  TRACE_FLOW_IN(l1);
  TRACE_FLOW_IN(l2, kIn2);
  TRACE_FLOW_IN(l3, kIn3, COLOR_ORANGE);

  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  const char* carriers[] = {"flow_out", kOut2, kOut3, "flow_in", kIn2, kIn3};
  for (const char* c : carriers) {
    SCOPED_TRACE(c);
    const auto b = trace.Find("B", c);
    const auto e = trace.Find("E", c);
    ASSERT_EQ(b.size(), 1u);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(mt_test::TsNs(e[0]), mt_test::TsNs(b[0]) + 1);
  }
  CheckColor(trace.Find("B", kOut3)[0], MABUTRACE_COLOR_SET | COLOR_PURPLE);
  CheckColor(trace.Find("B", kIn3)[0], MABUTRACE_COLOR_SET | COLOR_ORANGE);
  CheckColor(trace.Find("B", kOut2)[0], 0);
  EXPECT_EQ(trace.Find("s").size(), 3u);
  EXPECT_EQ(trace.Find("f").size(), 3u);
  EXPECT_EQ(trace.Find("i").size(), 0u);
}

}  // namespace
