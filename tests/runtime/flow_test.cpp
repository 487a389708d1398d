// SPDX-License-Identifier: MIT
// Flow ids (R-A4): never 0, cycling 1..65535, arrows s->f with one id, and
// never an f whose s is not in the file.
#include <gtest/gtest.h>
#include <stdint.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "mabutrace/mabutrace.h"
#include "test_util.h"

namespace {

using mabutrace::RecordType;
using mt_test::json;

class Flow : public ::testing::Test {
 protected:
  void TearDown() override { mabutrace_deinit(); }
};

const char kSend[] = "send";
const char kRecv[] = "recv";
const char kFill[] = "fill";

TEST_F(Flow, LinkIdsAreNeverZeroAndCycle) {
  mabutrace_config_t cfg = mt_test::Config(64 * 1024);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  const uint32_t total = 65535 + 10;
  uint16_t last = 0;
  for (uint32_t i = 1; i <= total; ++i) {
    uint16_t link = 0;
    TRACE_FLOW_OUT(&link);
    ASSERT_NE(link, 0) << "out #" << i;
    ASSERT_EQ(link, uint16_t((i - 1) % 65535 + 1)) << "out #" << i;
    if (i > 1) {
      ASSERT_EQ(link, last == 65535 ? 1 : last + 1) << "out #" << i;
    }
    last = link;
  }
  EXPECT_EQ(last, 10);
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_written, total);
  EXPECT_EQ(st.events_dropped, 0u);
  // The survivors: the newest outs, with increasing flow numbers, each with
  // the link of its number.
  const auto outs = mt_test::OfType(mt_test::ReadRecords(), RecordType::kFlowOut);
  ASSERT_FALSE(outs.empty());
  EXPECT_EQ(outs.back().r.flow, total);
  EXPECT_EQ(outs.back().r.link, 10);
  for (size_t i = 0; i < outs.size(); ++i) {
    EXPECT_EQ(outs[i].r.flow, total - outs.size() + 1 + i);
    EXPECT_EQ(outs[i].r.link, mabutrace::LinkForFlow(outs[i].r.flow));
  }
  // JSON ids are the flow numbers: unique in the file even though links
  // repeat.
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("s").size(), outs.size());
  EXPECT_EQ(trace.Find("s").back()["id"], total);
}

// After 65535 + 1 outs the link id 1 is handed out again: a flow-in with link
// 1 matches the newest out with that link, not the first.
TEST_F(Flow, FlowInAfterTheLinkWrappedMatchesTheNewestOut) {
  mabutrace_config_t cfg = mt_test::Config(64 * 1024);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  uint16_t first = 0;
  TRACE_FLOW_OUT(&first, kSend);
  ASSERT_EQ(first, 1);
  for (uint32_t i = 2; i <= 65535; ++i) {
    uint16_t l = 0;
    TRACE_FLOW_OUT(&l);
  }
  uint16_t again = 0;
  TRACE_FLOW_OUT(&again, kSend);  // flow number 65536
  ASSERT_EQ(again, 1);
  TRACE_FLOW_IN(again, kRecv);
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  const auto fs = trace.Find("f");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0]["id"], 65536u);
  EXPECT_EQ(trace.Meta("flow_ends_without_start"), 0u);
  EXPECT_EQ(trace.Meta("flow_ends_ambiguous"), 0u) << "flow 1 was overwritten: one start fits";
}

