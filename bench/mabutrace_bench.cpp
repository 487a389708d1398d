// SPDX-License-Identifier: MIT
// mabutrace_bench: the recording hot path against the floor loop, and the
// JSON exporter's throughput (docs/performance.md).
//
//   BM_Floor          the hardware floor of a begin+end pair: two reads of
//                     the CPU counter (x86-64 RDTSC, AArch64 CNTVCT_EL0;
//                     clock_gettime elsewhere) and two 16-byte stores into
//                     a per-thread 64 KiB ring whose index wraps.
//   BM_FloorClockGettime  the same on clock_gettime(CLOCK_MONOTONIC), the
//                     host's fallback clock (and the floor before issue 14).
//   BM_TraceScope     TRACE_SCOPE begin + end (a scope in the loop body).
//   BM_TraceInstant   one TRACE_INSTANT.
//   BM_TraceCounter   one TRACE_COUNTER.
//   BM_TraceFlow      TRACE_FLOW_OUT + TRACE_FLOW_IN.
//   BM_ClockRead      one counter read alone; BM_ClockGettimeRead one
//                     clock_gettime (to read the others against).
//   BM_ExportJson     a full 16 MiB flight recorder exported as JSON into a
//                     sink that only counts bytes; bytes/s are of the buffer.
//   BM_ExportPerfetto the same as Perfetto protobuf.
//   BM_ExportJsonFmtBaseline  (when {fmt} is installed) the peer of
//                     BM_ExportJson: the same events written by {fmt}'s
//                     compiled format strings (json_fmt_baseline.h).
//   BM_LttngScope     (mabutrace_lttng_bench only) the peer: an LTTng-UST
//                     begin + end tracepoint pair (bench/lttng/), recorded
//                     by a live session that bench/compare.py --lttng
//                     creates; skipped when no session enables them.
//
// The hot-path benchmarks run with 1 and 2 threads against a 1 MiB buffer
// that is filled (wrapped) before they start: wrap-around, with its chunk
// hand-over, is the steady state of a flight recorder. bench/compare.py
// runs this binary and prints each benchmark against BM_Floor.
//
// Time: Google Benchmark reports cpu_time per iteration as the per-thread
// CPU cost of one iteration (total CPU / total iterations), with any thread
// count; real_time is wall time divided by the thread count (a throughput
// figure). Compare cpu_time across thread counts.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "mabutrace/mabutrace.h"
#if defined(MABUTRACE_BENCH_FMT)
#include "json_fmt_baseline.h"
#endif

#if defined(MABUTRACE_BENCH_LTTNG)
#include "mabutrace_bench_tp.h"
#endif

#ifndef MABUTRACE_BENCH_BUILD_TYPE
#define MABUTRACE_BENCH_BUILD_TYPE "unknown"
#endif
#ifndef MABUTRACE_BENCH_COMPILER
#define MABUTRACE_BENCH_COMPILER "unknown"
#endif

