// SPDX-License-Identifier: MIT
// itm_oracle_test.cpp: our ITM packet and element lines against OpenCSD
// 1.8.0's listings (expected/opencsd-1.8.0-decode.ppl) of the shared
// captures with an ITM source: itm_only_raw (a raw ITM stream: software
// stimulus, DWT, local and global timestamps, extension pages, overflow,
// unsynchronised start) and TC2 (ITM at trace ID 0x20 behind a CoreSight
// formatter beside ETMv3 / PTM; its first buffer holds no ITM byte, so the
// listing has only EO_TRACE for it). Every "Idx:" line of the source's trace
// ID must be equal, in order: offset, raw bytes, packet name and fields,
// element text.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "itm/itm_packet_text.h"
#include "itm/itm_session.h"
#include "shared_data.h"

namespace mabutrace::itm {
namespace {

namespace fs = std::filesystem;
const fs::path kSnapshots = fs::path(MABUTRACE_SHARED_DIR) / "data" / "arm-trace-snapshots";

// The listing's lines of trace ID `id` ("Idx:N; ID:<hex>; ...").
std::vector<std::string> OracleLines(const fs::path& ppl, unsigned id) {
  std::ifstream f(ppl);
  std::vector<std::string> lines;
  char tag[32];
  std::snprintf(tag, sizeof tag, "; ID:%x; ", id);
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("Idx:", 0) != 0) continue;
    const size_t semi = line.find("; ID:");
    if (semi == std::string::npos || line.compare(semi, std::strlen(tag), tag) != 0) continue;
    lines.push_back(line);
  }
  return lines;
}

class Lines final : public SessionSink {
 public:
  void OnPacket(size_t, const ItmPacket& p) override {
    std::string s;
    FormatLine(p, &s);
    lines.push_back(s);
  }
  void OnElement(size_t, const ItmElement& e) override {
    std::string s;
    FormatElementLine(e, &s);
    lines.push_back(s);
  }
  void OnError(size_t, uint64_t, const std::string& m) override { errors.push_back(m); }
  std::vector<std::string> lines;
  std::vector<std::string> errors;
};

// Decodes the first buffer of the snapshot (the one the lister decodes).
Lines DecodeFirstBuffer(const fs::path& dir) {
  std::vector<ItmInput> inputs;
  std::string error;
  SessionOptions options;
  EXPECT_TRUE(OpenItmInput(dir, options, &inputs, &error)) << error;
  Lines sink;
  if (inputs.empty()) return sink;
  const auto snap = snapshot::ReadSnapshot(dir);
  EXPECT_EQ(inputs.front().buffer_name, snap.buffers.front().name) << "the ITM source is not in the first buffer";
  DecodeItmInput(inputs.front(), options, &sink);
  return sink;
}

void ExpectSameLines(const std::vector<std::string>& ours, const std::vector<std::string>& oracle) {
  const size_t n = std::min(ours.size(), oracle.size());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(ours[i], oracle[i]) << "line " << i;
  EXPECT_EQ(ours.size(), oracle.size());
}

TEST(ItmOracle, ItmOnlyRawEveryLine) {
  const fs::path dir = kSnapshots / "itm_only_raw";
  MABUTRACE_NEEDS_SHARED(dir / "expected" / "opencsd-1.8.0-decode.ppl");
  const auto oracle = OracleLines(dir / "expected" / "opencsd-1.8.0-decode.ppl", 0);
  ASSERT_GT(oracle.size(), 100u);
  Lines ours = DecodeFirstBuffer(dir);
  ExpectSameLines(ours.lines, oracle);
  EXPECT_TRUE(ours.errors.empty()) << ours.errors.front();
}

TEST(ItmOracle, Tc2ItmSourceBehindTheFormatter) {
  const fs::path dir = kSnapshots / "TC2";
  MABUTRACE_NEEDS_SHARED(dir / "expected" / "opencsd-1.8.0-decode.ppl");
  std::vector<ItmInput> inputs;
  std::string error;
  ASSERT_TRUE(OpenItmInput(dir, {}, &inputs, &error)) << error;
  ASSERT_EQ(inputs.size(), 1u);
  ASSERT_EQ(inputs[0].sources.size(), 1u);
  EXPECT_EQ(inputs[0].sources[0].name, "ITM_0");
  EXPECT_EQ(inputs[0].sources[0].trace_id, 0x20);  // ITMTCR(0x3A0)=0x00200006, bits[22:16]
  const auto oracle = OracleLines(dir / "expected" / "opencsd-1.8.0-decode.ppl", 0x20);
  ASSERT_EQ(oracle.size(), 1u);  // the lister's only line for 0x20: EO_TRACE
  Lines ours = DecodeFirstBuffer(dir);
  ExpectSameLines(ours.lines, oracle);
}

}  // namespace
}  // namespace mabutrace::itm
