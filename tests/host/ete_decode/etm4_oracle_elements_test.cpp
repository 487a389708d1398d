// SPDX-License-Identifier: MIT
// etm4_oracle_elements_test.cpp: the element stream of every ETMv4 capture
// in data/arm-trace-snapshots against OpenCSD 1.8.0's listing (the
// OCSD_GEN_TRC_ELEM_* lines, element_oracle.h): instruction ranges with
// counts and last instruction kind, exceptions, PE context, timestamps,
// trace-on/no-sync reasons and, where a memory image is missing
// (juno-ret-stck) or not mapped, ADDR_NACC at the same place. The same
// element decoder as ETE, fed by the ETMv4-configured packet processor.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "element_oracle.h"
#include "shared_data.h"

namespace mabutrace::ete_decode {
namespace {

namespace fs = std::filesystem;
const fs::path kSnapshots = fs::path(MABUTRACE_SHARED_DIR) / "data" / "arm-trace-snapshots";

class Etm4OracleElements : public ::testing::TestWithParam<std::string> {};

TEST_P(Etm4OracleElements, MatchesOpenCsd) {
  const fs::path dir = kSnapshots / GetParam();
  MABUTRACE_NEEDS_SHARED(dir / "expected" / "opencsd-1.8.0-decode.ppl");
  oracle::ExpectElementsEqualListing(dir, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Captures, Etm4OracleElements, ::testing::ValuesIn(mabutrace_tests::Etm4Captures()),
                         [](const auto& info) { return mabutrace_tests::CaptureTestName(info.param); });

}  // namespace
}  // namespace mabutrace::ete_decode
