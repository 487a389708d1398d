// SPDX-License-Identifier: MIT
// Tests of the CoreSight frame deformatter (arm-trace-facts.md §3): frames
// built by a small formatter in this file (ID bytes, AUX bits, the "next
// byte still belongs to the previous ID" form, byte 14), any chunking,
// syncs, errors; and the real multi-source capture.
#include <gtest/gtest.h>

#include "shared_data.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "coresight/deformatter.h"
#include "snapshot/snapshot.h"

namespace cs = mabutrace::coresight;
namespace fs = std::filesystem;

namespace {

// Compact comparison of per-ID streams (gtest would print every byte).
::testing::AssertionResult SameStreams(const std::map<int, std::vector<uint8_t>>& got,
                                       const std::map<int, std::vector<uint8_t>>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " IDs vs " << want.size();
  for (const auto& [id, w] : want) {
    auto it = got.find(id);
    if (it == got.end()) return ::testing::AssertionFailure() << "ID " << id << " missing";
    const auto& g = it->second;
    if (g.size() != w.size())
      return ::testing::AssertionFailure() << "ID " << id << ": " << g.size() << " bytes vs " << w.size();
    for (size_t i = 0; i < w.size(); ++i)
      if (g[i] != w[i])
        return ::testing::AssertionFailure()
               << "ID " << id << " byte " << i << ": 0x" << std::hex << int(g[i]) << " vs 0x" << int(w[i]);
  }
  return ::testing::AssertionSuccess();
}

struct Collect : cs::DeformatterSink {
  std::map<int, std::vector<uint8_t>> data;
  std::map<int, uint64_t> next_stream_offset;
  std::vector<cs::DeformatterError> errors;
  int resets = 0;
  void OnData(uint8_t id, uint64_t stream_offset, uint64_t, const uint8_t* d, size_t n, const uint64_t*) override {
    EXPECT_EQ(stream_offset, next_stream_offset[id]) << "stream offsets must be contiguous";
    next_stream_offset[id] += n;
    EXPECT_GE(n, 1u);
    EXPECT_LE(n, 15u);
    data[id].insert(data[id].end(), d, d + n);
  }
  void OnError(const cs::DeformatterError& e) override { errors.push_back(e); }
  void OnReset(uint64_t) override { ++resets; }
};

// A CoreSight trace formatter (the encoder side), for test input.
class Formatter {
 public:
  void Add(uint8_t id, const std::vector<uint8_t>& bytes) {
    for (uint8_t b : bytes) Byte(id, b);
  }
  // Pads the last frame with null-ID bytes and returns the frames.
  std::vector<uint8_t> Finish() {
    while (pos_ > 0) Byte(0, 0x00);  // pad with null-ID data
    return out_;
  }