// A link held while 65,535 other flows start: its id comes round again, and
// the newest out with that id (flow 65536, an unrelated slice) is not the
// in's start (flow 1). With both starts in the buffer the link is
// ambiguous: no arrow (rather than one from the unrelated slice), the point
// kept, counted in flow_ends_ambiguous. Mutation shown red: FlowIn()
// without the Ambiguous() check, as before: an f with id 65536.
TEST_F(Flow, InWhoseLinkFitsTwoStartsInTheBufferGetsNoArrow) {
  mabutrace_config_t cfg = mt_test::Config(4 * 1024 * 1024);  // holds every out
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  uint16_t held = 0;
  {
    TRACE_SCOPE("burst");  // the outs bind to it: no carrier slices
    TRACE_FLOW_OUT(&held, kSend);
    ASSERT_EQ(held, 1);
    for (uint32_t i = 2; i <= 65536; ++i) {
      uint16_t l = 0;
      TRACE_FLOW_OUT(&l);
    }
  }
  {
    TRACE_SCOPE(kRecv);
    TRACE_FLOW_IN(held, kRecv);
  }
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("s").size(), 65536u) << "both starts are in the buffer";
  EXPECT_EQ(trace.Find("f").size(), 0u);
  EXPECT_EQ(trace.Meta("flow_ends_ambiguous"), 1u);
  EXPECT_EQ(trace.Meta("flow_ends_without_start"), 0u);
  EXPECT_EQ(trace.Find("i", kRecv).size(), 1u) << "the point stays";
}

TEST_F(Flow, InAfterOutMakesOneArrowAlsoAcrossThreads) {
  mabutrace_config_t cfg = mt_test::Config(64 * 1024);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  uint16_t same = 0, cross = 0;
  {
    TRACE_SCOPE(kSend);
    TRACE_FLOW_OUT(&same);
    TRACE_FLOW_OUT(&cross, kSend);
  }
  uint32_t receiver_tid = 0;
  std::thread([&] {
    receiver_tid = mt_test::Gettid();
    TRACE_SCOPE(kRecv);
    TRACE_FLOW_IN(cross, kRecv, COLOR_GREEN);
  }).join();
  {
    TRACE_SCOPE(kRecv);
    TRACE_FLOW_IN(same);
  }
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  const auto ss = trace.Find("s");
  const auto fs = trace.Find("f");
  ASSERT_EQ(ss.size(), 2u);
  ASSERT_EQ(fs.size(), 2u);
  std::map<uint64_t, json> s_by_id, f_by_id;
  for (const json& e : ss) s_by_id[e["id"].get<uint64_t>()] = e;
  for (const json& e : fs) f_by_id[e["id"].get<uint64_t>()] = e;
  ASSERT_EQ(s_by_id.count(1), 1u);
  ASSERT_EQ(s_by_id.count(2), 1u);
  ASSERT_EQ(f_by_id.count(1), 1u);
  ASSERT_EQ(f_by_id.count(2), 1u);
  EXPECT_EQ(s_by_id[1]["tid"], mt_test::Gettid());
  EXPECT_EQ(f_by_id[1]["tid"], mt_test::Gettid());
  EXPECT_EQ(s_by_id[2]["tid"], mt_test::Gettid());
  EXPECT_EQ(f_by_id[2]["tid"], receiver_tid);
  EXPECT_NE(receiver_tid, mt_test::Gettid());
  EXPECT_GE(mt_test::TsNs(f_by_id[2]), mt_test::TsNs(s_by_id[2]));
  for (const json& f : fs) EXPECT_EQ(f["bp"], "e");
  EXPECT_EQ(trace.Meta("flow_ends_without_start"), 0u);
}

// A flow-in whose out was overwritten: no f (never an f without its s), the
// end is counted; a named end keeps its point as an instant.
TEST_F(Flow, InWhoseOutWasOverwrittenIsDroppedAndCounted) {
  mabutrace_config_t cfg = mt_test::Config(4096);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  uint16_t lost = 0;
  TRACE_FLOW_OUT(&lost, kSend);
  for (int i = 0; i < 1000; ++i) TRACE_COUNTER(kFill, i);
  {
    TRACE_SCOPE(kRecv);
    TRACE_FLOW_IN(lost, kRecv);
    TRACE_FLOW_IN(lost);
  }
  const auto outs = mt_test::OfType(mt_test::ReadRecords(), RecordType::kFlowOut);
  ASSERT_TRUE(outs.empty()) << "the out should have been overwritten";
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("f").size(), 0u);
  EXPECT_EQ(trace.Find("s").size(), 0u);
  EXPECT_EQ(trace.Meta("flow_ends_without_start"), 2u);
  EXPECT_EQ(trace.Find("i", kRecv).size(), 1u);
}

