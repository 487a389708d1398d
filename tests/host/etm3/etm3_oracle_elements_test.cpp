// SPDX-License-Identifier: MIT
// etm3_oracle_elements_test.cpp: the element stream of TC2's ETMv3 sources
// (trace IDs 0x10-0x12) against OpenCSD 1.8.0's listing: every
// OCSD_GEN_TRC_ELEM_* line of those IDs, in order, with the packet index
// that produced it (instruction ranges with the last instruction's kind
// and W counts, PE context, trace-on, exception return, timestamps,
// cycle counts, no-sync and end of trace).
#include <gtest/gtest.h>

#include <string>

#include "etm3/etm3_decode_session.h"
#include "etm3_oracle.h"

namespace mabutrace::etm3 {
namespace {

using mabutrace_tests::etm3_oracle::Lines;
namespace oracle = mabutrace_tests::etm3_oracle;

Lines OurElements() {
  ete_decode::LoadedSnapshot snap = ete_decode::LoadSnapshotForDecode(oracle::Tc2());
  std::vector<Etm3DecodeBuffer> buffers = Etm3Buffers(&snap);
  EXPECT_FALSE(buffers.empty());
  Lines lines;
  if (buffers.empty()) return lines;
  auto on_element = [](void* c, size_t, const ete_decode::EteElement& e) {
    std::string s = "Idx:" + std::to_string(e.index) + "; ";
    ete_decode::FormatElementOcsd(e, &s);
    (*static_cast<Lines*>(c))[e.trace_id].push_back(oracle::RTrim(s));
  };
  EXPECT_TRUE(DecodeEtm3BufferFile(buffers.front(), on_element, nullptr, &lines));
  return lines;
}

TEST(Etm3OracleElements, Tc2ElementsEqualOpenCsd180) {
  MABUTRACE_NEEDS_SHARED(oracle::Tc2Listing());
  const Lines want = oracle::ReadListing(oracle::Tc2Listing(), false);
  const Lines got = OurElements();
  size_t compared = 0;
  for (unsigned id : {0x10u, 0x11u, 0x12u}) {
    SCOPED_TRACE(::testing::Message() << "trace ID 0x" << std::hex << id);
    const auto& w = want.at(id);
    ASSERT_TRUE(got.count(id)) << "no elements for this ID";
    const auto& g = got.at(id);
    const size_t n = std::min(w.size(), g.size());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(w[i], g[i]) << "element #" << i;
    ASSERT_EQ(w.size(), g.size());
    compared += n;
  }
  EXPECT_EQ(compared, 26504u);  // 11737 + 11660 + 3107 element lines
  ::testing::Test::RecordProperty("elements_compared", static_cast<int>(compared));
}

}  // namespace
}  // namespace mabutrace::etm3
