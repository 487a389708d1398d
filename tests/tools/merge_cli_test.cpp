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
//
// Inputs of the other kinds go in directly (input_kinds.h): an ETE snapshot
// the generator writes from a small A64 program (tests/host/ete_gen), a
// CP_Tracer simulation, a raw SWO capture. With sync points that read the
// generic timer (CNTVCT, the clock ETE timestamps count), the software
// scope that wrapped a traced function must contain that function's
// hardware slice.
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

// Slices named `name` in a .json (B/E pairs per thread, or X), in file order.
struct Slice {
  int pid = 0;
  long double begin = 0, end = 0;  // ns
};
std::vector<Slice> Slices(const json& doc, const std::string& name) {
  std::vector<Slice> out;
  std::map<std::pair<int, int>, std::vector<std::pair<std::string, long double>>> open;
  for (const json& e : doc.at("traceEvents")) {
    const std::string ph = e.value("ph", "");
    if (ph != "B" && ph != "E" && ph != "X") continue;
    const int pid = e.at("pid").get<int>();
    const long double ts = e.at("ts").get<long double>() * 1000;
    if (ph == "X") {
      if (e.value("name", "") == name) out.push_back({pid, ts, ts + e.at("dur").get<long double>() * 1000});
      continue;
    }
    auto& stack = open[{pid, e.at("tid").get<int>()}];
    if (ph == "B") {
      stack.emplace_back(e.value("name", ""), ts);
    } else if (!stack.empty()) {
      if (stack.back().first == name) out.push_back({pid, stack.back().second, ts});
      stack.pop_back();
    }
  }
  return out;
}

// Process names of a .json, by pid.
std::map<int, std::string> Processes(const json& doc) {
  std::map<int, std::string> names;
  for (const json& e : doc.at("traceEvents"))
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name")
      names[e.at("pid").get<int>()] = e.at("args").at("name").get<std::string>();
  return names;
}

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
  const Result r = Merge({"merge", "--name", "A", "--name", "B", Path("a.bin").string(), Path("b.bin").string(),
                          "--offset", "B=1.7ms", "-o", Path("m.json").string()});
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

