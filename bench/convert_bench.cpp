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

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "json_writer.h"
#include "mabutrace/mabutrace.h"
#include "perfetto_writer.h"
#include "stream_to_model.h"
#include "text_writer.h"

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
  std::atomic<uint32_t> links[64] = {};
  std::atomic<int> produced{0};
  std::thread worker([&] {
    mabutrace_set_thread_name("worker");
    for (int i = 0; i < kItems; ++i) {
      while (produced.load(std::memory_order_acquire) <= i) std::this_thread::yield();
      TRACE_SCOPE("process_item", COLOR_BLUE);
      TRACE_FLOW_IN(uint16_t(links[i % 64].load()));
      {
        TRACE_SCOPE("parse");
        TRACE_COUNTER("queue_depth", produced.load() - i);
      }
      { TRACE_SCOPE("compute", 0x8e24aa); }
      if (i % 16 == 0) TRACE_INSTANT("checkpoint", COLOR_GREEN);
    }
  });
  mabutrace_set_thread_name("producer");
  for (int i = 0; i < kItems; ++i) {
    while (i - produced.load() >= 60) std::this_thread::yield();  // never runs far ahead
    {
      TRACE_SCOPE("produce", COLOR_ORANGE);
      uint16_t link = 0;
      TRACE_FLOW_OUT(&link, "sample");
      links[i % 64].store(link);
      TRACE_COUNTER("produced", i);
    }
    produced.store(i + 1, std::memory_order_release);
    if (i % 4096 == 0) mabutrace_flush_output();
  }
  worker.join();
  mabutrace_flush_output();
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

}  // namespace

BENCHMARK(BM_ConvertJson)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvertPerfetto)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvertText)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
