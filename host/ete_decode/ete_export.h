// SPDX-License-Identifier: MIT
// ete_export.h: a snapshot's ETE trace -> the host trace model (R-F6), for
// `mabutrace ete export SNAPSHOT_DIR -o OUT.json|OUT.pftrace`; the ETE
// counterpart of cptracer/export.h.
//
//   snapshot ──decode pass 1──► TimeSources ──► time base (ete_timeline.h)
//            ──decode pass 2──► TimelineBuilder ──► model::Normalizer ──► sink
//
// Every buffer of the snapshot with an ETE source is decoded twice (a
// writer needs time-ordered input, so the time base is chosen before
// writing). Tracks: process 1 "ETE <snapshot directory name>", one thread
// per trace source in buffer order, named "<core> (<source>)" ("cpu_0
// (ETE_0_s1)"), or the source's name when it feeds no core. Metadata:
// "source" = source_label, then TimelineBuilder's "ete.*" keys.
//
// Errors: the decode errors of the second pass go to on_error (optional)
// with their buffer and source index (SIZE_MAX: the buffer itself, e.g.
// framing or a file that cannot be read); they are counted and the export
// goes on. sink->Finish() is called once, at the end.
#ifndef MABUTRACE_HOST_ETE_DECODE_ETE_EXPORT_H
#define MABUTRACE_HOST_ETE_DECODE_ETE_EXPORT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ete_decode_session.h"
#include "ete_timeline.h"
#include "trace_model.h"

namespace mabutrace::ete_decode {

struct ExportSummary {
  TimeBase base = TimeBase::kElementOrder;
  uint64_t range_slices = 0;   // one per executed range
  uint64_t decode_errors = 0;  // reported through on_error
  bool read_ok = true;         // every buffer file was read whole
  bool write_ok = true;        // sink->Finish() succeeded
};

using ExportErrorCallback = void (*)(void* ctx, const DecodeBuffer& buffer, size_t source, const std::string& message);

ExportSummary ExportTimeline(const LoadedSnapshot& snap, std::string_view source_label, model::EventSink* sink,
                             ExportErrorCallback on_error = nullptr, void* ctx = nullptr);

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_ETE_EXPORT_H
