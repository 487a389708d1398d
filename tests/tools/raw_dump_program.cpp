// SPDX-License-Identifier: MIT
// raw_dump_program: records a known workload into a static memory block,
// then stops at mabutrace_test_dump_point() where a debugger dumps the
// trace memory (tests/tools/raw_dump_test.cpp drives it with gdb). With
// --self it writes the dump itself, exactly the bytes a debugger would
// read, framed by filler as if all of RAM had been dumped.
//
//   raw_dump_program OUT.dump [--self] [--foreign-name] [--small]
//
// --foreign-name records one instant whose name lives on the heap, so its
// pointer is in no section of the ELF. Built without PIE: the ELF's
// addresses are the run-time ones.
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "mabutrace/mabutrace.h"

namespace {

constexpr int kItems = 40;

#ifdef MABUTRACE_OTHER_LAYOUT
// The "wrong firmware" build: 8 KiB more code moves .rodata, which follows
// .text, so every string is elsewhere (raw_dump_test.cpp, WrongElf).
__attribute__((used, noinline)) void OtherLayoutPadding() { asm volatile(".fill 8192, 1, 0x90"); }
#endif
alignas(64) uint8_t g_memory[512 * 1024];

}  // namespace

extern "C" __attribute__((noinline)) void mabutrace_test_dump_point() {
  asm volatile("" ::: "memory");  // a debugger stops here
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.dump [--self] [--foreign-name]\n", argv[0]);
    return 2;
  }
  bool self = false, foreign = false, small = false;
  for (int i = 2; i < argc; ++i) {
    self |= std::strcmp(argv[i], "--self") == 0;
    foreign |= std::strcmp(argv[i], "--foreign-name") == 0;
    small |= std::strcmp(argv[i], "--small") == 0;  // the fuzz corpus seed
  }
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = small ? 4096 : 64 * 1024;
  cfg.max_threads = small ? 2 : 8;
  cfg.max_depth = small ? 4 : cfg.max_depth;
  cfg.process_name = "raw-dump-program";
  if (mabutrace_memory_required(&cfg) > sizeof g_memory) return 1;
  cfg.memory = g_memory;
  if (mabutrace_init_with_config(&cfg) != MABUTRACE_OK) return 1;
  mabutrace_set_thread_name("main");

  uint16_t links[kItems] = {};
  for (int i = 0; i < kItems; ++i) {
    TRACE_SCOPE("produce", COLOR_ORANGE);
    TRACE_FLOW_OUT(&links[i]);
    TRACE_COUNTER("level", i * 1000 - 7);
  }
  std::thread worker([&] {
    mabutrace_set_thread_name("worker \xe2\x9c\x93");
    for (int i = 0; i < kItems; ++i) {
      TRACE_SCOPE("consume");
      TRACE_FLOW_IN(links[i]);
      { TRACE_SCOPE("inner"); }
    }
  });
  worker.join();
  char* heap_name = nullptr;
  if (foreign) {
    heap_name = strdup("from the heap");
    TRACE_INSTANT(heap_name);
  }
  TRACE_INSTANT("done");

  mabutrace_test_dump_point();
  int rc = 0;
  if (self) {
    FILE* f = std::fopen(argv[1], "wb");
    if (!f) return 1;
    static uint8_t filler[4096 + 24];
    const size_t pad = small ? 24 : sizeof filler;  // not a multiple of 64: the scan must not care
    std::memset(filler, 0xA5, sizeof filler);
    const auto* base = static_cast<const uint8_t*>(mabutrace_dump_region.base);
    if (std::fwrite(filler, 1, pad, f) != pad ||
        std::fwrite(base, 1, mabutrace_dump_region.bytes, f) != mabutrace_dump_region.bytes ||
        std::fwrite(filler, 1, small ? 8 : 100, f) != (small ? 8u : 100u))
      rc = 1;
    if (std::fclose(f) != 0) rc = 1;
  }
  mabutrace_deinit();
  std::free(heap_name);
  return rc;
}
