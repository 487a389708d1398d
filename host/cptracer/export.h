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
// Time: STM timestamp / ts_hz in ns (ts_hz: option, else the stream's FREQ,
// else the tracer clock; a message without timestamp takes the last one).
// Metrics need the tracer clock and window (metrics.h): options, else
// clock = ts_hz and window = the timestamp distance of the first two
// statistics messages of the tracer, in tracer cycles (an estimate: it
// includes FIFO drain jitter; stated in the trace metadata).
// Everything goes through model::Normalizer. Errors: false + message.
#ifndef MABUTRACE_HOST_CPTRACER_EXPORT_H
#define MABUTRACE_HOST_CPTRACER_EXPORT_H

#include <string>
#include <vector>

#include "messages.h"
#include "trace_model.h"

namespace mabutrace::cptracer {

struct ExportOptions {
  double clock_hz = 0;          // tracer clock; 0 = ts_hz
  uint64_t window_cycles = 0;   // 0 = estimate (see above)
  double ts_hz = 0;             // STM timestamp frequency; 0 = FREQ packet / clock
};

struct ExportSummary {
  uint64_t statistics = 0, events = 0, status = 0, unknown = 0;
  double clock_hz = 0, ts_hz = 0;
  uint64_t window_cycles = 0;
  bool window_estimated = false;
};

bool ExportTimeline(const std::vector<TracerMessage>& msgs, uint64_t stream_ts_freq_hz,
                    const ExportOptions& options, model::EventSink* sink, ExportSummary* summary,
                    std::string* error);

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_EXPORT_H
