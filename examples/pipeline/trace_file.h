// SPDX-License-Identifier: MIT
// trace_file.h: the final trace, streamed from the ring buffer to a file.
#ifndef PIPELINE_TRACE_FILE_H
#define PIPELINE_TRACE_FILE_H

#include <stdint.h>

#include <string>

// The two trace formats the demo writes.
enum class TraceFormat { kJson, kPerfetto };

// Writes dir/trace.json (mabutrace_export_json) or dir/trace.pftrace
// (mabutrace_export_perfetto), creating dir. On success returns true and
// sets *path and *bytes; else sets *error.
bool WriteTraceFile(const std::string& dir, TraceFormat format, std::string* path, uint64_t* bytes, std::string* error);

#endif  // PIPELINE_TRACE_FILE_H
