// SPDX-License-Identifier: MIT
// ptm_cli.h: the PTM branch of `mabutrace arm packets` (cmd_ete.cpp routes a
// buffer's PTM sources here; cmd_ptm.cpp lists them).
#ifndef MABUTRACE_TOOLS_MABUTRACE_PTM_CLI_H
#define MABUTRACE_TOOLS_MABUTRACE_PTM_CLI_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ptm/ptm_source.h"
#include "snapshot/snapshot.h"

namespace mabutrace::cli {

struct PtmListOptions {
  bool jsonl = false;    // JSON lines (ptm::FormatJson) instead of lister text
  bool opencsd = false;  // ErrorPolicy::kOpenCsd
  std::string source;    // only this source ("" = all)
};

// Lists the packets of the PTM sources of `buf` (text: a "# source ..." line
// per source, then OpenCSD-lister lines) to `out`; decode errors go to
// stderr as "FILE: SOURCE: byte N: ..." and are added to *errors. Returns
// the number of PTM sources listed (0: none in this buffer). *read_ok is
// cleared when the buffer file cannot be read.
size_t ListPtmPackets(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buf, const PtmListOptions& opt,
                      FILE* out, uint64_t* errors, bool* read_ok);

// The same for `sources` in one trace file (`arm packets RAW --config
// PTM.ini`; "-" = stdin) of `format`, its lines naming `buffer_name`.
void ListPtmFile(const std::string& file, const std::string& buffer_name, snapshot::BufferFormat format,
                 const std::vector<ptm::PtmSource>& sources, const PtmListOptions& opt, FILE* out, uint64_t* errors,
                 bool* read_ok);

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_MABUTRACE_PTM_CLI_H
