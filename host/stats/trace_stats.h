// SPDX-License-Identifier: MIT
// trace_stats.h: statistics of a trace, computed while it streams
// (`mabutrace stats`, docs/stats.md). TraceStats is an EventSink of the
// host model (format/trace_events.h) placed after model::Normalizer, so it
// may assume format/trace_rules.h: slices nest per track, an end takes its
// begin's name, times never go backwards on a track, a flow end comes
// after its start, slices open at the end are closed (flag open_at_end).
//
// What it computes (every definition in docs/stats.md §2), all times in ns:
// - slices per key: count, total, self (total minus the durations of the
//   direct children on the same track), quantiles, and the begin times of
//   the `top` longest instances;
// - flows per key (the name on the FLOW_OUT side): the latency from the
//   arrow's start to its end;
// - counters per name: min, max, mean of the samples, last, and the mean
//   weighted by the time each value held, from the first sample to the end
//   of the trace (the newest time of any event);
// - instants per key: count;
// - per thread (track): busy (time inside any top-level slice) and the
//   longest idle gap between two consecutive top-level slices.
// Memory: per distinct key one QuantileSketch (bounded, quantile_sketch.h)
// and `top` instances; per track the open slices; per open flow 16 bytes.
#ifndef MABUTRACE_HOST_STATS_TRACE_STATS_H
#define MABUTRACE_HOST_STATS_TRACE_STATS_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "format/trace_events.h"
#include "quantile_sketch.h"

namespace mabutrace::stats {

using Track = format::Track;

// How slices, flows and instants are keyed (--by).
enum class GroupBy { kName, kThread, kNameThread };

struct Options {
  GroupBy by = GroupBy::kName;
  size_t top = 5;  // longest instances kept per slice / flow key
  size_t exact_bound = QuantileSketch::kDefaultExactBound;
};

// One instance among the longest of its key.
struct Instance {
  uint64_t ns = 0;   // begin (slice) or start (flow) time
  uint64_t dur = 0;  // duration / latency
  std::string thread;
};

struct DurationStats {
  QuantileSketch sketch;
  uint64_t self = 0;              // slices only
  uint64_t open_at_end = 0;       // slices only: closed by the Normalizer at the end
  std::vector<Instance> longest;  // longest first, at most Options::top
  explicit DurationStats(size_t bound) : sketch(bound) {}
};

struct CounterStats {
  uint64_t count = 0;
  int64_t min = 0, max = 0, last = 0;
  __int128 sum = 0;
  uint64_t first_ns = 0, last_ns = 0;
  long double weighted = 0;  // sum of value x ns it held, up to last_ns
  // For a plot: every `stride`-th sample, at most kMaxSeries (the stride
  // doubles, dropping every other kept point, when it is full).
  static constexpr size_t kMaxSeries = 1024;
  std::vector<std::pair<uint64_t, int64_t>> series;
  uint64_t stride = 1;
  // The samples' distribution: values >= 0 in `at_or_above_zero`, the
  // magnitudes of those below in `below_zero` (the sketch takes uint64).
  QuantileSketch at_or_above_zero, below_zero;
  double mean() const { return count ? double(sum) / double(count) : 0.0; }
  // Nearest-rank quantile of the samples for per10000 in [0, 10000]
  // (quantile_sketch.h's definition and error bound): exact while the
  // sketches are, for counters that never go below 0; with samples on both
  // sides of 0 the rank within the negative ones is rounded to 1/10000.
  // 0 when empty. E.g. a CP_Tracer export's bandwidth_bytes_per_s: one
  // sample per sliding window, so this is the per-window percentile.
  int64_t Quantile(uint32_t per10000) const;
};

struct ThreadStats {
  std::string name;  // as announced, or "thread <tid>"
  // What keys it (--by thread, name,thread): the name, unless another
  // track's key was already that name; then "NAME (pid P tid T)", so
  // same-named threads (of other processes or inputs) are not pooled.
  std::string key;
  std::string process;  // its process's name ("" if never announced)
  Track track;
  uint64_t busy = 0;
  uint64_t longest_idle = 0;
  uint64_t idle_from = 0, idle_to = 0;  // where the longest idle gap is
  uint64_t top_level = 0;               // top-level slices
};

// Executed instructions of one function (an Arm trace decoded with --elf:
// the "ete.function_instructions[_total].NAME" metadata of
// host/ete_decode/function_slices.h): exact, not sampled.
struct FunctionInstructions {
  uint64_t self = 0;   // in its own code
  uint64_t total = 0;  // while it was on the call stack (itself and its callees)
};

class TraceStats final : public format::EventSink {
 public:
  explicit TraceStats(Options options = {}) : options_(options) {}

