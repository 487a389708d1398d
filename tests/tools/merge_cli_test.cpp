// SPDX-License-Identifier: MIT
// merge_cli_test.cpp: `mabutrace merge` (docs/merge.md) on two runtime
// captures recorded here with the real runtime and a test clock: device B's
// clock runs 1.7 ms ahead of device A's and 150 ppm fast, and B started
// recording 0.7 ms (true time) before A, so B's trace times (ns since its
// own start) are 0.7 ms and more off A's. Both record the same program at
// the same true instants: a sync point at each "GPIO edge"
// (TRACE_CLOCK_SYNC("edge", k)) and a "work" slice after it. After the
// merge, the slices that happened together must land within 1 µs; with
// offset-only flags (no drift, no sync points) exactly at the offset.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mabutrace/mabutrace.h"
#include "test_util.h"
#include "tool_process.h"

namespace {

using json = nlohmann::json;
using mt_test::FakeClock;
using mt_tools::Result;
using mt_tools::RunProgram;
using mt_tools::TempDir;

std::string g_stream;
void Capture(const uint8_t* data, size_t len) { g_stream.append(reinterpret_cast<const char*>(data), len); }

constexpr int kEdges = 40;
constexpr uint64_t kStart = 5'000'000;  // true ns of the first edge

struct Device {
  int64_t offset_ns = 0;          // its clock at true time 0
  double drift_ppm = 0;           // how much faster it runs
  bool sync = true;               // records the edges
  uint64_t start_ns = 1'000'000;  // true time of mabutrace_init (its trace's time 0)
  uint64_t Clock(uint64_t true_ns) const {
    return uint64_t(std::llround(double(offset_ns) + double(true_ns) * (1 + drift_ppm * 1e-6)));
  }
};

// Records the program on `d`'s clock into a stream file.
void Record(const Device& d, const std::filesystem::path& path) {
  mabutrace_config_t cfg = mt_test::Config(1 << 20);
  cfg.clock = FakeClock::Read;
  cfg.clock_hz = 1000000000;
  cfg.process_name = "device";
  FakeClock::now = d.Clock(d.start_ns);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  g_stream.clear();
  ASSERT_EQ(mabutrace_set_output_callback(Capture), MABUTRACE_OK);
  for (int k = 0; k < kEdges; ++k) {
    // Irregular edges, so that the fit has something to fit.
    const uint64_t edge = kStart + uint64_t(k) * 1'000'000 + uint64_t(k * k % 7) * 37'000;
    FakeClock::now = d.Clock(edge);
    if (d.sync) TRACE_CLOCK_SYNC("edge", k);
    FakeClock::now = d.Clock(edge + 10'000);
    {
      TRACE_SCOPE("work");
      FakeClock::now = d.Clock(edge + 250'000);
    }
  }
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  mabutrace_deinit();
  std::ofstream(path, std::ios::binary) << g_stream;
}

// Begin times (ns) of the "work" slices, per pid, from a merged .json.
std::map<int, std::vector<long double>> WorkBegins(const json& doc) {
  std::map<int, std::vector<long double>> begins;
  for (const json& e : doc.at("traceEvents")) {
    if (e.value("name", "") != "work") continue;
    const std::string ph = e.at("ph");
    if (ph != "B" && ph != "X") continue;
    begins[e.at("pid").get<int>()].push_back(e.at("ts").get<long double>() * 1000);
  }
  return begins;
}

json ReadJson(const std::filesystem::path& p) { return json::parse(mt_tools::ReadFile(p)); }

class MergeCli : public ::testing::Test {
 protected:
  TempDir tmp;
  std::filesystem::path Path(const char* name) const { return tmp.path / name; }
  Result Merge(std::vector<std::string> args) { return RunProgram(MABUTRACE_CLI_PATH, args); }
};

TEST_F(MergeCli, SyncPointsPlaceADriftingClockWithin1us) {
  Record(Device{0, 0, true}, Path("a.bin"));
  Record(Device{1'700'000, 150, true, 300'000}, Path("b.bin"));
  const Result r =
      Merge({"merge", "A=" + Path("a.bin").string(), "B=" + Path("b.bin").string(), "-o", Path("m.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  if (const char* keep = std::getenv("MABUTRACE_MERGE_KEEP")) {  // the docs' picture (docs/merge.md)
    for (const char* f : {"a.bin", "b.bin", "m.json"})
      std::filesystem::copy_file(Path(f), std::filesystem::path(keep) / f,
                                 std::filesystem::copy_options::overwrite_existing);
  }
  EXPECT_NE(r.err.find("B: sync points in 'edge' against A: 40 pairs"), std::string::npos) << r.err;
  const json doc = ReadJson(Path("m.json"));
  const auto begins = WorkBegins(doc);
  ASSERT_EQ(begins.size(), 2u);
  const auto& a = begins.begin()->second;
  const auto& b = std::next(begins.begin())->second;
  ASSERT_EQ(a.size(), size_t(kEdges));
  ASSERT_EQ(b.size(), size_t(kEdges));
  long double worst = 0;
  for (int k = 0; k < kEdges; ++k) worst = std::max(worst, std::fabs(a[k] - b[k]));
  EXPECT_LE(worst, 1000) << "slices that happened together are " << double(worst) << " ns apart";
  // Unmerged, they are 0.7 ms and more apart: the test can tell.
  const json& meta = doc.at("metadata");
  EXPECT_EQ(meta.at("merge.B.sync_pairs"), kEdges);
  EXPECT_NEAR(meta.at("merge.B.drift_ppb").get<double>(), -149'977.5, 50);  // 1/(1+150e-6) - 1
  EXPECT_EQ(meta.at("merge.inputs"), 2);
  EXPECT_TRUE(meta.contains("A.lost_records")) << "each input's own counts are kept under its name";
  EXPECT_TRUE(meta.contains("B.lost_records"));
}

TEST_F(MergeCli, OffsetFlagPlacesExactly) {
  Record(Device{0, 0, false}, Path("a.bin"));
  Record(Device{0, 0, false}, Path("b.bin"));
  // B's recording taken as 1.7 ms late: every B event lands 1.7 ms after its twin.
  const Result r = Merge({"merge", "A=" + Path("a.bin").string(), "B=" + Path("b.bin").string(), "--offset", "B=1.7ms",
                          "-o", Path("m.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto begins = WorkBegins(ReadJson(Path("m.json")));
  ASSERT_EQ(begins.size(), 2u);
  const auto& a = begins.begin()->second;
  const auto& b = std::next(begins.begin())->second;
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(b[k] - a[k], 1'700'000) << "slice " << k;
}

TEST_F(MergeCli, PftraceHasOneProcessPerInputAndTheirClocks) {
  Record(Device{0, 0, true}, Path("a.bin"));
  Record(Device{1'700'000, 150, true, 300'000}, Path("b.bin"));
  const std::vector<std::string> in = {"A=" + Path("a.bin").string(), "B=" + Path("b.bin").string()};
  Result r = Merge({"merge", in[0], in[1], "-o", Path("m.pftrace").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  r = Merge({"merge", in[0], in[1], "-o", Path("m.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::ofstream(Path("expect.json")) << json{
      {"names", {"work"}},
      {"threads", json::array()},
      {"flows", 0},
      {"counters", json::object()},
      {"processes", 2},
      {"input_clocks", 2},
      {"json", Path("m.json").string()}}.dump();
  r = RunProgram("/usr/bin/python3", {CHECK_PFTRACE_PY, "--trace", Path("m.pftrace").string(), "--expect",
                                      Path("expect.json").string(), "--proto-dir", PERFETTO_PROTO_DIR});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
}

TEST_F(MergeCli, BadInputsWriteNothing) {
  Record(Device{0, 0, true}, Path("a.bin"));
  std::ofstream(Path("junk.bin")) << "this is not a trace at all";
  const std::string out = Path("m.json").string();
  struct Case {
    std::vector<std::string> args;
    int rc;
    const char* says;
  } cases[] = {
      {{"merge", Path("a.bin").string(), Path("missing.bin").string(), "-o", out}, 1, "missing.bin"},
      {{"merge", Path("a.bin").string(), Path("junk.bin").string(), "-o", out}, 1, "junk ("},
      {{"merge", Path("a.bin").string(), "--sync", "gps", "-o", out}, 1, "sync domain 'gps'"},
      {{"merge", "A=" + Path("a.bin").string(), "B=" + Path("a.bin").string(), "--offset", "B=1ms", "--offset", "B=2ms",
        "-o", out},
       2,
       "contradictory values for B"},
      {{"merge", Path("a.bin").string(), "--offset", "C=1ms", "-o", out}, 2, "no input is named 'C'"},
      {{"merge", Path("a.bin").string(), Path("a.bin").string(), "-o", out}, 2, "two inputs are named 'a'"},
  };
  for (const Case& c : cases) {
    const Result r = Merge(c.args);
    EXPECT_EQ(r.rc, c.rc) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.says;
    EXPECT_FALSE(std::filesystem::exists(out + ".partial")) << c.says;
  }
}

}  // namespace
