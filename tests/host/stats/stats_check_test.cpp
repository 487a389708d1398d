// SPDX-License-Identifier: MIT
// stats_check_test.cpp: --check expressions: parse, units, columns of the
// errors, evaluation on known statistics.
#include <gtest/gtest.h>

#include "stats_check.h"
#include "trace_model.h"

namespace {

using namespace mabutrace::stats;

Check Parse(const char* text) {
  CheckError e;
  auto c = ParseCheck(text, &e);
  EXPECT_TRUE(c) << text << ": column " << e.column << ": " << e.message;
  return c ? *c : Check{};
}

size_t ErrorColumn(const char* text) {
  CheckError e;
  EXPECT_FALSE(ParseCheck(text, &e)) << text;
  return e.column;
}

// Units scale to ns; a key may hold dots (the statistic is the suffix after
// the last '.' that names one, so "a.b.p99.9" is key "a.b", stat p99.9).
// Mutation: "p99.9" left out of a flow's statistics rejects the second check.
TEST(StatsCheck, ParsesKindsKeysStatsUnits) {
  Check c = Parse("slice:process_data.p99 < 2ms");
  EXPECT_EQ(c.kind, CheckKind::kSlice);
  EXPECT_EQ(c.key, "process_data");
  EXPECT_EQ(c.stat, "p99");
  EXPECT_EQ(c.op, CheckOp::kLess);
  EXPECT_EQ(c.threshold, 2e6L);
  c = Parse("flow:a.b.p99.9>=1.5us");
  EXPECT_EQ(c.key, "a.b");
  EXPECT_EQ(c.stat, "p99.9");
  EXPECT_EQ(c.op, CheckOp::kGreaterEqual);
  EXPECT_EQ(c.threshold, 1500.0L);
  c = Parse("counter:queue_length.max <= 8");
  EXPECT_EQ(c.kind, CheckKind::kCounter);
  EXPECT_EQ(c.threshold, 8.0L);
  c = Parse("instant:queue_full.count == 0");
  EXPECT_EQ(c.op, CheckOp::kEqual);
  c = Parse("slice:\"a <b\".max != 3 s");
  EXPECT_EQ(c.key, "a <b");
  EXPECT_EQ(c.op, CheckOp::kNotEqual);
  EXPECT_EQ(c.threshold, 3e9L);
  EXPECT_EQ(Parse("slice:x.mean < 7").threshold, 7.0L);  // no unit: ns
  EXPECT_EQ(Parse("counter:level.min == -7").threshold, -7.0L);
}

// Errors point at the column (1-based) of what is wrong. Mutation:
// 0-based columns make every expectation one less.
TEST(StatsCheck, ErrorsPointAtTheColumn) {
  EXPECT_EQ(ErrorColumn("slices:x.p99 < 2ms"), 1u);           // unknown kind
  EXPECT_EQ(ErrorColumn("slice:x.p98 < 2ms"), 9u);            // unknown statistic
  EXPECT_EQ(ErrorColumn("slice:x.p99 < 2xs"), 16u);           // unknown unit
  EXPECT_EQ(ErrorColumn("slice:x.p99 < ms"), 15u);            // no number
  EXPECT_EQ(ErrorColumn("slice:x.p99 2ms"), 16u);             // no operator
  EXPECT_EQ(ErrorColumn("counter:q.max <= 8ms"), 19u);        // a counter has no unit
  EXPECT_EQ(ErrorColumn("instant:q.count == 1 extra"), 22u);  // trailing text
  EXPECT_EQ(ErrorColumn("slice:.p99 < 1"), 7u);               // empty key
  EXPECT_EQ(ErrorColumn("slice:x.p99 = 1"), 16u);             // '=' alone is no operator
}

// Evaluation on statistics made through the Normalizer: a slice of 3 ms
// fails "< 2ms" and passes "<= 3ms"; an absent key fails except its count.
// Mutation: Compare's kLess as <= passes "p99 < 3ms".
TEST(StatsCheck, EvaluatesOnStatistics) {
  TraceStats s;
  mabutrace::model::Normalizer n(s);
  n.OnBegin({1, 1}, "work", 1000, 0, 0);
  n.OnEnd({1, 1}, "", 3001000, "");
  n.OnCounter({1, 1}, "q", 0, 9);
  n.Finish();
  EXPECT_FALSE(Evaluate(Parse("slice:work.p99 < 2ms"), s).pass);
  EXPECT_FALSE(Evaluate(Parse("slice:work.p99 < 3ms"), s).pass);
  EXPECT_TRUE(Evaluate(Parse("slice:work.p99 <= 3ms"), s).pass);
  EXPECT_TRUE(Evaluate(Parse("counter:q.max > 8"), s).pass);
  EXPECT_TRUE(Evaluate(Parse("instant:nothing.count == 0"), s).pass);
  const CheckResult absent = Evaluate(Parse("slice:nothing.p99 < 1s"), s);
  EXPECT_FALSE(absent.pass);
  EXPECT_NE(absent.line.find("no slice 'nothing'"), std::string::npos) << absent.line;
  EXPECT_TRUE(Evaluate(Parse("flow:none.count == 0"), s).pass);
}

}  // namespace
