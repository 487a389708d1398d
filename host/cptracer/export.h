// SPDX-License-Identifier: MIT
// export.h: CP_Tracer messages -> the host trace model (R-I5), for
// `mabutrace cptracer export CAPTURE -o OUT.json|OUT.pftrace`.
//
// Tracks (host/model/trace_model.h):
//  - one process per tracer, "CP_Tracer <id>" (pid 1000 + id; id = SID or
//    STM channel, messages.h), with counters at each statistics message:
//    bandwidth_bytes_per_s, bandwidth1_bytes_per_s, transactions_per_s,
//    contention_milli_percent (contention % x 1000), min_avg_latency_ns
//    (only when grants > 0), and status messages as instants on its
//    thread "messages";
//  - process 1 "Bus masters", one thread per MID (tid = MID + 1,
//    "master 0xNN"), an instant per event message named e.g.
//    "B write tracer 3 addr 0x1f4 xid 2" (+ " OVERFLOW" when O = 1).
//  - with link_window_ns: a transaction seen by several tracers
//    (transaction_links.h) is drawn tracer to tracer: each linked event
//    message is also a flow point on its tracer's thread "transactions"
//    (named like the master's instant, "master 0xNN" for "tracer N"), an
//    arrow from each sighting to the next; ambiguous matches are counted
//    (metadata cptracer.transaction_links / _ambiguous), not drawn.
// Time: STM timestamp / ts_hz in ns; a message without timestamp takes the
// last one. The clocks and the window follow capture_metrics.h's rule (the
// metadata says whether the window was estimated); without a window the
// counters are left out.
// Without any timestamp frequency (no FREQ packet, no ts_hz, no clock_hz)
// the export fails, unless ExportOptions::ticks_without_freq: then times
// are the STM timestamp ticks written as ns (1 tick = 1 ns; `merge
// --clock-hz NAME=HZ` scales them), said in the metadata
// (cptracer.clock = "ticks: no timestamp frequency") and in
// ExportSummary::ticks_as_ns.
// Everything goes through model::Normalizer. Errors (false + message): no
// timestamp frequency at all (see above), a window_s that does not fit,
// the sink failing.
#ifndef MABUTRACE_HOST_CPTRACER_EXPORT_H
#define MABUTRACE_HOST_CPTRACER_EXPORT_H

#include <string>
#include <vector>

#include "capture_metrics.h"
#include "messages.h"
#include "trace_model.h"

namespace mabutrace::cptracer {

struct ExportSummary {
  uint64_t statistics = 0, events = 0, status = 0, unknown = 0;  // messages
  uint64_t transaction_links = 0, transaction_links_ambiguous = 0;
  bool ticks_as_ns = false;  // no timestamp frequency: times are ticks (see above)
  Timing timing;
};

struct ExportOptions {
  uint64_t link_window_ns = 0;      // 0: no transaction links
  bool ticks_without_freq = false;  // no frequency: ticks as ns, not an error
  // What the capture reader said (DecodeTracerCapture's warnings: a cut
  // frame, bytes that never synchronised): counted in the metadata
  // (cptracer.capture_problems) with the first one (cptracer.capture_error),
  // so the file itself says it holds less than the capture did.
  std::vector<std::string> capture_problems;
};

bool ExportTimeline(const std::vector<TracerMessage>& msgs, uint64_t stream_ts_freq_hz, const TimingOptions& options,
                    model::EventSink* sink, ExportSummary* summary, std::string* error,
                    const ExportOptions& export_options = {});

// "N statistics, N event, N status, N unknown messages; window N cycles
// (estimated) at F Hz", for the command's report.
std::string ExportSummaryText(const ExportSummary& s);

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_EXPORT_H
