// SPDX-License-Identifier: MIT
// ete_bench.h: what the ETE benchmarks (bench/ete, bench/ete_decode) share:
// the common options, the timer, the input built by repetition, the OpenCSD
// ETMv4 configuration of a trace unit and the decode tree's setup check and
// feed loop.
#ifndef MABUTRACE_BENCH_ETE_ETE_BENCH_H
#define MABUTRACE_BENCH_ETE_ETE_BENCH_H

#include <opencsd/c_api/opencsd_c_api.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "ete/ete_config.h"

namespace mabutrace::bench {

// The options both benchmarks take (each adds its own).
struct CommonArgs {
  explicit CommonArgs(int default_repeat) : repeat(default_repeat) {}
  void AddTo(CLI::App& app) {
    app.add_option("--snapshots", snapshots, "folder of the ETE snapshots (inputs)");
    app.add_option("--min-mib", min_mib, "input size, MiB (captures repeated)")->check(CLI::PositiveNumber);
    app.add_option("--repeat", repeat, "runs of each decoder; the best counts")->check(CLI::PositiveNumber);
    app.add_option("--chunk", chunk, "bytes per decode call")->check(CLI::PositiveNumber);
    app.add_flag("--json", json, "one JSON line instead of text");
  }
  // A clone without ../shared has no default input: the smoke tests count
  // exit 77 as skipped, and the line names what is missing.
  void RequireDefaultInput(const std::string& path) const {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return;
    std::fprintf(stderr, "skipped: %s is missing (the shared captures; name an input with --snapshot)\n", path.c_str());
    std::exit(77);
  }
  std::string snapshots = std::string(MABUTRACE_SHARED_DIR) + "/data/ete-snapshots";
  double min_mib = 64;
  int repeat;
  size_t chunk = 1 << 16;
  bool json = false;
};

// CPU time of this thread, s. The build machine is shared (its load average
// is often far above its CPU count), so wall time measures the other jobs;
// both decoders run single-threaded on this thread.
inline double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs f() `repeat` times; returns the shortest run (CPU s) and the last result in *out.
template <typename F, typename Result>
double BestSeconds(int repeat, F&& f, Result* out) {
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    const double t0 = ThreadCpuSeconds();
    Result r = f();
    best = std::min(best, ThreadCpuSeconds() - t0);
    *out = r;
  }
  return best;
}

// `unit` repeated until the result holds at least min_mib MiB (whole copies).
inline std::vector<uint8_t> Repeat(const std::vector<uint8_t>& unit, double min_mib) {
  const size_t want = static_cast<size_t>(min_mib * 1024 * 1024);
  std::vector<uint8_t> all;
  all.reserve(want + unit.size());
  while (all.size() < want) all.insert(all.end(), unit.begin(), unit.end());
  return all;
}

// OpenCSD's ETMv4 configuration of trace unit `e`, for its "ETMV4I"
// decoder (packet processor or full decoder). ete_version_in_idr1: an ETE
// unit, whose version OpenCSD reads from TRCIDR1[11:4] while ETE keeps it
// in TRCDEVARCH (OpenCSD's ETEConfig moves it there the same way); an
// ETMv4 unit's TRCIDR1 holds it already. M profile: ARCH_V8 / Cortex-M.
inline ocsd_etmv4_cfg OpenCsdEtmv4Config(const ete::EteConfig& e, bool ete_version_in_idr1) {
  ocsd_etmv4_cfg cfg{};
  cfg.reg_idr0 = e.trcidr0;
  cfg.reg_idr1 = ete_version_in_idr1 ? (e.trcidr1 & ~0xFF0u) | (static_cast<uint32_t>(e.major_version()) << 8) |
                                           (static_cast<uint32_t>(e.minor_version()) << 4)
                                     : e.trcidr1;
  cfg.reg_idr2 = e.trcidr2;
  cfg.reg_idr8 = e.trcidr8;
  cfg.reg_idr9 = e.trcidr9;
  cfg.reg_idr10 = e.trcidr10;
  cfg.reg_idr11 = e.trcidr11;
  cfg.reg_idr12 = e.trcidr12;
  cfg.reg_idr13 = e.trcidr13;
  cfg.reg_configr = e.trcconfigr;
  cfg.reg_traceidr = e.trctraceidr;
  cfg.arch_ver = e.m_profile ? ARCH_V8 : ARCH_AA64;
  cfg.core_prof = e.m_profile ? profile_CortexM : profile_CortexA;
  return cfg;
}

// Pushes `in` through an OpenCSD decode tree in `chunk`-byte calls, then EOT,
// and destroys the tree; first exits with a message when setting the tree up
// failed (setup: the last setup call's result; what: the decoder's name).
// OpenCSD stops on fatal errors: the tree is then reset and what it did not
// take is skipped (at least one byte).
inline void FeedOpenCsd(dcd_tree_handle_t tree, ocsd_err_t setup, const char* what, const std::vector<uint8_t>& in,
                        size_t chunk) {
  if (setup != OCSD_OK) {
    std::fprintf(stderr, "OpenCSD %s setup failed: error %d\n", what, static_cast<int>(setup));
    std::exit(1);
  }
  for (size_t i = 0; i < in.size();) {
    const uint32_t n = static_cast<uint32_t>(std::min(chunk, in.size() - i));
    uint32_t used = 0;
    const ocsd_datapath_resp_t r = ocsd_dt_process_data(tree, OCSD_OP_DATA, i, n, in.data() + i, &used);
    if (OCSD_DATA_RESP_IS_FATAL(r)) {
      ocsd_dt_process_data(tree, OCSD_OP_RESET, 0, 0, nullptr, nullptr);
      if (used == 0) used = 1;
    }
    i += used ? used : n;
  }
  uint32_t used = 0;
  ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, nullptr, &used);
  ocsd_destroy_dcd_tree(tree);
}

// A decode tree for one raw (unformatted) source; exits on failure.
inline dcd_tree_handle_t NewOpenCsdTree() {
  dcd_tree_handle_t tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
  if (tree == C_API_INVALID_TREE_HANDLE) {
    std::fprintf(stderr, "ocsd_create_dcd_tree failed\n");
    std::exit(1);
  }
  return tree;
}

}  // namespace mabutrace::bench

#endif  // MABUTRACE_BENCH_ETE_ETE_BENCH_H
