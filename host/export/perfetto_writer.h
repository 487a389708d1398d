// perfetto_writer.h: Perfetto protobuf (.pftrace) from the model, with the
// device exporter's layout (src/runtime/perfetto_exporter.cpp and
// perfetto_sequence.h): sequence 1 holds the track descriptors and the
// metadata with absolute timestamps; each thread's events go on a sequence
// of their own with delta timestamps and the thread's track as the default.
// Event names and color strings are interned per sequence on first use, in
// the packet that uses them; annotation names in each sequence's clearing
// packet. Tracks: a process track per pid, a thread track per thread (child
// of its process), a counter track per (process, counter name), all with
// small uuids numbered in order of appearance. SLICE_BEGIN/SLICE_END (END
// unnamed: closes the innermost slice), INSTANT, COUNTER (exact int64); a
// flow end is an INSTANT named "flow" carrying flow_ids /
// terminating_flow_ids (fixed64) inside the enclosing slice. Metadata
// becomes the debug annotations of a final INSTANT "mabutrace metadata" on
// the first process track. Streams packet by packet; keeps only the intern
// and track tables.
#ifndef MABUTRACE_HOST_EXPORT_PERFETTO_WRITER_H
#define MABUTRACE_HOST_EXPORT_PERFETTO_WRITER_H

#include <map>
#include <memory>
#include <set>
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
  // A thread's track and its packet sequence.
  struct ThreadTrack {
    uint64_t uuid = 0;
    uint32_t sequence = 0;
    uint64_t last_ns = 0;             // the sequence's incremental clock
    std::set<uint64_t> sent_names;    // event-name iids interned on it
    std::set<uint64_t> sent_colors;   // color-string iids interned on it
  };

  void GlobalPacket(uint64_t ns);
  uint64_t ProcessUuid(uint32_t pid);
  ThreadTrack& Thread(model::Track t, std::string_view name = {});
  // Starts a packet on th's sequence with a TrackEvent, named `name` when
  // `named`; interns the name and `color` as needed. Returns the open
  // TrackEvent.
  uint32_t EventPacket(ThreadTrack& th, uint64_t ns, bool named, std::string_view name,
                       uint32_t color);
  void ThreadEvent(model::Track t, uint32_t type, std::string_view name, uint64_t ns, uint32_t cpu,
                   uint32_t color);
  void Annotations(uint32_t cpu, uint32_t color, uint64_t color_iid);
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
  uint64_t next_uuid_ = 1;
  uint32_t next_sequence_ = 2;
  std::map<uint32_t, uint64_t> processes_;
  std::map<std::pair<uint32_t, uint32_t>, ThreadTrack> threads_;
  std::unordered_map<std::string, uint64_t> iids_;
  std::unordered_map<uint32_t, uint64_t> color_iids_;
  uint64_t color_iid_ = 0;  // of the event being written
  std::map<std::pair<uint32_t, std::string>, uint64_t> counters_;
  std::vector<std::pair<std::string, std::string>> meta_str_;
  std::vector<std::pair<std::string, int64_t>> meta_int_;
};

}  // namespace mabutrace::exporter

#endif  // MABUTRACE_HOST_EXPORT_PERFETTO_WRITER_H