namespace {

constexpr size_t kHotBufferBytes = size_t(1) << 20;      // hot-path benchmarks
constexpr size_t kExportBufferBytes = size_t(16) << 20;  // BM_ExportJson
constexpr size_t kFloorRingBytes = size_t(64) << 10;

// ---- runtime set-up -------------------------------------------------------

size_t g_buffer_bytes = 0;  // buffer of the live runtime, 0 = none
bool g_export_filled = false;

void Fail(const char* what, int rc) {
  fprintf(stderr, "mabutrace_bench: %s failed (%d)\n", what, rc);
  abort();
}

// Makes the live runtime one with a buffer of `bytes`; true if it (re)started.
bool EnsureRuntime(size_t bytes) {
  if (g_buffer_bytes == bytes && mabutrace_is_initialized()) return false;
  mabutrace_deinit();
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = bytes;
  cfg.process_name = "mabutrace_bench";
  const int rc = mabutrace_init_with_config(&cfg);
  if (rc != MABUTRACE_OK) Fail("mabutrace_init_with_config", rc);
  g_buffer_bytes = bytes;
  g_export_filled = false;
  return true;
}

uint64_t Overwritten() {
  mabutrace_stats_t s;
  if (mabutrace_get_stats(&s) != MABUTRACE_OK) return 0;
  return s.events_overwritten;
}

// Setup of the hot-path benchmarks (runs on the main thread before the
// benchmark's threads start): a 1 MiB runtime, already wrapped once.
void SetupHot(const benchmark::State&) {
  if (!EnsureRuntime(kHotBufferBytes)) return;
  for (int i = 0; Overwritten() == 0 && i < 1 << 20; ++i) {
    for (int k = 0; k < 256; ++k) TRACE_INSTANT("prefill");
  }
}

// Teardown of the hot-path benchmarks: every event must have been stored
// (dropped events would make the recorder look cheaper than it is).
void TeardownHot(const benchmark::State&) {
  static uint64_t reported = 0;
  mabutrace_stats_t s;
  if (mabutrace_get_stats(&s) != MABUTRACE_OK || s.events_dropped <= reported) return;
  fprintf(stderr, "mabutrace_bench: warning: %llu events dropped\n", (unsigned long long)(s.events_dropped - reported));
  reported = s.events_dropped;
}

// ---- the floor ------------------------------------------------------------

// The clocks the host port uses (src/port/host/mabutrace_port_inline.h),
// written out here so that the floors stay the definition whatever
// the runtime does.
inline uint64_t GettimeNow() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}
inline uint64_t CounterNow() {
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
  uint64_t v;
  __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
  return GettimeNow();
#endif
}

// A 16-byte record as two 64-bit words, stored like the runtime stores its
// words (relaxed atomic stores: plain moves, no fence).
inline void Store16(uint64_t* p, uint64_t a, uint64_t b) {
  __atomic_store_n(p, a, __ATOMIC_RELAXED);
  __atomic_store_n(p + 1, b, __ATOMIC_RELAXED);
}

template <uint64_t (*Now)()>
void Floor(benchmark::State& state) {
  constexpr size_t kWords = kFloorRingBytes / 8;  // power of two
  auto* ring = static_cast<uint64_t*>(aligned_alloc(64, kFloorRingBytes));
  memset(ring, 0, kFloorRingBytes);  // fault the pages in outside the loop
  benchmark::DoNotOptimize(ring);
  const char* name = "BM_Floor";
  benchmark::DoNotOptimize(name);
  size_t i = 0;
  for (auto _ : state) {
    const uint64_t t0 = Now();
    Store16(ring + i, t0, uint64_t(uintptr_t(name)));
    i = (i + 2) & (kWords - 1);
    const uint64_t t1 = Now();
    Store16(ring + i, t1, 0);
    i = (i + 2) & (kWords - 1);
  }
  benchmark::ClobberMemory();
  free(ring);
}

void BM_Floor(benchmark::State& state) { Floor<CounterNow>(state); }
void BM_FloorClockGettime(benchmark::State& state) { Floor<GettimeNow>(state); }

template <uint64_t (*Now)()>
void ClockRead(benchmark::State& state) {
  for (auto _ : state) {
    uint64_t t = Now();
    benchmark::DoNotOptimize(t);
  }
}
void BM_ClockRead(benchmark::State& state) { ClockRead<CounterNow>(state); }
void BM_ClockGettimeRead(benchmark::State& state) { ClockRead<GettimeNow>(state); }

// ---- the recording macros -------------------------------------------------

void BM_TraceScope(benchmark::State& state) {
  for (auto _ : state) {
    TRACE_SCOPE("BM_TraceScope");
  }
}

void BM_TraceScopeColor(benchmark::State& state) {
  for (auto _ : state) {
    TRACE_SCOPE("BM_TraceScopeColor", COLOR_BLUE);
  }
}

void BM_TraceInstant(benchmark::State& state) {
  for (auto _ : state) {
    TRACE_INSTANT("BM_TraceInstant");
  }
}

void BM_TraceCounter(benchmark::State& state) {
  int64_t v = 0;
  for (auto _ : state) {
    TRACE_COUNTER("BM_TraceCounter", v++);
  }
}

void BM_TraceFlow(benchmark::State& state) {
  uint16_t link = 0;
  for (auto _ : state) {
    TRACE_FLOW_OUT(&link, "BM_TraceFlow");
    TRACE_FLOW_IN(link, "BM_TraceFlow");
  }
}

