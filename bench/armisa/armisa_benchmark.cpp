// SPDX-License-Identifier: MIT
// armisa_benchmark.cpp: cost of classifying instructions and of following
// a real capture's executed ranges, cached and uncached.
//
// The follow benchmarks replay the start addresses of the INSTR_RANGE
// elements that OpenCSD 1.8.0 printed for data/ete-snapshots/001-ack_test
// (22k ranges from a 16 KB trace), in trace order: exactly the lookups an
// element generator makes. Counters:
//   ranges/s             FindNextP0 calls per second
//   instr/s              instructions covered by those ranges per second
//   trace_MB/s_equiv     ranges/s x (trace bytes / range) of the capture:
//                        the trace rate at which instruction following
//                        alone would keep up (OpenCSD's whole decode runs
//                        at about 2.5 MB/s, issue 6)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "follower.h"
#include "instr.h"
#include "memory_image.h"

namespace mabutrace::armisa {
namespace {

namespace fs = std::filesystem;

struct Capture {
  MemoryImage image;
  std::vector<std::pair<uint64_t, Isa>> starts;  // range starts in trace order
  uint64_t instructions = 0;                     // sum of num_i
  uint64_t trace_bytes = 0;
  std::vector<uint32_t> a64_words;  // the code image, as words
  bool real = false;
};

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

void LoadReal(Capture* c) {
  const fs::path dir = fs::path(MABUTRACE_ETE_SNAPSHOTS_DIR) / "001-ack_test";
  std::ifstream ini(dir / "cpu_0.ini");
  if (!ini) return;
  std::string line, file;
  uint64_t address = 0, length = 0;
  bool in_dump = false;
  auto flush = [&] {
    if (in_dump && !file.empty()) c->image.AddFile((dir / file).string(), address, kMemAny, nullptr, 0, length);
    file.clear();
    address = length = 0;
  };
  while (std::getline(ini, line)) {
    line = Trim(line);
    if (line.empty()) continue;
    if (line[0] == '[') {
      flush();
      in_dump = line.rfind("[dump", 0) == 0;
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = Trim(line.substr(0, eq)), v = Trim(line.substr(eq + 1));
    if (k == "file") file = v;
    if (k == "address") address = std::stoull(v, nullptr, 0);
    if (k == "length") length = std::stoull(v, nullptr, 0);
  }
  flush();
  std::ifstream ppl(dir / "expected" / "opencsd-1.8.0-decode.ppl");
  while (std::getline(ppl, line)) {
    const auto at = line.find("exec range=0x");
    if (at == std::string::npos) continue;
    unsigned long long s = 0, e = 0;
    unsigned n = 0;
    if (std::sscanf(line.c_str() + at, "exec range=0x%llx:[0x%llx] num_i(%u)", &s, &e, &n) != 3) continue;
    c->starts.emplace_back(s, line.find("ISA=A32") != std::string::npos ? Isa::kA32 : Isa::kA64);
    c->instructions += n;
  }
  c->trace_bytes = fs::exists(dir / "session1.bin") ? fs::file_size(dir / "session1.bin") : 0;
  const MemSpan code = c->image.Span(0x10000);  // OTHERS_exec, 270 KB of A64
  for (uint64_t i = 0; i + 4 <= code.size; i += 4) {
    c->a64_words.push_back(uint32_t{code.data[i]} | uint32_t{code.data[i + 1]} << 8 | uint32_t{code.data[i + 2]} << 16 |
                           uint32_t{code.data[i + 3]} << 24);
  }
  c->real = !c->starts.empty() && !c->a64_words.empty();
}

// Without the captures: 64 KB of A64 where one instruction in 6 is a
// branch, and a range start after every branch.
void LoadSynthetic(Capture* c) {
  std::mt19937 rng(6);
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 16384; ++i) {
    const uint32_t w = (i % 6 == 5) ? 0x54000000u | ((rng() & 0xFF) << 5) : 0x8b020020u;
    c->a64_words.push_back(w);
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<uint8_t>(w >> (8 * b)));
  }
  c->image.AddRegion(0x10000, bytes.data(), bytes.size(), kMemAny, nullptr);
  for (int r = 0; r < 20000; ++r) c->starts.emplace_back(0x10000 + 24 * (rng() % 2700), Isa::kA64);
  c->instructions = 6 * c->starts.size();
  c->trace_bytes = c->starts.size();  // ~1 byte of atoms per range
}

const Capture& TheCapture() {
  static const Capture* capture = [] {
    auto* c = new Capture;
    LoadReal(c);
    if (!c->real) {
      c->image.Clear();
      c->starts.clear();
      c->a64_words.clear();
      c->instructions = 0;
      LoadSynthetic(c);
    }
    return c;
  }();
  return *capture;
}

void BM_ClassifyA64(benchmark::State& state) {
  const Capture& c = TheCapture();
  size_t i = 0, p0 = 0;
  for (auto _ : state) {
    const InstrInfo info = ClassifyA64(c.a64_words[i], 0x10000 + 4 * i);
    p0 += info.is_p0();
    benchmark::DoNotOptimize(info);
    if (++i == c.a64_words.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["p0_fraction"] = static_cast<double>(p0) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ClassifyA64);

void BM_ClassifyA64BranchesOnly(benchmark::State& state) {
  // Worst case: every opcode reaches the table (branch/system group).
  static const uint32_t kOps[] = {0x14000400, 0x54000200, 0xb4000100, 0xd65f03c0, 0xd63f0220,
                                  0xd503201f, 0xd5033fdf, 0xf4df0021, 0xd73f0864, 0xd4000001};
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ClassifyA64(kOps[i], 0x1000));
    if (++i == std::size(kOps)) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClassifyA64BranchesOnly);

void BM_ClassifyT32(benchmark::State& state) {
  static const uint32_t kOps[] = {0x46080000, 0xeb010002, 0x47700000, 0xf000bffe, 0xbd100000,
                                  0xb1700000, 0xf85dfb04, 0x20010000, 0xe8bd8ff0, 0xbf080000};
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ClassifyT32(kOps[i], 0x1000));
    if (++i == std::size(kOps)) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClassifyT32);

void BM_ClassifyA32(benchmark::State& state) {
  static const uint32_t kOps[] = {0xe1a00001, 0xe59f0008, 0xe8bd8070, 0xea0003fe, 0xe12fff1e,
                                  0xe28f0008, 0xe3010234, 0x0b000006, 0xe792f101, 0xef000009};
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ClassifyA32(kOps[i], 0x1000));
    if (++i == std::size(kOps)) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClassifyA32);

