// SPDX-License-Identifier: MIT
// formats.h: output formats of the CLI and the writer for each.
#ifndef MABUTRACE_TOOLS_FORMATS_H
#define MABUTRACE_TOOLS_FORMATS_H

#include <memory>
#include <optional>
#include <string>

#include "output.h"
#include "trace_model.h"

namespace mabutrace::cli {

enum class Format { kJson, kPftrace, kText, kRaw };

// "json", "pftrace", "text"/"txt", "raw"; nullopt otherwise.
std::optional<Format> ParseFormat(const std::string& s);
// From a path's extension (.json, .pftrace/.perfetto-trace, .txt, .bin/.mtrace
// → raw); nullopt when it says nothing.
std::optional<Format> FormatFromPath(const std::string& path);
// The format from --format `flag`, else from `out`'s extension, else
// `fallback`; nullopt (after a message on stderr) when none says.
std::optional<Format> PickFormat(const std::string& flag, const std::string& out,
                                 std::optional<Format> fallback = std::nullopt);
// The streaming writer of `f` (not kRaw); nullptr if not built.
std::unique_ptr<model::EventSink> MakeWriter(Format f, exporter::WriteFn write);

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_FORMATS_H
