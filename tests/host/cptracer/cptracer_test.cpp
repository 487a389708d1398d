// SPDX-License-Identifier: MIT
// cptracer_test.cpp: metrics, register calculator, layout table and the
// tracer message layer on hand-made STM streams.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

#include "layout.h"
#include "messages.h"
#include "metrics.h"
#include "registers.h"
#include "stp_encoder.h"

namespace mabutrace::cptracer {
namespace {

TEST(Metrics, Seed002WorkedExample) {
  WindowCounters c{200e6, 1000000, 655360, 0, 12800, 160};
  ASSERT_EQ(Validate(c), "");
  Metrics m = ComputeMetrics(c);
  EXPECT_EQ(m.bandwidth_bytes_per_s, 131072000.0);
  EXPECT_EQ(m.avg_access_bytes, 4096.0);
  EXPECT_EQ(m.transactions_per_s, 32000.0);
  EXPECT_DOUBLE_EQ(m.contention_percent, 1.28);
  EXPECT_EQ(m.min_avg_latency_cycles, 80.0);
  EXPECT_EQ(m.min_avg_latency_ns, 400.0);
  auto j = nlohmann::json::parse(MetricsJson(m));
  EXPECT_EQ(j["bandwidth_bytes_per_s"].get<int64_t>(), 131072000);
  EXPECT_EQ(j["avg_access_bytes"].get<int64_t>(), 4096);
  EXPECT_EQ(j["transactions_per_s"].get<int64_t>(), 32000);
  EXPECT_EQ(j["contention_percent"].get<double>(), 1.28);
  EXPECT_EQ(j["min_avg_latency_cycles"].get<int64_t>(), 80);
  EXPECT_EQ(j["min_avg_latency_ns"].get<int64_t>(), 400);
  EXPECT_NE(MetricsJson(m).find("\"contention_percent\":1.28,"), std::string::npos);
}

TEST(Metrics, NoGrantsAndBadInput) {
  Metrics m = ComputeMetrics({200e6, 1000, 0, 0, 0, 0});
  EXPECT_FALSE(m.has_grants);
  EXPECT_TRUE(nlohmann::json::parse(MetricsJson(m))["min_avg_latency_ns"].is_null());
  EXPECT_NE(Validate({0, 1000, 1, 1, 1, 1}), "");
  EXPECT_NE(Validate({1e6, 0, 1, 1, 1, 1}), "");
}

uint32_t Reg(const ConfigResult& r, const std::string& name) {
  for (const auto& x : r.tracer)
    if (x.name == name) return x.value;
  ADD_FAILURE() << "no register " << name;
  return 0;
}

TEST(Registers, WindowValues) {
  uint64_t c;
  std::string err;
  ASSERT_TRUE(WindowCycles(0.010, 200e6, &c, &err));
  EXPECT_EQ(c, 0x001E8480u);
  ASSERT_TRUE(WindowCycles(0.250, 200e6, &c, &err));
  EXPECT_EQ(c, 0x02FAF080u);
  ASSERT_TRUE(WindowCycles(0.064, 200e6, &c, &err));
  EXPECT_EQ(c, 0x00C35000u);  // seed 002's "10 ms" value is 64 ms
  EXPECT_FALSE(WindowCycles(30.0, 200e6, &c, &err));
  EXPECT_FALSE(WindowCycles(0.0, 200e6, &c, &err));
}

TEST(Registers, Seed002DmaWriteExample) {
  TracerConfig cfg;
  cfg.sid = 5;
  cfg.clock_hz = 200e6;
  cfg.window_s = 0.010;
  std::string err;
  ASSERT_TRUE(ParseMidList("0x40", &cfg.masters, &err));
  ASSERT_TRUE(ParseRw("write", &cfg.rw, &err));
  ASSERT_TRUE(ParseDtypeList("dma", &cfg.dtypes, &err));
  ASSERT_TRUE(ParseExportList("statistics,event_b", &cfg.export_select, &err));
  cfg.address_filter = true;
  cfg.address_start = 0x800000000000ull;
  cfg.address_end = 0x80000000FFFFull;
  ConfigResult r;
  ASSERT_TRUE(ComputeConfig(cfg, &r, &err)) << err;
  EXPECT_EQ(Reg(r, "SLIDING_TIME_WINDOW"), 0x001E8480u);
  EXPECT_EQ(Reg(r, "MASTER_ID_SELECT_A"), 0u);
  EXPECT_EQ(Reg(r, "MASTER_ID_SELECT_C"), 1u);  // MID 0x40 = 64 -> select C bit 0
  EXPECT_EQ(Reg(r, "START_ADDRESS"), 0u);
  EXPECT_EQ(Reg(r, "END_ADDRESS"), 0xFFFFu);
  RegisterValue mcs;
  ASSERT_TRUE(DecodeRegister("module_ctrl_status", Reg(r, "MODULE_CTRL_STATUS"), 0, &mcs, &err));
  std::map<std::string, uint32_t> f;
  for (const auto& x : mcs.fields) f[x.name] = x.value;
  EXPECT_EQ(f["EXPORT_SELECT"], 3u);
  EXPECT_EQ(f["ACC_WAIT_CNT_EN"], 1u);
  EXPECT_EQ(f["NUM_GRANT_CNT_EN"], 1u);
  EXPECT_EQ(f["EXCL_ADDR_FILTER_EN"], 1u);
  EXPECT_EQ(f["UPPER_ADDRESS_BITS"], 0x8000u);
  EXPECT_EQ(f["SID"], 5u);
  RegisterValue tq;
  ASSERT_TRUE(DecodeRegister("TRANSACTION_QUALIFIER", Reg(r, "TRANSACTION_QUALIFIER"), 0, &tq, &err));
  for (const auto& x : tq.fields) {
    if (x.name == "QUALIF_TH0") {
      EXPECT_EQ(x.value, 2u);  // writes only
    }
    if (x.name == "QUALIF_DTYPE_TH0") {
      EXPECT_EQ(x.value, 4u);  // DMA only
    }
  }
  auto j = nlohmann::json::parse(ConfigJson(r));
  EXPECT_EQ(j["registers"]["SLIDING_TIME_WINDOW"], "0x001E8480");
  bool hw = false;
  for (const auto& x : j["stm_setup"])
    if (x["name"] == "STM_HWMSTCNTL") hw = x["value"] == "0x80808080";
  EXPECT_TRUE(hw);
}

TEST(Registers, Errors) {
  TracerConfig cfg;
  std::string err;
  ConfigResult r;
  EXPECT_FALSE(ComputeConfig(cfg, &r, &err));  // no window
  cfg.window_cycles = 1000;
  cfg.address_filter = true;
  cfg.address_start = 0x100000000ull;
  cfg.address_end = 0x200000000ull;
  EXPECT_FALSE(ComputeConfig(cfg, &r, &err));
  std::vector<uint32_t> mids;
  EXPECT_FALSE(ParseMidList("200", &mids, &err));
  uint32_t bits;
  EXPECT_FALSE(ParseExportList("statistics,bogus", &bits, &err));
  RegisterValue rv;
  EXPECT_FALSE(DecodeRegister("NOPE", 0, 0, &rv, &err));
}

// Hand-made STM stream of tracer words (master 0x80, channel = SID).
struct Collect final : stm::StpPacketSink, TracerMessageSink {
  explicit Collect(Layout l) : tracer(std::move(l), this), md(&tracer) {}
  void OnPacket(const stm::StpPacket& p) override { md.OnPacket(p); }
  void OnTracerMessage(const TracerMessage& m) override { msgs.push_back(m); }
  TracerDecoder tracer;
  stm::StmMessageDecoder md;
  std::vector<TracerMessage> msgs;
};

std::vector<TracerMessage> DecodeWords(const std::vector<uint8_t>& stp, Layout l = DefaultLayout()) {
  Collect c(std::move(l));
  stm::StpDecoder d(&c);
  d.Push(0, stp.data(), stp.size());
  d.Finish();
  c.tracer.Finish();
  return c.msgs;
}

TEST(TracerMessages, DefaultLayoutStatusEventStatistics) {
  stm::StpEncoder e;
  e.Async();
  e.Version(3);
  e.Master8(0x80);
  e.Channel8(3);
  // status G1: type 0, sid 3, G 1, access 0x00ABCD
  e.Data(32, (0u << 29) | (3u << 24) | (1u << 23) | 0xABCD, true, true, 100);
  // event E: type 3, sid 3, mid 0x40, xid 5, O 1, W 1, addr 0x155
  e.Data(32, (3u << 29) | (3u << 24) | (0x40u << 16) | (5u << 12) | (1u << 11) | (1u << 10) | 0x155, true, true, 200);
  e.Data(32, 655360);
  e.Data(32, 1);
  e.Data(32, 12800);
  e.Data(32, 160, true, true, 300);
  e.Master8(0x01);  // a software master: ignored
  e.Data(32, 0xFFFFFFFF, true);
  auto m = DecodeWords(e.Bytes());
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].type, MsgType::kStatus);
  EXPECT_EQ(m[0].group, 1u);
  EXPECT_EQ(m[0].access_status, 0xABCDu);
  EXPECT_EQ(m[0].sid, 3u);
  EXPECT_EQ(m[1].type, MsgType::kEventE);
  EXPECT_EQ(m[1].mid, 0x40u);
  EXPECT_EQ(m[1].xid, 5u);
  EXPECT_TRUE(m[1].overflow);
  EXPECT_TRUE(m[1].write);
  EXPECT_EQ(m[1].address, 0x155u);
  EXPECT_EQ(m[1].timestamp, 200u);
  EXPECT_EQ(m[2].type, MsgType::kStatistics);
  EXPECT_EQ(m[2].throughput0, 655360u);
  EXPECT_EQ(m[2].throughput1, 1u);
  EXPECT_EQ(m[2].wait_cycles, 12800u);
  EXPECT_EQ(m[2].grants, 160u);
  EXPECT_EQ(m[2].tracer, 3u);
  auto j = nlohmann::json::parse(TracerMessageJson(m[1]));
  EXPECT_EQ(j["type"], "event_e");
}

