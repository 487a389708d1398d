// SPDX-License-Identifier: MIT
// trace_checks_test.cpp: each check of trace_checks.cpp catches the fault it
// is for (so the integration test passing means something), and accepts
// what the exporter is allowed to write.
#include "trace_checks.h"

#include <gtest/gtest.h>

#include <sstream>

using nlohmann::json;

namespace {

// A small valid trace: two threads, a flow between them, a counter.
json ValidTrace() {
  return json::parse(R"({"traceEvents":[
    {"ph":"M","name":"process_name","pid":1,"tid":1,"args":{"name":"demo"}},
    {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"timer_isr"}},
    {"ph":"B","name":"timer_isr","cat":"mabutrace","pid":1,"tid":2,"ts":1.000},
    {"ph":"s","name":"flow","cat":"mabutrace.flow","id":7,"pid":1,"tid":2,"ts":1.001},
    {"ph":"C","name":"dropped_samples","pid":1,"tid":2,"ts":1.002,"args":{"value":3}},
    {"ph":"E","name":"timer_isr","cat":"mabutrace","pid":1,"tid":2,"ts":1.003},
    {"ph":"C","name":"dropped_samples","pid":1,"tid":2,"ts":2.000,"args":{"value":4}},
    {"ph":"M","name":"thread_name","pid":1,"tid":3,"args":{"name":"worker"}},
    {"ph":"B","name":"process_sample","cat":"mabutrace","pid":1,"tid":3,"ts":1.500},
    {"ph":"f","name":"flow","cat":"mabutrace.flow","id":7,"pid":1,"tid":3,"ts":1.500,"bp":"e"},
    {"ph":"i","name":"queue_full","cat":"mabutrace","pid":1,"tid":3,"ts":1.600,"s":"t"},
    {"ph":"E","name":"process_sample","cat":"mabutrace","pid":1,"tid":3,"ts":1.700}
  ],"displayTimeUnit":"ns","metadata":{"events_written":9,"events_overwritten":0,
    "events_dropped":0,"chunks_lost_during_export":0}})");
}

json& Event(json& doc, size_t i) { return doc["traceEvents"][i]; }

// The checks found a problem mentioning `needle` (the one the test is
// about, not some side effect of the edit).
::testing::AssertionResult Finds(const Problems& p, const std::string& needle) {
  for (const std::string& s : p) {
    if (s.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no problem mentions '" << needle << "'; got:\n" << Summarize(p);
}

CounterLog Log(const std::string& text) {
  std::istringstream in(text);
  Problems p;
  CounterLog log = ParseCounterLog(in, &p);
  EXPECT_TRUE(p.empty()) << Summarize(p);
  return log;
}

TEST(TraceChecks, AcceptsAValidTrace) {
  TraceFacts facts;
  const Problems p = CheckTrace(ValidTrace(), &facts);
  EXPECT_TRUE(p.empty()) << Summarize(p);
  EXPECT_EQ(facts.thread_names, (std::set<std::string>{"timer_isr", "worker"}));
  EXPECT_EQ(facts.flow_starts, 1u);
  EXPECT_EQ(facts.flow_ends, 1u);
  EXPECT_EQ(facts.instants["queue_full"], 1u);
  EXPECT_EQ(facts.metadata["events_written"], 9u);
}

TEST(TraceChecks, RejectsAnEndWithoutBegin) {
  json doc = ValidTrace();
  Event(doc, 2)["ph"] = "i";  // the B becomes an instant: its E is orphaned
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "E without an open B"));
}

TEST(TraceChecks, RejectsAnEndWithAnotherName) {
  json doc = ValidTrace();
  Event(doc, 5)["name"] = "other";
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "does not match the innermost"));
}

TEST(TraceChecks, RejectsABeginThatNeverEnds) {
  json doc = ValidTrace();
  doc["traceEvents"].erase(11);
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "never ends"));
}

TEST(TraceChecks, RejectsTimeGoingBackOnAThread) {
  json doc = ValidTrace();
  Event(doc, 4)["ts"] = 0.5;  // counter before the B of the same thread
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "ts goes back"));
}

TEST(TraceChecks, AcceptsTimeGoingBackAcrossThreads) {
  json doc = ValidTrace();
  Event(doc, 8)["ts"] = 1.0;  // worker's B before timer events later in file
  Event(doc, 9)["ts"] = 1.0;
  const Problems p = CheckTrace(doc, nullptr);
  EXPECT_TRUE(p.empty()) << Summarize(p);
}

TEST(TraceChecks, RejectsAFlowEndWithoutStart) {
  json doc = ValidTrace();
  Event(doc, 9)["id"] = 8;
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "f without an s"));
  doc = ValidTrace();
  Event(doc, 9)["cat"] = "other";
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "f without an s"));
}

TEST(TraceChecks, RejectsAFlowOutsideASlice) {
  json doc = ValidTrace();
  std::swap(Event(doc, 2), Event(doc, 3));  // s before its slice begins
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "flow start outside any slice"));
  doc = ValidTrace();
  Event(doc, 9)["ts"] = 1.4;  // f before its slice begins
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "flow end inside no slice"));
  doc = ValidTrace();
  Event(doc, 9)["ts"] = 1.7;  // f at its slice's end: Perfetto closes first
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "flow end inside no slice"));
}

