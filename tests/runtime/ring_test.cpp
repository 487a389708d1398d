// SPDX-License-Identifier: MIT
// Flight-recorder wrap-around (R-B2), statistics (R-A12) and exact counters
// (R-A5).
#include <gtest/gtest.h>
#include <stdint.h>

#include <limits>
#include <random>
#include <vector>

#include "format/dump_format.h"
#include "mabutrace/mabutrace.h"
#include "test_util.h"

namespace {

using mabutrace::RecordType;
using mt_test::json;
using mt_test::Rec;

class Ring : public ::testing::Test {
 protected:
  void TearDown() override { mabutrace_deinit(); }
};

const char kSeq[] = "seq";

TEST_F(Ring, SmallestBufferLayout) {
  mabutrace_config_t cfg = mt_test::Config(4096);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  // Chunks are 256 B .. 4 KiB; 4 KiB of storage gives 16 chunks of 256 B.
  EXPECT_EQ(st.buffer_size, 4096u);
  EXPECT_EQ(st.chunk_size, 256u);
  EXPECT_EQ(st.events_written, 0u);
  EXPECT_EQ(st.bytes_in_use, 0u);
  EXPECT_EQ(st.threads, 0u);
  mabutrace_deinit();
  // 64 KiB: at least 32 chunks.
  cfg = mt_test::Config(64 * 1024);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.buffer_size, 65536u);
  EXPECT_GE(st.buffer_size / st.chunk_size, 32u);
}

int CountBytes(void* user, const char*, size_t len) {
  *static_cast<size_t*>(user) += len;
  return 0;
}
size_t g_streamed = 0;
void CountStream(const uint8_t*, size_t len) { g_streamed += len; }

// Init lays out the block (layout.cpp) in exactly the bytes
// mabutrace_memory_required() asks for: the data region ends the block,
// and recording, both exports and the binary stream, all of which use
// their parts of it, write nothing past its end (the guard bytes after it
// stay as they were).
TEST_F(Ring, TheBlockIsWhatMemoryRequiredSays) {
  constexpr size_t kGuard = 256;
  for (const size_t buffer : {size_t(4096), size_t(100000), size_t(1) << 20}) {
    for (const uint32_t threads : {1u, 7u, 64u}) {
      SCOPED_TRACE(testing::Message() << buffer << " B, " << threads << " threads");
      mabutrace_config_t cfg = mt_test::Config(buffer);
      cfg.max_threads = threads;
      const size_t need = mabutrace_memory_required(&cfg);
      ASSERT_GT(need, buffer);
      std::vector<uint64_t> mem((need + kGuard) / 8 + 8);
      auto* block = reinterpret_cast<uint8_t*>((uintptr_t(mem.data()) + 63) & ~uintptr_t(63));
      for (size_t i = 0; i < kGuard; ++i) block[need + i] = uint8_t(0xA5 ^ i);
      cfg.memory = block;
      ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);

      const auto* d = static_cast<const mabutrace::dump::DumpDescriptor*>(mabutrace_dump_region.base);
      ASSERT_EQ(mabutrace_dump_region.base, static_cast<const void*>(block));
      EXPECT_EQ(mabutrace_dump_region.bytes, need);
      EXPECT_EQ(d->block_bytes, need);
      EXPECT_EQ(d->data_offset + uint64_t(d->num_chunks) * d->chunk_words * 8, need);
      EXPECT_EQ(d->data_offset % 64, 0u);

      uint16_t link = 0;
      for (int i = 0; i < 20000; ++i) {
        TRACE_SCOPE(kSeq);
        TRACE_COUNTER(kSeq, i);
        TRACE_FLOW_OUT(&link, kSeq);
        TRACE_FLOW_IN(link, kSeq);
      }
      size_t bytes = 0;
      EXPECT_EQ(mabutrace_export_json(CountBytes, &bytes), MABUTRACE_OK);
      EXPECT_EQ(mabutrace_export_perfetto(CountBytes, &bytes), MABUTRACE_OK);
      g_streamed = 0;
      EXPECT_EQ(mabutrace_set_output_callback(CountStream), MABUTRACE_OK);
      EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
      EXPECT_GT(bytes, 0u);
      EXPECT_GT(g_streamed, 0u);
      mabutrace_deinit();

      size_t changed = 0;
      for (size_t i = 0; i < kGuard; ++i) changed += block[need + i] != uint8_t(0xA5 ^ i);
      EXPECT_EQ(changed, 0u) << "bytes past the block's end were written";
    }
  }
}