// The jsonl of `cptracer decode` goes through the one escaper: an error
// text (it may quote a layout file's names) comes back as it was.
TEST(TracerMessages, JsonKeepsQuotesControlCharactersAndBadUtf8) {
  TracerMessage m;
  m.type = MsgType::kUnknown;
  m.words = {0x12345678};
  m.error = "layout 'x.ini': field \"mid\" \\ bad\n\ttab \x01 \xff end";
  const std::string line = TracerMessageJson(m);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["error"], "layout 'x.ini': field \"mid\" \\ bad\n\ttab \x01 \xEF\xBF\xBD end");
  EXPECT_EQ(j["words"][0], "0x12345678");
  EXPECT_EQ(j["type"], "unknown");
}

TEST(TracerMessages, BadWordCountsAreReportedWithOffset) {
  stm::StpEncoder e;
  e.Async();
  e.Version(3);
  e.Master8(0x80);
  e.Data(32, 1);
  e.Data(32, 2, true);         // a 2-word message: no layout entry
  e.Data(16, 3, true);         // not 32 bits
  e.Data(32, 7u << 29, true);  // type 7: unknown
  e.Data(32, 1);               // cut off by the end
  auto m = DecodeWords(e.Bytes());
  ASSERT_EQ(m.size(), 4u);
  for (const auto& x : m) {
    EXPECT_EQ(x.type, MsgType::kUnknown);
    EXPECT_NE(x.error.find("STM byte offset"), std::string::npos);
  }
}

