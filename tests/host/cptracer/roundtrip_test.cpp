// SPDX-License-Identifier: MIT
// roundtrip_test.cpp: simulator -> STPv2 -> frames -> decoder over random
// workloads: decoded statistics equal the simulator's ground truth, and the
// O bit appears exactly where the simulated FIFO overflowed. Also the
// timeline export of a simulated capture.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "export.h"
#include "json_writer.h"
#include "messages.h"
#include "simulator.h"
#include "stm_capture.h"

namespace mabutrace::cptracer {
namespace {

struct Collect final : stm::StpPacketSink, TracerMessageSink {
  Collect() : tracer(DefaultLayout(), this), md(&tracer) {}
  void OnPacket(const stm::StpPacket& p) override {
    bad += p.type == stm::StpType::kBadSequence || p.type == stm::StpType::kReserved;
    md.OnPacket(p);
  }
  void OnTracerMessage(const TracerMessage& m) override { msgs.push_back(m); }
  TracerDecoder tracer;
  stm::StmMessageDecoder md;
  std::vector<TracerMessage> msgs;
  int bad = 0;
};

Workload RandomWorkload(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Workload w;
  w.seed = seed;
  w.sid = static_cast<uint32_t>(rng() % 32);
  w.clock_hz = 200e6;
  w.window_cycles = 20000 + rng() % 200000;
  w.windows = 2 + static_cast<uint32_t>(rng() % 6);
  w.fifo_depth = 1 + static_cast<uint32_t>(rng() % 8);
  w.drain_cycles = 1 + static_cast<uint32_t>(rng() % 400);
  w.async_every = static_cast<uint32_t>(rng() % 40);
  const int nm = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < nm; ++i) {
    SimMaster m;
    m.name = "m" + std::to_string(i);
    m.mid = static_cast<uint32_t>(rng() % 128);
    m.rate_per_window = static_cast<double>(rng() % 300);
    m.size_bytes = 1u << (rng() % 13);
    m.address_start = (rng() % 0x10000) << 16;
    m.address_end = m.address_start + (rng() % 0x100000);
    m.read_percent = static_cast<double>(rng() % 101);
    m.wait_cycles = static_cast<double>(rng() % 200);
    m.counter1 = rng() & 1;
    w.masters.push_back(m);
  }
  return w;
}

TEST(SimulatorRoundTrip, RandomWorkloadsMatchGroundTruth) {
  uint64_t overflowed = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Workload w = RandomWorkload(seed);
    SimResult r;
    std::string err;
    ASSERT_TRUE(Simulate(w, DefaultLayout(), &r, &err)) << err;
    Collect c;
    stm::StpDecoder dec(&c);
    std::vector<std::string> warnings;
    stm::FeedBytes(r.framed.data(), r.framed.size(), true, stm::kTiStmAtbId, &dec, &warnings);
    c.tracer.Finish();
    EXPECT_EQ(c.bad, 0);
    EXPECT_TRUE(warnings.empty());
    EXPECT_EQ(c.tracer.ts_freq_hz(), 200000000u);
    std::vector<const TracerMessage*> stats, events;
    for (const auto& m : c.msgs) {
      ASSERT_NE(m.type, MsgType::kUnknown) << m.error;
      (m.type == MsgType::kStatistics ? stats : events).push_back(&m);
    }
    ASSERT_EQ(stats.size(), r.windows.size());
    for (size_t i = 0; i < stats.size(); ++i) {
      EXPECT_EQ(stats[i]->throughput0, r.windows[i].throughput0);
      EXPECT_EQ(stats[i]->throughput1, r.windows[i].throughput1);
      EXPECT_EQ(stats[i]->wait_cycles, r.windows[i].wait_cycles);
      EXPECT_EQ(stats[i]->grants, r.windows[i].grants);
      EXPECT_EQ(stats[i]->tracer, w.sid);
      EXPECT_GE(stats[i]->timestamp, r.windows[i].end_cycle);
    }
    ASSERT_EQ(events.size(), r.events.size());
    uint64_t grants = 0;
    for (const auto& win : r.windows) grants += win.grants;
    EXPECT_EQ(events.size() + r.events_lost, grants);
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(events[i]->overflow, r.events[i].overflow) << "event " << i;
      EXPECT_EQ(events[i]->mid, r.events[i].mid);
      EXPECT_EQ(events[i]->xid, r.events[i].xid);
      EXPECT_EQ(events[i]->address, r.events[i].address);
      EXPECT_EQ(events[i]->write, r.events[i].write);
      EXPECT_EQ(events[i]->sid, w.sid);
      EXPECT_EQ(events[i]->timestamp, r.events[i].cycle);
      overflowed += events[i]->overflow;
    }
  }
  EXPECT_GT(overflowed, 0u);  // the workloads did exercise the O bit
}

