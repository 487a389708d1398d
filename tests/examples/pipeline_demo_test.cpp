// SPDX-License-Identifier: MIT
// pipeline_demo_test.cpp: runs mabutrace-pipeline-demo as a user would and
// checks what it serves and writes:
// - /trace.json fetched over HTTP while the pipeline runs, and the final
//   DIR/trace.json, each parsed strictly and put through trace_checks;
// - counter values in those traces against the demo's --counter-log;
// - exit codes and messages for signals, a busy port and bad flags.
// No assertion depends on timing beyond "the run is still going" checks.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <httplib.h>

#include "child_process.h"
#include "trace_checks.h"

#ifndef PIPELINE_DEMO_PATH
#error "PIPELINE_DEMO_PATH must name the demo binary"
#endif

using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* const kDemo = PIPELINE_DEMO_PATH;
const std::set<std::string> kDemoThreads = {"timer_isr", "worker", "uploader", "monitor"};

// Generous: sanitizer builds on a loaded 2-core machine are slow to start
// and to export; a healthy run ends a fraction of a second after --seconds.
constexpr auto kStartTimeout = 20s;
constexpr auto kExitTimeout = 30s;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "pipeline_demo_test.XXXXXX").string();
    if (mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~TempDir() {
    // Kept for a look after a failure.
    if (!path_.empty() && !::testing::Test::HasFailure()) fs::remove_all(path_);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct Endpoint {
  std::string host;
  int port = 0;
};

// "listening on http://HOST:PORT/" -> HOST (brackets of IPv6 stripped), PORT.
std::optional<Endpoint> ParseListening(const std::string& line) {
  static const std::regex re(R"(^listening on http://(\[[^\]]+\]|[^:/]+):([0-9]+)/$)");
  std::smatch m;
  if (!std::regex_match(line, m, re)) return std::nullopt;
  std::string host = m[1];
  if (host.front() == '[') host = host.substr(1, host.size() - 2);
  return Endpoint{host, std::stoi(m[2])};
}

std::optional<json> ParseTrace(const std::string& text, const std::string& what) {
  std::string error;
  std::optional<json> doc = ParseJson(text, &error);
  if (!doc) {
    ADD_FAILURE() << what << " is not valid JSON: " << error << " (" << text.size() << " bytes, ends with '"
                  << text.substr(text.size() > 80 ? text.size() - 80 : 0) << "')";
  }
  return doc;
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Describe(const ChildProcess& demo) {
  return "\n--- demo stdout ---\n" + demo.Stdout() + "--- demo stderr ---\n" + demo.Stderr();
}

// All checks that hold for every trace the demo produces.
void ExpectValidTrace(const json& doc, const CounterLog& log, bool final, const std::string& what, TraceFacts* facts) {
  const Problems structure = CheckTrace(doc, facts);
  EXPECT_TRUE(structure.empty()) << what << ": " << structure.size() << " problems\n" << Summarize(structure);
  const Problems counters = CheckCounters(doc, log, final);
  EXPECT_TRUE(counters.empty()) << what << ": " << counters.size() << " counter problems\n" << Summarize(counters);
}

void ExpectDemoThreadsAndFlows(const TraceFacts& f, const std::string& what) {
  for (const std::string& name : kDemoThreads) {
    EXPECT_TRUE(f.thread_names.count(name)) << what << ": no thread named " << name;
  }
  EXPECT_GT(f.flow_starts, 0u) << what << ": no flow starts";
  EXPECT_GT(f.flow_ends, 0u) << what << ": no flow ends";
}

// ---- a full run with live fetches -------------------------------------------

struct BufferCase {
  const char* name;
  int buffer_kib;
  bool expect_wrap;  // the run must overflow the buffer (flight recorder)
};

void PrintTo(const BufferCase& bc, std::ostream* os) { *os << bc.name << " (--buffer-kib " << bc.buffer_kib << ")"; }

class PipelineDemoRun : public ::testing::TestWithParam<BufferCase> {};

// DIR/trace.pftrace: real protoc with Perfetto's schema parses it, with no
// unknown fields, and the demo's threads are described in it.
void ExpectPftraceParses(const fs::path& path) {
  ASSERT_TRUE(fs::exists(path)) << path;
  const std::string cmd = std::string("protoc --decode=perfetto.protos.Trace -I ") + MABUTRACE_PERFETTO_PROTO_DIR +
                          " perfetto_trace.proto < " + path.string() + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string text;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << "protoc: " << text.substr(0, 500);
  for (const char* thread : {"timer_isr", "worker", "uploader", "monitor"}) {
    EXPECT_NE(text.find(std::string("thread_name: \"") + thread + "\""), std::string::npos)
        << thread << " not described in " << path;
  }
  EXPECT_NE(text.find("terminating_flow_ids"), std::string::npos) << "no flow ends in " << path;
  // A field protoc does not know shows as a bare number (perfetto/README.md §2).
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find_first_not_of(' ');
    ASSERT_FALSE(at != std::string::npos && std::isdigit(static_cast<unsigned char>(line[at])))
        << "unknown field in " << path << ": " << line;
  }
}

TEST_P(PipelineDemoRun, LiveAndFinalTracesAreConsistent) {
  const BufferCase& bc = GetParam();
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const fs::path out_dir = tmp.path() / "out";
  const fs::path counter_log = tmp.path() / "counters.txt";
  ChildProcess demo(kDemo, {"--port", "0", "--seconds", "4", "--out", out_dir.string(), "--counter-log",
                            counter_log.string(), "--buffer-kib", std::to_string(bc.buffer_kib)});
  ASSERT_TRUE(demo.started()) << "cannot run " << kDemo;
  const std::optional<std::string> line = demo.WaitForLine("listening on ", kStartTimeout);
  ASSERT_TRUE(line) << "no 'listening on' line" << Describe(demo);
  const std::optional<Endpoint> ep = ParseListening(*line);
  ASSERT_TRUE(ep) << "unparseable: '" << *line << "'";
  ASSERT_GT(ep->port, 0);
  const std::optional<std::string> where = demo.WaitForLine("live trace: ", kStartTimeout);
  ASSERT_TRUE(where) << "the output should say where /trace.json is" << Describe(demo);
  EXPECT_NE(where->find(":" + std::to_string(ep->port) + "/trace.json"), std::string::npos) << *where;

  // Live: fetched while the writers keep writing (the summary line comes
  // only after the threads stopped).
  httplib::Client http(ep->host, ep->port);
  http.set_connection_timeout(5);
  http.set_read_timeout(20);
  std::vector<std::string> live;
  int during_run = 0;
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(700ms);
    if (demo.Stdout().find("\nsamples:") == std::string::npos) ++during_run;
    auto res = http.Get("/trace.json");
    ASSERT_TRUE(res) << "GET /trace.json: " << httplib::to_string(res.error()) << Describe(demo);
    ASSERT_EQ(res->status, 200) << res->body.substr(0, 200);
    live.push_back(std::move(res->body));
  }
  EXPECT_GE(during_run, 2) << "the fetches came too late to see a running pipeline";

  const std::optional<int> rc = demo.Wait(kExitTimeout);
  ASSERT_TRUE(rc) << "the demo did not end" << Describe(demo);
  ASSERT_EQ(*rc, 0) << Describe(demo);
  const fs::path trace_path = out_dir / "trace.json";
  EXPECT_NE(demo.Stdout().find("trace written: " + trace_path.string()), std::string::npos) << Describe(demo);
  EXPECT_NE(demo.Stdout().find("ui.perfetto.dev"), std::string::npos) << Describe(demo);
  ExpectPftraceParses(out_dir / "trace.pftrace");

  std::ifstream log_in(counter_log);
  ASSERT_TRUE(log_in) << "no counter log";
  Problems log_problems;
  const CounterLog log = ParseCounterLog(log_in, &log_problems);
  EXPECT_TRUE(log_problems.empty()) << Summarize(log_problems);
  for (const char* counter : {"queue_length", "process_rss_kib", "dropped_samples"}) {
    EXPECT_TRUE(log.count({counter, "monitor"})) << "monitor never logged " << counter;
  }

  for (size_t i = 0; i < live.size(); ++i) {
    const std::string what = "live fetch " + std::to_string(i + 1);
    const std::optional<json> doc = ParseTrace(live[i], what);
    if (!doc) continue;
    TraceFacts facts;
    ExpectValidTrace(*doc, log, /*final=*/false, what, &facts);
    if (i + 1 == live.size()) ExpectDemoThreadsAndFlows(facts, what);
  }

  const std::optional<json> final_doc = ParseTrace(ReadFile(trace_path), trace_path.string());
  ASSERT_TRUE(final_doc);
  TraceFacts f;
  ExpectValidTrace(*final_doc, log, /*final=*/true, "final trace.json", &f);
  ExpectDemoThreadsAndFlows(f, "final trace.json");
  EXPECT_TRUE(f.thread_names.count("main"));
  // main owns its chunk the whole run, so even a wrapped trace keeps both.
  EXPECT_EQ(f.instants["demo_start"], 1u);
  EXPECT_EQ(f.instants["demo_stop"], 1u);
  // TRC() names the slice after the function.
  EXPECT_GT(f.slices["process_sample"], 0u);
  for (const char* slice :
       {"timer_isr", "adc_read", "filter", "calibrate", "forward_batch", "upload", "encode", "send"}) {
    EXPECT_GT(f.slices[slice], 0u) << "no '" << slice << "' slice";
  }

  // The timer logs dropped_samples 1, 2, 3, ... one per queue_full.
  const auto drops = log.find({"dropped_samples", "timer_isr"});
  ASSERT_NE(drops, log.end()) << "no sample was ever dropped: the worker's stalls should "
                                 "overflow the queue";
  for (size_t i = 0; i < drops->second.size(); ++i) {
    ASSERT_EQ(drops->second[i], int64_t(i + 1)) << "dropped_samples #" << i;
  }
  if (bc.expect_wrap) {
    EXPECT_GT(f.metadata["events_overwritten"], 0u)
        << "the buffer did not wrap; the test no longer covers the flight recorder";
  } else {
    ASSERT_EQ(f.metadata["events_overwritten"], 0u) << "the buffer wrapped; give this case a bigger --buffer-kib";
    EXPECT_EQ(f.instants["queue_full"], drops->second.size());
    // Nothing lost and the queues drained at shutdown: every arrow ends,
    // except those of the samples dropped at a full queue.
    EXPECT_EQ(f.flow_ends + drops->second.size(), f.flow_starts)
        << "flow ends missing from a complete trace (metadata flow_ends_without_start: "
        << f.metadata["flow_ends_without_start"] << ")";
  }
  EXPECT_EQ(f.metadata["events_dropped"], 0u);
}

INSTANTIATE_TEST_SUITE_P(Buffers, PipelineDemoRun,
                         ::testing::Values(BufferCase{"Complete", 32768, false}, BufferCase{"Wrapping", 256, true}),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- ending early -------------------------------------------------------------

class PipelineDemoSignal : public ::testing::TestWithParam<int> {};

TEST_P(PipelineDemoSignal, EndsEarlyAndStillWritesTheTrace) {
  TempDir tmp;
  const fs::path out_dir = tmp.path() / "out";
  const fs::path counter_log = tmp.path() / "counters.txt";
  ChildProcess demo(
      kDemo, {"--port", "0", "--seconds", "600", "--out", out_dir.string(), "--counter-log", counter_log.string()});
  ASSERT_TRUE(demo.started());
  ASSERT_TRUE(demo.WaitForLine("listening on ", kStartTimeout)) << Describe(demo);
  std::this_thread::sleep_for(500ms);
  demo.Signal(GetParam());
  const std::optional<int> rc = demo.Wait(kExitTimeout);
  ASSERT_TRUE(rc) << "still running after " << strsignal(GetParam()) << Describe(demo);
  EXPECT_EQ(*rc, 0) << Describe(demo);
  EXPECT_NE(demo.Stdout().find("stopped early"), std::string::npos) << Describe(demo);

  std::ifstream log_in(counter_log);
  Problems log_problems;
  const CounterLog log = ParseCounterLog(log_in, &log_problems);
  EXPECT_TRUE(log_problems.empty()) << Summarize(log_problems);
  const std::optional<json> doc = ParseTrace(ReadFile(out_dir / "trace.json"), "trace.json");
  ASSERT_TRUE(doc);
  TraceFacts f;
  ExpectValidTrace(*doc, log, /*final=*/true, "trace.json", &f);
  EXPECT_EQ(f.instants["demo_stop"], 1u);
}

INSTANTIATE_TEST_SUITE_P(Signals, PipelineDemoSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) { return std::string(info.param == SIGINT ? "SIGINT" : "SIGTERM"); });

// ---- errors -------------------------------------------------------------------

TEST(PipelineDemoErrors, BusyPortExitsOneNamingThePort) {
  // A listening socket holds the port (SO_REUSEADDR does not share it).
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string port = std::to_string(ntohs(addr.sin_port));

  TempDir tmp;
  ChildProcess demo(kDemo, {"--port", port, "--seconds", "5", "--out", (tmp.path() / "out").string()});
  ASSERT_TRUE(demo.started());
  const std::optional<int> rc = demo.Wait(kExitTimeout);
  close(fd);
  ASSERT_TRUE(rc) << Describe(demo);
  EXPECT_EQ(*rc, 1) << Describe(demo);
  EXPECT_NE(demo.Stderr().find("cannot listen on 127.0.0.1:" + port + " (port in use?)"), std::string::npos)
      << Describe(demo);
  EXPECT_EQ(demo.Stdout().find("listening on"), std::string::npos) << Describe(demo);
  EXPECT_FALSE(fs::exists(tmp.path() / "out" / "trace.json"));
}

TEST(PipelineDemoErrors, UnwritableOutDirExitsOne) {
  ChildProcess demo(kDemo, {"--port", "0", "--seconds", "0.2", "--out", "/dev/null/out"});
  ASSERT_TRUE(demo.started());
  const std::optional<int> rc = demo.Wait(kExitTimeout);
  ASSERT_TRUE(rc) << Describe(demo);
  EXPECT_EQ(*rc, 1) << Describe(demo);
  EXPECT_NE(demo.Stderr().find("/dev/null/out"), std::string::npos) << Describe(demo);
  // Found before the run, not after it: the pipeline never started.
  EXPECT_EQ(demo.Stdout().find("listening on"), std::string::npos) << Describe(demo);
}

struct UsageCase {
  const char* name;
  std::vector<std::string> args;
};

void PrintTo(const UsageCase& uc, std::ostream* os) {
  for (const std::string& a : uc.args) *os << a << " ";
}

class PipelineDemoUsage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(PipelineDemoUsage, ExitsTwo) {
  ChildProcess demo(kDemo, GetParam().args);
  ASSERT_TRUE(demo.started());
  const std::optional<int> rc = demo.Wait(kExitTimeout);
  ASSERT_TRUE(rc);
  EXPECT_EQ(*rc, 2) << Describe(demo);
  EXPECT_FALSE(demo.Stderr().empty()) << "a usage error should say what is wrong";
  EXPECT_EQ(demo.Stdout().find("listening on"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(BadFlags, PipelineDemoUsage,
                         ::testing::Values(UsageCase{"SecondsNotANumber", {"--seconds", "abc"}},
                                           UsageCase{"SecondsZero", {"--seconds", "0"}},
                                           UsageCase{"SecondsNaN", {"--seconds", "nan"}},
                                           UsageCase{"PortTooLarge", {"--port", "65536"}},
                                           UsageCase{"BufferTooSmall", {"--buffer-kib", "1"}},
                                           UsageCase{"UnknownFlag", {"--no-such-flag"}},
                                           UsageCase{"Positional", {"positional"}}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(PipelineDemoUsage, HelpListsTheFlagsAndExitsZero) {
  ChildProcess demo(kDemo, {"--help"});
  ASSERT_TRUE(demo.started());
  const std::optional<int> rc = demo.Wait(kExitTimeout);
  ASSERT_TRUE(rc);
  EXPECT_EQ(*rc, 0);
  for (const char* flag : {"--seconds", "--port", "--out", "--bind", "--buffer-kib", "--counter-log"}) {
    EXPECT_NE(demo.Stdout().find(flag), std::string::npos) << flag;
  }
}

}  // namespace

#if defined(MABUTRACE_CLI_PATH) && !defined(__SANITIZE_THREAD__)  // TSan slows the demo past the tolerance
// Issue 19: the flow latency `mabutrace stats` finds in the demo's trace is
// the latency the demo measured itself (CLOCK_MONOTONIC beside
// TRACE_FLOW_OUT and TRACE_FLOW_IN; it prints it at the end). The buffer
// holds the whole 3 s run, so both see every processed sample. Mutation:
// TraceStats::EndFlow timing from the end's own time (latency 0) fails
// every comparison; the demo adding 5 us to its own figure fails the p50.
TEST(PipelineDemoLatency, StatsFindsTheFlowLatencyTheDemoMeasured) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const fs::path out_dir = tmp.path() / "out";
  ChildProcess demo(kDemo, {"--port", "0", "--seconds", "3", "--out", out_dir.string(), "--buffer-kib", "32768"});
  ASSERT_TRUE(demo.started());
  const std::optional<int> rc = demo.Wait(kExitTimeout);
  ASSERT_TRUE(rc && *rc == 0) << Describe(demo);
  std::smatch m;
  const std::string out = demo.Stdout();
  ASSERT_TRUE(std::regex_search(out, m,
                                std::regex(R"(sample_ready latency \(the demo's own clock\): (\d+) samples, )"
                                           R"(p50 ([0-9.]+) us, p99 ([0-9.]+) us, max ([0-9.]+) us)")))
      << out;
  const double n = std::stod(m[1]), p50 = std::stod(m[2]) * 1e3, p99 = std::stod(m[3]) * 1e3,
               max = std::stod(m[4]) * 1e3;
  ASSERT_NE(out.find("0 overwritten, 0 dropped"), std::string::npos) << "the buffer must hold the run: " << out;
  for (const char* file : {"trace.pftrace", "trace.json"}) {
    ChildProcess stats(MABUTRACE_CLI_PATH, {"stats", (out_dir / file).string(), "--format", "json"});
    ASSERT_TRUE(stats.started());
    const std::optional<int> src = stats.Wait(kExitTimeout);
    ASSERT_TRUE(src && *src == 0) << file << Describe(stats);
    const json doc = json::parse(stats.Stdout());
    const json* flow = nullptr;
    for (const json& f : doc["flows"])
      if (f["key"] == "sample_ready") flow = &f;
    ASSERT_NE(flow, nullptr) << file;
    SCOPED_TRACE(file);
    EXPECT_EQ((*flow)["count"].get<double>(), n);
    // The trace's times are the records' (a few hundred ns from the demo's
    // clock reads on either side).
    const auto near = [](double got, double want, double abs_ns) {
      return std::abs(got - want) <= std::max(abs_ns, 0.05 * want);
    };
    EXPECT_TRUE(near((*flow)["p50"].get<double>(), p50, 4000)) << (*flow)["p50"] << " vs " << p50;
    EXPECT_TRUE(near((*flow)["p99"].get<double>(), p99, 20000)) << (*flow)["p99"] << " vs " << p99;
    EXPECT_TRUE(near((*flow)["max"].get<double>(), max, 20000)) << (*flow)["max"] << " vs " << max;
  }
}
#endif
