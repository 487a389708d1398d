// SPDX-License-Identifier: MIT
// etm4_block_test.cpp: a frame deformatter's blocks (the runs of one trace
// ID back to back, coresight/deformatter.h) pushed whole into the packet
// processor (PushBlock) give the very packets of pushing run by run: types,
// byte indexes (each run's own input offsets), stream offsets, bytes. On
// the real six-source ETMv4 capture juno_r1_1, in several chunkings, and
// with runs shorter than its packets (a packet over several runs).
#include <gtest/gtest.h>

#include "shared_data.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "coresight/deformatter.h"
#include "ete/ete_packet_processor.h"
#include "ete/ete_source.h"
#include "snapshot/snapshot.h"

namespace cs = mabutrace::coresight;
namespace ete = mabutrace::ete;
namespace fs = std::filesystem;

namespace {

using Log = std::vector<std::string>;

void Record(void* ctx, const ete::EtePacket& p) {
  std::string s = std::to_string(static_cast<int>(p.type)) + " @" + std::to_string(p.index) + " s" +
                  std::to_string(p.stream_offset) + ":";
  for (size_t i = 0; i < p.size; ++i) s += " " + std::to_string(p.raw[i]);
  static_cast<Log*>(ctx)->push_back(s);
}

// Feeds every block twice: whole into by_block, run by run (the default
// OnBlock, through OnData) into by_run.
struct Both : cs::DeformatterSink {
  std::array<ete::EtePacketProcessor*, cs::kNumTraceIds> by_block{}, by_run{};
  size_t joined = 0;
  void OnBlock(uint8_t id, uint64_t so, const uint8_t* d, size_t n, const cs::DataRun* runs, size_t nruns) override {
    if (nruns > 1) ++joined;
    if (by_block[id]) by_block[id]->PushBlock(d, n, runs, nruns);
    cs::DeformatterSink::OnBlock(id, so, d, n, runs, nruns);
  }
  void OnData(uint8_t id, uint64_t, uint64_t io, const uint8_t* d, size_t n, const uint64_t*) override {
    if (by_run[id]) by_run[id]->Push(io, d, n);
  }
  void OnError(const cs::DeformatterError&) override {}
};

// juno_r1_1's first buffer as captured (CoreSight-framed) and its ETMv4
// sources: the capture both tests feed.
const fs::path kJunoDir = fs::path(MABUTRACE_SHARED_DIR) / "data/arm-trace-snapshots/juno_r1_1";
struct JunoBuffer {
  std::vector<ete::SourceSpec> sources;
  std::vector<uint8_t> framed;
};
JunoBuffer ReadJunoBuffer() {
  const auto snap = mabutrace::snapshot::ReadSnapshot(kJunoDir);
  const auto& buffer = snap.buffers.at(0);
  return {ete::SnapshotSources(snap, buffer), mabutrace::snapshot::ReadBinaryFile(buffer.file)};
}

TEST(Etm4Blocks, PushBlockEqualsRunByRunOnJuno) {
  MABUTRACE_NEEDS_SHARED(kJunoDir);
  const JunoBuffer juno = ReadJunoBuffer();
  const auto& sources = juno.sources;
  ASSERT_EQ(sources.size(), 6u);
  const auto& data = juno.framed;
  for (size_t chunk : {data.size(), size_t{4096}, size_t{23}}) {
    std::vector<Log> block_logs(sources.size()), run_logs(sources.size());
    std::vector<std::unique_ptr<ete::EtePacketProcessor>> procs;
    Both sink;
    for (size_t i = 0; i < sources.size(); ++i) {
      const uint8_t id = sources[i].config.trace_id();
      for (auto* log : {&block_logs[i], &run_logs[i]})
        procs.push_back(std::make_unique<ete::EtePacketProcessor>(sources[i].config, &Record, log, nullptr,
                                                                  ete::ErrorPolicy::kOpenCsd));
      sink.by_block[id] = procs[procs.size() - 2].get();
      sink.by_run[id] = procs.back().get();
    }
    cs::FrameDeformatter d({}, &sink);
    for (size_t i = 0; i < data.size(); i += chunk) d.Push(data.data() + i, std::min(chunk, data.size() - i));
    d.Finish();
    for (auto& p : procs) p->Finish();
    EXPECT_GT(sink.joined, 100u);
    size_t packets = 0;
    for (size_t i = 0; i < sources.size(); ++i) {
      packets += run_logs[i].size();
      ASSERT_EQ(block_logs[i].size(), run_logs[i].size()) << sources[i].name << ", chunk " << chunk;
      for (size_t k = 0; k < run_logs[i].size(); ++k)
        ASSERT_EQ(block_logs[i][k], run_logs[i][k]) << sources[i].name << " packet " << k << ", chunk " << chunk;
    }
    EXPECT_GT(packets, 30000u);
  }
}

// Collects the de-formatted bytes of one trace ID.
struct Collect : cs::DeformatterSink {
  uint8_t id = 0;
  std::vector<uint8_t> bytes;
  void OnData(uint8_t trace_id, uint64_t, uint64_t, const uint8_t* d, size_t n, const uint64_t*) override {
    if (trace_id == id) bytes.insert(bytes.end(), d, d + n);
  }
  void OnError(const cs::DeformatterError&) override {}
};

// Runs of 1-3 bytes, each with an input offset of its own: most packets
// start several runs after the one before (an address packet is 3-10
// bytes), which the run lookup of the block reader must follow.
TEST(Etm4Blocks, PushBlockWithRunsShorterThanPacketsEqualsRunByRun) {
  MABUTRACE_NEEDS_SHARED(kJunoDir);
  const JunoBuffer juno = ReadJunoBuffer();
  const auto& sources = juno.sources;
  ASSERT_FALSE(sources.empty());
  const auto& framed = juno.framed;
  Collect collect;
  collect.id = sources[0].config.trace_id();
  cs::FrameDeformatter d({}, &collect);
  d.Push(framed.data(), framed.size());
  d.Finish();
  const std::vector<uint8_t>& data = collect.bytes;
  ASSERT_GT(data.size(), 1000u);

  constexpr size_t kRunSizes[] = {1, 2, 1, 3, 1, 1, 2};
  std::vector<cs::DataRun> runs;
  for (size_t pos = 0, i = 0; pos < data.size(); ++i) {
    runs.push_back({static_cast<uint32_t>(pos), 1000 * i + 7});  // gaps: every run its own offsets
    pos += kRunSizes[i % std::size(kRunSizes)];
  }
  auto run_end = [&](size_t i) { return i + 1 < runs.size() ? runs[i + 1].pos : data.size(); };

  Log block_log, run_log;
  ete::EtePacketProcessor by_block(sources[0].config, &Record, &block_log, nullptr, ete::ErrorPolicy::kOpenCsd);
  ete::EtePacketProcessor by_run(sources[0].config, &Record, &run_log, nullptr, ete::ErrorPolicy::kOpenCsd);
  constexpr size_t kRunsPerBlock = 40;
  for (size_t first = 0; first < runs.size(); first += kRunsPerBlock) {
    const size_t last = std::min(runs.size(), first + kRunsPerBlock);  // runs [first, last)
    std::vector<cs::DataRun> block(runs.begin() + first, runs.begin() + last);
    for (auto& r : block) r.pos -= runs[first].pos;
    by_block.PushBlock(data.data() + runs[first].pos, run_end(last - 1) - runs[first].pos, block.data(), block.size());
  }
  for (size_t i = 0; i < runs.size(); ++i)
    by_run.Push(runs[i].input_offset, data.data() + runs[i].pos, run_end(i) - runs[i].pos);
  by_block.Finish();
  by_run.Finish();

  ASSERT_GT(run_log.size(), 1000u);
  ASSERT_EQ(block_log.size(), run_log.size());
  for (size_t k = 0; k < run_log.size(); ++k) ASSERT_EQ(block_log[k], run_log[k]) << "packet " << k;
}

}  // namespace
