// trace_model.h: the streaming host trace model (R-E1).
//
// Every decoder feeds an EventSink and every exporter implements one, so a
// decoder and a writer are joined without holding the trace in memory.
// Times are ns since the trace origin (uint64). A Track names where an
// event goes: a thread (pid, tid). Counters live on their thread's process
// and are keyed by name. Flows join two points by a 64-bit id.
//
// Writers may assume the walker's rules (src/runtime/trace_walker.h): per
// track, B/E balanced with the same name, an end after its begin, times
// never backwards, flow ends only after their start was passed on. Inputs
// that do not guarantee them (a stream captured mid-scope, say) go through
// Normalizer first, which enforces them.
#ifndef MABUTRACE_HOST_MODEL_TRACE_MODEL_H
#define MABUTRACE_HOST_MODEL_TRACE_MODEL_H

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace mabutrace::model {

struct Track {
  uint32_t pid = 0;
  uint32_t tid = 0;
  bool operator==(const Track&) const = default;
};

// The sink. string_views are valid only during the call. colors are
// 0x1000000 | 0xRRGGBB when set, else 0.
class EventSink {
 public:
  virtual ~EventSink() = default;
  // Before any event of the process / thread.
  virtual void OnProcess(uint32_t pid, std::string_view name) = 0;
  virtual void OnThread(Track t, std::string_view name) = 0;
  virtual void OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) = 0;
  // `flag` is empty for a recorded end, else why the end was synthesized
  // (e.g. "open_at_end").
  virtual void OnEnd(Track t, std::string_view name, uint64_t ns, std::string_view flag) = 0;
  virtual void OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) = 0;
  virtual void OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) = 0;
  // One end of arrow `id` (never 0), bound to the slice open on `t` at `ns`.
  virtual void OnFlow(Track t, bool start, uint64_t id, uint64_t ns) = 0;
  // A key/value of the trace's metadata (statistics, clock, ...).
  virtual void OnMetadata(std::string_view key, int64_t value) = 0;
  virtual void OnMetadata(std::string_view key, std::string_view value) = 0;
  // The trace ended: write trailers and flush. Returns false if writing failed.
  virtual bool Finish() = 0;
};

// Enforces the walker's rules on any input, then forwards to `out`:
// - an end with no open begin on its track is dropped (orphan_ends);
// - an end takes the name of its begin and lands >= begin + 1 ns;
// - a track's times never go backwards (clamped up);
// - a flow end whose start was not passed on is dropped;
// - a flow point with no slice open gets a 1 ns carrier slice;
// - Finish() closes open slices at the last time seen (flag "open_at_end")
//   and adds the repair counts as metadata.
// Threads not announced with OnThread are announced on first use.
class Normalizer final : public EventSink {
 public:
  explicit Normalizer(EventSink& out) : out_(out) {}

  // A flow point as recorded (TRACE_FLOW_OUT/IN): `name` may be empty; with
  // a slice open a named point becomes an instant. `id` 0 writes only the
  // point; its arrow end may follow later through OnFlow (end).
  void FlowPoint(Track t, bool start, uint64_t id, std::string_view name, uint64_t ns,
                 uint32_t cpu, uint32_t color);

  void OnProcess(uint32_t pid, std::string_view name) override;
  void OnThread(Track t, std::string_view name) override;
  void OnBegin(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnEnd(Track t, std::string_view name, uint64_t ns, std::string_view flag) override;
  void OnInstant(Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnCounter(Track t, std::string_view name, uint64_t ns, int64_t value) override;
  void OnFlow(Track t, bool start, uint64_t id, uint64_t ns) override;
  void OnMetadata(std::string_view key, int64_t value) override { out_.OnMetadata(key, value); }
  void OnMetadata(std::string_view key, std::string_view value) override {
    out_.OnMetadata(key, value);
  }
  bool Finish() override;

  uint64_t orphan_ends() const { return orphan_ends_; }
  uint64_t open_closed() const { return open_closed_; }
  uint64_t flow_ends_dropped() const { return flow_ends_dropped_; }

 private:
  struct ThreadState {
    Track track;
    std::vector<std::string> stack;  // open slice names
    std::vector<uint64_t> begins;    // their begin times
    uint64_t last = 0;               // newest time written
  };
  ThreadState& State(Track t);
  uint64_t Clamp(ThreadState& s, uint64_t ns);

  EventSink& out_;
  std::unordered_set<uint32_t> processes_;
  std::map<std::pair<uint32_t, uint32_t>, ThreadState> threads_;
  std::unordered_set<uint64_t> flow_starts_;
  uint64_t max_ns_ = 0;
  uint64_t orphan_ends_ = 0, open_closed_ = 0, flow_ends_dropped_ = 0;
};

}  // namespace mabutrace::model

#endif  // MABUTRACE_HOST_MODEL_TRACE_MODEL_H