TEST(TraceChecks, AcceptsAFlowEndWrittenAfterItsSlice) {
  // The exporter may write an f after the walk; it binds by time.
  json doc = ValidTrace();
  json f = Event(doc, 9);
  doc["traceEvents"].erase(9);
  doc["traceEvents"].push_back(f);
  TraceFacts facts;
  const Problems p = CheckTrace(doc, &facts);
  EXPECT_TRUE(p.empty()) << Summarize(p);
  EXPECT_EQ(facts.flow_ends, 1u);
}

TEST(TraceChecks, RejectsADuplicateFlowStart) {
  json doc = ValidTrace();
  doc["traceEvents"].insert(doc["traceEvents"].begin() + 4, Event(doc, 3));
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "used by an earlier s"));
}

TEST(TraceChecks, RejectsAThreadWithoutName) {
  json doc = ValidTrace();
  doc["traceEvents"].erase(7);
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "no thread_name"));
  doc = ValidTrace();
  Event(doc, 1)["args"]["name"] = "";
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "empty thread name"));
}

TEST(TraceChecks, RejectsMissingStatistics) {
  json doc = ValidTrace();
  doc["metadata"].erase("events_dropped");
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "no unsigned events_dropped"));
}

TEST(TraceChecks, RejectsBadTimestampsAndIds) {
  json doc = ValidTrace();
  Event(doc, 6)["ts"] = "2.0";
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "ts missing"));
  doc = ValidTrace();
  Event(doc, 6)["tid"] = 0;
  EXPECT_TRUE(Finds(CheckTrace(doc, nullptr), "pid/tid missing"));
}

TEST(CounterChecks, LiveTraceMayMissOldAndNewValues) {
  const CounterLog log =
      Log("dropped_samples 2 timer_isr\ndropped_samples 3 timer_isr\n"
          "dropped_samples 4 timer_isr\ndropped_samples 5 timer_isr\n");
  const Problems p = CheckCounters(ValidTrace(), log, /*final=*/false);
  EXPECT_TRUE(p.empty()) << Summarize(p);
  // But a finished run's trace must end with the newest value, even when
  // older ones were overwritten.
  json doc = ValidTrace();
  doc["metadata"]["events_overwritten"] = 1;
  EXPECT_TRUE(Finds(CheckCounters(doc, log, /*final=*/true), "not the newest part"));
}

TEST(CounterChecks, FinalTraceIsTheWholeLogWhenNothingWasOverwritten) {
  EXPECT_TRUE(CheckCounters(ValidTrace(),
                            Log("dropped_samples 3 timer_isr\n"
                                "dropped_samples 4 timer_isr\n"),
                            true)
                  .empty());
  EXPECT_TRUE(Finds(CheckCounters(ValidTrace(),
                                  Log("dropped_samples 2 timer_isr\n"
                                      "dropped_samples 3 timer_isr\n"
                                      "dropped_samples 4 timer_isr\n"),
                                  true),
                    "nothing was overwritten"));
  json doc = ValidTrace();
  doc["metadata"]["events_overwritten"] = 1;  // now the 2 may have been lost
  EXPECT_TRUE(CheckCounters(doc,
                            Log("dropped_samples 2 timer_isr\n"
                                "dropped_samples 3 timer_isr\n"
                                "dropped_samples 4 timer_isr\n"),
                            true)
                  .empty());
}

TEST(CounterChecks, RejectsAGapReorderOrUnloggedValue) {
  const char* gap =
      "dropped_samples 3 timer_isr\ndropped_samples 9 timer_isr\n"
      "dropped_samples 4 timer_isr\n";
  EXPECT_TRUE(Finds(CheckCounters(ValidTrace(), Log(gap), false), "not a contiguous run"));
  EXPECT_TRUE(Finds(CheckCounters(ValidTrace(),
                                  Log("dropped_samples 4 timer_isr\n"
                                      "dropped_samples 3 timer_isr\n"),
                                  false),
                    "not a contiguous run"));
  // Logged by another thread only: the trace's samples are unexplained.
  EXPECT_TRUE(Finds(CheckCounters(ValidTrace(),
                                  Log("dropped_samples 3 monitor\n"
                                      "dropped_samples 4 monitor\n"),
                                  false),
                    "never logged"));
  // With records lost mid-export, order is all that can be checked.
  json doc = ValidTrace();
  doc["metadata"]["chunks_lost_during_export"] = 1;
  EXPECT_TRUE(CheckCounters(doc, Log(gap), false).empty());
}

TEST(CounterChecks, RejectsAMalformedLog) {
  std::istringstream in("queue_length 3 monitor\nqueue_length three monitor\nx 1\n");
  Problems p;
  ParseCounterLog(in, &p);
  EXPECT_EQ(p.size(), 2u) << Summarize(p);
}

}  // namespace
