// SPDX-License-Identifier: MIT
// itm_timeline.h: ITM elements -> host trace model (model::EventSink), the
// SystemView / Orbuculum view of a Cortex-M (docs/itm.md).
//
// Tracks (pid options.pid, default 1, named options.process_name), per ITM
// source s (tid 3s+1..):
//   "<source> stimulus"   stimulus port writes: per channel (page << 5 |
//                         port) an instant "<NAME> 0x<value>" (default NAME
//                         "ITM port N"), a counter NAME with the value, or
//                         text: the bytes of the writes collected into lines,
//                         one instant per line ('\n' ends one); overflows
//                         as instants "ITM overflow";
//   "<source> ISR (cpu C)" exception trace: a slice per handler run, named
//                         by exception number (Reset, NMI, HardFault, ...,
//                         SysTick, IRQ<n-16>) or, with an ELF, by the handler
//                         its vector points at; entered opens, exited /
//                         returned-to close (nesting kept);
//   "<source> DWT"        data trace (comparator, PC / address / value) as
//                         instants.
// Counters: "DWT <flag> wraps" (event counter packets: CPI, EXC, SLEEP, LSU,
// FOLD, CYC; each one means 256 more events), cumulative.
// PC samples: counted per function (with an ELF, else per address) and per
// sleep; written as metadata "itm.pc_samples", "itm.pc_samples_sleep" and
// "itm.pc_samples.<function>" (the 64 most sampled).
//
// Time: ITM timestamps follow the packets they time (Armv7-M ARM D4.2.4),
// so the events since the last timestamp are spread evenly between it and
// the next one. Ticks are the local timestamp count (already x TSPrescale)
// or, when the stream has global timestamps first, the global timestamp,
// from the first one; ns = ticks x 1e9 / clock_hz, or ticks as ns when
// clock_hz is 0 (said in "itm.time_unit"). Without timestamps each event
// takes 1 ns. With TimelineOptions::global_origin, global timestamps are
// placed on a clock shared with other tracks of the sink (see there).
#ifndef MABUTRACE_HOST_ITM_ITM_TIMELINE_H
#define MABUTRACE_HOST_ITM_ITM_TIMELINE_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "itm/elf_symbols.h"
#include "itm/itm_element.h"
#include "trace_model.h"

namespace mabutrace::itm {

struct PortMapping {
  enum class Kind : uint8_t { kInstant, kCounter, kText };
  Kind kind = Kind::kInstant;
  std::string name;
};

// Parses "N=instant:NAME", "N=counter:NAME", "N=text:NAME" (NAME optional:
// "ITM port N"); N is the channel, 0-255 (decimal or 0x hex).
std::optional<std::pair<unsigned, PortMapping>> ParsePortMapping(std::string_view text, std::string* error);

// The architectural name of exception `n` (Armv7-M ARM B1.5.2).
std::string ExceptionName(unsigned n);

struct TimelineOptions {
  std::string process_name = "ITM";
  uint32_t pid = 1;                       // the process of every track (another exporter's tracks may share the sink)
  std::map<unsigned, PortMapping> ports;  // by channel
  double clock_hz = 0;                    // 0: timestamp ticks as ns
  const ElfSymbols* elf = nullptr;        // handler and function names
  // A clock shared with other trace on the same timeline (`arm export`: the
  // CoreSight global timestamp the ETM/PTM sources count too): global
  // timestamps count from this value (not from the first one) and land at
  // origin_ns + ToNs(ticks). A timestamp before it is clamped to origin_ns.
  std::optional<uint64_t> global_origin;
  uint64_t origin_ns = 0;
  std::string clock_note;  // written as "itm.clock" when not empty: which clock, and why
};

struct TimelineStats {
  uint64_t instants = 0, counters = 0, slices = 0, pc_samples = 0, timestamps = 0;
  uint64_t unmatched_exits = 0;  // exits / returns with no open handler
  uint64_t decode_errors = 0;    // OnDecodeError calls: trace the decoder could not read
  uint64_t decode_warnings = 0;  // OnDecodeWarning calls (bytes skipped before the first sync, ...)
};

class ItmTimeline {
 public:
  // `sink` must outlive the builder; one name per source (its tracks'
  // prefix). Events go through a model::Normalizer (open handlers are
  // closed at the end, flagged).
  ItmTimeline(model::EventSink* sink, TimelineOptions options, std::vector<std::string> sources);
  ItmTimeline(const ItmTimeline&) = delete;
  ItmTimeline& operator=(const ItmTimeline&) = delete;

  void OnElement(size_t source, const ItmElement& e);
  // The decoder's errors and warnings (already said on stderr by the
  // caller): counted, and the first of each kept, for the metadata
  // ("itm.decode_errors" / "itm.decode_error", "itm.decode_warnings" /
  // "itm.decode_warning"), so the file says it holds less than the trace.
  void OnDecodeError(const std::string& message);
  void OnDecodeWarning(const std::string& message);
  // Places what is pending, writes the metadata, calls sink->Finish().
  bool Finish();
  const TimelineStats& stats() const { return stats_; }

 private:
  struct Source {
    std::string name;
    std::vector<ItmElement> pending;
    std::vector<uint16_t> isr_stack;  // open exception numbers
    std::vector<std::string> isr_names;
    std::map<unsigned, std::string> text;  // text channels: the line so far
    uint64_t cursor = 0;                   // ns of the last placed event
    bool ts_seen = false;
    bool global = false;  // which timestamps give the time
    uint64_t ts_origin = 0;
    uint64_t ticks_ns_base = 0;  // ns of ts_origin (TimelineOptions::origin_ns when shared)
    uint64_t last_local = 0;     // the local count of the last timestamp
    uint64_t ticks = 0;          // ticks since the first timestamp
    uint64_t event_wraps[6] = {};
  };
  void Place(size_t s, uint64_t until_ns);
  void Emit(size_t s, const ItmElement& e, uint64_t ns);
  uint64_t ToNs(uint64_t ticks) const;
  std::string HandlerName(unsigned n) const;

  model::Normalizer norm_;  // what the sink is fed through
  TimelineOptions options_;
  std::vector<Source> sources_;
  std::map<std::string, uint64_t> pc_counts_;
  uint64_t pc_sleep_ = 0;
  TimelineStats stats_;
  std::string first_error_, first_warning_;
};

}  // namespace mabutrace::itm

#endif  // MABUTRACE_HOST_ITM_ITM_TIMELINE_H
