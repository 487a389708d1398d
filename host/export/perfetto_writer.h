// SPDX-License-Identifier: MIT
// perfetto_writer.h: a Perfetto protobuf trace (.pftrace) from the host
// model: the format layer's one protobuf writer (format/perfetto_writer.h:
// the layout of packets and sequences), with the host's interning policy
// (names and counter tracks by text, in maps) and a 64 KiB staging buffer.
// Memory: the intern and track tables grow with distinct names and
// threads; events are streamed.
#ifndef MABUTRACE_HOST_EXPORT_PERFETTO_WRITER_H
#define MABUTRACE_HOST_EXPORT_PERFETTO_WRITER_H

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/perfetto_writer.h"
#include "output.h"

namespace mabutrace::exporter {

// The host's policy: every table grows as needed (never full).
class HostPerfettoTables : public format::PerfettoTables {
 public:
  format::PerfettoSequence* Sequence(format::Track t) override;
  uint64_t NameIid(std::string_view name) override;
  uint64_t CounterTrack(uint32_t pid, std::string_view name, uint64_t fresh_uuid, bool* fresh) override;
  uint64_t ProcessTrack(uint32_t pid, uint64_t fresh_uuid, bool* fresh) override;

 protected:
  // One packet being encoded: room for the longest name several times over.
  std::vector<uint8_t> packet_ = std::vector<uint8_t>(8 * 1024);

 private:
  std::map<std::pair<uint32_t, uint32_t>, format::PerfettoSequence> sequences_;  // stable nodes
  // Looked up by view (no string made per event): a transparent hash.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint64_t, NameHash, std::equal_to<>> names_;
  // In front of names_: the entry last found for a name at this address
  // (producers pass the same interned text again and again). A hit still
  // compares the text, so a reused buffer cannot give a wrong iid.
  struct Recent {
    const std::string* key = nullptr;  // names_'s own (node keys do not move)
    uint64_t iid = 0;
  };
  static constexpr size_t kRecent = 64;
  Recent recent_[kRecent];
  std::map<std::pair<uint32_t, std::string>, uint64_t, std::less<>> counters_;
  std::map<uint32_t, uint64_t> processes_;
};

class PerfettoWriter final : private StagedOutput, private HostPerfettoTables, public format::PerfettoWriter {
 public:
  explicit PerfettoWriter(WriteFn write)
      : StagedOutput(std::move(write), 64 * 1024),
        format::PerfettoWriter(*this, packet_.data(), uint32_t(packet_.size()), out()) {}
};

}  // namespace mabutrace::exporter

#endif  // MABUTRACE_HOST_EXPORT_PERFETTO_WRITER_H
