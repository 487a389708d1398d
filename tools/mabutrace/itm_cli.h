// SPDX-License-Identifier: MIT
// itm_cli.h: the ITM branch of `mabutrace arm packets|decode` (cmd_ete.cpp
// and cmd_ete_decode.cpp route a snapshot buffer's ITM sources here;
// cmd_itm.cpp lists them exactly as `mabutrace itm packets|decode` does).
#ifndef MABUTRACE_TOOLS_MABUTRACE_ITM_CLI_H
#define MABUTRACE_TOOLS_MABUTRACE_ITM_CLI_H

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "itm/elf_symbols.h"
#include "itm/itm_session.h"
#include "itm/itm_timeline.h"
#include "trace_model.h"

namespace CLI {
class App;
}

namespace mabutrace::cli {

struct ItmListOptions {
  bool elements = false;  // element lines (`itm decode`) instead of packet lines
  bool jsonl = false;     // JSON lines instead of lister text
  std::string source;     // only this source ("" = all)
};

// Lists the ITM sources of snapshot `dir`'s buffer `buffer` (text: a
// "# source ..." line per source, then OpenCSD-lister lines) to `out`;
// decode errors go to stderr as "FILE: SOURCE: byte N: ..." and are added
// to *errors. Returns the number of ITM sources listed (0: none in this
// buffer). *read_ok is cleared when the buffer cannot be read.
size_t ListItmSources(const std::string& dir, const std::string& buffer, const ItmListOptions& opt, FILE* out,
                      uint64_t* errors, bool* read_ok);

// The timeline options of `itm export`, which `arm export` takes too for a
// snapshot's ITM sources: --port N=KIND:NAME (repeatable), --clock-hz HZ and
// the firmware ELF (`elf_flag`: "--elf" for `itm export`, "--itm-elf" for
// `arm export`, whose --elf is the ETE one).
struct ItmTimelineCli {
  std::vector<std::string> ports;
  double clock_hz = 0;
  std::string elf;
};
void AddItmTimelineOptions(CLI::App* cmd, ItmTimelineCli* o, const char* elf_flag);

// An ITM timeline, ready to write: the options checked, the ELF read, the
// inputs opened (one code path for `itm export`, `merge` and `arm export`).
struct ItmTimelineJob {
  itm::SessionOptions session;
  itm::TimelineOptions timeline;
  std::unique_ptr<itm::ElfSymbols> elf;
  std::vector<itm::ItmInput> inputs;
  std::vector<std::string> names;  // every source, in input order
};
// Prepares `input` (a snapshot or a raw SWO file). Problems go to stderr as
// "COMMAND: ..." / "mabutrace: ..."; the exit code (kExitUsage: a bad
// --port, kExitBadInput) or kExitOk.
int PrepareItmTimeline(const std::string& input, const ItmTimelineCli& cli, const itm::SessionOptions& session,
                       const char* command, ItmTimelineJob* job);
struct ItmTimelineResult {
  bool ok = true;       // every input read whole, no decode error
  bool sink_ok = true;  // sink->Finish() succeeded
  itm::TimelineStats stats;
};
// Decodes the job's inputs onto `sink` (job->timeline says the process,
// pid and clock), calls sink->Finish() and prints the summary line
// "LABEL: N instants, ..." to stderr.
ItmTimelineResult WriteItmTimeline(ItmTimelineJob* job, model::EventSink* sink, const std::string& label);

// The kinds of timestamp an ITM job's sources start with (a decode pass):
// whether any source's first timestamp is global (its time is then the
// CoreSight global timestamp), local, or none came.
struct ItmTimestampKinds {
  uint64_t sources_global = 0, sources_local = 0, sources_none = 0;
};
ItmTimestampKinds CountItmTimestamps(const ItmTimelineJob& job);

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_MABUTRACE_ITM_CLI_H