void SetFollowCounters(benchmark::State& state, const Capture& c, uint64_t ranges) {
  const double per_range_bytes = static_cast<double>(c.trace_bytes) / static_cast<double>(c.starts.size());
  const double per_range_instr = static_cast<double>(c.instructions) / static_cast<double>(c.starts.size());
  state.counters["ranges/s"] = benchmark::Counter(static_cast<double>(ranges), benchmark::Counter::kIsRate);
  state.counters["instr/s"] =
      benchmark::Counter(static_cast<double>(ranges) * per_range_instr, benchmark::Counter::kIsRate);
  state.counters["trace_MB/s_equiv"] =
      benchmark::Counter(static_cast<double>(ranges) * per_range_bytes / 1e6, benchmark::Counter::kIsRate);
  state.SetLabel(c.real ? "001-ack_test" : "synthetic");
}

// Replays every range start through a warm cache (the steady state of a
// long decode: code is re-executed, so nearly every lookup hits).
void BM_FollowCached(benchmark::State& state) {
  const Capture& c = TheCapture();
  InstrFollower follower(&c.image);
  for (const auto& [a, isa] : c.starts) follower.FindNextP0(a, isa);  // warm
  uint64_t ranges = 0;
  for (auto _ : state) {
    for (const auto& [a, isa] : c.starts) benchmark::DoNotOptimize(follower.FindNextP0(a, isa));
    ranges += c.starts.size();
  }
  SetFollowCounters(state, c, ranges);
  state.counters["hit_rate"] =
      static_cast<double>(follower.stats().hits) / static_cast<double>(follower.stats().lookups);
}
BENCHMARK(BM_FollowCached)->Unit(benchmark::kMicrosecond);

// Cold cache each pass: the first decode of a capture (misses walk).
void BM_FollowColdCache(benchmark::State& state) {
  const Capture& c = TheCapture();
  InstrFollower follower(&c.image);
  uint64_t ranges = 0;
  for (auto _ : state) {
    follower.InvalidateCache();
    for (const auto& [a, isa] : c.starts) benchmark::DoNotOptimize(follower.FindNextP0(a, isa));
    ranges += c.starts.size();
  }
  SetFollowCounters(state, c, ranges);
}
BENCHMARK(BM_FollowColdCache)->Unit(benchmark::kMicrosecond);

// No cache at all: every range walked instruction by instruction (what
// OpenCSD does), for comparison.
void BM_FollowUncached(benchmark::State& state) {
  const Capture& c = TheCapture();
  InstrFollower follower(&c.image);
  uint64_t ranges = 0;
  for (auto _ : state) {
    for (const auto& [a, isa] : c.starts) benchmark::DoNotOptimize(follower.WalkTo(a, isa, ~uint64_t{0}));
    ranges += c.starts.size();
  }
  SetFollowCounters(state, c, ranges);
}
BENCHMARK(BM_FollowUncached)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mabutrace::armisa

BENCHMARK_MAIN();
