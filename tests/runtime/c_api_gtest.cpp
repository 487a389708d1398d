// SPDX-License-Identifier: MIT
// The C11 macros (c_api_test.c) checked through the ChunkReader and the JSON:
// every macro with its optional arguments, and the C scope cleanup on early
// return, break, continue and goto (R-A1, __attribute__((cleanup))).
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <string>

#include "c_api_test.h"
#include "mabutrace/mabutrace.h"
#include "test_util.h"

namespace {

using mabutrace::RecordType;
using mt_test::json;
using mt_test::Rec;

class CApi : public ::testing::Test {
 protected:
  void SetUp() override {
    mabutrace_config_t cfg = mt_test::Config(64 * 1024);
    ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  }
  void TearDown() override { mabutrace_deinit(); }
};

// A compact picture of the records: "B:name", "E", "i:name", ...
std::string Shape(const std::vector<Rec>& recs) {
  std::string s;
  for (const Rec& r : recs) {
    if (!s.empty()) s += ' ';
    switch (r.r.type) {
      case RecordType::kScopeBegin: s += "B:"; break;
      case RecordType::kScopeEnd: s += "E"; continue;
      case RecordType::kInstant: s += "i:"; break;
      case RecordType::kCounter: s += "C:"; break;
      case RecordType::kFlowOut: s += "s:"; break;
      case RecordType::kFlowIn: s += "f:"; break;
      default: s += "?"; continue;
    }
    s += r.r.name ? r.r.name : "-";
  }
  return s;
}

struct BeCount {
  int b = 0, e = 0;
};
BeCount CountScopes() {
  BeCount c;
  for (const Rec& r : mt_test::ReadRecords()) {
    if (r.r.type == RecordType::kScopeBegin) ++c.b;
    if (r.r.type == RecordType::kScopeEnd) ++c.e;
  }
  return c;
}

TEST_F(CApi, EveryMacroWithItsOptionalArguments) {
  EXPECT_EQ(c_is_initialized(), 1);
  uint16_t links[3] = {9, 9, 9};
  const char* func = c_every_macro(links);
  ASSERT_STREQ(func, "c_every_macro");
  for (uint16_t l : links) EXPECT_NE(l, 0);

  const auto recs = mt_test::ReadRecords();
  const std::string f = func;
  EXPECT_EQ(Shape(recs), "B:c_scope_plain B:c_scope_color B:" + f + " B:" + f +
                             " E i:c_instant i:c_instant C:c_counter C:c_counter"
                             " s:- s:c_out2 s:c_out3 f:- f:c_in2 f:c_in3 E E E");
  ASSERT_EQ(recs.size(), 18u);
  // Name pointers are the C objects themselves (not copies).
  EXPECT_EQ(recs[0].r.name, c_scope_plain);
  EXPECT_EQ(recs[1].r.name, c_scope_color);
  EXPECT_EQ(recs[2].r.name, func);
  EXPECT_EQ(recs[3].r.name, func) << "TRC() in a nested block names the function";
  EXPECT_EQ(recs[5].r.name, c_instant);
  EXPECT_EQ(recs[7].r.name, c_counter);
  EXPECT_EQ(recs[10].r.name, c_out2);
  EXPECT_EQ(recs[11].r.name, c_out3);
  EXPECT_EQ(recs[13].r.name, c_in2);
  EXPECT_EQ(recs[14].r.name, c_in3);
  // Colors.
  const uint32_t colors[18] = {0,
                               MABUTRACE_COLOR_SET | COLOR_CYAN,
                               0,
                               0,
                               0,
                               0,
                               MABUTRACE_COLOR_SET | 0xABCDEF,
                               0,
                               MABUTRACE_COLOR_SET | COLOR_YELLOW,
                               0,
                               0,
                               MABUTRACE_COLOR_SET | COLOR_MAGENTA,
                               0,
                               0,
                               MABUTRACE_COLOR_SET | COLOR_BROWN,
                               0,
                               0,
                               0};
  for (size_t i = 0; i < recs.size(); ++i) EXPECT_EQ(recs[i].r.color, colors[i]) << "record " << i;
  // Values and links.
  EXPECT_EQ(recs[7].r.value, -7);
  EXPECT_EQ(recs[8].r.value, int64_t(INT32_MIN));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(recs[9 + i].r.link, links[i]);
    EXPECT_EQ(recs[12 + i].r.link, links[i]);
  }
  for (const Rec& r : recs) EXPECT_EQ(r.tid, mt_test::Gettid());

  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("B", "c_scope_color")[0]["args"]["color"], "#00b4b4");
  EXPECT_EQ(trace.Find("B", "c_scope_color")[0]["cname"], "background_memory_dump");
  EXPECT_EQ(trace.Find("B", func).size(), 2u);
  const auto cs = trace.Find("C", "c_counter");
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[1]["args"]["value"], INT32_MIN);
  EXPECT_EQ(trace.Find("s").size(), 3u);
  EXPECT_EQ(trace.Find("f").size(), 3u);
  EXPECT_EQ(trace.Find("i", "c_in3")[0]["args"]["color"], "#8d6e63");
  EXPECT_EQ(trace.Meta("exported_records"), 18u);
}

TEST_F(CApi, ScopeEndsOnEarlyReturn) {
  EXPECT_EQ(c_early_return(1), 1);
  auto c = CountScopes();
  EXPECT_EQ(c.b, 1);
  EXPECT_EQ(c.e, 1);
  EXPECT_EQ(Shape(mt_test::ReadRecords()), "B:c_early E");
  EXPECT_EQ(c_early_return(0), 0);
  EXPECT_EQ(Shape(mt_test::ReadRecords()), "B:c_early E B:c_early i:c_inner E");
  ASSERT_TRUE(mt_test::ExportAndCheck().ok);
}

TEST_F(CApi, ScopeEndsOnBreakAndContinue) {
  EXPECT_EQ(c_break_out_of_loop(), 3);
  const auto c = CountScopes();
  EXPECT_EQ(c.b, 4);
  EXPECT_EQ(c.e, 4);
  EXPECT_EQ(Shape(mt_test::ReadRecords()), "B:c_loop i:c_inner E B:c_loop E B:c_loop i:c_inner E B:c_loop E");
  ASSERT_TRUE(mt_test::ExportAndCheck().ok);
}

TEST_F(CApi, ScopeEndsOnGotoOutOfTheBlock) {
  c_goto_out_of_block(3);
  const auto c = CountScopes();
  EXPECT_EQ(c.b, 6);
  EXPECT_EQ(c.e, 6);
  EXPECT_EQ(Shape(mt_test::ReadRecords()),
            "B:c_goto B:c_inner E E B:c_goto B:c_inner E E B:c_goto B:c_inner E E i:c_after");
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("E", "c_goto").size(), 3u);
  EXPECT_EQ(trace.Find("E", "c_inner").size(), 3u);
}

TEST_F(CApi, StatsFromC) {
  uint64_t written = 0;
  c_early_return(1);
  ASSERT_EQ(c_get_written(&written), MABUTRACE_OK);
  EXPECT_EQ(written, 2u);
}

}  // namespace
