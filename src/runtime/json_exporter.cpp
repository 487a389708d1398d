// SPDX-License-Identifier: MIT
// json_exporter.cpp: the ring buffer as Chrome trace-event JSON (R-C1),
// streamed through the export workspace's staging buffer while writers
// keep writing. The walk and its rules are trace_walker.h's; the format is
// the format layer's one JSON writer (format/chrome_json_writer.h), the
// same that `mabutrace convert` uses on a host.
#include "../format/trace_events.h"
#if MABUTRACE_FORMAT_WRITERS  // C++17: see trace_events.h

#include "../format/chrome_json_writer.h"
#include "mabutrace/mabutrace.h"
#include "trace_walker.h"

extern "C" int mabutrace_export_json(mabutrace_write_fn write, void* user) {
  using namespace mabutrace;
  if (!write) return MABUTRACE_ERR_INVALID_ARG;
  Runtime* rt = BeginExport();
  if (!rt) return MABUTRACE_ERR_NOT_INITIALIZED;
  JsonOut out(rt->workspace->out, rt->workspace->out_cap, write, user);
  format::ChromeJsonWriter writer(out);
  const bool ok = ExportTrace(*rt, writer, out);
  EndExport(rt);
  return ok ? MABUTRACE_OK : MABUTRACE_ERR_IO;
}

#endif  // MABUTRACE_FORMAT_WRITERS
