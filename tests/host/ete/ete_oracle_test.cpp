// SPDX-License-Identifier: MIT
// The oracle: for each capture in data/ete-snapshots, our packet listing of
// the buffer OpenCSD's lister decodes must equal the packet lines of
// expected/opencsd-1.8.0-decode.ppl: same byte index, trace ID, raw bytes,
// packet name and decoded fields (compared as OpenCSD prints them).
// Nothing is hard-coded: the expected lines are read at test time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ete/ete_packet_text.h"
#include "ete/ete_source.h"
#include "shared_data.h"

namespace fs = std::filesystem;
using namespace mabutrace;

namespace {

const fs::path kSnapshots = fs::path(MABUTRACE_SHARED_DIR) / "data" / "ete-snapshots";

std::string RTrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// Packet lines per trace ID, in order. A packet line may follow an error
// message on the same line ("...CS ID=10; Unknown packet type.Idx:2165; ...").
// Packet lines look like "Idx:<dec>; ID:<hex>; [<raw bytes> ];\t<packet>";
// element lines have no "[" after the ID.
std::map<unsigned, std::vector<std::string>> OracleLines(const fs::path& ppl) {
  std::map<unsigned, std::vector<std::string>> out;
  std::ifstream in(ppl);
  std::string line;
  while (std::getline(in, line)) {
    size_t at = line.find("Idx:");
    while (at != std::string::npos) {
      size_t id = line.find("; ID:", at);
      size_t raw = id == std::string::npos ? id : line.find("; [", id);
      size_t end = raw == std::string::npos ? raw : line.find("];\t", raw);
      size_t next_idx = line.find("Idx:", at + 4);
      if (end != std::string::npos && (next_idx == std::string::npos || raw < next_idx) &&
          line.find_first_not_of("0123456789abcdefABCDEF", id + 5) == raw) {
        unsigned tid = static_cast<unsigned>(std::stoul(line.substr(id + 5, raw - id - 5), nullptr, 16));
        out[tid].push_back(RTrim(line.substr(at)));
        break;
      }
      at = next_idx;
    }
  }
  return out;
}

struct Collector {
  std::map<unsigned, std::vector<std::string>> lines;
};

void OnPacket(void* c, size_t, const ete::EtePacket& p) {
  std::string s;
  ete::FormatLine(p, &s);
  static_cast<Collector*>(c)->lines[p.trace_id].push_back(RTrim(s));
}

std::map<unsigned, std::vector<std::string>> OurLines(const fs::path& dir) {
  snapshot::Snapshot snap = snapshot::ReadSnapshot(dir);
  EXPECT_FALSE(snap.buffers.empty());
  const snapshot::TraceBuffer& buf = snap.buffers.front();  // the one OpenCSD's lister decodes
  std::vector<ete::SourceSpec> sources = ete::SnapshotSources(snap, buf);
  Collector c;
  ete::BufferDecoder dec(buf.format, sources, &OnPacket, nullptr, &c, ete::ErrorPolicy::kOpenCsd);
  std::vector<uint8_t> data = snapshot::ReadBinaryFile(buf.file);
  dec.Push(data.data(), data.size());
  dec.Finish();
  return c.lines;
}

class EteOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(EteOracle, PacketsEqualOpenCsd180) {
  const fs::path dir = kSnapshots / GetParam();
  auto expected = OracleLines(dir / "expected" / "opencsd-1.8.0-decode.ppl");
  ASSERT_FALSE(expected.empty()) << "no packet lines in the oracle of " << dir;
  {  // parser self-check: every line with raw packet bytes was taken
    std::ifstream in(dir / "expected" / "opencsd-1.8.0-decode.ppl");
    size_t raw_lines = 0, parsed = 0;
    for (std::string l; std::getline(in, l);) raw_lines += l.find("];\t") != std::string::npos;
    for (const auto& [id, v] : expected) parsed += v.size();
    ASSERT_EQ(parsed, raw_lines);
    RecordProperty("packets_compared", static_cast<int>(parsed));
  }
  auto ours = OurLines(dir);
  for (const auto& [id, exp] : expected) {
    const auto& got = ours[id];
    size_t n = std::min(exp.size(), got.size());
    size_t first_diff = n;
    for (size_t i = 0; i < n; ++i)
      if (exp[i] != got[i]) {
        first_diff = i;
        break;
      }
    ASSERT_EQ(first_diff, n) << GetParam() << " ID " << id << " packet #" << first_diff
                             << "\n  expected: " << exp[first_diff] << "\n  ours:     " << got[first_diff];
    ASSERT_EQ(exp.size(), got.size()) << GetParam() << " ID " << id << ": packet count differs";
  }
  for (const auto& [id, got] : ours) EXPECT_TRUE(expected.count(id)) << "packets for ID " << id << " not in the oracle";
}

std::vector<std::string> Captures() {
  return mabutrace_tests::SharedCaptures(kSnapshots, {"expected/opencsd-1.8.0-decode.ppl"});
}

std::string Name(const ::testing::TestParamInfo<std::string>& info) {
  return mabutrace_tests::CaptureTestName(info.param);
}

INSTANTIATE_TEST_SUITE_P(Captures, EteOracle, ::testing::ValuesIn(Captures()), Name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EteOracle);  // a clone without the captures

TEST(EteOracleSet, AllTwentyFourCapturesPresent) {
  MABUTRACE_NEEDS_SHARED(kSnapshots);
  EXPECT_EQ(Captures().size(), 24u);
}

}  // namespace