 private:
  void Flush() {
    frame_[15] = aux_;
    out_.insert(out_.end(), frame_, frame_ + 16);
    pos_ = 0;
    aux_ = 0;
  }
  void Byte(uint8_t id, uint8_t b) {
    if (id != cur_) {
      if (pos_ == 14) {  // ID in byte 14: no data follows in this frame
        frame_[14] = static_cast<uint8_t>((id << 1) | 1);
        pos_ = 15;
        Flush();
      } else if (pos_ % 2 == 1) {
        // The previous ID's last byte sits at pos_-1 (even): move it after
        // the new ID byte and set AUX = "next byte is still the old ID".
        frame_[pos_] = last_;  // the full byte (its bit0 was in AUX)
        frame_[pos_ - 1] = static_cast<uint8_t>((id << 1) | 1);
        aux_ = static_cast<uint8_t>((aux_ & ~(1u << ((pos_ - 1) / 2))) | (1u << ((pos_ - 1) / 2)));
        ++pos_;
      } else {
        frame_[pos_] = static_cast<uint8_t>((id << 1) | 1);
        aux_ &= static_cast<uint8_t>(~(1u << (pos_ / 2)));
        ++pos_;
      }
      cur_ = id;
    }
    if (pos_ == 15) Flush();
    last_ = b;
    if (pos_ % 2 == 0) {  // even: data byte with bit0 in AUX
      frame_[pos_] = static_cast<uint8_t>(b & 0xFE);
      if (b & 1)
        aux_ |= static_cast<uint8_t>(1u << (pos_ / 2));
      else
        aux_ &= static_cast<uint8_t>(~(1u << (pos_ / 2)));
    } else {
      frame_[pos_] = b;
    }
    ++pos_;
    if (pos_ == 15) Flush();
  }
  uint8_t frame_[16] = {};
  size_t pos_ = 0;
  uint8_t aux_ = 0;
  int cur_ = -1;
  uint8_t last_ = 0;
  std::vector<uint8_t> out_;
};

std::map<int, std::vector<uint8_t>> RandomStreams(std::mt19937* rng, Formatter* f) {
  std::map<int, std::vector<uint8_t>> expect;
  std::uniform_int_distribution<int> idd(1, 5), len(1, 40), byte(0, 255);
  for (int seg = 0; seg < 300; ++seg) {
    int id = idd(*rng) * 0x10 % 0x70;
    if (id == 0) id = 0x11;
    std::vector<uint8_t> bytes(static_cast<size_t>(len(*rng)));
    for (auto& b : bytes) b = static_cast<uint8_t>(byte(*rng));
    f->Add(static_cast<uint8_t>(id), bytes);
    auto& e = expect[id];
    e.insert(e.end(), bytes.begin(), bytes.end());
  }
  return expect;
}

TEST(Deformatter, RoundTripsAFormatterWithEveryIdSwitchForm) {
  std::mt19937 rng(1);
  Formatter f;
  auto expect = RandomStreams(&rng, &f);
  auto frames = f.Finish();
  ASSERT_EQ(frames.size() % 16, 0u);
  Collect c;
  cs::FrameDeformatter d({}, &c);
  d.Push(frames.data(), frames.size());
  d.Finish();
  EXPECT_TRUE(c.errors.empty());
  EXPECT_TRUE(SameStreams(c.data, expect));
  EXPECT_EQ(d.stats().frames, frames.size() / 16);
}

TEST(Deformatter, AnyChunkingGivesTheSameOutput) {
  std::mt19937 rng(2);
  Formatter f;
  auto expect = RandomStreams(&rng, &f);
  auto frames = f.Finish();
  for (size_t chunk : {1u, 3u, 7u, 15u, 16u, 17u, 100u}) {
    Collect c;
    cs::FrameDeformatter d({}, &c);
    for (size_t i = 0; i < frames.size(); i += chunk) d.Push(frames.data() + i, std::min(chunk, frames.size() - i));
    d.Finish();
    EXPECT_TRUE(SameStreams(c.data, expect)) << "chunk " << chunk;
  }
}

TEST(Deformatter, AuxBitRestoresBit0OfEvenDataBytes) {
  // Frame: ID 0x10 at byte 0, then 14 bytes 0x01..0x0E; byte 14 = 0x0E (even) -> bit0 from AUX
  // bit 7.
  uint8_t fr[16] = {0x21, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x00};
  fr[15] = 0x02 | 0x80;  // even bytes 2 and 14 get bit0 = 1
  Collect c;
  cs::FrameDeformatter d({}, &c);
  d.Push(fr, 16);
  std::vector<uint8_t> want = {0x01, 0x03, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0F};
  EXPECT_EQ(c.data[0x10], want);
}

TEST(Deformatter, DataBeforeTheFirstIdIsDroppedAndCounted) {
  uint8_t fr[16] = {0x10, 0x11, 0x21, 0x22, 0x30, 0x31, 0x40, 0x41, 0x50, 0x51, 0x60, 0x61, 0x70, 0x71, 0x80, 0x00};
  Collect c;
  cs::FrameDeformatter d({}, &c);
  d.Push(fr, 16);
  EXPECT_EQ(d.stats().unowned_bytes, 2u);
  EXPECT_EQ(c.data[0x10].size(), 12u);  // bytes 3..14
}

TEST(Deformatter, RepeatedIdByteIsIgnored) {
  uint8_t fr[16] = {0x21, 0xAA, 0x21, 0xBB, 0x21, 0xCC, 0x20, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00};
  Collect c;
  cs::FrameDeformatter d({}, &c);
  d.Push(fr, 16);
  std::vector<uint8_t> want = {0xAA, 0xBB, 0xCC, 0x20, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  EXPECT_EQ(c.data[0x10], want);
}

TEST(Deformatter, UnknownIdIsReportedOnceNotFatal) {
  Formatter f;
  f.Add(0x10, std::vector<uint8_t>(20, 0x42));
  f.Add(0x22, std::vector<uint8_t>(20, 0x43));
  f.Add(0x10, std::vector<uint8_t>(20, 0x44));
  f.Add(0x22, std::vector<uint8_t>(20, 0x45));
  auto frames = f.Finish();
  cs::DeformatterOptions opt;
  opt.restrict_ids = true;
  opt.known_ids[0x10] = true;
  Collect c;
  cs::FrameDeformatter d(opt, &c);
  d.Push(frames.data(), frames.size());
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].kind, cs::DeformatterErrorKind::kUnknownId);
  EXPECT_EQ(c.errors[0].trace_id, 0x22);
  EXPECT_EQ(c.data[0x10].size(), 40u);
  EXPECT_EQ(c.data.count(0x22), 0u);
  EXPECT_EQ(d.stats().dropped_bytes, 40u);  // null-ID padding is counted apart
  EXPECT_GT(d.stats().padding_bytes, 0u);
}

