// SPDX-License-Identifier: MIT
// capture_metrics_test.cpp: one rule for the clocks and the window of
// `cptracer metrics CAPTURE` and `cptracer export` (capture_metrics.h),
// the per-window metrics lines, and the reports the commands print.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "capture_metrics.h"
#include "export.h"
#include "registers.h"
#include "simulator.h"

namespace mabutrace::cptracer {
namespace {

TracerMessage Stats(uint32_t tracer, uint64_t ts, uint32_t throughput0 = 655360) {
  TracerMessage m;
  m.type = MsgType::kStatistics;
  m.tracer = tracer;
  m.has_ts = true;
  m.timestamp = ts;
  m.throughput0 = throughput0;
  m.grants = 160;
  m.wait_cycles = 12800;
  return m;
}

TEST(Timing, GivenValuesWin) {
  TimingOptions o;
  o.clock_hz = 200e6;
  o.ts_hz = 100e6;
  o.window_cycles = 1000;
  o.window_s = 0.010;  // window_cycles wins
  Timing t;
  std::string err;
  ASSERT_TRUE(ResolveTiming({Stats(1, 0), Stats(1, 500)}, 50e6, o, &t, &err)) << err;
  EXPECT_EQ(t.clock_hz, 200e6);
  EXPECT_EQ(t.ts_hz, 100e6);
  EXPECT_EQ(t.window_cycles, 1000u);
  EXPECT_FALSE(t.window_estimated);
}

TEST(Timing, FallBackToFreqThenClock) {
  Timing t;
  std::string err;
  TimingOptions o;
  o.window_s = 0.005;  // at the clock, which is the FREQ packet's
  ASSERT_TRUE(ResolveTiming({}, 200000000, o, &t, &err)) << err;
  EXPECT_EQ(t.ts_hz, 200e6);
  EXPECT_EQ(t.clock_hz, 200e6);
  EXPECT_EQ(t.window_cycles, 1000000u);
  o = {};
  o.clock_hz = 300e6;  // no FREQ: timestamps count tracer cycles
  ASSERT_TRUE(ResolveTiming({}, 0, o, &t, &err)) << err;
  EXPECT_EQ(t.ts_hz, 300e6);
  EXPECT_EQ(t.window_cycles, 0u);  // nothing to estimate from
  EXPECT_FALSE(t.window_estimated);
  o.window_s = 100;  // 3e10 cycles: more than the 32-bit register
  EXPECT_FALSE(ResolveTiming({}, 0, o, &t, &err));
  EXPECT_NE(err.find("0xFFFFFFFF"), std::string::npos) << err;
}

TEST(Timing, WindowEstimatedFromTheFirstTracerWithTwoStatistics) {
  // Tracer 2 has one message; tracer 1's second one (at ts 2500, not the
  // earlier 900, which does not increase) gives the window.
  const std::vector<TracerMessage> msgs = {Stats(1, 1000), Stats(2, 1100), Stats(1, 900), Stats(1, 2500)};
  EXPECT_EQ(EstimateWindowCycles(msgs, 200e6, 100e6), 3000u);  // 1500 ticks at half the clock
  EXPECT_EQ(EstimateWindowCycles(msgs, 200e6, 0), 0u);
  EXPECT_EQ(EstimateWindowCycles({Stats(1, 5)}, 200e6, 100e6), 0u);
  TimingOptions o;
  o.clock_hz = 200e6;
  o.ts_hz = 100e6;
  Timing t;
  std::string err;
  ASSERT_TRUE(ResolveTiming(msgs, 0, o, &t, &err));
  EXPECT_EQ(t.window_cycles, 3000u);
  EXPECT_TRUE(t.window_estimated);
}

TEST(CaptureMetrics, WindowsCountPerTracer) {
  Timing t;
  t.clock_hz = 200e6;
  t.window_cycles = 1000000;
  TracerMessage event;
  event.type = MsgType::kEventB;
  const auto w = CaptureMetrics({Stats(1, 0), event, Stats(2, 1), Stats(1, 2)}, t);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].tracer, 1u);
  EXPECT_EQ(w[0].window, 0u);
  EXPECT_EQ(w[1].tracer, 2u);
  EXPECT_EQ(w[1].window, 0u);
  EXPECT_EQ(w[2].window, 1u);
  EXPECT_EQ(w[2].metrics.bandwidth_bytes_per_s, 131072000.0);  // seed 002's worked example
  const auto j = nlohmann::json::parse(WindowMetricsJson(w[2]));
  EXPECT_EQ(j["tracer"], 1);
  EXPECT_EQ(j["window"], 1);
  EXPECT_EQ(j["min_avg_latency_ns"], 400);
  EXPECT_EQ(WindowMetricsText(w[2]).rfind("tracer 1 window 1\nwindow:", 0), 0u);
  t.window_cycles = 0;
  EXPECT_TRUE(CaptureMetrics({Stats(1, 0)}, t).empty());
}

TEST(Reports, ExportSimulationAndRegisters) {
  ExportSummary s;
  s.statistics = 8;
  s.events = 11480;
  s.timing.window_cycles = 1000091;
  s.timing.window_estimated = true;
  s.timing.clock_hz = 200e6;
  EXPECT_EQ(ExportSummaryText(s),
            "8 statistics, 11480 event, 0 status, 0 unknown messages; window 1000091 cycles "
            "(estimated) at "
            "200000000 Hz");
  SimResult r;
  r.windows.resize(4);
  r.events.resize(3);
  r.events[1].overflow = true;
  r.events_lost = 2;
  r.stp.resize(100);
  r.framed.resize(112);
  EXPECT_EQ(SimulationSummary(r),
            "4 windows, 3 event messages (1 with O=1), 2 events lost, 100 STP bytes in 112 framed bytes");
  std::vector<RegisterValue> regs(2);
  std::string err;
  ASSERT_TRUE(DecodeRegister("SLIDING_TIME_WINDOW", 0x00C35000, 200e6, &regs[0], &err)) << err;
  ASSERT_TRUE(DecodeRegister("SLIDING_TIME_WINDOW", 0x00C35000, 0, &regs[1], &err)) << err;
  const auto j = nlohmann::json::parse(RegistersJson(regs));
  EXPECT_EQ(j[0]["fields"]["WINDOW_US"], 64000);  // seed 002's value is 64 ms
  EXPECT_FALSE(j[1]["fields"].contains("WINDOW_US"));
  EXPECT_EQ(RegistersText(regs), RegisterText(regs[0]) + RegisterText(regs[1]));
}

}  // namespace
}  // namespace mabutrace::cptracer
