// SPDX-License-Identifier: MIT
// snapshot.h: reader of CoreSight "snapshot" capture directories (R-F5).
//
// A snapshot directory (the OpenCSD test format, arm-trace-facts.md §7) is
//   snapshot.ini    [snapshot] version, description; [device_list] -> device
//                   .ini files (order kept); [trace] metadata -> trace.ini
//   <device>.ini    [device] name, class (core | trace_source | ...), type
//                   (ETE, ETM4, STM, Cortex-A53, ARM-AA64 ...); [regs]
//                   NAME(annotation)=value; cores add [dumpN] memory images
//   trace.ini       [trace_buffers] buffers=a,b; [<buffer>] name, file,
//                   format; [source_buffers] source=buffer;
//                   [core_trace_sources] core=source; DS-5 adds
//                   [timestamp] frequency=HZ (the timestamp clock)
//
// Include as "snapshot/snapshot.h" (a bare "snapshot.h" collides with
// src/runtime/snapshot.h); link mabutrace_snapshot.
//
// ReadSnapshot() parses all of that (with inih) into plain structs; it does
// not read the trace or memory files, only resolves their paths. Register
// names are matched case-insensitively, everything from '(' on is ignored
// (§7.3). Values are unsigned, base auto-detected (0x.. hex, 0.. octal).
//
// Errors: every problem throws SnapshotError whose message names the file,
// the section/key and (for syntax errors) the line, e.g.
//   "snap/ETE_0_s1.ini: [regs] TRCIDR0: bad number 'zz'".
// Thread-safety: the functions are reentrant; a Snapshot is a value.
#ifndef MABUTRACE_HOST_SNAPSHOT_SNAPSHOT_H
#define MABUTRACE_HOST_SNAPSHOT_SNAPSHOT_H

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mabutrace::snapshot {

// Any error while reading a snapshot. what() = "<file>: [section] key: text".
class SnapshotError : public std::runtime_error {
 public:
  SnapshotError(std::string file, std::string key, const std::string& message);
  const std::string& file() const { return file_; }  // path of the offending file
  const std::string& key() const { return key_; }    // "[section] key" or "" (whole file)
  // The text alone, without "<file>: [section] key: ": for a caller that
  // names the file itself.
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::string key_;
  std::string message_;
};

// One memory image of a core device ([dumpN], §7.3).
struct MemoryDump {
  std::string section;         // "dump1"
  std::filesystem::path file;  // resolved against the snapshot directory
  uint64_t address = 0;        // address of the first used byte (VA)
  uint64_t offset = 0;         // file offset of the first used byte
  uint64_t length = 0;         // bytes used; 0 = from offset to end of file
  std::string space;           // memory space ("EL1N", "S", "ANY"...); "" = any
};

// One device .ini: a trace source (ETE, ETM4, STM, ITM...) or a core.
struct Device {
  std::filesystem::path ini_file;  // the .ini it came from
  std::string name;                // [device] name (referenced from trace.ini)
  std::string device_class;        // [device] class: "core", "trace_source", ...
  std::string type;                // [device] type: "ETE", "STM", "Cortex-A53"...
  // [regs]: upper-cased name without annotation -> value. Raw text of the
  // original key (with annotation) is not kept.
  std::map<std::string, uint64_t> regs;
  std::vector<MemoryDump> dumps;  // [dumpN] sections, in file order

  // Register value by name (case-insensitive), or nullopt.
  std::optional<uint64_t> Reg(std::string_view name) const;
  // Register value or `fallback` when absent.
  uint64_t RegOr(std::string_view name, uint64_t fallback) const;
  // A register the decoder cannot do without: its value, or SnapshotError
  // naming this .ini, "[regs] NAME" and why: "missing register", or the
  // value when it sets a bit outside `valid_bits` (the register's defined
  // bits, e.g. 0x7f for a 7-bit trace ID), e.g.
  //   "snap/ETM_0.ini: [regs] ETMTRACEIDR: 0x90 sets bits outside 0x7f".
  // A value out of range is refused, never masked to a valid one.
  uint32_t RequireReg(std::string_view name, uint32_t valid_bits = 0xFFFFFFFF) const;
  // A register the decoder has a default for: `fallback` when absent, else
  // checked as RequireReg checks it (a 64-bit value is not cut to 32 bits).
  uint32_t Reg32Or(std::string_view name, uint32_t fallback, uint32_t valid_bits = 0xFFFFFFFF) const;
};

// Format of a trace buffer file (§3, §7.4).
enum class BufferFormat {
  kSourceData,        // "source_data": raw single-source byte stream (TRBE style)
  kCoresight,         // "coresight": 16-byte memory-aligned formatter frames
  kDstreamCoresight,  // "dstream_coresight": frames with FSYNC patterns (TPIU)
};
const char* BufferFormatName(BufferFormat format);

struct TraceBuffer {
  std::string section;         // "buffer1"
  std::string name;            // buffer id ("ETB_1"), referenced by [source_buffers]
  std::filesystem::path file;  // resolved against the snapshot directory
  BufferFormat format = BufferFormat::kSourceData;
};

struct Snapshot {
  std::filesystem::path dir;
  std::string version;          // "1.0" or "1"
  std::string description;      // optional
  std::vector<Device> devices;  // in [device_list] order
  // Buffers named in [trace_buffers] buffers=, in the order of their
  // sections in trace.ini (the order OpenCSD uses: its lister decodes the
  // first one).
  std::vector<TraceBuffer> buffers;
  // [source_buffers] and [core_trace_sources] as (key, value) pairs in file
  // order; keys may repeat (one core with several sources).
  std::vector<std::pair<std::string, std::string>> source_buffers;  // source -> buffer name
  std::vector<std::pair<std::string, std::string>> core_sources;    // core -> source name
  // DS-5's trace.ini "[timestamp] frequency=HZ": the frequency of the
  // CoreSight timestamp the trace sources count (0: not given), and where it
  // was read ("snap/trace.ini [timestamp] frequency") for messages.
  uint64_t timestamp_frequency = 0;
  std::string timestamp_frequency_source;

  const Device* FindDevice(std::string_view name) const;
  const TraceBuffer* FindBuffer(std::string_view name) const;
  // Buffer that `source` writes into, or nullptr.
  const TraceBuffer* BufferOfSource(std::string_view source) const;
  // Trace-source devices attached to `buffer_name`, in [source_buffers] order.
  std::vector<const Device*> SourcesOfBuffer(std::string_view buffer_name) const;
  // Core device fed by trace source `source`, or nullptr.
  const Device* CoreOfSource(std::string_view source) const;
};

// Reads `dir`/snapshot.ini and everything it references. Throws SnapshotError.
Snapshot ReadSnapshot(const std::filesystem::path& dir);

// ReadSnapshot for callers that report instead of throwing: the snapshot,
// or nullopt with `*error` = the error's message (SnapshotError: file, key, why).
std::optional<Snapshot> TryReadSnapshot(const std::filesystem::path& dir, std::string* error);

// Reads one device .ini (used by ReadSnapshot; also for `--config FILE.ini`
// with a raw trace file). Throws SnapshotError.
Device ReadDeviceIni(const std::filesystem::path& ini_file);

// Whole file into memory. Throws SnapshotError naming the file.
std::vector<uint8_t> ReadBinaryFile(const std::filesystem::path& file);

// The bytes a dump maps (offset/length applied). Throws SnapshotError when the
// file is missing or shorter than offset+length.
std::vector<uint8_t> ReadDump(const MemoryDump& dump);

// Parses an unsigned integer with base auto-detection ("0x1F", "017", "12").
// Returns nullopt when `text` is not a complete number or overflows 64 bits.
std::optional<uint64_t> ParseUnsigned(std::string_view text);

}  // namespace mabutrace::snapshot

#endif  // MABUTRACE_HOST_SNAPSHOT_SNAPSHOT_H