TEST(Deformatter, ReservedIdIsReported) {
  uint8_t fr[16] = {0xF1, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x00};
  Collect c;
  cs::FrameDeformatter d({}, &c);
  d.Push(fr, 16);
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].kind, cs::DeformatterErrorKind::kReservedId);
  EXPECT_TRUE(c.data.empty());
}

TEST(Deformatter, TruncatedFrameIsReportedWithItsOffset) {
  Formatter f;
  f.Add(0x10, std::vector<uint8_t>(30, 0x42));
  auto frames = f.Finish();
  Collect c;
  cs::FrameDeformatter d({}, &c);
  d.Push(frames.data(), frames.size() - 5);
  d.Finish();
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].kind, cs::DeformatterErrorKind::kTruncatedFrame);
  EXPECT_EQ(c.errors[0].input_offset, frames.size() - 16);
  EXPECT_NE(c.errors[0].message.find(std::to_string(frames.size() - 16)), std::string::npos);
}

TEST(Deformatter, FsyncsAreRemovedInTpiuStreams) {
  Formatter f;
  f.Add(0x10, std::vector<uint8_t>(40, 0x5A));
  auto frames = f.Finish();
  std::vector<uint8_t> tpiu = {0xFF, 0xFF, 0xFF, 0x7F};
  tpiu.insert(tpiu.end(), frames.begin(), frames.begin() + 16);
  tpiu.insert(tpiu.end(), {0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0x7F});
  tpiu.insert(tpiu.end(), frames.begin() + 16, frames.end());
  cs::DeformatterOptions opt;
  opt.has_fsyncs = true;
  Collect c;
  cs::FrameDeformatter d(opt, &c);
  for (uint8_t b : tpiu) d.Push(&b, 1);
  d.Finish();
  EXPECT_TRUE(c.errors.empty());
  EXPECT_EQ(c.data[0x10], std::vector<uint8_t>(40, 0x5A));
  EXPECT_EQ(d.stats().sync_bytes, 12u);
}