TEST(TracerMessages, PartialMessageDroppedOnSyncLoss) {
  stm::StpEncoder e;
  e.Async();
  e.Version(3);
  e.Master8(0x80);
  e.Data(32, 655360);
  e.Data(32, 1);
  e.Nibble(0xF);
  e.Nibble(0x0);
  e.Nibble(0xF);  // reserved F0F: bad packet, sync lost
  e.Async();
  e.Version(3);
  e.Master8(0x80);
  e.Data(32, (1u << 29) | 0x12, true);
  auto m = DecodeWords(e.Bytes());
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].type, MsgType::kUnknown);
  EXPECT_NE(m[0].error.find("synchronisation"), std::string::npos) << m[0].error;
  EXPECT_EQ(m[1].type, MsgType::kEventB);
  EXPECT_EQ(m[1].address, 0x12u);
}

// An STM resync (ASYNC, or the VERSION that restarts master/channel) in the
// middle of a 4-word statistics message: the two words before it are a
// fragment, reported with its offset; the event B after it decodes alone.
// Mutation: no OnResync in StmMessageDecoder (ASYNC/VERSION ignored, as
// before) -> the fragment and the event make one 3-word unknown message and
// the event is lost.
TEST(TracerMessages, ResyncInsideAMessageDropsTheFragmentAndKeepsTheNextMessage) {
  for (const bool with_async : {true, false}) {
    SCOPED_TRACE(with_async ? "ASYNC + VERSION" : "VERSION alone");
    stm::StpEncoder e;
    e.Async();
    e.Version(3);
    e.Master8(0x80);
    e.Channel8(3);
    e.Data(32, 655360);  // statistics words 1 and 2 of 4
    e.Data(32, 1);
    if (with_async) e.Async();
    e.Version(3);
    e.Master8(0x80);
    e.Channel8(3);
    e.Data(32, (1u << 29) | (3u << 24) | 0x12, true);  // event B, sid 3
    auto m = DecodeWords(e.Bytes());
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0].type, MsgType::kUnknown);
    EXPECT_EQ(m[0].words, (std::vector<uint32_t>{655360, 1}));
    EXPECT_LT(m[0].offset, m[1].offset);
    EXPECT_NE(m[0].error.find(with_async ? "ASYNC at byte offset" : "VERSION at byte offset"), std::string::npos)
        << m[0].error;
    EXPECT_NE(m[0].error.find("STM byte offset " + std::to_string(m[0].offset)), std::string::npos) << m[0].error;
    EXPECT_EQ(m[1].type, MsgType::kEventB);
    EXPECT_EQ(m[1].address, 0x12u);
  }
}