  void OnProcess(uint32_t pid, std::string_view name) override;
  void OnThread(Track t, std::string_view name) override;
  void OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnEnd(Track t, std::string_view name, uint64_t ns, std::string_view flag) override;
  void OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) override;
  void OnFlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color,
                   bool enclosed) override;
  void OnFlow(Track t, bool start, uint64_t id, uint64_t ns) override;
  void OnMetadata(std::string_view key, int64_t value) override;
  void OnMetadata(std::string_view key, std::string_view value) override;
  bool Finish() override;

  // The results, sorted by key; valid after Finish().
  const std::map<std::string, DurationStats, std::less<>>& slices() const { return slices_; }
  const std::map<std::string, DurationStats, std::less<>>& flows() const { return flows_; }
  // Chains of two or more arrows followed end to end (docs/stats.md §2):
  // key "a → b → c" (the flows' keys), duration = the last arrow's end −
  // the first arrow's start.
  const std::map<std::string, DurationStats, std::less<>>& chains() const { return chains_; }
  const std::map<std::string, CounterStats, std::less<>>& counters() const { return counters_; }
  const std::map<std::string, uint64_t, std::less<>>& instants() const { return instants_; }
  // Per track, in (pid, tid) order.
  const std::map<std::pair<uint32_t, uint32_t>, ThreadStats>& threads() const { return threads_; }
  // Per function (key: its name, "INPUT.name" in a merged trace), from
  // the metadata; those keys are not kept in metadata().
  const std::map<std::string, FunctionInstructions, std::less<>>& functions() const { return functions_; }
  // Whether function keys carry an input prefix (a merged trace).
  bool function_inputs() const { return function_inputs_; }
  // The trace's metadata as it came (the decoder's and Normalizer's
  // counts: orphan_scope_ends, open_scopes_closed, ...), in order.
  struct Metadatum {
    std::string key;
    std::string text;     // the value; an integer's decimal digits
    bool number = false;  // an integer value (a JSON report writes it as a number)
  };
  const std::vector<Metadatum>& metadata() const { return metadata_; }
  uint64_t end_ns() const { return end_ns_; }  // the newest time of any event
  // Time-weighted mean of a counter (docs/stats.md): over [first sample,
  // end_ns()]; the last value when that span is empty.
  double TimeWeightedMean(const CounterStats& c) const;

  // The key of `name` on thread `t` under options().by.
  std::string Key(Track t, std::string_view name);
  const std::string& ThreadKey(ThreadStats& th);
  const Options& options() const { return options_; }

 private:
  // A chain of arrows so far: its key, where its first arrow started.
  struct Chain {
    std::string key;
    uint64_t first_ns = 0;
    Track first_track;
    uint32_t hops = 0;  // 0: none
  };
  struct Open {
    DurationStats* stats;
    uint64_t begin;
    uint64_t children = 0;  // total duration of the direct children
    Chain chain;            // the newest chain an arrow brought into this slice
  };
  struct TrackState {
    std::vector<Open> stack;
    uint64_t last_top_end = 0;
    bool any_top = false;
  };
  struct FlowStart {
    DurationStats* stats;
    uint64_t ns;
    Track track;
    Chain chain;  // ending with this arrow
  };
  ThreadStats& Thread(Track t);
  DurationStats& Durations(std::map<std::string, DurationStats, std::less<>>& m, const std::string& key);
  void AddInstance(DurationStats& d, Track t, uint64_t ns, uint64_t dur);
  void StartFlow(Track t, uint64_t id, std::string_view name, uint64_t ns);
  void EndFlow(Track t, uint64_t id, uint64_t ns, bool attach);
  void Seen(uint64_t ns) {
    if (ns > end_ns_) end_ns_ = ns;
  }

  Options options_;
  std::map<std::string, DurationStats, std::less<>> slices_, flows_, chains_;
  std::map<std::string, CounterStats, std::less<>> counters_;
  std::map<std::string, uint64_t, std::less<>> instants_;
  std::map<std::pair<uint32_t, uint32_t>, ThreadStats> threads_;
  std::unordered_set<std::string> thread_keys_;  // the ThreadStats::key values taken
  std::map<std::pair<uint32_t, uint32_t>, TrackState> tracks_;
  std::unordered_map<uint64_t, FlowStart> open_flows_;
  // A start point written with id 0 whose arrow comes later (OnFlow): its
  // name, by (track, time), until the arrow arrives.
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, std::string> unbound_starts_;
  std::vector<Metadatum> metadata_;
  std::map<std::string, FunctionInstructions, std::less<>> functions_;
  std::map<uint32_t, std::string> process_names_;
  bool function_inputs_ = false;
  uint64_t end_ns_ = 0;
};

}  // namespace mabutrace::stats

#endif  // MABUTRACE_HOST_STATS_TRACE_STATS_H