TEST(Deformatter, HsyncsAreRemovedInsideFrames) {
  Formatter f;
  f.Add(0x10, std::vector<uint8_t>(40, 0x5A));
  auto frames = f.Finish();
  std::vector<uint8_t> tpiu;
  for (size_t i = 0; i < frames.size(); i += 2) {
    if (i % 16 == 6) tpiu.insert(tpiu.end(), {0xFF, 0x7F});  // half-word sync at an even position
    tpiu.insert(tpiu.end(), frames.begin() + static_cast<std::ptrdiff_t>(i),
                frames.begin() + static_cast<std::ptrdiff_t>(i + 2));
  }
  cs::DeformatterOptions opt;
  opt.has_hsyncs = true;
  Collect c;
  cs::FrameDeformatter d(opt, &c);
  for (size_t i = 0; i < tpiu.size(); i += 5) d.Push(tpiu.data() + i, std::min<size_t>(5, tpiu.size() - i));
  d.Finish();
  EXPECT_TRUE(c.errors.empty());
  EXPECT_EQ(c.data[0x10], std::vector<uint8_t>(40, 0x5A));
  EXPECT_EQ(d.stats().sync_bytes, 2 * frames.size() / 16);
}

TEST(Deformatter, FourFsyncFrameResetsWhenAsked) {
  Formatter f;
  f.Add(0x10, std::vector<uint8_t>(14, 0x5A));
  auto frames = f.Finish();
  std::vector<uint8_t> in;
  for (int i = 0; i < 4; ++i) in.insert(in.end(), {0xFF, 0xFF, 0xFF, 0x7F});
  in.insert(in.end(), frames.begin(), frames.end());
  cs::DeformatterOptions opt;
  opt.reset_on_4x_fsync = true;
  Collect c;
  cs::FrameDeformatter d(opt, &c);
  d.Push(in.data(), in.size());
  EXPECT_EQ(c.resets, 1);
  EXPECT_EQ(c.data[0x10], std::vector<uint8_t>(14, 0x5A));
}

TEST(Deformatter, RealMultiSourceCaptureSplitsIntoItsTraceIds) {
  const fs::path file = fs::path(MABUTRACE_SHARED_DIR) / "data/ete-snapshots/infrastructure/cstrace.bin";
  MABUTRACE_NEEDS_SHARED(file);
  auto data = mabutrace::snapshot::ReadBinaryFile(file);
  Collect whole, bytewise;
  {
    cs::FrameDeformatter d({}, &whole);
    d.Push(data.data(), data.size());
    d.Finish();
    EXPECT_EQ(d.stats().frames, data.size() / 16);
    uint64_t sum = 0;
    for (auto& [id, v] : whole.data) sum += v.size();
    EXPECT_EQ(sum, d.stats().data_bytes);
  }
  {
    cs::FrameDeformatter d({}, &bytewise);
    for (uint8_t b : data) d.Push(&b, 1);
    d.Finish();
  }
  EXPECT_TRUE(SameStreams(bytewise.data, whole.data));
  // Every ID carrying data is one of the snapshot's trace sources
  // (TRCTRACEIDR 0x10..0x15).
  auto snap = mabutrace::snapshot::ReadSnapshot(file.parent_path());
  std::set<int> ids;
  for (const auto* dev : snap.SourcesOfBuffer("ETB_0")) {
    auto id = dev->Reg("TRCTRACEIDR");
    ASSERT_TRUE(id.has_value()) << dev->name;
    ids.insert(static_cast<int>(*id));
  }
  ASSERT_FALSE(whole.data.empty());
  for (const auto& [id, v] : whole.data) EXPECT_TRUE(ids.count(id)) << "ID 0x" << std::hex << id;
}

}  // namespace

namespace {

// Every sink call in order, blocks expanded into their runs: what a sink
// that keeps OnBlock's default (OnData per run) would see.
struct Calls : cs::DeformatterSink {
  bool expand = false;  // false: keep the default OnBlock
  std::vector<std::string> log;
  size_t blocks = 0, joined = 0;  // blocks seen, blocks of more than one run
  void OnData(uint8_t id, uint64_t so, uint64_t io, const uint8_t* d, size_t n, const uint64_t*) override {
    std::string s = "data " + std::to_string(id) + " " + std::to_string(so) + " " + std::to_string(io) + ":";
    for (size_t i = 0; i < n; ++i) s += " " + std::to_string(d[i]);
    log.push_back(s);
  }
  void OnBlock(uint8_t id, uint64_t so, const uint8_t* d, size_t n, const cs::DataRun* runs, size_t nruns) override {
    ++blocks;
    if (nruns > 1) ++joined;
    if (!expand) return cs::DeformatterSink::OnBlock(id, so, d, n, runs, nruns);
    EXPECT_EQ(runs[0].pos, 0u);
    for (size_t i = 0; i < nruns; ++i) {
      const size_t end = i + 1 < nruns ? runs[i + 1].pos : n;
      EXPECT_LT(runs[i].pos, end);
      OnData(id, so + runs[i].pos, runs[i].input_offset, d + runs[i].pos, end - runs[i].pos, nullptr);
    }
  }
  void OnError(const cs::DeformatterError& e) override { log.push_back("error " + e.message); }
  void OnReset(uint64_t o) override { log.push_back("reset " + std::to_string(o)); }
};

}  // namespace

