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
#include <string>
#include <vector>

#include "element_oracle.h"
#include "shared_data.h"

namespace mabutrace::ete_decode {
namespace {

namespace fs = std::filesystem;
const fs::path kSnapshots = fs::path(MABUTRACE_SHARED_DIR) / "data" / "ete-snapshots";

std::vector<std::string> Captures() {
  return mabutrace_tests::SharedCaptures(kSnapshots, {"expected/opencsd-1.8.0-decode.ppl"});
}

class OracleElements : public ::testing::TestWithParam<std::string> {};

TEST_P(OracleElements, MatchesOpenCsd) { oracle::ExpectElementsEqualListing(kSnapshots / GetParam(), GetParam()); }

INSTANTIATE_TEST_SUITE_P(Captures, OracleElements, ::testing::ValuesIn(Captures()),
                         [](const auto& info) { return mabutrace_tests::CaptureTestName(info.param); });

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OracleElements);  // a clone without the captures

TEST(OracleElements, AllCapturesPresent) {
  MABUTRACE_NEEDS_SHARED(kSnapshots);
  EXPECT_EQ(Captures().size(), 24u);
}

}  // namespace
}  // namespace mabutrace::ete_decode
