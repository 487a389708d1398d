// SPDX-License-Identifier: MIT
// The simulator's workload file (host/cptracer/simulator.h): a value out of
// its key's range is an error naming the key, never a wrapped number that
// asks for unbounded time or memory (a newcomer's `windows = -1` ran out of
// memory in seconds). Mutation: ParseUnsigned without its `u > max` check
// fails the windows and fifo_depth cases (-1 wraps to 2^64 - 1).
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "ini_edit.h"
#include "layout.h"
#include "simulator.h"

namespace mabutrace::cptracer {
namespace {

const std::string kExample = std::string(MABUTRACE_SOURCE_DIR) + "/examples/cptracer/workload_dma_contention.ini";

// The example workload with each (section, line) added (ini_edit.h).
std::string WorkloadWith(std::initializer_list<std::pair<std::string, std::string>> edits) {
  return ini_test::ExampleWithLines(kExample, edits, "workload_test.ini");
}

// LoadWorkload then Simulate; "" when both succeed, else the error.
std::string LoadAndSimulate(std::initializer_list<std::pair<std::string, std::string>> edits) {
  Workload w;
  std::string err;
  if (!LoadWorkload(WorkloadWith(edits), &w, &err)) return err;
  SimResult r;
  if (!Simulate(w, DefaultLayout(), &r, &err)) return err;
  return "";
}

TEST(Workload, TheExampleRuns) { EXPECT_EQ(LoadAndSimulate({{"tracer", "seed = 7"}}), ""); }

TEST(Workload, AValueOutOfItsRangeIsAnErrorNamingTheKey) {
  const struct {
    const char* section;
    const char* line;
    const char* key;
  } cases[] = {
      {"tracer", "windows = -1", "windows"},
      {"tracer", "windows = 999999999999", "windows"},
      {"tracer", "fifo_depth = -1", "fifo_depth"},
      {"tracer", "sid = 32", "sid"},
      {"tracer", "clock_hz = -5", "clock_hz"},
      {"master dma0", "read_percent = 150", "read_percent"},
      {"master dma0", "rate_per_window = nan", "rate_per_window"},
      {"master dma0", "mid = 0x100", "mid"},
      {"master dma0", "size_bytes = 12abc", "size_bytes"},
      {"tracer", "events = maybe", "events"},  // was taken for "no" without a word
      {"master dma0", "counter1 = on!", "counter1"},
  };
  for (const auto& c : cases) {
    const std::string err = LoadAndSimulate({{c.section, c.line}});
    EXPECT_NE(err.find(std::string(c.key) + " = "), std::string::npos) << c.line << ": " << err;
  }
}

TEST(Workload, WhatOnlyTheWholeWorkloadShowsIsAnErrorToo) {
  EXPECT_NE(LoadAndSimulate({{"master dma0", "address_end = 0x100"}}).find("address_end is below address_start"),
            std::string::npos);
  // 1,000,000 windows x (1e6 + the others' 1500) transactions: far over 1e8.
  const std::string err =
      LoadAndSimulate({{"tracer", "windows = 1000000"}, {"master dma0", "rate_per_window = 1000000"}});
  EXPECT_NE(err.find("transactions"), std::string::npos) << err;
}

}  // namespace
}  // namespace mabutrace::cptracer
