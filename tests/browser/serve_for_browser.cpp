// SPDX-License-Identifier: MIT
// serve_for_browser: a traced process for the browser tests.
//
// Starts the runtime and its HTTP server on 127.0.0.1 and a free port,
// prints "PORT <n>" on stdout, and records from two named threads (scopes,
// nested scopes, instants, counters, flows from one thread to the other)
// until stdin closes or `max_seconds` (argument, default 60) pass. Then it
// deinits with the server still running, which stops the server first.
// Exit status 0 on a clean run.
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "mabutrace/mabutrace.h"

namespace {

std::atomic<bool> g_stop{false};
std::atomic<uint16_t> g_link{0};

void Producer() {
  mabutrace_set_thread_name("producer");
  for (int64_t n = 0; !g_stop.load(std::memory_order_relaxed); ++n) {
    TRACE_SCOPE("produce", COLOR_BLUE);
    {
      TRACE_SCOPE("fill");
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    uint16_t link = 0;
    TRACE_FLOW_OUT(&link, "item");
    g_link.store(link, std::memory_order_release);
    TRACE_COUNTER("items_made", n);
    if (n % 10 == 0) TRACE_INSTANT("batch", COLOR_ORANGE);
  }
}

void Consumer() {
  mabutrace_set_thread_name("consumer");
  for (int64_t n = 0; !g_stop.load(std::memory_order_relaxed); ++n) {
    TRACE_SCOPE("consume", COLOR_GREEN);
    if (const uint16_t link = g_link.exchange(0, std::memory_order_acquire)) {
      TRACE_FLOW_IN(link, "item");
    }
    TRACE_COUNTER("queue_depth", n % 8);
    std::this_thread::sleep_for(std::chrono::microseconds(300));
  }
}

// Returns when stdin reaches end of file or the time is up.
void WaitForStdinEof(int max_seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(max_seconds);
  char buf[256];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{STDIN_FILENO, POLLIN, 0};
    const int r = poll(&p, 1, 200);
    if (r < 0) return;
    if (r > 0 && read(STDIN_FILENO, buf, sizeof buf) <= 0) return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int max_seconds = argc > 1 ? atoi(argv[1]) : 60;
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 1 << 20;
  cfg.process_name = "serve_for_browser";
  if (mabutrace_init_with_config(&cfg) != MABUTRACE_OK) return 2;
  mabutrace_set_thread_name("main");
  int rc = mabutrace_start_server(0);
  if (rc != MABUTRACE_OK) {
    fprintf(stderr, "serve_for_browser: start_server failed: %d\n", rc);
    return 3;
  }
  {
    TRACE_SCOPE("startup");
    TRACE_INSTANT("server up");
  }
  std::thread producer(Producer);
  std::thread consumer(Consumer);
  printf("PORT %u\n", unsigned(mabutrace_server_port()));
  fflush(stdout);

  WaitForStdinEof(max_seconds > 0 ? max_seconds : 60);

  g_stop.store(true);
  producer.join();
  consumer.join();
  mabutrace_deinit();  // with the server running: it must stop it first
  return mabutrace_server_port() == 0 ? 0 : 4;
}
