// SPDX-License-Identifier: MIT
// stream_gen.cpp: writes a binary stream of at least N MiB of the pipeline
// workload (bench/pipeline_workload.h), recorded by the real runtime and
// written by its output callback as it goes: one stream, one header, the
// session's clock throughout. For measuring the host tools on large inputs
// (bench/stats_rss.sh).
//
//   mabutrace_stream_gen OUT.bin MIB
#include <cstdio>
#include <cstdlib>

#include "mabutrace/mabutrace.h"
#include "pipeline_workload.h"

namespace {
std::FILE* g_out = nullptr;
unsigned long long g_bytes = 0;
void Write(const uint8_t* data, size_t len) { g_bytes += std::fwrite(data, 1, len, g_out); }
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::atoi(argv[2]) <= 0) {
    std::fprintf(stderr, "usage: mabutrace_stream_gen OUT.bin MIB\n");
    return 2;
  }
  const unsigned long long want = (unsigned long long)(std::atoi(argv[2])) << 20;
  g_out = std::fopen(argv[1], "wb");
  if (!g_out) {
    std::perror(argv[1]);
    return 1;
  }
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 8u << 20;
  cfg.process_name = "stream-gen";
  if (mabutrace_init_with_config(&cfg) != MABUTRACE_OK) return 1;
  mabutrace_set_output_callback(Write);
  while (g_bytes < want) {
    mabutrace::bench::RecordPipelineWorkload(200000);
    std::fprintf(stderr, "\rstream_gen: %llu / %llu MiB", g_bytes >> 20, want >> 20);
  }
  std::fprintf(stderr, "\n");
  mabutrace_stats_t st;
  mabutrace_get_stats(&st);
  mabutrace_deinit();
  std::fclose(g_out);
  std::printf("%s: %llu bytes, %llu events, %llu overwritten, %llu dropped\n", argv[1], g_bytes,
              (unsigned long long)st.events_written, (unsigned long long)st.events_overwritten,
              (unsigned long long)st.events_dropped);
  return 0;
}
