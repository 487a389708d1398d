// SPDX-License-Identifier: MIT
// convert_bench.cpp: throughput of `mabutrace convert`'s pipeline (binary
// stream -> StreamToModel -> writer) for each output format, in MB/s of
// *input* stream, and the size of each output against the input.
//
// The input is recorded once per run by the real runtime and output
// callback: two threads, nested colored scopes, instants, counters and
// flows between the threads (the pipeline demo's mix), flushed as it goes
// so that nothing is lost. docs/performance.md shows how to read it.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "json_writer.h"
#include "mabutrace/mabutrace.h"
#include "perfetto_writer.h"
#include "pipeline_workload.h"
#include "stream_to_model.h"
#include "text_writer.h"
#if defined(MABUTRACE_BENCH_STATS)
#include "import_trace.h"
#include "trace_stats.h"
#endif

namespace {

std::string g_stream;
void Capture(const uint8_t* data, size_t len) { g_stream.append(reinterpret_cast<const char*>(data), len); }

// Records ~`items` work items into g_stream (once).
const std::string& Stream() {
  static bool done = false;
  if (done) return g_stream;
  done = true;
  constexpr int kItems = 60000;
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 8u << 20;
  cfg.process_name = "convert-bench";
  if (mabutrace_init_with_config(&cfg) != MABUTRACE_OK) return g_stream;
  mabutrace_set_output_callback(Capture);
  mabutrace::bench::RecordPipelineWorkload(kItems);
  mabutrace_deinit();
  return g_stream;
}

// Runs the whole conversion once into a byte counter; returns output bytes.
template <class Writer>
uint64_t ConvertOnce(const std::string& in) {
  uint64_t out = 0;
  Writer w([&out](const char*, size_t n) {
    out += n;
    return true;
  });
  mabutrace::host::StreamToModel conv(w);
  conv.Feed(reinterpret_cast<const uint8_t*>(in.data()), in.size());
  conv.Finish();
  return out;
}

template <class Writer>
void BM_Convert(benchmark::State& state) {
  const std::string& in = Stream();
  if (in.empty()) {
    state.SkipWithError("recording the input stream failed");
    return;
  }
  uint64_t out = 0;
  for (auto _ : state) {
    out = ConvertOnce<Writer>(in);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(in.size()));
  state.counters["in_bytes"] = double(in.size());
  state.counters["out_bytes"] = double(out);
  state.counters["out_per_in"] = double(out) / double(in.size());
  // The size the .pftrace saves against the JSON, for the same input.
  static const uint64_t json_bytes = ConvertOnce<mabutrace::exporter::JsonWriter>(in);
  state.counters["json_over_out"] = double(json_bytes) / double(out);
}

void BM_ConvertJson(benchmark::State& s) { BM_Convert<mabutrace::exporter::JsonWriter>(s); }
void BM_ConvertPerfetto(benchmark::State& s) { BM_Convert<mabutrace::exporter::PerfettoWriter>(s); }
void BM_ConvertText(benchmark::State& s) { BM_Convert<mabutrace::exporter::TextWriter>(s); }

#if defined(MABUTRACE_BENCH_STATS)
// `mabutrace stats` (input → model → TraceStats) for each input kind, in
// MB/s of that input: the stream, and the .json / .pftrace convert wrote of
// it (host/import).
template <class Writer>
std::string Converted() {
  std::string out;
  Writer w([&out](const char* d, size_t n) {
    out.append(d, n);
    return true;
  });
  mabutrace::host::StreamToModel conv(w);
  conv.Feed(reinterpret_cast<const uint8_t*>(Stream().data()), Stream().size());
  conv.Finish();
  return out;
}

void Report(benchmark::State& state, size_t in_bytes) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(in_bytes));
  state.counters["in_bytes"] = double(in_bytes);
}

void BM_StatsStream(benchmark::State& state) {
  const std::string& in = Stream();
  for (auto _ : state) {
    mabutrace::stats::TraceStats s;
    mabutrace::host::StreamToModel conv(s);
    conv.Feed(reinterpret_cast<const uint8_t*>(in.data()), in.size());
    conv.Finish();
    benchmark::DoNotOptimize(s.end_ns());
  }
  Report(state, in.size());
}

void StatsImported(benchmark::State& state, const std::string& in, mabutrace::host::ImportKind kind) {
  for (auto _ : state) {
    mabutrace::stats::TraceStats s;
    std::FILE* f = fmemopen(const_cast<char*>(in.data()), in.size(), "rb");
    mabutrace::host::ImportTrace(kind, f, {}, s);
    std::fclose(f);
    benchmark::DoNotOptimize(s.end_ns());
  }
  Report(state, in.size());
}
void BM_StatsJson(benchmark::State& state) {
  static const std::string in = Converted<mabutrace::exporter::JsonWriter>();
  StatsImported(state, in, mabutrace::host::ImportKind::kChromeJson);
}
void BM_StatsPerfetto(benchmark::State& state) {
  static const std::string in = Converted<mabutrace::exporter::PerfettoWriter>();
  StatsImported(state, in, mabutrace::host::ImportKind::kPerfetto);
}
#endif

}  // namespace

#if defined(MABUTRACE_BENCH_STATS)
BENCHMARK(BM_StatsStream)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StatsJson)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StatsPerfetto)->Unit(benchmark::kMillisecond);
#endif
BENCHMARK(BM_ConvertJson)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvertPerfetto)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvertText)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