// The same, with later outs in the buffer whose flow numbers differ from the
// lost one by a multiple of 256 (the size of the exporter's flow-start
// bitmap for a 4 KiB buffer). The in must still be dropped: an f whose s is
// not in the file binds to an unrelated slice in Perfetto
// (trace-formats.md 1.5, #686).
//
// Regression: the flow-start bitmap was indexed by n & mask, so the lost
// flow 1 aliased flow 257 and the exporter wrote "f" id 1 with no "s". The
// walker now checks exact flow numbers within a window of the newest ones
// (trace_walker.cpp).
TEST_F(Flow, InWhoseOutWasOverwrittenIsDroppedEvenWhenANewerOutSharesItsBit) {
  mabutrace_config_t cfg = mt_test::Config(4096);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  uint16_t lost = 0;
  TRACE_FLOW_OUT(&lost, kSend);  // flow 1
  ASSERT_EQ(lost, 1);
  for (int i = 2; i <= 257; ++i) {  // flows 2..257: 257 & 255 == 1
    uint16_t l = 0;
    TRACE_FLOW_OUT(&l);
  }
  const auto outs = mt_test::OfType(mt_test::ReadRecords(), RecordType::kFlowOut);
  ASSERT_FALSE(outs.empty());
  ASSERT_GT(outs.front().r.flow, 1u) << "flow 1 should have been overwritten";
  ASSERT_EQ(outs.back().r.flow, 257u);
  {
    TRACE_SCOPE(kRecv);
    TRACE_FLOW_IN(lost, kRecv);
  }
  const auto trace = mt_test::ExportAndCheck();  // fails: "f" id 1 without "s"
  EXPECT_TRUE(trace.ok);
  for (const json& f : trace.Find("f")) EXPECT_NE(f["id"], 1u) << f.dump();
  EXPECT_EQ(trace.Meta("flow_ends_without_start"), 1u);
}

// Records written while an export runs (here: by the export's own sink,
// which is allowed: writers are never paused by readers) recycle chunks the
// export has listed but not written yet. The exporter marks flow starts in a
// first pass and writes in a second; a start whose chunk is recycled in
// between must not leave its end written alone.
//
// Layout in a 4 KiB buffer (16 chunks of 10 counters): chunks 1..9 counters,
// the out in chunk 10, counters, the in in chunk 16. The sink's first call
// (after about 4 chunks of JSON) writes 120 counters: chunks 1..12 are
// recycled, so chunk 10 (the out) is lost and chunk 16 (the in) is not.
//
// Regression: the bit set in pass 1 for the lost out used to stay set and
// the exporter wrote "f" with no "s". Now an end whose start is not yet
// written waits until the walk is over and is dropped if its start never
// came (counted in flow_starts_lost_during_export). The stress test covers
// the same path with real threads.
struct RecyclingSink {
  std::string text;
  int calls = 0;
};
int RecyclingWrite(void* user, const char* data, size_t len) {
  auto* s = static_cast<RecyclingSink*>(user);
  if (s->calls++ == 0) {
    for (int i = 0; i < 120; ++i) TRACE_COUNTER(kFill, 1000 + i);
  }
  s->text.append(data, len);
  return 0;
}

