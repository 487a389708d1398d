// SPDX-License-Identifier: MIT
// oracle_elements_test.cpp: the element stream of every shared ETE capture
// against OpenCSD 1.8.0's (data/ete-snapshots/*/expected/*.ppl, the
// OCSD_GEN_TRC_ELEM_* lines), read at test time.
//
// Per trace ID, the sequence of "Idx:N; <element text>" must be identical:
// element kind, the packet that produced it, and every value the lister
// prints (ranges with count/ISA/last type, exception numbers and return
// addresses, PE context, timestamps, cycle counts, trace-on and no-sync
// reasons). All 24 captures are asserted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ete_decode/ete_decode_session.h"
#include "shared_data.h"

namespace mabutrace::ete_decode {
namespace {

namespace fs = std::filesystem;
const fs::path kSnapshots = fs::path(MABUTRACE_SHARED_DIR) / "data" / "ete-snapshots";

using Streams = std::map<unsigned, std::vector<std::string>>;  // trace ID -> "Idx:N; TEXT"

Streams ReadOracle(const fs::path& ppl) {
  Streams out;
  std::ifstream in(ppl);
  std::string line;
  while (std::getline(in, line)) {
    const auto elem = line.find("OCSD_GEN_TRC_ELEM_");
    if (elem == std::string::npos) continue;
    // Error messages may share a line with a packet ("...Unknown packet type.Idx:2165; ..."):
    // take the last "Idx:" before the element.
    const auto idx = line.rfind("Idx:", elem);
    const auto id = line.find("ID:", idx);
    if (idx == std::string::npos || id == std::string::npos) continue;
    const unsigned trace_id = std::stoul(line.substr(id + 3), nullptr, 16);
    std::string text = line.substr(idx, line.find(';', idx) - idx + 2) + line.substr(elem);
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
    out[trace_id].push_back(text);
  }
  return out;
}

struct Collect {
  Streams streams;
  const DecodeBuffer* buffer = nullptr;
};

void OnElement(void* c, size_t, const EteElement& e) {
  auto* col = static_cast<Collect*>(c);
  std::string text = "Idx:" + std::to_string(e.index) + "; ";
  FormatElementOcsd(e, &text);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  col->streams[e.trace_id].push_back(text);
}
void OnError(void*, size_t, uint64_t, const std::string&) {}

Streams DecodeCapture(const fs::path& dir) {
  LoadedSnapshot snap = LoadSnapshotForDecode(dir);
  Collect col;
  // The OpenCSD lister decodes the first trace buffer of trace.ini only.
  EXPECT_FALSE(snap.buffers.empty());
  if (snap.buffers.empty()) return {};
  const DecodeBuffer& b = snap.buffers.front();
  col.buffer = &b;
  EXPECT_TRUE(DecodeBufferFile(b, &OnElement, &OnError, &col)) << b.buffer.file;
  return col.streams;
}

std::vector<std::string> Captures() {
  return mabutrace_tests::SharedCaptures(kSnapshots, {"expected/opencsd-1.8.0-decode.ppl"});
}

class OracleElements : public ::testing::TestWithParam<std::string> {};

TEST_P(OracleElements, MatchesOpenCsd) {
  const fs::path dir = kSnapshots / GetParam();
  const fs::path ppl = dir / "expected" / "opencsd-1.8.0-decode.ppl";
  const Streams want = ReadOracle(ppl);
  ASSERT_FALSE(want.empty());
  // Every element line of the listing was read (independent count).
  size_t lines = 0, parsed = 0;
  {
    std::ifstream in(ppl);
    for (std::string l; std::getline(in, l);) lines += l.find("OCSD_GEN_TRC_ELEM_") != std::string::npos;
  }
  for (const auto& [id, w] : want) parsed += w.size();
  ASSERT_EQ(parsed, lines);
  const Streams got = DecodeCapture(dir);
  for (const auto& [id, w] : want) {
    SCOPED_TRACE("trace ID 0x" + std::to_string(id));
    auto it = got.find(id);
    ASSERT_NE(it, got.end()) << "no elements for this trace ID";
    const auto& g = it->second;
    size_t i = 0;
    while (i < w.size() && i < g.size() && w[i] == g[i]) ++i;
    if (i == w.size() && i == g.size()) continue;
    std::string ctx;
    for (size_t j = i >= 3 ? i - 3 : 0; j < i; ++j) ctx += "    = " + w[j] + "\n";
    for (size_t j = i; j < i + 4 && j < w.size(); ++j) ctx += "  want " + w[j] + "\n";
    for (size_t j = i; j < i + 4 && j < g.size(); ++j) ctx += "  got  " + g[j] + "\n";
    ADD_FAILURE() << GetParam() << ": first difference at element " << i << " of " << w.size() << " (we have "
                  << g.size() << ")\n"
                  << ctx;
  }
  for (const auto& [id, g] : got)
    EXPECT_TRUE(want.count(id)) << "extra elements for trace ID " << id << ": " << g.size();
}

INSTANTIATE_TEST_SUITE_P(Captures, OracleElements, ::testing::ValuesIn(Captures()),
                         [](const auto& info) { return mabutrace_tests::CaptureTestName(info.param); });

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OracleElements);  // a clone without the captures

TEST(OracleElements, AllCapturesPresent) {
  MABUTRACE_NEEDS_SHARED(kSnapshots);
  EXPECT_EQ(Captures().size(), 24u);
}

}  // namespace
}  // namespace mabutrace::ete_decode
