// SPDX-License-Identifier: MIT
// recorder.h: an EventSink that writes every call as one line (all its
// arguments), for comparing what two paths delivered.
#ifndef MABUTRACE_TESTS_HOST_IMPORT_RECORDER_H
#define MABUTRACE_TESTS_HOST_IMPORT_RECORDER_H

#include <string>
#include <vector>

#include "format/trace_events.h"

namespace mabutrace::test {

class Recorder final : public format::EventSink {
 public:
  std::vector<std::string> lines;
  void OnClock(uint64_t mono, uint64_t boot) override { Add("clock " + N(mono) + " " + N(boot)); }
  void OnProcess(uint32_t pid, std::string_view name) override { Add("P " + N(pid) + " " + S(name)); }
  void OnThread(format::Track t, std::string_view name) override { Add("T " + Tr(t) + " " + S(name)); }
  void OnBegin(format::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override {
    Add("B " + Tr(t) + " " + S(name) + " " + N(ns) + " cpu" + N(cpu) + " c" + N(color));
  }
  void OnEnd(format::Track t, std::string_view name, uint64_t ns, std::string_view flag) override {
    Add("E " + Tr(t) + " " + S(name) + " " + N(ns) + " " + S(flag));
  }
  void OnInstant(format::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override {
    Add("I " + Tr(t) + " " + S(name) + " " + N(ns) + " cpu" + N(cpu) + " c" + N(color));
  }
  void OnCounter(format::Track t, std::string_view name, uint64_t ns, int64_t v) override {
    Add("C " + Tr(t) + " " + S(name) + " " + N(ns) + " " + std::to_string(v));
  }
  void OnFlowPoint(format::Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                   uint32_t color, bool enclosed) override {
    Add(std::string(start ? "p> " : "p< ") + Tr(t) + " " + S(name) + " id" + N(id) + " " + N(ns) + " cpu" + N(cpu) +
        " c" + N(color) + (enclosed ? " in" : " out"));
  }
  void OnFlow(format::Track t, bool start, uint64_t id, uint64_t ns) override {
    Add(std::string(start ? "s " : "f ") + Tr(t) + " id" + N(id) + " " + N(ns));
  }
  void OnMetadata(std::string_view k, int64_t v) override { Add("M " + S(k) + " " + std::to_string(v)); }
  void OnMetadata(std::string_view k, std::string_view v) override { Add("M " + S(k) + " '" + S(v) + "'"); }
  bool Finish() override {
    Add("finish");
    return true;
  }

 private:
  void Add(std::string s) { lines.push_back(std::move(s)); }
  static std::string N(uint64_t v) { return std::to_string(v); }
  static std::string S(std::string_view s) { return std::string(s); }
  static std::string Tr(format::Track t) { return N(t.pid) + "/" + N(t.tid); }
};

}  // namespace mabutrace::test

#endif  // MABUTRACE_TESTS_HOST_IMPORT_RECORDER_H
