// SPDX-License-Identifier: MIT
// A bus transaction followed from CP_Tracer to CP_Tracer
// (host/cptracer/transaction_links.h): links drawn, ambiguous matches
// counted, and the export's arrows between the tracers' tracks.
#include "transaction_links.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "export.h"
#include "json_writer.h"

namespace mabutrace::cptracer {
namespace {

TracerMessage Event(uint32_t tracer, uint32_t mid, uint32_t xid, uint64_t ts, MsgType type = MsgType::kEventB) {
  TracerMessage m;
  m.type = type;
  m.tracer = tracer;
  m.sid = tracer;
  m.mid = mid;
  m.xid = xid;
  m.has_ts = true;
  m.timestamp = ts;
  return m;
}

std::vector<uint64_t> Times(const std::vector<TracerMessage>& msgs) {
  std::vector<uint64_t> t;
  for (const auto& m : msgs) t.push_back(m.timestamp);  // 1 ts = 1 ns here
  return t;
}

constexpr auto kNone = TransactionLinks::kNone;

TEST(TransactionLinks, APathThroughThreeTracersIsTwoLinks) {
  const std::vector<TracerMessage> msgs = {
      Event(1, 0x40, 2, 1000), Event(7, 0x09, 2, 1010),                           // another master, same XID
      Event(2, 0x40, 2, 1100), Event(3, 0x40, 2, 1250), Event(4, 0x40, 2, 9000),  // long after: a new transaction
  };
  const TransactionLinks l = LinkTransactions(msgs, Times(msgs), 500);
  EXPECT_EQ(l.links, 2u);
  EXPECT_EQ(l.ambiguous, 0u);
  EXPECT_EQ(l.from, (std::vector<size_t>{kNone, kNone, 0, 2, kNone}));
  EXPECT_EQ(l.continued, (std::vector<bool>{true, false, true, false, false}));
}

TEST(TransactionLinks, TwoCandidatesAreCountedNotDrawn) {
  const std::vector<TracerMessage> msgs = {Event(1, 0x40, 5, 100), Event(2, 0x40, 5, 110), Event(3, 0x40, 5, 120)};
  // Tracer 2 continues tracer 1; then tracer 3 has one candidate left (2).
  TransactionLinks l = LinkTransactions(msgs, Times(msgs), 50);
  EXPECT_EQ(l.links, 2u);
  // One tracer seeing the key twice (the 4-bit XID came round): which one
  // did tracer 2 see? Neither is drawn.
  const std::vector<TracerMessage> reuse = {Event(1, 0x40, 5, 100), Event(1, 0x40, 5, 105), Event(2, 0x40, 5, 110)};
  l = LinkTransactions(reuse, Times(reuse), 50);
  EXPECT_EQ(l.links, 0u);
  EXPECT_EQ(l.ambiguous, 1u);
  EXPECT_EQ(l.from[2], kNone);
}

TEST(TransactionLinks, OffWithoutAWindowAndEventCNeverLinks) {
  const std::vector<TracerMessage> msgs = {Event(1, 0x40, 2, 100), Event(2, 0x40, 2, 110, MsgType::kEventC),
                                           Event(3, 0x40, 2, 120, MsgType::kEventE)};
  EXPECT_EQ(LinkTransactions(msgs, Times(msgs), 0).links, 0u);
  const TransactionLinks l = LinkTransactions(msgs, Times(msgs), 50);
  EXPECT_EQ(l.links, 1u);  // B at tracer 1 → E at tracer 3
  EXPECT_EQ(l.from[2], 0u);
}

nlohmann::json Export(const std::vector<TracerMessage>& msgs, uint64_t window_ns) {
  std::string text;
  exporter::JsonWriter writer([&](const char* d, size_t n) {
    text.append(d, n);
    return true;
  });
  TimingOptions timing;
  timing.ts_hz = 1e9;
  ExportOptions eo;
  eo.link_window_ns = window_ns;
  ExportSummary sum;
  std::string err;
  EXPECT_TRUE(ExportTimeline(msgs, 0, timing, &writer, &sum, &err, eo)) << err;
  return nlohmann::json::parse(text);
}

TEST(TransactionLinks, ExportDrawsArrowsFromTracerToTracer) {
  const std::vector<TracerMessage> msgs = {Event(1, 0x40, 2, 1000), Event(2, 0x40, 2, 1100), Event(3, 0x40, 2, 1250),
                                           Event(1, 0x41, 3, 2000)};
  const nlohmann::json j = Export(msgs, 500);
  std::map<std::string, int> pid_of_thread;  // "transactions" threads per tracer pid
  std::map<uint64_t, int> start_pid, end_pid;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "transactions")
      ++pid_of_thread[std::to_string(e["pid"].get<int>())];
    if (e["ph"] == "s") start_pid[e["id"].get<uint64_t>()] = e["pid"];
    if (e["ph"] == "f") end_pid[e["id"].get<uint64_t>()] = e["pid"];
  }
  EXPECT_EQ(pid_of_thread.size(), 3u);  // tracers 1, 2, 3 (not tracer 1's unlinked 0x41)
  ASSERT_EQ(start_pid.size(), 2u);
  ASSERT_EQ(end_pid.size(), 2u);
  std::vector<std::pair<int, int>> hops;
  for (const auto& [id, pid] : start_pid) hops.push_back({pid, end_pid.at(id)});
  EXPECT_EQ(hops, (std::vector<std::pair<int, int>>{{1001, 1002}, {1002, 1003}}));
  EXPECT_EQ(j["metadata"]["cptracer.transaction_links"], 2);
  EXPECT_EQ(j["metadata"]["cptracer.transaction_links_ambiguous"], 0);
}

TEST(TransactionLinks, WithoutAWindowTheExportIsAsBefore) {
  const std::vector<TracerMessage> msgs = {Event(1, 0x40, 2, 1000), Event(2, 0x40, 2, 1100)};
  const nlohmann::json j = Export(msgs, 0);
  for (const auto& e : j["traceEvents"]) {
    EXPECT_NE(e["ph"], "s");
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      EXPECT_NE(e["args"]["name"], "transactions");
    }
  }
  EXPECT_FALSE(j["metadata"].contains("cptracer.transaction_links"));
}

}  // namespace
}  // namespace mabutrace::cptracer