// Device A sends requests, each carrying the link TRACE_FLOW_OUT wrote;
// device B handles each 100 µs later with TRACE_FLOW_IN(that link). Both
// on one true clock (offset-free devices), A with a local arrow of its own.
void RecordRequests(bool sender, std::vector<uint16_t>* links, const std::filesystem::path& path) {
  mabutrace_config_t cfg = mt_test::Config(1 << 20);
  cfg.clock = FakeClock::Read;
  cfg.clock_hz = 1000000000;
  cfg.process_name = sender ? "client" : "server";
  FakeClock::now = 1'000'000;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  g_stream.clear();
  ASSERT_EQ(mabutrace_set_output_callback(Capture), MABUTRACE_OK);
  for (size_t k = 0; k < 5; ++k) {
    FakeClock::now = 2'000'000 + k * 1'000'000 + (sender ? 0 : 100'000);
    if (sender) {
      TRACE_SCOPE("send");
      uint16_t link = 0;
      TRACE_FLOW_OUT(&link, "request");
      links->push_back(link);
      FakeClock::now += 10'000;
    } else {
      TRACE_SCOPE("handle");
      TRACE_FLOW_IN(links->at(k), "request");
      FakeClock::now += 20'000;
    }
  }
  if (sender) {  // an arrow inside A
    uint16_t local = 0;
    TRACE_FLOW_OUT(&local, "local");
    FakeClock::now += 5'000;
    TRACE_FLOW_IN(local, "local");
  }
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  mabutrace_deinit();
  std::ofstream(path, std::ios::binary) << g_stream;
}

// Flow ids that start on one pid and end on another, and all complete ones.
std::pair<size_t, size_t> CrossAndAllFlows(const json& doc) {
  std::map<uint64_t, int> start_pid, end_pid;
  for (const json& e : doc.at("traceEvents")) {
    const std::string ph = e.value("ph", "");
    if (ph == "s") start_pid[e.at("id").get<uint64_t>()] = e.at("pid").get<int>();
    if (ph == "f") end_pid[e.at("id").get<uint64_t>()] = e.at("pid").get<int>();
  }
  size_t cross = 0, all = 0;
  for (const auto& [id, pid] : end_pid) {
    const auto it = start_pid.find(id);
    if (it == start_pid.end()) continue;
    ++all;
    cross += it->second != pid;
  }
  return {cross, all};
}

TEST_F(MergeCli, JoinFlowsDrawsArrowsFromDeviceToDevice) {
  std::vector<uint16_t> links;
  RecordRequests(true, &links, Path("a.bin"));
  RecordRequests(false, &links, Path("b.bin"));
  const std::vector<std::string> in = {"A=" + Path("a.bin").string(), "B=" + Path("b.bin").string()};
  // B listed first: the sender is still written before the receiver.
  Result r = Merge({"merge", in[1], in[0], "--join-flows", "A:B", "-o", Path("m.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("B: 5 arrows joined from other inputs, 0 ends found no start"), std::string::npos) << r.err;
  json doc = ReadJson(Path("m.json"));
  EXPECT_EQ(CrossAndAllFlows(doc), std::make_pair(size_t(5), size_t(6))) << "5 requests A to B, 1 arrow inside A";
  EXPECT_EQ(doc.at("metadata").at("merge.B.flows_joined"), 5);
  // Asked for nothing, nothing crosses: B's ends have no start (counted).
  r = Merge({"merge", in[1], in[0], "-o", Path("m.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  doc = ReadJson(Path("m.json"));
  EXPECT_EQ(CrossAndAllFlows(doc), std::make_pair(size_t(0), size_t(1)));
  EXPECT_EQ(doc.at("metadata").at("B.flow_ends_without_start"), 5);
  // The .pftrace: the same arrows, through protoc.
  r = Merge({"merge", in[0], in[1], "--join-flows", "A:B", "-o", Path("m.pftrace").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  r = Merge({"merge", in[0], in[1], "--join-flows", "A:B", "-o", Path("m.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::ofstream(Path("expect.json")) << json{
      {"names", {"send", "handle"}},    {"threads", json::array()}, {"flows", 6},
      {"counters", json::object()},     {"processes", 2},           {"input_clocks", 2},
      {"json", Path("m.json").string()}}.dump();
  r = RunProgram("/usr/bin/python3", {CHECK_PFTRACE_PY, "--trace", Path("m.pftrace").string(), "--expect",
                                      Path("expect.json").string(), "--proto-dir", PERFETTO_PROTO_DIR});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
}

TEST_F(MergeCli, BadInputsWriteNothing) {
  Record(Device{0, 0, true}, Path("a.bin"));
  std::ofstream(Path("junk.bin")) << "this is not a trace at all";
  std::ofstream(Path("empty.json")) << "{\"traceEvents\":[]}";
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
      {{"merge", Path("a.bin").string(), "--join-flows", "a:nobody", "-o", out}, 2, "no input is named 'nobody'"},
      {{"merge", Path("a.bin").string(), "--join-flows", "a", "-o", out}, 2, "expected SENDER:RECEIVER"},
      {{"merge", "A=-", Path("a.bin").string(), "-o", out}, 2, "merge reads each input twice"},
      {{"merge", "A=/dev/zero", Path("a.bin").string(), "-o", out}, 2, "not stdin, a pipe or a device"},
      {{"merge", Path("a.bin").string(), Path("empty.json").string(), "-o", out}, 1, "empty ("},
      {{"merge", Path("a.bin").string(), "--clock-hz", "a=0.001", "-o", out}, 2, "bad value '0.001'"},
      {{"merge", Path("a.bin").string(), "--name", "A", "--name", "B", "-o", out}, 2, "2 --name for 1 inputs"},
      {{"merge", Path("a.bin").string(), "--kind", "a=elf", "-o", out}, 2, "bad value 'elf'"},
  };
  {  // the output is an input: refused, the input kept
    const std::string before = mt_tools::ReadFile(Path("a.bin"));
    const Result r = Merge({"merge", Path("a.bin").string(), "-o", Path("a.bin").string(), "--format", "json"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("is both an input"), std::string::npos) << r.err;
    EXPECT_EQ(mt_tools::ReadFile(Path("a.bin")), before);
  }
  for (const Case& c : cases) {
    const Result r = Merge(c.args);
    EXPECT_EQ(r.rc, c.rc) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.says;
    EXPECT_FALSE(std::filesystem::exists(out + ".partial")) << c.says;
  }
}

#ifdef ETE_GEN_ELF
// A generic timer of 100 MHz (10 ns a tick) that reads kCntAt0 + t / 10 at
// the software device's clock t (ns).
constexpr uint64_t kCntHz = 100'000'000;
uint64_t Cnt(uint64_t c0, uint64_t t) { return c0 + t / 10; }

// Records, on the software device: sync points against the generic timer
// before and after, and the scope "call f" over [t1, t2] (device ns).
void RecordCaller(uint64_t c0, uint64_t t1, uint64_t t2, const std::filesystem::path& path) {
  mabutrace_config_t cfg = mt_test::Config(1 << 20);
  cfg.clock = FakeClock::Read;
  cfg.clock_hz = 1000000000;
  cfg.process_name = "caller";
  FakeClock::now = 1'000'000;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  g_stream.clear();
  ASSERT_EQ(mabutrace_set_output_callback(Capture), MABUTRACE_OK);
  auto sync = [&](uint64_t t) {
    FakeClock::now = t;
    TRACE_CLOCK_SYNC("cntvct", Cnt(c0, t));
  };
  for (uint64_t t = 1'500'000; t + 100'000 < t1; t += 400'000) sync(t);
  FakeClock::now = t1;
  {
    TRACE_SCOPE("call f");
    FakeClock::now = t2;
  }
  for (uint64_t t = t2 + 500'000; t < t2 + 2'500'000; t += 400'000) sync(t);
  ASSERT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  mabutrace_deinit();
  std::ofstream(path, std::ios::binary) << g_stream;
}

class MergeEte : public MergeCli {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(ETE_GEN_ELF)) GTEST_SKIP() << ETE_GEN_ELF << " not built (aarch64-linux-gnu-gcc)";
    const Result r = Merge({"ete", "generate", "--elf", ETE_GEN_ELF, "--script", ETE_GEN_SCRIPT, "-o", Snap()});
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  std::string Snap() const { return Path("snap").string(); }
};

TEST_F(MergeEte, SoftwareScopeContainsTheTracedFunctionsHardwareSlice) {
  // Where f ran on the hardware timeline, in generic-timer ticks.
  Result r = Merge({"ete", "export", Snap(), "--elf", ETE_GEN_ELF, "-o", Path("ete.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  const json ete = ReadJson(Path("ete.json"));
  const std::vector<Slice> f = Slices(ete, "f");
  ASSERT_EQ(f.size(), 2u) << "call_graph.S calls f twice";
  const json& meta = ete.at("metadata");
  const long double origin = std::stold(meta.at("ete.timestamp_origin").get<std::string>());
  const long double origin_ns = meta.at("ete.timestamp_origin_ns").get<long double>();
  ASSERT_EQ(meta.at("ete.timestamp_hz").get<uint64_t>(), kCntHz);
  auto ticks = [&](long double ns) { return origin + (ns - origin_ns) * kCntHz / 1e9L; };
  // The software device read the timer as `origin` at its 3 ms; its scope
  // "call f" wraps the first call with 200 ns to spare on each side.
  const uint64_t c0 = uint64_t(origin) - 300'000;
  auto device_ns = [&](long double cnt) { return uint64_t(std::llround((cnt - c0) * 10)); };
  const uint64_t t1 = device_ns(ticks(f[0].begin)) - 200;
  const uint64_t t2 = device_ns(ticks(f[0].end)) + 200;
  RecordCaller(c0, t1, t2, Path("sw.bin"));

  r = Merge({"merge", "sw=" + Path("sw.bin").string(), "ete=" + Snap(), "--elf", std::string("ete=") + ETE_GEN_ELF,
             "--clock-domain", "ete=cntvct", "-o", Path("m.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("ete: sync points in 'cntvct' against sw"), std::string::npos) << r.err;
  const json doc = ReadJson(Path("m.json"));
  const std::vector<Slice> scope = Slices(doc, "call f");
  const std::vector<Slice> hw = Slices(doc, "f");
  ASSERT_EQ(scope.size(), 1u);
  ASSERT_EQ(hw.size(), 2u);
  EXPECT_NE(scope[0].pid, hw[0].pid) << "each input is its own process";
  EXPECT_LE(scope[0].begin, hw[0].begin) << "the scope begins before the call it wraps";
  EXPECT_GE(scope[0].end, hw[0].end) << "and ends after it returns";
  EXPECT_LT(hw[0].begin - scope[0].begin, 1000) << "placed, not only ordered";
  EXPECT_GT(hw[1].begin, scope[0].end) << "the second call is outside the scope";
}

TEST_F(MergeEte, EveryInputKindGoesInDirectly) {
  Record(Device{0, 0, false}, Path("a.bin"));
  Result r = Merge({"cptracer", "simulate",
                    std::string(MABUTRACE_SOURCE_DIR) + "/examples/cptracer/workload_dma_contention.ini", "-o",
                    Path("sim").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  // SysTick entered, TS, SysTick exited, returned to thread (raw SWO, ITM exception trace).
  std::ofstream(Path("cm.swo"), std::ios::binary) << std::string("\x0e\x0f\x10\x30\x0e\x0f\x20\x0e\x00\x30", 10);
  for (const char* out : {"m.json", "m.pftrace"}) {
    r = Merge({"merge", "sw=" + Path("a.bin").string(), "ete=" + Snap(), "bus=" + Path("sim").string(),
               "mcu=" + Path("cm.swo").string(), "--kind", "mcu=itm", "-o", Path(out).string()});
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  EXPECT_NE(r.err.find("ete: arm "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bus: cptracer "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("mcu: itm "), std::string::npos) << r.err;
  const json doc = ReadJson(Path("m.json"));
  std::string names;
  for (const auto& [pid, name] : Processes(doc)) names += name + "; ";
  for (const char* want : {"sw: device", "ete: ETE snap", "bus: CP_Tracer", "bus: Bus masters", "mcu: ITM cm.swo"})
    EXPECT_NE(names.find(want), std::string::npos) << want << " in " << names;
  EXPECT_EQ(Slices(doc, "SysTick").size(), 1u) << "the ITM exception as an ISR slice";
  std::ofstream(Path("expect.json")) << json{
      {"names", {"work", "SysTick"}},   {"threads", json::array()},           {"flows", 0},
      {"counters", json::object()},     {"processes", Processes(doc).size()}, {"input_clocks", 4},
      {"json", Path("m.json").string()}}.dump();
  r = RunProgram("/usr/bin/python3", {CHECK_PFTRACE_PY, "--trace", Path("m.pftrace").string(), "--expect",
                                      Path("expect.json").string(), "--proto-dir", PERFETTO_PROTO_DIR});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
}
TEST_F(MergeEte, AnElfThatDoesNotMatchTheImageWritesNothing) {
  Record(Device{0, 0, false}, Path("a.bin"));
  const std::string out = Path("m.json").string();
  const Result r = Merge({"merge", "sw=" + Path("a.bin").string(), "ete=" + Snap(), "--elf",
                          std::string("ete=") + ETE_GEN_OTHER_ELF, "-o", out});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("does not match"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ete (" + Snap() + ") cannot be read: nothing written"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
}
#endif  // ETE_GEN_ELF

}  // namespace