// Blocks join the runs of one ID across frames; expanded, they are the
// very calls (offsets, bytes, errors in between) of run-by-run delivery.
TEST(Deformatter, BlocksAreTheRunsInOrder) {
  Formatter f;
  f.Add(0x10, std::vector<uint8_t>(100, 0x41));  // frames with no ID byte: the fast path
  f.Add(0x11, {1, 2, 3});
  f.Add(0x75, {9, 9});  // reserved: an error between data
  f.Add(0x10, {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20});
  f.Add(0x12, {0x21, 0x23});  // unknown with restrict_ids: another error
  f.Add(0x10, std::vector<uint8_t>(40, 0x7F));
  auto frames = f.Finish();
  cs::DeformatterOptions opt;
  opt.restrict_ids = true;
  opt.known_ids[0x10] = opt.known_ids[0x11] = true;
  for (size_t chunk : {frames.size(), size_t{16}, size_t{7}}) {
    Calls plain, blocks;
    blocks.expand = true;
    for (Calls* c : {&plain, &blocks}) {
      cs::FrameDeformatter d(opt, c);
      for (size_t i = 0; i < frames.size(); i += chunk) d.Push(frames.data() + i, std::min(chunk, frames.size() - i));
      d.Finish();
    }
    EXPECT_EQ(blocks.log, plain.log) << "chunk " << chunk;
    if (chunk == frames.size()) {
      EXPECT_GT(blocks.joined, 0u);
    }
    // Frame 0: the ID byte, 14 bytes of 0x10 from offset 0; frame 1 (no ID
    // byte): 15 more from its own offset 16.
    ASSERT_GE(plain.log.size(), 2u);
    EXPECT_EQ(plain.log[0].substr(0, 12), "data 16 0 0:");
    EXPECT_EQ(plain.log[1].substr(0, 14), "data 16 14 16:");
    // The reserved ID's error comes after the 103 bytes before it, the
    // unknown ID's after 120, not before data still held in a block.
    std::vector<size_t> before_error;
    size_t bytes = 0;
    for (const auto& line : plain.log) {
      if (line.rfind("error", 0) == 0) before_error.push_back(bytes);
      if (line.rfind("data", 0) == 0) bytes += static_cast<size_t>(std::count(line.begin(), line.end(), ' ')) - 3;
    }
    EXPECT_EQ(before_error, (std::vector<size_t>{103, 120})) << "chunk " << chunk;
  }
}

TEST(Deformatter, BlocksOfTheRealMultiSourceCaptureAreItsRuns) {
  const fs::path file = fs::path(MABUTRACE_SHARED_DIR) / "data/arm-trace-snapshots/juno_r1_1/cstrace.bin";
  MABUTRACE_NEEDS_SHARED(file);
  auto data = mabutrace::snapshot::ReadBinaryFile(file);
  Calls plain, blocks;
  blocks.expand = true;
  for (Calls* c : {&plain, &blocks}) {
    cs::FrameDeformatter d({}, c);
    d.Push(data.data(), data.size());
    d.Finish();
  }
  EXPECT_TRUE(blocks.log == plain.log);
  EXPECT_GT(blocks.joined, 100u);
  EXPECT_LT(blocks.blocks * 4, plain.log.size());  // runs joined about 5 to 1 (6 sources)
}
