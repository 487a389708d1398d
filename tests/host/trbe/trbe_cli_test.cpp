// SPDX-License-Identifier: MIT
// trbe_cli_test.cpp: `mabutrace trbe status|linearize|simulate` run as a
// process: output, JSON keys and exit codes (0 ok, 1 bad input, 2 usage).
#include <gtest/gtest.h>

#include "shared_data.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "json_fields.h"
#include "run_cli.h"

namespace {

using namespace mt_cli;  // RunCli, RunCliJson, RunCliOut, ExpectExitCodes
using mt_json::ExpectFields;

std::string Temp(const std::string& name) { return ::testing::TempDir() + "/trbe_cli_" + name; }

void WriteBytes(const std::string& path, const std::vector<uint8_t>& v) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size()));
}
std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(TrbeCli, StatusJson) {
  const auto j = RunCliJson("trbe status 0x520002 --format json");
  ExpectFields(j, {{"IRQ", 1}, {"TRG", 0}, {"WRAP", 1}, {"EA", 0}, {"S", 1}, {"EC", 0}, {"MSS", 2}, {"BSC", 2}});
  EXPECT_FALSE(j.contains("FSC"));
  EXPECT_EQ(j["summary"], "collection stopped: trigger event; wrapped; IRQ pending");
}

TEST(TrbeCli, StatusFaultJsonAndLimitr) {
  const auto fault = RunCliJson("trbe status 0x94420021 --format json");  // EC=0x25, IRQ, S, FSC alignment
  ExpectFields(fault, {{"EC", 0x25}, {"FSC", 0x21}});
  EXPECT_FALSE(fault.contains("BSC"));
  ExpectFields(RunCliJson("trbe status 0x80001019 --reg TRBLIMITR_EL1 --format json"), {{"TM", 3}, {"E", 1}});
  EXPECT_NE(RunCliOut("trbe status 0x520001").find("buffer full"), std::string::npos);
}

TEST(TrbeCli, StatusUsageErrors) {
  ExpectExitCodes({{"trbe status banana", 2},
                   {"trbe status -- -1", 2},
                   {"trbe status 1 --reg TRBNOPE", 2},
                   {"trbe status 1 --format xml", 2},
                   {"trbe", 2},
                   {"trbe status --help", 0}});
}

TEST(TrbeCli, LinearizeWrapped) {
  std::vector<uint8_t> dump(4096);
  for (size_t i = 0; i < dump.size(); ++i) dump[i] = static_cast<uint8_t>(i * 3 + 1);
  for (int i = 0; i < 11; ++i) dump[2000 + i] = 0;
  dump[2011] = 0x80;
  WriteBytes(Temp("dump.bin"), dump);
  const std::string base = "--base 0x80000000 --ptr 0x80000400 ";
  Result r = RunCli("trbe linearize " + Temp("dump.bin") + " " + base + "--wrapped -o " + Temp("out.bin"));
  ASSERT_EQ(r.code, 0);
  std::vector<uint8_t> expect(dump.begin() + 0x400, dump.end());
  expect.insert(expect.end(), dump.begin(), dump.begin() + 0x400);
  EXPECT_EQ(ReadBytes(Temp("out.bin")), expect);

  // --trbsr with WRAP set and --head drop.
  r = RunCli("trbe linearize " + Temp("dump.bin") + " " + base + "--trbsr 0x100000 --head drop -o " + Temp("out2.bin"));
  ASSERT_EQ(r.code, 0);
  const auto dropped = ReadBytes(Temp("out2.bin"));
  EXPECT_EQ(dropped, std::vector<uint8_t>(expect.begin() + (2000 - 0x400), expect.end()));

  // Not wrapped: [base, ptr) to stdout.
  r = RunCli("trbe linearize " + Temp("dump.bin") + " " + base + "-o -");
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string(dump.begin(), dump.begin() + 0x400));
}

TEST(TrbeCli, LinearizeBadInput) {
  WriteBytes(Temp("small.bin"), std::vector<uint8_t>(100, 1));
  // Limit says 4096 bytes, the dump has 100: bad input.
  EXPECT_EQ(RunCli("trbe linearize " + Temp("small.bin") + " --base 0 --limit 4096 --ptr 10 -o " + Temp("x.bin")).code,
            1);
  EXPECT_EQ(RunCli("trbe linearize /nonexistent/dump --base 0 --ptr 0 -o " + Temp("x.bin")).code, 1);
  EXPECT_EQ(RunCli("trbe linearize " + Temp("small.bin") + " --base zz --ptr 0 -o " + Temp("x.bin")).code, 2);
  EXPECT_EQ(RunCli("trbe linearize " + Temp("small.bin") + " --ptr 0 -o " + Temp("x.bin")).code,
            2);  // --base missing
}