TEST(TracerMessages, LayoutFileOverride) {
  const std::string path = ::testing::TempDir() + "layout_override.ini";
  {
    std::ofstream f(path);
    f << "[event_b]\naddress = 0:0:11\nrw = none\n[stm]\nhw_master = 0x81\n";
  }
  Layout l;
  std::string err;
  ASSERT_TRUE(LoadLayout(path, &l, &err)) << err;
  EXPECT_EQ(l.hw_master, 0x81);
  stm::StpEncoder e;
  e.Async();
  e.Version(3);
  e.Master8(0x81);
  e.Data(32, (1u << 29) | 0x7FF, true);
  auto m = DecodeWords(e.Bytes(), l);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].type, MsgType::kEventB);
  EXPECT_EQ(m[0].address, 0x7FFu);
  EXPECT_FALSE(m[0].write);
  {
    std::ofstream f(path);
    f << "[event_b]\naddress = 0:30:5\n";
  }
  EXPECT_FALSE(LoadLayout(path, &l, &err));
  EXPECT_NE(err.find("event_b"), std::string::npos) << err;
  std::remove(path.c_str());
}

TEST(Examples, ConfigAndWorkloadFilesLoad) {
  TracerConfig cfg;
  std::string err;
  ASSERT_TRUE(
      LoadTracerConfig(std::string(MABUTRACE_SOURCE_DIR) + "/examples/cptracer/dma_write_bandwidth.ini", &cfg, &err))
      << err;
  ConfigResult r;
  ASSERT_TRUE(ComputeConfig(cfg, &r, &err)) << err;
  EXPECT_EQ(Reg(r, "SLIDING_TIME_WINDOW"), 0x001E8480u);
}

}  // namespace
}  // namespace mabutrace::cptracer