TEST(SimulatorRoundTrip, NoOverflowWhenTheFifoKeepsUp) {
  Workload w;
  w.window_cycles = 1000000;
  w.windows = 3;
  w.fifo_depth = 16;
  w.drain_cycles = 4;
  w.masters.push_back({"dma0", 0x40, 160, 4096, 0x80000000, 0x8000FFFF, 0, 80, false});
  SimResult r;
  std::string err;
  ASSERT_TRUE(Simulate(w, DefaultLayout(), &r, &err)) << err;
  EXPECT_EQ(r.events_lost, 0u);
  for (const auto& e : r.events) EXPECT_FALSE(e.overflow);
}

TEST(SimulatorRoundTrip, WrittenCaptureDecodesAndExports) {
  Workload w;
  w.sid = 7;
  w.window_cycles = 1000000;
  w.windows = 4;
  w.fifo_depth = 2;
  w.drain_cycles = 3000;
  w.masters.push_back({"dma0", 0x40, 160, 4096, 0x80000000, 0x8000FFFF, 0, 80, false});
  w.masters.push_back({"core1", 0x09, 400, 64, 0x0C000000, 0x0C0FFFFF, 70, 10, true});
  SimResult r;
  std::string err;
  ASSERT_TRUE(Simulate(w, DefaultLayout(), &r, &err)) << err;
  EXPECT_GT(r.events_lost, 0u);
  const auto dir = std::filesystem::path(::testing::TempDir()) / "cptracer_sim";
  ASSERT_TRUE(WriteSimulation(dir.string(), w, r, &err)) << err;
  for (const auto& input : {dir, dir / "stm.bin"}) {  // snapshot dir and TI .bin/.dcm
    std::vector<TracerMessage> msgs;
    uint64_t freq = 0;
    std::vector<std::string> warnings;
    ASSERT_TRUE(DecodeTracerCapture(input, DefaultLayout(), {}, &msgs, &freq, &warnings, &err)) << err;
    EXPECT_TRUE(warnings.empty());
    size_t stats = 0;
    for (const auto& m : msgs) stats += m.type == MsgType::kStatistics;
    EXPECT_EQ(stats, 4u);
    std::string json;
    exporter::JsonWriter writer([&](const char* d, size_t n) {
      json.append(d, n);
      return true;
    });
    TimingOptions opt;
    opt.window_cycles = w.window_cycles;
    ExportSummary sum;
    ASSERT_TRUE(ExportTimeline(msgs, freq, opt, &writer, &sum, &err)) << err;
    auto j = nlohmann::json::parse(json);
    int counters = 0, instants = 0, overflow_instants = 0;
    for (const auto& ev : j["traceEvents"]) {
      if (ev["ph"] == "C" && ev["name"] == "bandwidth_bytes_per_s") ++counters;
      if (ev["ph"] == "i") {
        ++instants;
        overflow_instants += ev["name"].get<std::string>().find("OVERFLOW") != std::string::npos;
      }
    }
    EXPECT_EQ(counters, 4);
    EXPECT_EQ(static_cast<size_t>(instants), r.events.size());
    EXPECT_GT(overflow_instants, 0);
  }
  std::filesystem::remove_all(dir);
}

TEST(TiCapture, DcmVariantsAndErrors) {
  Workload w;
  w.windows = 2;
  w.masters.push_back({"dma0", 0x40, 20, 4096, 0x80000000, 0x8000FFFF, 0, 80, false});
  SimResult r;
  std::string err;
  ASSERT_TRUE(Simulate(w, DefaultLayout(), &r, &err)) << err;
  const auto dir = std::filesystem::path(::testing::TempDir()) / "cptracer_dcm";
  std::filesystem::create_directories(dir);
  auto write = [&](const char* name, const void* d, size_t n) {
    std::ofstream(dir / name, std::ios::binary).write(static_cast<const char*>(d), static_cast<std::streamsize>(n));
  };
  auto decode = [&](std::vector<TracerMessage>* msgs) {
    uint64_t freq;
    std::vector<std::string> warnings;
    return DecodeTracerCapture(dir / "cap.bin", DefaultLayout(), {}, msgs, &freq, &warnings, &err);
  };
  // Raw STP words (TWP_Protocol=0).
  write("cap.bin", r.stp.data(), r.stp.size());
  write("cap.dcm", "STM_STP_Version=2\nTWP_Protocol=0\nSTM_data_flip=0\n", 49);
  std::vector<TracerMessage> msgs;
  ASSERT_TRUE(decode(&msgs)) << err;
  size_t stats = 0;
  for (const auto& m : msgs) stats += m.type == MsgType::kStatistics;
  EXPECT_EQ(stats, 2u);
  // STM 1.0 / STPv1: refused with the file named.
  write("cap.dcm", "STM_STP_Version=1\nTWP_Protocol=0\n", 33);
  msgs.clear();
  EXPECT_FALSE(decode(&msgs));
  EXPECT_NE(err.find("cap.dcm"), std::string::npos) << err;
  write("cap.dcm", "garbage line\n", 13);
  EXPECT_FALSE(decode(&msgs));
  EXPECT_NE(err.find("cap.dcm:1"), std::string::npos) << err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mabutrace::cptracer
