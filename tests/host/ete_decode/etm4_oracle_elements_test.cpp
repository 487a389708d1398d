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

// The oracle matches elements by trace ID; the session's callback also
// names the source (its index in the buffer's sources), which the decoders
// give it directly (ElementOutput::SetSourceSink): it must be the source
// whose trace ID the element carries, with the caller's context.
TEST(Etm4Sessions, EachElementNamesItsSource) {
  const fs::path dir = kSnapshots / "juno_r1_1";
  MABUTRACE_NEEDS_SHARED(dir / "trace.ini");
  const LoadedSnapshot snap = LoadSnapshotForDecode(dir);
  ASSERT_FALSE(snap.buffers.empty());
  const DecodeBuffer& b = snap.buffers.front();
  ASSERT_GT(b.sources.size(), 1u);
  struct Seen {
    const DecodeBuffer* buffer;
    std::vector<size_t> per_source;
    size_t wrong = 0;
  } seen{&b, std::vector<size_t>(b.sources.size()), 0};
  auto on_element = [](void* c, size_t source, const EteElement& e) {
    auto* s = static_cast<Seen*>(c);
    if (source >= s->per_source.size() || s->buffer->sources[source].config.trace_id() != e.trace_id) {
      ++s->wrong;
      return;
    }
    ++s->per_source[source];
  };
  EXPECT_TRUE(DecodeBufferFile(
      b, on_element, [](void*, size_t, uint64_t, const std::string&) {}, &seen));
  EXPECT_EQ(seen.wrong, 0u);
  size_t sources_with_elements = 0;
  for (size_t n : seen.per_source) sources_with_elements += n > 0;
  EXPECT_GT(sources_with_elements, 1u);
}

INSTANTIATE_TEST_SUITE_P(Captures, Etm4OracleElements, ::testing::ValuesIn(mabutrace_tests::Etm4Captures()),
                         [](const auto& info) { return mabutrace_tests::CaptureTestName(info.param); });

}  // namespace
}  // namespace mabutrace::ete_decode
