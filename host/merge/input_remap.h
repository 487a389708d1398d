// SPDX-License-Identifier: MIT
// input_remap.h: the second pass of `mabutrace merge`: one input's events,
// renumbered and moved onto the merged timeline, into the one output.
//
// MergeOutput owns what the inputs share: a model::Normalizer in front of
// the writer (the placement rounds to ns, so two events 1 ns apart may
// meet; the Normalizer keeps the trace_rules.h promises and counts what it
// repaired), and the process and thread numbers handed out so far.
// InputRemap, one per input and pass, maps
//   - every process of the input to a new pid (1, 2, ... in order of first
//     use), named "NAME" (or "NAME: its own name"), the old pid kept in the
//     name when the input has several;
//   - every thread to a new tid, named as it was ("thread OLD_TID" when it
//     had no name), so threads of two devices never share a track;
//   - every time t to plan.total.Apply(t);
//   - every flow id to ((input index + 1) << 48) ^ id, so arrows stay
//     inside their input (ids of the toolkit's inputs are < 2^48), except
//     that an end that kept its link (model::kUnresolvedLink, the input is
//     a --join-flows receiver) joins a sender's start through `join`
//     (flow_join.h), or is dropped and counted (unjoined());
//   - every metadata key to "NAME.key": nothing of an input's counts is
//     merged into another's.
// Memory: one map entry per process and thread.
#ifndef MABUTRACE_HOST_MERGE_INPUT_REMAP_H
#define MABUTRACE_HOST_MERGE_INPUT_REMAP_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "clock_fit.h"
#include "flow_join.h"
#include "format/trace_events.h"
#include "trace_model.h"

namespace mabutrace::merge {

class MergeOutput {
 public:
  explicit MergeOutput(format::EventSink& writer) : norm_(writer) {}
  format::EventSink& sink() { return norm_; }
  uint32_t NewPid() { return ++pids_; }
  uint32_t NewTid() { return ++tids_; }
  const model::Normalizer& normalizer() const { return norm_; }

 private:
  model::Normalizer norm_;
  uint32_t pids_ = 0, tids_ = 0;
};

class InputRemap final : public format::EventSink {
 public:
  // `join`: the senders this input receives arrows from (nullptr: none);
  // must outlive the remap.
  InputRemap(MergeOutput& out, size_t index, std::string name, const ClockLine& line, bool several_processes,
             FlowJoin* join = nullptr)
      : out_(out),
        sink_(out.sink()),
        name_(std::move(name)),
        line_(line),
        several_(several_processes),
        index_(index),
        join_(join) {}

  void OnClock(uint64_t, uint64_t) override {}  // the plan placed the input
  void OnProcess(uint32_t pid, std::string_view name) override;
  void OnThread(format::Track t, std::string_view name) override;
  void OnBegin(format::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override {
    sink_.OnBegin(Map(t), name, line_.Apply(ns), cpu, color);
  }
  void OnEnd(format::Track t, std::string_view name, uint64_t ns, std::string_view flag) override {
    sink_.OnEnd(Map(t), name, line_.Apply(ns), flag);
  }
  void OnInstant(format::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override {
    sink_.OnInstant(Map(t), name, line_.Apply(ns), cpu, color);
  }
  void OnCounter(format::Track t, std::string_view name, uint64_t ns, int64_t value) override {
    sink_.OnCounter(Map(t), name, line_.Apply(ns), value);
  }
  void OnFlowPoint(format::Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                   uint32_t color, bool enclosed) override {
    sink_.OnFlowPoint(Map(t), start, id ? MergedFlowId(index_, id) : 0, name, line_.Apply(ns), cpu, color, enclosed);
  }
  void OnFlow(format::Track t, bool start, uint64_t id, uint64_t ns) override;
  void OnMetadata(std::string_view key, int64_t value) override { sink_.OnMetadata(Key(key), value); }
  void OnMetadata(std::string_view key, std::string_view value) override { sink_.OnMetadata(Key(key), value); }
  bool Finish() override { return true; }  // the output finishes once, after every input

  uint64_t joined() const { return joined_; }
  uint64_t unjoined() const { return unjoined_; }

 private:
  uint32_t Pid(uint32_t pid, std::string_view name);
  format::Track Map(format::Track t);
  std::string Key(std::string_view key) const { return name_ + "." + std::string(key); }

  MergeOutput& out_;
  format::EventSink& sink_;
  std::string name_;
  ClockLine line_;
  bool several_;
  size_t index_;
  FlowJoin* join_;
  uint64_t joined_ = 0, unjoined_ = 0;
  std::map<uint32_t, uint32_t> pids_;
  std::map<std::pair<uint32_t, uint32_t>, format::Track> tracks_;
};

}  // namespace mabutrace::merge

#endif  // MABUTRACE_HOST_MERGE_INPUT_REMAP_H