// Writes n counters 1..n, far more than fit; the buffer then holds exactly
// the newest ones as one run ending at n.
TEST_F(Ring, WrapAroundKeepsTheNewestWholeEvents) {
  mabutrace_config_t cfg = mt_test::Config(4096);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  const int64_t n = 10007;
  for (int64_t i = 1; i <= n; ++i) TRACE_COUNTER(kSeq, i);

  const auto read = mt_test::ReadAll();
  EXPECT_EQ(read.chunks_lost, 0u);
  EXPECT_EQ(read.corrupt_chunks, 0u);
  const auto& recs = read.records;
  ASSERT_FALSE(recs.empty());
  for (size_t i = 0; i < recs.size(); ++i) {
    ASSERT_EQ(recs[i].r.type, RecordType::kCounter);
    ASSERT_EQ(recs[i].r.name, kSeq);
    ASSERT_EQ(recs[i].r.value, n - int64_t(recs.size()) + 1 + int64_t(i))
        << "records are not the contiguous run ending at " << n << " (index " << i << ")";
  }
  // Whole chunks are recycled, never the whole buffer: all chunks but the
  // one being refilled are full. 24 B counters: 10 per 256 B chunk.
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  const uint64_t per_chunk = st.chunk_size / 24;
  const uint64_t chunks = st.buffer_size / st.chunk_size;
  EXPECT_GE(recs.size(), (chunks - 1) * per_chunk);
  EXPECT_LE(recs.size(), chunks * per_chunk);
  EXPECT_EQ(st.events_written, uint64_t(n));
  EXPECT_EQ(st.events_written, recs.size() + st.events_overwritten);
  EXPECT_EQ(st.events_dropped, 0u);
  EXPECT_EQ(st.threads, 1u);
  EXPECT_LE(st.bytes_in_use, st.buffer_size);
  EXPECT_EQ(st.bytes_in_use, recs.size() * 24);

  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Meta("exported_records"), recs.size());
  EXPECT_EQ(trace.Meta("events_written"), uint64_t(n));
  EXPECT_EQ(trace.Meta("events_overwritten"), st.events_overwritten);
  EXPECT_EQ(trace.Meta("events_dropped"), 0u);
  EXPECT_EQ(trace.Meta("chunks_lost_during_export"), 0u);
  const auto cs = trace.Find("C", kSeq);
  ASSERT_EQ(cs.size(), recs.size());
  for (size_t i = 0; i < cs.size(); ++i) ASSERT_EQ(cs[i]["args"]["value"], recs[i].r.value);
}

// Mixed record sizes (8..32 bytes): the survivors are still whole records,
// the newest, in order.
TEST_F(Ring, WrapAroundWithMixedRecordSizes) {
  mabutrace_config_t cfg = mt_test::Config(4096);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  const int64_t n = 3001;
  for (int64_t i = 1; i <= n; ++i) {
    TRACE_SCOPE(kSeq);
    if (i % 3 == 0) TRACE_INSTANT(kSeq, COLOR_RED);
    TRACE_COUNTER(kSeq, i, i % 2 ? COLOR_BLUE : 0x010203);
  }
  const auto read = mt_test::ReadAll();
  EXPECT_EQ(read.corrupt_chunks, 0u);
  const auto counters = mt_test::OfType(read.records, RecordType::kCounter);
  ASSERT_FALSE(counters.empty());
  for (size_t i = 0; i < counters.size(); ++i)
    ASSERT_EQ(counters[i].r.value, n - int64_t(counters.size()) + 1 + int64_t(i));
  mabutrace_stats_t st;
  ASSERT_EQ(mabutrace_get_stats(&st), MABUTRACE_OK);
  EXPECT_EQ(st.events_written, read.records.size() + st.events_overwritten);
  EXPECT_EQ(st.events_written, uint64_t(n * 3 + n / 3));

  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  EXPECT_EQ(trace.Meta("exported_records"), read.records.size());
  // The E of the scope whose B was overwritten is dropped and counted.
  EXPECT_LE(trace.Meta("orphan_scope_ends"), 1u);
  EXPECT_EQ(trace.Find("B").size(), trace.Find("E").size());
}

// ---- counters (R-A5) ---------------------------------------------------------

const char kValue[] = "value";

void CheckCounters(const std::vector<int64_t>& values) {
  const auto recs = mt_test::ReadRecords();
  ASSERT_EQ(recs.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(recs[i].r.type, RecordType::kCounter);
    ASSERT_EQ(recs[i].r.value, values[i]) << "record " << i;
  }
  const auto trace = mt_test::ExportAndCheck();
  ASSERT_TRUE(trace.ok);
  const auto cs = trace.Find("C", kValue);
  ASSERT_EQ(cs.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const json& v = cs[i]["args"]["value"];
    ASSERT_TRUE(v.is_number_integer()) << v.dump();
    ASSERT_EQ(v.get<int64_t>(), values[i]) << "JSON sample " << i;
  }
}

TEST_F(Ring, CountersKeepEveryInt32Exact) {
  mabutrace_config_t cfg = mt_test::Config(256 * 1024);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  std::vector<int64_t> values = {INT32_MIN, INT32_MAX, -1,        0,         1,        INT32_MIN + 1, INT32_MAX - 1,
                                 0x7FFFFF,  0x800000,  -0x800000, -0x800001, 0xFFFFFF, 0x1000000};
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  for (int i = 0; i < 3000; ++i) values.push_back(any(rng));
  for (int64_t v : values) {
    const int32_t v32 = int32_t(v);
    TRACE_COUNTER(kValue, v32);
  }
  CheckCounters(values);
}

TEST_F(Ring, CountersKeepInt64Exact) {
  mabutrace_config_t cfg = mt_test::Config(64 * 1024);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  const std::vector<int64_t> values = {std::numeric_limits<int64_t>::min(),
                                       std::numeric_limits<int64_t>::max(),
                                       int64_t(1) << 40,
                                       -(int64_t(1) << 40),
                                       (int64_t(1) << 53) + 1,
                                       int64_t(UINT32_MAX),
                                       int64_t(INT32_MAX) + 1,
                                       int64_t(INT32_MIN) - 1};
  for (int64_t v : values) TRACE_COUNTER(kValue, v, COLOR_GREY);
  CheckCounters(values);
}

}  // namespace
