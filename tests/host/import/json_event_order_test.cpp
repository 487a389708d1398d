// SPDX-License-Identifier: MIT
// json_event_order_test.cpp: the .json reader's order stage alone
// (host/import/json_event_order.h): a file in order goes on as it came, a
// file that goes back in time is sorted ("X" events of a profiler that
// writes callers after callees nest as they ran), and past the hold limit
// the stage streams and counts what it cannot sort.
#include "json_event_order.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "recorder.h"

namespace {

using mabutrace::host::JsonEventOrder;
using mabutrace::test::Recorder;
constexpr mabutrace::format::Track kMain{1, 1}, kWorker{1, 2};

// The begins and ends the sink saw, without their cpu/color/flag fields.
std::vector<std::string> Slices(const Recorder& rec) {
  std::vector<std::string> out;
  for (const auto& l : rec.lines) {
    if (l[0] != 'B' && l[0] != 'E') continue;
    const size_t third = l.find(' ', l.find(' ', l.find(' ', 2) + 1) + 1);
    out.push_back(l.substr(0, third));
  }
  return out;
}

// cProfile-style: each function written when it returns. main(0..100)
// calls f(10..40), which calls g(20..30); then h(50..60).
TEST(JsonEventOrder, CallersWrittenAfterTheirCalleesNestAsTheyRan) {
  Recorder rec;
  JsonEventOrder order(rec);
  order.Complete(kMain, "g", 20, 10, 0, 0, {});
  order.Complete(kMain, "f", 10, 30, 0, 0, {});
  order.Complete(kMain, "h", 50, 10, 0, 0, {});
  order.Complete(kMain, "main", 0, 100, 0, 0, {});
  order.Finish();
  EXPECT_EQ(order.reordered(), 2u);  // f (before g's 20), main (before h's 50)
  EXPECT_EQ(order.out_of_order(), 0u);
  EXPECT_EQ(order.x_clipped(), 0u);
  EXPECT_EQ(Slices(rec), (std::vector<std::string>{"B 1/1 main 0", "B 1/1 f 10", "B 1/1 g 20", "E 1/1  30", "E 1/1  40",
                                                   "B 1/1 h 50", "E 1/1  60", "E 1/1  100"}))
      << ::testing::PrintToString(rec.lines);
}

// Callers and callees that start at the same ns: the longest is the outer.
TEST(JsonEventOrder, XEventsStartingTogetherNestLongestFirst) {
  Recorder rec;
  JsonEventOrder order(rec);
  order.Complete(kMain, "late", 30, 1, 0, 0, {});
  order.Complete(kMain, "leaf", 5, 2, 0, 0, {});
  order.Complete(kWorker, "other", 5, 1, 0, 0, {});
  order.Complete(kMain, "mid", 5, 10, 0, 0, {});
  order.Complete(kMain, "root", 5, 20, 0, 0, {});
  order.Finish();
  EXPECT_EQ(order.x_clipped(), 0u);
  std::vector<std::string> main_track;
  for (const auto& s : Slices(rec))
    if (s.rfind("B 1/1", 0) == 0 || s.rfind("E 1/1", 0) == 0) main_track.push_back(s);
  EXPECT_EQ(main_track, (std::vector<std::string>{"B 1/1 root 5", "B 1/1 mid 5", "B 1/1 leaf 5", "E 1/1  7",
                                                  "E 1/1  15", "E 1/1  25", "B 1/1 late 30", "E 1/1  31"}))
      << ::testing::PrintToString(rec.lines);
}

// A file in time order goes on exactly as it came (the toolkit's own
// files): nothing reordered, names where they were.
TEST(JsonEventOrder, AFileInOrderGoesOnAsItCame) {
  Recorder rec;
  JsonEventOrder order(rec);
  order.Begin(kMain, "a", 10, 0, 0, {});
  order.Thread(kWorker, "worker");
  order.Instant(kWorker, "i", 5, 0, 0);  // another track: its own order
  order.Flow(kMain, false, 7, 3);        // an arrow end written late: keeps its place
  order.End(kMain, "a", 20, {});
  order.Finish();
  EXPECT_EQ(order.reordered(), 0u);
  EXPECT_EQ(rec.lines, (std::vector<std::string>{"B 1/1 a 10 cpu0 c0", "T 1/2 worker", "I 1/2 i 5 cpu0 c0",
                                                 "f 1/1 id7 3", "E 1/1 a 20 "}));
}

// Sorted: names go first, before events at ts 0 too (a thread_name written
// after its events names the track), and a bound arrow end stays with its
// slice's begin.
TEST(JsonEventOrder, ASortedFileNamesItsTracksFirstAndKeepsBoundFlows) {
  Recorder rec;
  JsonEventOrder order(rec);
  order.Complete(kMain, "callee", 20, 5, 0, 0, {.in = 9});
  order.Complete(kMain, "caller", 0, 40, 0, 0, {.out = 4});
  order.Thread(kMain, "main");
  order.Finish();
  EXPECT_EQ(rec.lines,
            (std::vector<std::string>{"T 1/1 main", "B 1/1 caller 0 cpu0 c0", "s 1/1 id4 0", "B 1/1 callee 20 cpu0 c0",
                                      "f 1/1 id9 20", "E 1/1  25 ", "E 1/1  40 "}))
      << ::testing::PrintToString(rec.lines);
}

// Past the hold limit the stage streams: what goes back in time then is
// passed on in file order and counted, not sorted.
TEST(JsonEventOrder, PastTheHoldLimitEventsStreamAndDisorderIsCounted) {
  Recorder rec;
  JsonEventOrder order(rec, 2);
  order.Instant(kMain, "a", 10, 0, 0);
  order.Instant(kMain, "b", 20, 0, 0);  // the limit: both go on
  EXPECT_EQ(rec.lines.size(), 2u);
  order.Instant(kMain, "c", 15, 0, 0);  // streamed at once
  EXPECT_EQ(rec.lines.size(), 3u);
  order.Finish();
  EXPECT_EQ(order.out_of_order(), 1u);
  EXPECT_EQ(order.reordered(), 0u);
  EXPECT_EQ(rec.lines.back(), "I 1/1 c 15 cpu0 c0");
}

}  // namespace
