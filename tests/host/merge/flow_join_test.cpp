// SPDX-License-Identifier: MIT
// flow_join_test.cpp: which sender start a --join-flows end takes
// (host/merge/flow_join.h).
#include "flow_join.h"

#include <gtest/gtest.h>

#include "format/record_format.h"

namespace mabutrace::merge {
namespace {

TEST(FlowJoin, AnEndTakesTheLatestFreeStartWithItsLinkBeforeIt) {
  // Sender 0, placed 1000 ns later on the merged timeline: flow 7 at 100
  // and flow 7 + 65535 (the same link, one cycle on) at 5000; flow 8 at 200.
  InputScan scan;
  const uint16_t link = LinkForFlow(7);
  ASSERT_EQ(LinkForFlow(7 + 65535), link);
  scan.flow_outs[link] = {{100, 7}, {5000, 7 + 65535}};
  scan.flow_outs[LinkForFlow(8)] = {{200, 8}};
  ClockLine later;
  later.y0 = 1000;
  FlowJoin join;
  join.AddSender(0, later, scan.flow_outs);
  EXPECT_EQ(join.Take(link, 1050), 0u) << "before every start of the link (merged 1100)";
  EXPECT_EQ(join.Take(link, 7000), MergedFlowId(0, 7 + 65535)) << "the latest one before the end";
  EXPECT_EQ(join.Take(link, 7000), MergedFlowId(0, 7)) << "that one is taken: the one before";
  EXPECT_EQ(join.Take(link, 7000), 0u) << "each start ends once";
  EXPECT_EQ(join.Take(LinkForFlow(8), 1200), MergedFlowId(0, 8)) << "at the start's own time";
  EXPECT_EQ(join.Take(LinkForFlow(99), 1e9), 0u) << "a link no sender used";
}

}  // namespace
}  // namespace mabutrace::merge
