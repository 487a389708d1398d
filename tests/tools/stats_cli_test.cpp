// SPDX-License-Identifier: MIT
// stats_cli_test.cpp: `mabutrace stats` on a stream recorded by a real
// program (examples/uart_stream --tee: N x produce { counter produced = i,
// flow out "send" } on "main", then N x consume { flow in "recv", instant
// "done" } on a worker): counts, flow pairing, counter values, the three
// formats, and --check pass (0), fail (1) and usage (2) exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "tool_process.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kItems = 40;

using mt_tools::ReadFile;
using mt_tools::Result;
using mt_tools::RunProgram;
using mt_tools::TempDir;

Result Cli(const std::vector<std::string>& args) { return RunProgram(MABUTRACE_CLI_PATH, args); }

class StatsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path.empty());
    const fs::path sink = dir_.path / "sent.bin";
    stream_ = (dir_.path / "trace.bin").string();
    const Result r = RunProgram(UART_STREAM_PATH, {sink.string(), "--items", std::to_string(kItems), "--tee", stream_});
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  TempDir dir_;
  std::string stream_;
};

// The JSON report holds the workload exactly, its flow latencies those of
// convert's arrows. Mutation: TraceStats::EndFlow adding the in time
// instead of in - out (latency from 0) fails the min/max/total equalities.
TEST_F(StatsCli, JsonReportHoldsTheWorkload) {
  const fs::path out = dir_.path / "stats.json";
  const Result r = Cli({"stats", stream_, "-o", out.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  const json doc = json::parse(ReadFile(out));
  std::map<std::string, json> slices, flows, counters, instants;
  for (const auto& s : doc["slices"]) slices[s["key"]] = s;
  for (const auto& s : doc["flows"]) flows[s["key"]] = s;
  for (const auto& s : doc["counters"]) counters[s["key"]] = s;
  for (const auto& s : doc["instants"]) instants[s["key"]] = s;
  ASSERT_TRUE(slices.count("produce") && slices.count("consume"));
  EXPECT_EQ(slices["produce"]["count"], kItems);
  EXPECT_EQ(slices["consume"]["count"], kItems);
  EXPECT_EQ(slices["produce"]["self"], slices["produce"]["total"]);  // no children
  EXPECT_EQ(slices["produce"]["open_at_end"], 0);
  ASSERT_TRUE(flows.count("send")) << doc["flows"].dump();
  EXPECT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows["send"]["count"], kItems);
  // Every consume runs after every produce (the worker starts after the
  // loop), so each latency is below the trace's length and above 0.
  EXPECT_GT(flows["send"]["min"].get<uint64_t>(), 0u);
  EXPECT_LT(flows["send"]["max"].get<uint64_t>(), doc["end_ns"].get<uint64_t>());
  // The latencies equal the arrows of `convert`'s JSON of the same stream
  // (ts in us with ns digits): min, max, total and p50 exactly.
  const fs::path conv = dir_.path / "trace.json";
  ASSERT_EQ(Cli({"convert", stream_, "-o", conv.string()}).rc, 0);
  const json trace = json::parse(ReadFile(conv));
  std::map<uint64_t, int64_t> start_ns;
  std::vector<int64_t> latency;
  auto ns_of = [](const json& e) { return std::llround(e["ts"].get<double>() * 1000); };
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") == "s") start_ns[e["id"].get<uint64_t>()] = ns_of(e);
  }
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") == "f") latency.push_back(ns_of(e) - start_ns.at(e["id"].get<uint64_t>()));
  }
  ASSERT_EQ(latency.size(), size_t(kItems));
  std::sort(latency.begin(), latency.end());
  EXPECT_EQ(flows["send"]["min"].get<int64_t>(), latency.front());
  EXPECT_EQ(flows["send"]["max"].get<int64_t>(), latency.back());
  EXPECT_EQ(flows["send"]["p50"].get<int64_t>(), latency[size_t(kItems) / 2 - 1]);  // rank ceil(n/2)
  EXPECT_EQ(flows["send"]["total"].get<int64_t>(), std::accumulate(latency.begin(), latency.end(), int64_t(0)));
  EXPECT_EQ(counters["produced"]["min"], 0);
  EXPECT_EQ(counters["produced"]["max"], kItems - 1);
  EXPECT_EQ(counters["produced"]["last"], kItems - 1);
  EXPECT_DOUBLE_EQ(counters["produced"]["mean"].get<double>(), (kItems - 1) / 2.0);
  EXPECT_EQ(instants["done"]["count"], kItems);
  ASSERT_EQ(doc["threads"].size(), 2u);
  for (const auto& t : doc["threads"]) EXPECT_EQ(t["slices"], kItems) << t.dump();
  EXPECT_EQ(slices["produce"]["longest"].size(), 5u);
}

