// SPDX-License-Identifier: MIT
// ptm_oracle_elements_test.cpp: the element stream of every PTM capture's
// first trace buffer against OpenCSD 1.8.0's listing: every
// OCSD_GEN_TRC_ELEM_* line of the PTM trace IDs, in order, with the packet
// index that produced it. Snowball (PFT 1.0, two sources, non-secure code,
// memory-access failures where the image lacks code), trace_cov_a15 (raw
// buffer, return stack, debug-halt exceptions) and TC2 (PFT 1.1 beside
// ETMv3 and ITM; one PTM source without packets still ends its trace).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "ptm/ptm_decode_session.h"
#include "shared_data.h"

namespace mabutrace::ptm {
namespace {

namespace fs = std::filesystem;
using Lines = std::map<unsigned, std::vector<std::string>>;  // trace ID -> element lines

const fs::path kSnapshots = fs::path(MABUTRACE_SHARED_DIR) / "data" / "arm-trace-snapshots";

std::string RTrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// The listing's element lines reduced to "Idx:N; OCSD_GEN_TRC_ELEM_...".
Lines ListingElements(const fs::path& ppl) {
  Lines out;
  std::ifstream in(ppl);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("Idx:");
    if (at == std::string::npos) continue;
    const size_t id = line.find("; ID:", at);
    if (id == std::string::npos || line.find("];\t", id) != std::string::npos) continue;
    const size_t elem = line.find("OCSD_GEN_TRC_ELEM_", id);
    if (elem == std::string::npos) continue;
    const unsigned tid = static_cast<unsigned>(std::stoul(line.substr(id + 5), nullptr, 16));
    out[tid].push_back(RTrim(line.substr(at, id - at) + "; " + line.substr(elem)));
  }
  return out;
}

Lines OurElements(const fs::path& dir, std::set<unsigned>* ids) {
  ete_decode::LoadedSnapshot snap = ete_decode::LoadSnapshotForDecode(dir);
  std::vector<PtmDecodeBuffer> buffers = PtmBuffers(&snap);
  Lines lines;
  if (buffers.empty() || buffers.front().buffer.name != snap.snap.buffers.front().name) {
    ADD_FAILURE() << "no PTM source in the first buffer";
    return lines;
  }
  for (const PtmSource& s : buffers.front().sources) ids->insert(s.config.trace_id());
  auto on_element = [](void* c, size_t, const ete_decode::EteElement& e) {
    std::string s = "Idx:" + std::to_string(e.index) + "; ";
    ete_decode::FormatElementOcsd(e, &s);
    (*static_cast<Lines*>(c))[e.trace_id].push_back(RTrim(s));
  };
  EXPECT_TRUE(DecodePtmBufferFile(buffers.front(), on_element, nullptr, &lines));
  return lines;
}

struct Case {
  const char* dir;
  size_t elements;  // element lines of the PTM IDs in the listing
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.dir; }

class PtmOracleElements : public ::testing::TestWithParam<Case> {};

TEST_P(PtmOracleElements, ElementsEqualOpenCsd180) {
  const fs::path dir = kSnapshots / GetParam().dir;
  const fs::path ppl = dir / "expected" / "opencsd-1.8.0-decode.ppl";
  MABUTRACE_NEEDS_SHARED(ppl);
  const Lines want = ListingElements(ppl);
  std::set<unsigned> ids;
  const Lines got = OurElements(dir, &ids);
  ASSERT_FALSE(ids.empty());
  size_t compared = 0;
  for (unsigned id : ids) {
    SCOPED_TRACE(::testing::Message() << GetParam().dir << " trace ID 0x" << std::hex << id);
    ASSERT_TRUE(want.count(id)) << "no elements for this ID in the listing";
    ASSERT_TRUE(got.count(id)) << "no elements for this ID";
    const auto& w = want.at(id);
    const auto& g = got.at(id);
    const size_t n = std::min(w.size(), g.size());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(w[i], g[i]) << "element #" << i;
    ASSERT_EQ(w.size(), g.size());
    compared += n;
  }
  EXPECT_EQ(compared, GetParam().elements);
  ::testing::Test::RecordProperty("elements_compared", static_cast<int>(compared));
}

INSTANTIATE_TEST_SUITE_P(Captures, PtmOracleElements,
                         ::testing::Values(Case{"Snowball", 1689}, Case{"trace_cov_a15", 27}, Case{"TC2", 1758}),
                         [](const auto& info) { return std::string(info.param.dir); });

}  // namespace
}  // namespace mabutrace::ptm
