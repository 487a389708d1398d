// perfetto_writer.h: Perfetto protobuf (.pftrace) from the model, with the
// device exporter's layout (src/runtime/perfetto_exporter.cpp): one packet
// sequence (id 1) whose first packet clears the incremental state; event
// names interned on first use in the packet that uses them; a process
// track, a thread track per thread (child of its process), a counter track
// per (process, counter name); SLICE_BEGIN/SLICE_END (END unnamed: closes
// the innermost slice), INSTANT, COUNTER (exact int64); a flow end is an
// INSTANT named "flow" carrying flow_ids / terminating_flow_ids (fixed64)
// inside the enclosing slice. Metadata becomes the debug annotations of a
// final INSTANT "mabutrace metadata" on the first process track.
// Streams packet by packet; keeps only the intern and track tables.
#ifndef MABUTRACE_HOST_EXPORT_PERFETTO_WRITER_H
#define MABUTRACE_HOST_EXPORT_PERFETTO_WRITER_H

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "output.h"
#include "trace_model.h"

namespace mabutrace { class ProtoOut; }

namespace mabutrace::exporter {

class PerfettoWriter final : public model::EventSink {
 public:
  explicit PerfettoWriter(WriteFn write);
  ~PerfettoWriter() override;

  void OnProcess(uint32_t pid, std::string_view name) override;
  void OnThread(model::Track t, std::string_view name) override;
  void OnBegin(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnEnd(model::Track t, std::string_view name, uint64_t ns, std::string_view flag) override;
  void OnInstant(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) override;
  void OnCounter(model::Track t, std::string_view name, uint64_t ns, int64_t value) override;
  void OnFlow(model::Track t, bool start, uint64_t id, uint64_t ns) override;
  void OnMetadata(std::string_view key, int64_t value) override;
  void OnMetadata(std::string_view key, std::string_view value) override;
  bool Finish() override;

 private:
  void Packet(uint64_t ns, bool uses_state);
  uint32_t EventPacket(uint64_t ns, std::string_view name);  // returns the open TrackEvent
  void ThreadEvent(model::Track t, uint32_t type, std::string_view name, uint64_t ns, uint32_t cpu,
                   uint32_t color);
  void Annotations(uint32_t cpu, uint32_t color);
  void Name(uint32_t field, std::string_view s);
  void Emit();
  void Put(const void* data, size_t n);

  WriteFn write_;
  std::vector<uint8_t> buf_;
  std::unique_ptr<ProtoOut> p_;
  std::string pending_;  // output staging, flushed at 64 KiB
  bool ok_ = true;
  bool started_ = false;
  uint64_t last_ns_ = 0;
  uint64_t packets_dropped_ = 0;
  uint64_t first_process_ = 0;
  std::unordered_map<std::string, uint64_t> iids_;
  std::map<std::pair<uint32_t, std::string>, uint64_t> counters_;
  std::vector<std::pair<std::string, std::string>> meta_str_;
  std::vector<std::pair<std::string, int64_t>> meta_int_;
};

}  // namespace mabutrace::exporter

#endif  // MABUTRACE_HOST_EXPORT_PERFETTO_WRITER_H