// Text and CSV carry the same keys; --by name,thread keys by thread too.
// Mutation: GroupBy::kNameThread treated as kName drops "@main".
TEST_F(StatsCli, TextCsvAndGrouping) {
  Result r = Cli({"stats", stream_});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("produce"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("flow (out -> in)"), std::string::npos) << r.out;
  r = Cli({"stats", stream_, "--format", "csv", "--by", "name,thread"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("kind,key,count,", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("slice,produce@main," + std::to_string(kItems) + ","), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("instant,done@worker"), std::string::npos) << r.out;
}

// --check: all pass -> 0; one fails -> 1 with one FAIL line naming it;
// a bad expression -> 2 with its column, before the input is read.
// Mutation: RunStats not setting rc on a failed check exits 0.
TEST_F(StatsCli, CheckExitCodes) {
  const std::string n = std::to_string(kItems);
  Result r =
      Cli({"stats", stream_, "--check", "slice:produce.count == " + n, "--check", "flow:send.p99 < 10s", "--check",
           "counter:produced.max <= " + std::to_string(kItems - 1), "--check", "instant:queue_full.count == 0"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("FAIL"), std::string::npos) << r.err;

  r = Cli({"stats", stream_, "--check", "counter:produced.max <= 8", "--check", "slice:produce.p99 < 10s", "--check",
           "instant:done.count == 0"});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("FAIL counter:produced.max <= 8: " + std::to_string(kItems - 1)), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("FAIL instant:done.count == 0: " + n), std::string::npos) << r.err;
  size_t fails = 0;
  for (size_t at = 0; (at = r.err.find("FAIL", at)) != std::string::npos; ++at) ++fails;
  EXPECT_EQ(fails, 2u) << r.err;

  r = Cli({"stats", stream_, "--check", "slice:produce.p99 < 2xs"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("column 22: unknown unit 'xs'"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// A file that is no trace: exit 1 naming it, no report.
TEST_F(StatsCli, BadInputExitsOne) {
  const fs::path bad = dir_.path / "bad.bin";
  std::ofstream(bad, std::ios::binary) << "not a trace at all";
  const Result r = Cli({"stats", bad.string()});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find(bad.string()), std::string::npos) << r.err;
}

}  // namespace

namespace {

// Our own .json and .pftrace of the same recording are inputs too
// (host/import), and give the very same report: every statistic, the
// longest instances and the metadata. Mutation: the Perfetto reader taking
// each delta timestamp as absolute (inc_ns = ts) fails the slices.
TEST_F(StatsCli, SameReportFromTheStreamItsJsonAndItsPftrace) {
  const std::string json_in = (dir_.path / "trace.json").string();
  const std::string pf_in = (dir_.path / "trace.pftrace").string();
  ASSERT_EQ(Cli({"convert", stream_, "-o", json_in}).rc, 0);
  ASSERT_EQ(Cli({"convert", stream_, "-o", pf_in}).rc, 0);
  std::vector<json> reports;
  for (const std::string& in : {stream_, json_in, pf_in}) {
    const fs::path out = dir_.path / (fs::path(in).filename().string() + ".stats.json");
    const Result r = Cli({"stats", in, "-o", out.string()});
    ASSERT_EQ(r.rc, 0) << in << ": " << r.err;
    reports.push_back(json::parse(ReadFile(out)));
  }
  ASSERT_FALSE(reports[0]["slices"].empty());
  ASSERT_FALSE(reports[0]["flows"].empty());
  // Integer metadata stays a number (the repair counts a gate reads).
  ASSERT_TRUE(reports[0]["metadata"].contains("orphan_scope_ends")) << reports[0]["metadata"].dump();
  EXPECT_TRUE(reports[0]["metadata"]["orphan_scope_ends"].is_number_integer()) << reports[0]["metadata"].dump();
  for (const char* part : {"slices", "flows", "counters", "instants", "threads", "metadata", "end_ns"}) {
    EXPECT_EQ(reports[0][part], reports[1][part]) << part << ": stream vs .json";
    EXPECT_EQ(reports[0][part], reports[2][part]) << part << ": stream vs .pftrace";
  }
}

// The other input kinds (input_kinds.h): a CP_Tracer simulation and, when
// the build assembles it, the ETE generator's trace of call_graph.S with
// its ELF: the report of the capture equals the report of its own export's
// .json and .pftrace (the same reader code; metadata travels).
void ExpectSameReports(const TempDir& dir, const std::string& capture, const std::vector<std::string>& export_cmd,
                       const std::vector<std::string>& stats_extra) {
  std::vector<json> reports;
  for (const char* ext : {"", ".json", ".pftrace"}) {
    std::string in = capture;
    if (*ext) {
      in = (dir.path / (std::string("export") + ext)).string();
      std::vector<std::string> args = export_cmd;
      args.insert(args.end(), {"-o", in});
      const Result r = Cli(args);
      ASSERT_EQ(r.rc, 0) << r.err;
    }
    const fs::path out = dir.path / (std::string("report") + ext + ".json");
    std::vector<std::string> args = {"stats", in, "-o", out.string()};
    if (!*ext) args.insert(args.end(), stats_extra.begin(), stats_extra.end());
    const Result r = Cli(args);
    ASSERT_EQ(r.rc, 0) << in << ": " << r.err;
    reports.push_back(json::parse(ReadFile(out)));
  }
  for (const char* part : {"slices", "counters", "instants", "threads", "functions", "metadata", "end_ns"}) {
    EXPECT_EQ(reports[0][part], reports[1][part]) << part << ": capture vs its .json";
    EXPECT_EQ(reports[0][part], reports[2][part]) << part << ": capture vs its .pftrace";
  }
}

TEST_F(StatsCli, SameReportFromACpTracerCaptureAndItsExports) {
  const std::string sim = (dir_.path / "sim").string();
  const Result r =
      Cli({"cptracer", "simulate", std::string(MABUTRACE_SOURCE_DIR) + "/examples/cptracer/workload_dma_contention.ini",
           "-o", sim});
  ASSERT_EQ(r.rc, 0) << r.err;
  ExpectSameReports(dir_, sim, {"cptracer", "export", sim}, {});
}

#ifdef ETE_GEN_ELF
TEST_F(StatsCli, SameReportFromAnEteSnapshotAndItsExports) {
  if (!fs::exists(ETE_GEN_ELF)) GTEST_SKIP() << ETE_GEN_ELF << " not built";
  const std::string snap = (dir_.path / "snap").string();
  const Result r = Cli({"ete", "generate", "--elf", ETE_GEN_ELF, "--script", ETE_GEN_SCRIPT, "-o", snap});
  ASSERT_EQ(r.rc, 0) << r.err;
  ExpectSameReports(dir_, snap, {"ete", "export", snap, "--elf", ETE_GEN_ELF}, {"--elf", ETE_GEN_ELF});
}
#endif

// convert reads them too: .json → .pftrace → .json is the first .json.
TEST_F(StatsCli, ConvertBetweenOurOwnFormats) {
  const std::string a = (dir_.path / "a.json").string(), b = (dir_.path / "b.pftrace").string(),
                    c = (dir_.path / "c.json").string();
  ASSERT_EQ(Cli({"convert", stream_, "-o", a}).rc, 0);
  ASSERT_EQ(Cli({"convert", a, "-o", b}).rc, 0);
  const Result r = Cli({"convert", b, "-o", c});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(ReadFile(a), ReadFile(c));
}

// A damaged .json: the error names the file and the byte offset, exit 1.
TEST_F(StatsCli, BrokenJsonNamesFileAndOffset) {
  const std::string a = (dir_.path / "a.json").string();
  ASSERT_EQ(Cli({"convert", stream_, "-o", a}).rc, 0);
  std::string text = ReadFile(a);
  const size_t at = text.find("\"ph\"", text.size() / 2);
  ASSERT_NE(at, std::string::npos);
  text[at] = '#';
  const std::string bad = (dir_.path / "bad.json").string();
  std::ofstream(bad, std::ios::binary) << text;
  const Result r = Cli({"stats", bad});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("bad.json: offset " + std::to_string(at)), std::string::npos) << r.err;
}

}  // namespace

namespace {

// A Chrome JSON trace of 20 "work" slices of `us` µs each (another
// producer's form: "X" events).
std::string XTrace(int us) {
  std::string s = "[";
  for (int i = 0; i < 20; ++i) {
    if (i) s += ",";
    s += "{\"ph\":\"X\",\"name\":\"work\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(i * 1000) +
         ",\"dur\":" + std::to_string(us) + "}";
  }
  return s + "]";
}

// --baseline: 0 when nothing got slower than the limit, 1 with a line per
// regression, 2 for a bad limit or statistic. Mutation: CompareBaseline's
// result ignored in RunStats (rc unchanged) fails the slower case.
TEST_F(StatsCli, BaselineExitCodes) {
  const std::string old_t = (dir_.path / "old.json").string(), same = (dir_.path / "same.json").string(),
                    slow = (dir_.path / "slow.json").string();
  std::ofstream(old_t) << XTrace(100);
  std::ofstream(same) << XTrace(100);
  std::ofstream(slow) << XTrace(150);
  Result r = Cli({"stats", same, "--baseline", old_t});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("2 compared, 0 regressions"), std::string::npos) << r.err;
  r = Cli({"stats", slow, "--baseline", old_t});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("REGRESSION slice:work.p50 100us -> 150us (+50.0%, limit +10%)"), std::string::npos) << r.err;
  EXPECT_EQ(Cli({"stats", slow, "--baseline", old_t, "--max-regression", "60%"}).rc, 0);
  EXPECT_EQ(Cli({"stats", slow, "--baseline", old_t, "--max-regression", "lots"}).rc, 2);
  EXPECT_EQ(Cli({"stats", slow, "--baseline", old_t, "--regression-stats", "p99,count"}).rc, 2);
  EXPECT_EQ(Cli({"stats", slow, "--baseline", old_t, "--regression-stats", "mean"}).rc, 1);
}

TEST_F(StatsCli, HtmlFromTheExtension) {
  const fs::path out = dir_.path / "report.html";
  const Result r = Cli({"stats", stream_, "-o", out.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string page = ReadFile(out);
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(page.find(">send</figcaption>"), std::string::npos);
  EXPECT_NE(page.find(">produced</figcaption>"), std::string::npos);
}

}  // namespace
