// SPDX-License-Identifier: MIT
// ete_timeline.cpp: elements -> model::EventSink (R-F6).
#include "ete_timeline.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "ete/ete_packet_text.h"
#include "function_slices.h"

namespace mabutrace::ete_decode {

namespace {
constexpr uint32_t kPid = 1;
constexpr uint32_t kColorRange = 0x1000000 | 0x4a90d9;
constexpr uint32_t kColorException = 0x1000000 | 0xd0021b;
constexpr uint32_t kColorInfo = 0x1000000 | 0x7ed321;
}  // namespace

const char* TimeBaseName(TimeBase base) {
  switch (base) {
    case TimeBase::kTimestamp: return "timestamp";
    case TimeBase::kCycleCount: return "cycle_count";
    case TimeBase::kElementOrder: return "element_order";
  }
  return "";
}

TimelineBuilder::TimelineBuilder(model::EventSink* sink, std::string process_name, std::vector<std::string> track_names,
                                 TimeBase base, TimelineOptions options)
    : sink_(sink), base_(base), options_(std::move(options)), tracks_(track_names.size()) {
  if (!track_names.empty()) sink_->OnProcess(kPid, process_name);
  for (size_t i = 0; i < track_names.size(); ++i)
    sink_->OnThread(model::Track{kPid, static_cast<uint32_t>(i + 1)}, track_names[i]);
}

void TimelineBuilder::Advance(TrackState& t, uint64_t to) {
  if (to < t.cursor) {
    ++clamped_;
    return;
  }
  t.cursor = to;
}

void TimelineBuilder::OnElement(size_t source, const EteElement& e) {
  if (source >= tracks_.size()) return;
  TrackState& t = tracks_[source];
  const model::Track track{kPid, static_cast<uint32_t>(source + 1)};
  char buf[96];
  switch (e.type) {
    case ElemType::kTimestamp:
      if (base_ == TimeBase::kTimestamp && e.timestamp) {
        if (!t.ts_seen) {
          t.ts_seen = true;
          t.ts_origin = e.timestamp;
          t.ts_origin_ns = t.cursor;
        }
        const uint64_t ticks = e.timestamp >= t.ts_origin ? e.timestamp - t.ts_origin : 0;
        Advance(t, t.ts_origin_ns +
                       (options_.timestamp_hz > 0
                            ? static_cast<uint64_t>(static_cast<double>(ticks) * 1e9 / options_.timestamp_hz + 0.5)
                            : ticks));
      }
      return;
    case ElemType::kCycleCount:
      if (base_ == TimeBase::kCycleCount) t.cursor += e.cycle_count;
      return;
    case ElemType::kInstrRange:
    case ElemType::kInstrRangeNoPath:
      if (options_.functions) {
        options_.functions->OnRange(sink_, track, static_cast<uint32_t>(source), e, t.cursor, t.cursor + 1);
        t.cursor += 1;
        ++slices_;
        return;
      }
      std::snprintf(buf, sizeof buf, "0x%" PRIx64, e.start);
      sink_->OnBegin(track, buf, t.cursor, static_cast<uint32_t>(source), kColorRange);
      sink_->OnEnd(track, buf, t.cursor + 1, "");
      t.cursor += 1;
      ++slices_;
      return;
    case ElemType::kException: {
      if (options_.functions) options_.functions->OnException(sink_, track, static_cast<uint32_t>(source), e, t.cursor);
      const int n = std::snprintf(buf, sizeof buf, "exception 0x%02x %s", e.exception_number,
                                  ete::ExceptionTypeName(e.exception_number));
      if (e.exception_has_addr && n > 0 && static_cast<size_t>(n) < sizeof buf)
        std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), " ret 0x%" PRIx64, e.end);
      sink_->OnInstant(track, buf, t.cursor, static_cast<uint32_t>(source), kColorException);
      break;
    }
    case ElemType::kExceptionRet:
      sink_->OnInstant(track, "exception return", t.cursor, static_cast<uint32_t>(source), kColorException);
      break;
    case ElemType::kAddrNacc:
      std::snprintf(buf, sizeof buf, "address not accessible 0x%" PRIx64, e.start);
      sink_->OnInstant(track, buf, t.cursor, static_cast<uint32_t>(source), kColorInfo);
      break;
    case ElemType::kInstrLimit:
      std::snprintf(buf, sizeof buf, "walk limit from 0x%" PRIx64, e.start);
      sink_->OnInstant(track, buf, t.cursor, static_cast<uint32_t>(source), kColorInfo);
      break;
    case ElemType::kTraceOn:
      if (options_.functions) options_.functions->OnDiscontinuity(sink_, track, t.cursor);
      sink_->OnInstant(track, "trace on", t.cursor, static_cast<uint32_t>(source), kColorInfo);
      break;
    case ElemType::kNoSync:
      if (options_.functions) options_.functions->OnDiscontinuity(sink_, track, t.cursor);
      sink_->OnInstant(track, "no sync", t.cursor, static_cast<uint32_t>(source), kColorInfo);
      break;
    default: return;
  }
  ++instants_;
}

bool TimelineBuilder::TimestampOrigin(uint64_t* ticks, uint64_t* ns) const {
  if (base_ != TimeBase::kTimestamp) return false;
  for (const TrackState& t : tracks_) {
    if (!t.ts_seen) continue;
    *ticks = t.ts_origin;
    *ns = t.ts_origin_ns;
    return true;
  }
  return false;
}

bool TimelineBuilder::Finish() {
  sink_->OnMetadata("ete.time_base", TimeBaseName(base_));
  std::string unit = base_ == TimeBase::kCycleCount ? "cycles (as ns)" : "one ns per executed range";
  if (base_ == TimeBase::kTimestamp) {
    if (options_.timestamp_hz > 0) {
      char hz[48];
      std::snprintf(hz, sizeof hz, "%.0f", options_.timestamp_hz);
      unit = std::string("ns (timestamp at ") + hz + " Hz from " + options_.timestamp_hz_source + ")";
    } else {
      unit = "timestamp ticks (as ns), from the first timestamp";
    }
    for (const TrackState& t : tracks_) {
      if (!t.ts_seen) continue;
      // As text: a 64-bit counter may not fit a signed value.
      sink_->OnMetadata("ete.timestamp_origin", std::to_string(t.ts_origin));
      sink_->OnMetadata("ete.timestamp_origin_ns", static_cast<int64_t>(t.ts_origin_ns));
      sink_->OnMetadata("ete.timestamp_hz", static_cast<int64_t>(std::llround(options_.timestamp_hz)));
      break;
    }
  }
  sink_->OnMetadata("ete.time_unit", unit);
  sink_->OnMetadata("ete.slices", options_.functions ? "functions" : "ranges");
  if (options_.functions) options_.functions->WriteMetadata(sink_);
  sink_->OnMetadata("ete.range_slices", static_cast<int64_t>(slices_));
  sink_->OnMetadata("ete.instants", static_cast<int64_t>(instants_));
  sink_->OnMetadata("ete.clamped_times", static_cast<int64_t>(clamped_));
  return sink_->Finish();
}

}  // namespace mabutrace::ete_decode