#if defined(MABUTRACE_BENCH_LTTNG)
// The same loop as BM_TraceScope through LTTng-UST. A tracepoint that no
// session enables costs one predicted branch: measuring that would flatter
// the peer, so the benchmark refuses to run without a session.
void BM_LttngScope(benchmark::State& state) {
  if (!lttng_ust_tracepoint_enabled(mabutrace_bench, scope_begin)) {
    state.SkipWithError("no LTTng session enables mabutrace_bench:* (bench/compare.py --lttng creates one)");
    return;
  }
  for (auto _ : state) {
    lttng_ust_tracepoint(mabutrace_bench, scope_begin, "BM_LttngScope");
    lttng_ust_tracepoint(mabutrace_bench, scope_end);
  }
}
#endif

// ---- export -----------------------------------------------------------------

// Names of realistic length (the exporter escapes and copies each one).
const char* const kNames[] = {
    "Renderer::DrawFrame",       "net::HttpClient::SendRequest", "decode_audio_packet",     "JobSystem::RunWorker",
    "physics::World::Integrate", "ui::LayoutEngine::Measure",    "db::Query::Execute",      "compress_block_lz4",
    "Scheduler::PickNextTask",   "storage::Journal::Commit",     "image::Resize(bilinear)", "ParseConfig",
};
constexpr unsigned kNumNames = sizeof kNames / sizeof kNames[0];

// Link ids handed from one fill thread to the other (flows across threads).
std::atomic<uint16_t> g_mailbox[2][64];

void FillThread(int self, const std::atomic<bool>* stop) {
  char thread_name[32];
  snprintf(thread_name, sizeof thread_name, "fill-%d", self);
  mabutrace_set_thread_name(thread_name);
  const int other = 1 - self;
  uint32_t r = 0;
  while (!stop->load(std::memory_order_relaxed)) {
    for (int k = 0; k < 64; ++k, ++r) {
      const char* outer = kNames[r % kNumNames];
      const char* mid = kNames[(r * 7 + 3) % kNumNames];
      const char* inner = kNames[(r * 5 + 1) % kNumNames];
      TRACE_SCOPE(outer);
      {
        TRACE_SCOPE(mid, COLOR_GREEN);
        if (r % 4 == 0) TRACE_INSTANT("cache_miss", COLOR_RED);
        TRACE_COUNTER("queue_depth", int64_t(r % 97) - 10);
        {
          TRACE_SCOPE(inner);
          uint16_t link = 0;
          TRACE_FLOW_OUT(&link, "handoff");
          g_mailbox[self][r % 64].store(link, std::memory_order_relaxed);
        }
      }
      const uint16_t in = g_mailbox[other][r % 64].exchange(0, std::memory_order_relaxed);
      if (in != 0) TRACE_FLOW_IN(in, "handoff");
      if (r % 8 == 0) TRACE_COUNTER("bytes_in_flight", int64_t(r) * 1500);
    }
  }
}

// Fills the 16 MiB buffer from two threads until it has wrapped.
void FillExportBuffer() {
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) threads.emplace_back(FillThread, t, &stop);
  while (Overwritten() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  stop.store(true);
  for (auto& t : threads) t.join();
}

void SetupExport(const benchmark::State&) {
  EnsureRuntime(kExportBufferBytes);
  if (g_export_filled) return;
  FillExportBuffer();
  g_export_filled = true;
}

struct CountingSink {
  uint64_t bytes = 0;
  static int Write(void* user, const char*, size_t len) {
    static_cast<CountingSink*>(user)->bytes += len;
    return 0;
  }
};

