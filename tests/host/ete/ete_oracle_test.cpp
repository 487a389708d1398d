// SPDX-License-Identifier: MIT
// The oracle: for each capture in data/ete-snapshots, our packet listing of
// the buffer OpenCSD's lister decodes must equal the packet lines of
// expected/opencsd-1.8.0-decode.ppl: same byte index, trace ID, raw bytes,
// packet name and decoded fields (compared as OpenCSD prints them).
// Nothing is hard-coded: the expected lines are read at test time.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "packet_oracle.h"
#include "shared_data.h"

namespace fs = std::filesystem;

namespace {

const fs::path kSnapshots = fs::path(MABUTRACE_SHARED_DIR) / "data" / "ete-snapshots";

class EteOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(EteOracle, PacketsEqualOpenCsd180) {
  mabutrace_tests::ExpectPacketsEqualListing(kSnapshots / GetParam(), GetParam());
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
