// SPDX-License-Identifier: MIT
// demo.cpp: init -> server -> threads -> wait (time or signal) -> stop ->
// export -> deinit, reporting each failure with exit code 1.
#include "demo.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "counter_log.h"
#include "mabutrace/mabutrace.h"
#include "pipeline.h"
#include "thread_util.h"
#include "trace_file.h"

namespace {

const char* StatusText(int rc) {
  switch (rc) {
    case MABUTRACE_ERR_NOT_INITIALIZED: return "not initialized";
    case MABUTRACE_ERR_ALREADY_INITIALIZED: return "already initialized";
    case MABUTRACE_ERR_INVALID_ARG: return "invalid argument";
    case MABUTRACE_ERR_NO_MEMORY: return "out of memory";
    case MABUTRACE_ERR_IO: return "I/O error";
    case MABUTRACE_ERR_SERVER: return "server error";
    case MABUTRACE_ERR_ALREADY_RUNNING: return "already running";
    case MABUTRACE_ERR_UNSUPPORTED: return "HTTP server not available in this build";
    default: return "unknown error";
  }
}

// host:port as it goes into a URL ("[::1]:8080" for IPv6 literals).
std::string HostPort(const std::string& host, unsigned port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// Blocks SIGINT/SIGTERM in this thread and, by inheritance, in every thread
// started later (the server's, the pipeline's): only WaitForEnd sees them,
// synchronously, so the shutdown runs on the main thread as normal code.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

// Waits `seconds` or until a stop signal; returns the signal or 0.
int WaitForEnd(const sigset_t& set, double seconds) {
  timespec end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  const int64_t end_ns = int64_t(end.tv_sec) * 1000000000 + end.tv_nsec + int64_t(seconds * 1e9);
  for (;;) {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const int64_t left = end_ns - (int64_t(now.tv_sec) * 1000000000 + now.tv_nsec);
    if (left <= 0) return 0;
    const timespec timeout{time_t(left / 1000000000), long(left % 1000000000)};
    const int sig = sigtimedwait(&set, nullptr, &timeout);
    if (sig > 0) return sig;
    // EAGAIN: timed out (the loop re-checks), EINTR: another signal.
  }
}

class PipelineThreads {
 public:
  explicit PipelineThreads(Pipeline& p)
      : worker_(RunWorker, std::ref(p)),
        uploader_(RunUploader, std::ref(p)),
        monitor_(RunMonitor, std::ref(p)),
        timer_(RunTimerIsr, std::ref(p)),
        p_(p) {}

  // Stops the sources first and lets the queues drain, so every sample that
  // made it into the queue is processed and its arrow ends.
  void Stop() {
    p_.running.store(false);
    timer_.join();
    monitor_.join();
    p_.samples.close();
    worker_.join();
    p_.batches.close();
    uploader_.join();
  }

 private:
  std::thread worker_, uploader_, monitor_, timer_;
  Pipeline& p_;
};

// sample_ready's latency as the demo measured it (nearest rank, µs), the
// figure `mabutrace stats` must find in the trace (tests/examples).
void PrintSampleLatency(std::vector<int64_t> ns) {
  if (ns.empty()) return;
  std::sort(ns.begin(), ns.end());
  const auto rank = [&](double q) { return ns[size_t(std::max(1.0, std::ceil(q * double(ns.size())))) - 1]; };
  printf("sample_ready latency (the demo's own clock): %zu samples, p50 %.3f us, p99 %.3f us, max %.3f us\n", ns.size(),
         double(rank(0.5)) / 1e3, double(rank(0.99)) / 1e3, double(ns.back()) / 1e3);
}

}  // namespace

int RunDemo(const Options& opt) {
  const sigset_t stop_signals = BlockStopSignals();

  if (!opt.counter_log.empty() && !OpenCounterLog(opt.counter_log)) {
    fprintf(stderr, "cannot write %s: %s\n", opt.counter_log.c_str(), strerror(errno));
    return kExitRuntimeError;
  }
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = opt.buffer_kib * 1024;
  cfg.process_name = "mabutrace-pipeline-demo";
  int rc = mabutrace_init_with_config(&cfg);
  if (rc != MABUTRACE_OK) {
    fprintf(stderr, "mabutrace_init_with_config(buffer %zu KiB) failed: %s\n", opt.buffer_kib, StatusText(rc));
    return kExitRuntimeError;
  }
  NameThisThread("main");

  rc = mabutrace_start_server_on(opt.bind.c_str(), opt.port);
  if (rc != MABUTRACE_OK) {
    if (rc == MABUTRACE_ERR_SERVER) {
      fprintf(stderr, "cannot listen on %s (port in use?)\n", HostPort(opt.bind, opt.port).c_str());
    } else {
      fprintf(stderr, "cannot listen on %s: %s\n", HostPort(opt.bind, opt.port).c_str(), StatusText(rc));
    }
    mabutrace_deinit();
    CloseCounterLog();
    return kExitRuntimeError;
  }
  const std::string url = "http://" + HostPort(opt.bind, mabutrace_server_port()) + "/";
  printf("listening on %s\n", url.c_str());
  printf("live trace: %strace.json (capture page: %s)\n", url.c_str(), url.c_str());
  printf(
      "running %g s, trace buffer %zu KiB (oldest events are overwritten when full); "
      "Ctrl-C stops early\n",
      opt.seconds, opt.buffer_kib);

  TRACE_INSTANT("demo_start", COLOR_GREEN);
  Pipeline pipeline;
  PipelineThreads threads(pipeline);
  const int sig = WaitForEnd(stop_signals, opt.seconds);
  TRACE_INSTANT("demo_stop", COLOR_GREEN);
  threads.Stop();
  if (sig) printf("stopped early by %s\n", strsignal(sig));

  mabutrace_stats_t st;
  mabutrace_get_stats(&st);
  printf(
      "samples: %llu produced, %llu dropped (queue full), %llu processed; %llu batches "
      "uploaded\n",
      (unsigned long long)pipeline.produced.load(), (unsigned long long)pipeline.dropped.load(),
      (unsigned long long)pipeline.processed.load(), (unsigned long long)pipeline.uploaded.load());
  PrintSampleLatency(pipeline.sample_latency_ns);
  printf("events: %llu written, %llu overwritten, %llu dropped\n", (unsigned long long)st.events_written,
         (unsigned long long)st.events_overwritten, (unsigned long long)st.events_dropped);

  int exit_code = kExitOk;
  std::string path, error;
  uint64_t bytes = 0;
  for (TraceFormat format : {TraceFormat::kJson, TraceFormat::kPerfetto}) {
    if (WriteTraceFile(opt.out, format, &path, &bytes, &error)) {
      printf("trace written: %s (%llu bytes)\n", path.c_str(), (unsigned long long)bytes);
    } else {
      fprintf(stderr, "%s\n", error.c_str());
      exit_code = kExitRuntimeError;
    }
  }
  if (exit_code == kExitOk) {
    printf("open it: https://ui.perfetto.dev -> \"Open trace file\" -> %s\n", path.c_str());
  }
  if (!CloseCounterLog()) {
    fprintf(stderr, "writing %s failed\n", opt.counter_log.c_str());
    exit_code = kExitRuntimeError;
  }
  mabutrace_stop_server();
  mabutrace_deinit();
  return exit_code;
}