TEST(TrbeCli, SimulateJsonOverACapture) {
  const std::string cap = std::string(MABUTRACE_ETE_SNAPSHOTS) + "/001-ack_test/session1.bin";
  MABUTRACE_NEEDS_SHARED(cap);
  const auto j = RunCliJson("trbe simulate '" + cap + "' --mode fill --trigger-mode stop --size 8K --format json");
  EXPECT_EQ(j["final"]["TRBPTR_EL1"], "0x80000000");
  EXPECT_EQ(j["final"]["IRQ"], 1);
  EXPECT_EQ(j["final"]["status"]["BSC"], 1);
  EXPECT_EQ(j["final"]["linux_irq_class"], "buffer-full");
  EXPECT_EQ(j["counters"]["bytes_written"], 8192);
  EXPECT_EQ(j["counters"]["bytes_in"], 16168);
  bool saw_wrap = false;
  for (const auto& e : j["events"]) saw_wrap = saw_wrap || e["event"] == "wrap";
  EXPECT_TRUE(saw_wrap);
  EXPECT_EQ(RunCli("trbe simulate '" + cap + "' --size 1000").code, 2);
  EXPECT_EQ(RunCli("trbe simulate '" + cap + "' --mode sideways").code, 2);
}

// The whole driver-writer path through the CLI: simulate a circular buffer
// over a capture written twice (so it wraps), dump its memory, linearize with
// 0x70 padding, and list it with `mabutrace ete packets`: from the first
// A-Sync on, the packets are those of the capture. Skipped when the CLI was
// built without host/ete.
TEST(TrbeCli, SimulateLinearizeEtePackets) {
  if (RunCli("--help").out.find("\n  ete ") == std::string::npos)
    GTEST_SKIP() << "mabutrace built without the ete command";
  const std::string dir = std::string(MABUTRACE_ETE_SNAPSHOTS) + "/001-ack_test";
  MABUTRACE_NEEDS_SHARED(dir);
  const auto capture = ReadBytes(dir + "/session1.bin");
  ASSERT_EQ(capture.size(), 16168u);
  auto stream = capture;
  stream.insert(stream.end(), capture.begin(), capture.end());
  WriteBytes(Temp("stream.bin"), stream);
  Result r =
      RunCli("trbe simulate " + Temp("stream.bin") + " --size 20480 --format json --memory-out " + Temp("mem.bin"));
  ASSERT_EQ(r.code, 0);
  const auto sim = nlohmann::json::parse(r.out);
  const std::string ptr = sim["final"]["TRBPTR_EL1"], sr = sim["final"]["TRBSR_EL1"];
  EXPECT_EQ(ptr, "0x80002e50");  // 2 x 16168 = 32336 bytes; 32336 % 20480 = 0x2e50
  r = RunCli("trbe linearize " + Temp("mem.bin") + " --base 0x80000000 --ptr " + ptr + " --trbsr " + sr +
             " --head pad -o " + Temp("lin.bin"));
  ASSERT_EQ(r.code, 0);
  auto packets = [](const std::string& out) {
    std::vector<nlohmann::json> v;
    size_t pos = 0;
    bool synced = false;
    while (pos < out.size()) {
      const size_t nl = out.find('\n', pos);
      const std::string line = out.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? out.size() : nl + 1;
      if (line.empty()) continue;
      auto j = nlohmann::json::parse(line);
      const std::string kind = j.value("type", std::string()) + j.value("ocsd", std::string());
      if (!synced && kind.find("ASYNC") == std::string::npos) continue;
      synced = true;
      for (const char* k : {"offset", "stream_offset", "index", "source"}) j.erase(k);  // position, not content
      v.push_back(std::move(j));
    }
    return v;
  };
  const std::string cfg = " --config '" + dir + "/ETE_0_s1.ini' --format jsonl";
  const Result orig = RunCli("ete packets '" + dir + "/session1.bin'" + cfg);
  const Result lin = RunCli("ete packets " + Temp("lin.bin") + cfg);
  const auto a = packets(orig.out), b = packets(lin.out);
  ASSERT_GT(a.size(), 100u);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << "packet " << i;
}

}  // namespace
