// SPDX-License-Identifier: MIT
// etm3_oracle_test.cpp: the ETMv3 packet oracle. TC2 (Cortex-A7, ETMv3.5,
// trace IDs 0x10-0x12, behind one CoreSight formatter with PTM and ITM):
// our packet listing of its first trace buffer equals the packet lines of
// OpenCSD 1.8.0's listing for each ETMv3 trace ID: byte index, raw bytes,
// packet name and every printed field.
#include <gtest/gtest.h>

#include <string>

#include "etm3/etm3_packet_text.h"
#include "etm3/etm3_source.h"
#include "etm3_oracle.h"

namespace mabutrace::etm3 {
namespace {

using mabutrace_tests::etm3_oracle::Lines;
namespace oracle = mabutrace_tests::etm3_oracle;

Lines OurPackets() {
  snapshot::Snapshot snap = snapshot::ReadSnapshot(oracle::Tc2());
  const snapshot::TraceBuffer& buf = snap.buffers.front();  // the one the lister decodes
  Lines lines;
  auto on_packet = [](void* c, size_t, const Etm3Packet& p) {
    std::string s;
    FormatLine(p, &s);
    (*static_cast<Lines*>(c))[p.trace_id].push_back(oracle::RTrim(s));
  };
  Etm3BufferDecoder dec(buf.format, SnapshotEtm3Sources(snap, buf), on_packet, nullptr, &lines, ErrorPolicy::kOpenCsd);
  std::vector<uint8_t> data = snapshot::ReadBinaryFile(buf.file);
  dec.Push(data.data(), data.size());
  dec.Finish();
  return lines;
}

TEST(Etm3Oracle, Tc2PacketsEqualOpenCsd180) {
  MABUTRACE_NEEDS_SHARED(oracle::Tc2Listing());
  const Lines want = oracle::ReadListing(oracle::Tc2Listing(), true);
  const Lines got = OurPackets();
  size_t compared = 0;
  for (unsigned id : {0x10u, 0x11u, 0x12u}) {
    SCOPED_TRACE(::testing::Message() << "trace ID 0x" << std::hex << id);
    const auto& w = want.at(id);
    ASSERT_TRUE(got.count(id)) << "no packets for this ID";
    const auto& g = got.at(id);
    const size_t n = std::min(w.size(), g.size());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(w[i], g[i]) << "packet #" << i;
    ASSERT_EQ(w.size(), g.size());
    compared += n;
  }
  EXPECT_EQ(compared, 19778u);  // 8763 + 8653 + 2362 packets
  ::testing::Test::RecordProperty("packets_compared", static_cast<int>(compared));
  // Only the ETMv3 IDs come out of the ETMv3 decoder.
  for (const auto& [id, v] : got) EXPECT_TRUE(id >= 0x10 && id <= 0x12) << id;
}

}  // namespace
}  // namespace mabutrace::etm3