TEST_F(Flow, OutRecycledDuringTheExportDoesNotLeaveItsInAlone) {
  mabutrace_config_t cfg = mt_test::Config(4096);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  uint16_t link = 0;
  for (int i = 0; i < 95; ++i) TRACE_COUNTER(kFill, i);
  TRACE_FLOW_OUT(&link, kSend);
  for (int i = 0; i < 60; ++i) TRACE_COUNTER(kFill, i);
  TRACE_FLOW_IN(link, kRecv);
  const auto before = mt_test::ReadAll();
  const auto outs = mt_test::OfType(before.records, RecordType::kFlowOut);
  const auto ins = mt_test::OfType(before.records, RecordType::kFlowIn);
  ASSERT_EQ(outs.size(), 1u);
  ASSERT_EQ(ins.size(), 1u);
  ASSERT_EQ(outs[0].chunk_seq, 10u) << "layout assumption";
  ASSERT_EQ(ins[0].chunk_seq, 16u) << "layout assumption";
  ASSERT_EQ(before.records.size(), 157u) << "nothing overwritten yet";

  RecyclingSink sink;
  ASSERT_EQ(mabutrace_export_json(RecyclingWrite, &sink), MABUTRACE_OK);
  ASSERT_GT(sink.calls, 1);
  const json j = mt_test::ParseStrict(sink.text);
  ASSERT_FALSE(j.is_null());
  const auto trace = mt_test::CheckTrace(j);  // fails: f without s
  EXPECT_GT(trace.Meta("chunks_lost_during_export"), 0u);
  EXPECT_EQ(trace.Find("s").size(), 0u) << "the out's chunk was recycled";
  EXPECT_EQ(trace.Find("f").size(), 0u) << "so its in must not be written as an f";
  EXPECT_TRUE(trace.ok);
}

// A flow-in with a link no out ever produced (0 is ignored; others dropped).
TEST_F(Flow, InWithoutAnyOut) {
  mabutrace_config_t cfg = mt_test::Config(64 * 1024);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  TRACE_FLOW_IN(0);
  EXPECT_TRUE(mt_test::ReadRecords().empty()) << "link 0 records nothing";
  TRACE_FLOW_IN(1234, kRecv);
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Find("f").size(), 0u);
  EXPECT_EQ(trace.Meta("flow_ends_without_start"), 1u);
}

}  // namespace

// Two threads hand out links at full speed (per-thread blocks of flow
// numbers, runtime/flows.cpp). No id may come back within the design's
// window: flows.cpp promises that a link id is handed out again only after
// the counter moved on by more than 64511 numbers, of which only block
// rests given up are not handed out. Each out's hand-out lies between two
// reads of a shared step counter (2 steps per out), so two outs with one id
// are certainly too close when even their farthest possible hand-outs are
// fewer than kWindow outs apart (a thread preempted inside TRACE_FLOW_OUT
// widens its out's span instead of failing the test).
TEST_F(Flow, TwoThreadsNeverHandOutOneIdTwiceWithinTheWindow) {
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 1 << 20;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  constexpr int kPerThread = 150000;
  constexpr uint64_t kWindow = 60000;
  struct Out {
    uint64_t before, after;
    uint16_t link;
  };
  std::atomic<uint64_t> step{0};
  std::vector<Out> outs[2];
  std::thread threads[2];
  for (int t = 0; t < 2; ++t) {
    outs[t].reserve(kPerThread);
    threads[t] = std::thread([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        uint16_t link = 0;
        const uint64_t before = step.fetch_add(1, std::memory_order_seq_cst);
        TRACE_FLOW_OUT(&link, kSend);
        outs[t].push_back({before, step.fetch_add(1, std::memory_order_seq_cst), link});
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<Out> all(outs[0]);
  all.insert(all.end(), outs[1].begin(), outs[1].end());
  std::sort(all.begin(), all.end(), [](const Out& a, const Out& b) { return a.before < b.before; });
  std::vector<int64_t> last(65536, -1);  // the out that last had each id
  size_t repeats = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    ASSERT_NE(all[i].link, 0);
    const int64_t prev = last[all[i].link];
    if (prev >= 0) {
      const Out& p = all[size_t(prev)];
      const uint64_t farthest = std::max(p.after, all[i].after) - std::min(p.before, all[i].before);
      if (farthest / 2 < kWindow && ++repeats <= 5)
        ADD_FAILURE() << "link " << all[i].link << " handed out twice within " << farthest / 2 << " outs";
    }
    last[all[i].link] = int64_t(i);
  }
  EXPECT_EQ(repeats, 0u);
}