// One export of the full 16 MiB buffer per iteration through `exporter`;
// bytes/s are of the buffer, out_bytes of what the exporter wrote.
template <int (*exporter)(mabutrace_write_fn, void*)>
void BM_Export(benchmark::State& state) {
  mabutrace_stats_t stats;
  if (mabutrace_get_stats(&stats) != MABUTRACE_OK) {
    state.SkipWithError("runtime not initialized");
    return;
  }
  CountingSink sink;
  for (auto _ : state) {
    const int rc = exporter(&CountingSink::Write, &sink);
    if (rc != MABUTRACE_OK) {
      state.SkipWithError("export failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  const uint64_t records = stats.events_written - stats.events_overwritten;
  const auto iters = static_cast<int64_t>(state.iterations());
  state.SetBytesProcessed(iters * int64_t(stats.bytes_in_use));
  state.SetItemsProcessed(iters * int64_t(records));
  state.counters["buffer_bytes"] = double(stats.bytes_in_use);
  state.counters["records"] = double(records);
  state.counters["json_bytes"] = benchmark::Counter(double(sink.bytes), benchmark::Counter::kAvgIterations);
  state.counters["json_bytes_per_second"] = benchmark::Counter(double(sink.bytes), benchmark::Counter::kIsRate);
}

void BM_ExportJson(benchmark::State& state) { BM_Export<mabutrace_export_json>(state); }

#if defined(MABUTRACE_BENCH_FMT)
// The peer of BM_ExportJson (json_fmt_baseline.h): the events of one export
// of the same buffer, written again by {fmt}'s compiled format strings into
// the same sink. bytes/s are of the buffer, as in BM_ExportJson, so the two
// rates compare directly; bench/compare.py prints their ratio.
void BM_ExportJsonFmtBaseline(benchmark::State& state) {
  mabutrace_stats_t stats;
  std::string json;
  if (mabutrace_get_stats(&stats) != MABUTRACE_OK || mabutrace_export_json(
                                                         [](void* user, const char* data, size_t n) {
                                                           static_cast<std::string*>(user)->append(data, n);
                                                           return 0;
                                                         },
                                                         &json) != MABUTRACE_OK) {
    state.SkipWithError("runtime not initialized");
    return;
  }
  mabutrace::bench::JsonFmtBaseline baseline;
  std::string error;
  if (!baseline.Load(json, &error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  CountingSink sink;
  for (auto _ : state) {
    baseline.Write(&CountingSink::Write, &sink);
    benchmark::ClobberMemory();
  }
  const auto iters = static_cast<int64_t>(state.iterations());
  state.SetBytesProcessed(iters * int64_t(stats.bytes_in_use));
  state.SetItemsProcessed(iters * int64_t(baseline.events()));
  state.counters["json_bytes"] = benchmark::Counter(double(sink.bytes), benchmark::Counter::kAvgIterations);
  state.counters["json_bytes_per_second"] = benchmark::Counter(double(sink.bytes), benchmark::Counter::kIsRate);
}
#endif
// The same buffer as Perfetto protobuf (json_bytes: the .pftrace bytes).
void BM_ExportPerfetto(benchmark::State& state) { BM_Export<mabutrace_export_perfetto>(state); }

}  // namespace

#define HOT_PATH(fn) BENCHMARK(fn)->Setup(SetupHot)->Teardown(TeardownHot)->Threads(1)->Threads(2)

BENCHMARK(BM_Floor)->Threads(1)->Threads(2);
BENCHMARK(BM_FloorClockGettime)->Threads(1)->Threads(2);
BENCHMARK(BM_ClockRead)->Threads(1)->Threads(2);
BENCHMARK(BM_ClockGettimeRead)->Threads(1)->Threads(2);
HOT_PATH(BM_TraceScope);
HOT_PATH(BM_TraceScopeColor);
HOT_PATH(BM_TraceInstant);
HOT_PATH(BM_TraceCounter);
HOT_PATH(BM_TraceFlow);
#if defined(MABUTRACE_BENCH_LTTNG)
BENCHMARK(BM_LttngScope)->Threads(1)->Threads(2);
#endif
BENCHMARK(BM_ExportJson)->Setup(SetupExport)->Unit(benchmark::kMillisecond);
#if defined(MABUTRACE_BENCH_FMT)
BENCHMARK(BM_ExportJsonFmtBaseline)->Setup(SetupExport)->Unit(benchmark::kMillisecond);
#endif
BENCHMARK(BM_ExportPerfetto)->Setup(SetupExport)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("mabutrace_build_type", MABUTRACE_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("mabutrace_compiler", MABUTRACE_BENCH_COMPILER);
  benchmark::AddCustomContext("mabutrace_hot_buffer_bytes", std::to_string(kHotBufferBytes));
  benchmark::AddCustomContext("mabutrace_export_buffer_bytes", std::to_string(kExportBufferBytes));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  mabutrace_deinit();
  return 0;
}
