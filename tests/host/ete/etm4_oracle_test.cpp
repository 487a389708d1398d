// SPDX-License-Identifier: MIT
// etm4_oracle_test.cpp: the ETMv4 packet oracle. For each ETMv4 capture in
// data/arm-trace-snapshots (A-profile Juno/A57/A55, the Cortex-M55 M-profile
// one), our packet listing of the first trace buffer must equal the packet
// lines of expected/opencsd-1.8.0-decode.ppl (packet_oracle.h). The same
// packet processor as ETE, configured as ETMv4 from the trace-unit registers.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "packet_oracle.h"
#include "shared_data.h"

namespace fs = std::filesystem;

namespace {

const fs::path kSnapshots = fs::path(MABUTRACE_SHARED_DIR) / "data" / "arm-trace-snapshots";

class Etm4Oracle : public ::testing::TestWithParam<std::string> {};

TEST_P(Etm4Oracle, PacketsEqualOpenCsd180) {
  const fs::path dir = kSnapshots / GetParam();
  MABUTRACE_NEEDS_SHARED(dir / "expected" / "opencsd-1.8.0-decode.ppl");
  mabutrace_tests::ExpectPacketsEqualListing(dir, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Captures, Etm4Oracle, ::testing::ValuesIn(mabutrace_tests::Etm4Captures()),
                         [](const auto& info) { return mabutrace_tests::CaptureTestName(info.param); });

}  // namespace
