// SPDX-License-Identifier: MIT
// json_exporter.cpp: the ring buffer as Chrome trace-event JSON (R-C1),
// streamed through the export workspace's staging buffer while writers
// keep writing. The walk and its rules are trace_walker.h's; the format is
// the format layer's one JSON writer (format/chrome_json_writer.h), the
// same that `mabutrace convert` uses on a host.
#include "../format/trace_events.h"
#if MABUTRACE_FORMAT_WRITERS  // C++17: see trace_events.h

#include <new>

#include "../format/chrome_json_writer.h"
#include "mabutrace/mabutrace.h"
#include "trace_walker.h"

extern "C" int mabutrace_export_json(mabutrace_write_fn write, void* user) {
  using namespace mabutrace;
  if (!write) return MABUTRACE_ERR_INVALID_ARG;
  Runtime* rt = BeginExport();
  if (!rt) return MABUTRACE_ERR_NOT_INITIALIZED;
  ExportWorkspace& ws = *rt->workspace;
  JsonOut out(ws.out, ws.out_cap, write, user);
  // Names are static (mabutrace.h): the writer keeps what it learns of
  // each by address, in the Perfetto export's intern table, which a JSON
  // export does not use (exports run one at a time).
  using NameEntry = format::JsonNameMemo::Entry;
  static_assert(sizeof(NameEntry) <= sizeof(InternEntry) && alignof(NameEntry) <= alignof(InternEntry),
                "a name entry fits an intern entry's storage");
  for (uint32_t i = 0; i < ws.intern_cap; ++i) new (&ws.interned[i]) NameEntry{nullptr, 0, 0};
  NameEntry* names = std::launder(reinterpret_cast<NameEntry*>(ws.interned));
  format::ChromeJsonWriter writer(out, format::JsonNameMemo{names, ws.intern_cap});
  const bool ok = ExportTrace(*rt, writer, out);
  EndExport(rt);
  return ok ? MABUTRACE_OK : MABUTRACE_ERR_IO;
}

#endif  // MABUTRACE_FORMAT_WRITERS
