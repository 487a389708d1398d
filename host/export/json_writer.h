// json_writer.h: Chrome trace-event JSON (object form) from the model,
// with the device exporter's conventions (src/runtime/json_exporter.cpp):
// ts in µs with 3 decimals from integer ns, UTF-8-clean escaped strings,
// integer pid/tid, thread_name/process_name M events, B/E with the same
// name, i with "s":"t", C with args {"value":N}, flows as v1 s/f with
// "bp":"e", and a "metadata" object. Streams through a 64 KiB buffer; only
// the metadata key/values are kept until Finish().
#ifndef MABUTRACE_HOST_EXPORT_JSON_WRITER_H
#define MABUTRACE_HOST_EXPORT_JSON_WRITER_H

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "output.h"
#include "trace_model.h"

namespace mabutrace { class JsonOut; }

namespace mabutrace::exporter {

class JsonWriter final : public model::EventSink {
 public:
  explicit JsonWriter(WriteFn write);
  ~JsonWriter() override;

  void OnProcess(uint32_t pid, std::string_view name) override;
  void OnThread(model::Track t, std::string_view name) override;
  void OnBegin(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnEnd(model::Track t, std::string_view name, uint64_t ns, std::string_view flag) override;
  void OnInstant(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnCounter(model::Track t, std::string_view name, uint64_t ns, int64_t value) override;
  void OnFlow(model::Track t, bool start, uint64_t id, uint64_t ns) override;
  void OnMetadata(std::string_view key, int64_t value) override;
  void OnMetadata(std::string_view key, std::string_view value) override;
  // Writes the closing brackets and the metadata; false if any write failed.
  bool Finish() override;

 private:
  void Head(model::Track t, char ph, std::string_view name, uint64_t ns);
  void Event(model::Track t, char ph, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color);
  void Ids(model::Track t);
  void Str(std::string_view s);
  void Sep();

  WriteFn write_;
  std::vector<char> buf_;
  std::unique_ptr<JsonOut> out_;
  std::string scratch_;  // NUL-terminated copy for JsonOut::String
  bool first_ = true;
  bool finished_ = false;
  // Metadata: key and already-encoded JSON value.
  std::vector<std::pair<std::string, std::string>> meta_;
};

}  // namespace mabutrace::exporter

#endif  // MABUTRACE_HOST_EXPORT_JSON_WRITER_H
