// SPDX-License-Identifier: MIT
// text_writer.h: a human-readable listing of the model, one event per line:
//   <seconds.nanoseconds> <pid>/<tid> <kind> <name> [details]
// e.g. "     0.001234567 4242/4243 B    parse cpu=1". Streams; keeps nothing.
#ifndef MABUTRACE_HOST_EXPORT_TEXT_WRITER_H
#define MABUTRACE_HOST_EXPORT_TEXT_WRITER_H

#include <string>

#include "output.h"
#include "trace_model.h"

namespace mabutrace::exporter {

class TextWriter final : public model::EventSink {
 public:
  explicit TextWriter(WriteFn write) : write_(std::move(write)) {}

  void OnProcess(uint32_t pid, std::string_view name) override;
  void OnThread(model::Track t, std::string_view name) override;
  void OnBegin(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnEnd(model::Track t, std::string_view name, uint64_t ns, std::string_view flag) override;
  void OnInstant(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnCounter(model::Track t, std::string_view name, uint64_t ns, int64_t value) override;
  void OnFlowPoint(model::Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                   uint32_t color, bool enclosed) override;
  void OnFlow(model::Track t, bool start, uint64_t id, uint64_t ns) override;
  void OnMetadata(std::string_view key, int64_t value) override;
  void OnMetadata(std::string_view key, std::string_view value) override;
  bool Finish() override { return ok_; }

 private:
  // Starts a line "<time> <pid>/<tid> <kind> " in line_.
  void Head(uint64_t ns, model::Track t, const char* kind);
  void Emit();  // appends '\n' and writes line_

  WriteFn write_;
  std::string line_;
  bool ok_ = true;
};

}  // namespace mabutrace::exporter

#endif  // MABUTRACE_HOST_EXPORT_TEXT_WRITER_H
