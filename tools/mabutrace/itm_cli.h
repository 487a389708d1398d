// SPDX-License-Identifier: MIT
// itm_cli.h: the ITM branch of `mabutrace arm packets|decode` (cmd_ete.cpp
// and cmd_ete_decode.cpp route a snapshot buffer's ITM sources here;
// cmd_itm.cpp lists them exactly as `mabutrace itm packets|decode` does).
#ifndef MABUTRACE_TOOLS_MABUTRACE_ITM_CLI_H
#define MABUTRACE_TOOLS_MABUTRACE_ITM_CLI_H

#include <cstdint>
#include <cstdio>
#include <string>

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

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_MABUTRACE_ITM_CLI_H
