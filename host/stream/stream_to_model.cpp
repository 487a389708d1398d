// SPDX-License-Identifier: MIT
// stream_to_model.cpp: see stream_to_model.h.
#include "stream_to_model.h"

#include <string>

#include "format/trace_vocabulary.h"

namespace mabutrace::host {

StreamToModel::StreamToModel(model::EventSink& out, bool keep_unresolved_links)
    : norm_(out), dec_([this](const Event& e) { OnEvent(e); }), keep_unresolved_links_(keep_unresolved_links) {}

uint32_t StreamToModel::Resolve(uint16_t link, uint32_t newest, bool* ambiguous) {
  *ambiguous = false;
  auto it = outs_.find(link);
  if (it == outs_.end()) return 0;
  Out* best = nullptr;
  for (Out& o : it->second) {
    if (o.flow && o.flow <= newest && (!best || o.flow > best->flow)) best = &o;
  }
  // The newest fitting out already has its end: this end's own out has
  // not been read yet (another thread's chunk comes later); it is bound
  // when it arrives (BindPending). Taking `best` would draw an arrow from a
  // flow one link cycle older.
  if (!best || best->ended) return 0;
  for (Out& o : it->second) {
    // Only the out one link cycle before the best fits too: an older one
    // whose end was never seen (lost, or the capture started after it) is
    // not a candidate any more (the runtime's promise, runtime.md §6).
    if (o.flow && o.flow < best->flow && !o.ended && best->flow - o.flow <= kLinkCycle) {
      // Two open starts fit the link: no arrow. One of the two ends has
      // now come, so the older start is no candidate for the next: without
      // this, one lost end would make every later end of the link
      // ambiguous.
      ++flow_ends_ambiguous_;
      o.ended = true;
      *ambiguous = true;
      return 0;
    }
  }
  best->ended = true;
  return best->flow;
}

// A flow end read before its out: `out` is its start if the end's newest
// flow number was taken at or after it, within one link cycle.
void StreamToModel::BindPending(uint16_t link, Out& out) {
  auto it = pending_.find(link);
  if (it == pending_.end()) return;
  std::vector<PendingEnd>& ends = it->second;
  for (size_t i = 0; i < ends.size(); ++i) {
    const PendingEnd& p = ends[i];
    if (out.ended || p.newest < out.flow || p.newest - out.flow >= kLinkCycle) continue;
    out.ended = true;
    norm_.OnFlow(p.t, false, out.flow, p.ns);
    ends.erase(ends.begin() + long(i));
    break;
  }
  if (ends.empty()) pending_.erase(it);
}

void StreamToModel::OnEvent(const Event& e) {
  const StreamInfo& info = dec_.info();
  if (!process_done_) {
    process_done_ = true;
    if (dec_.has_clock_samples()) norm_.OnClock(dec_.MonotonicAtOrigin(), dec_.BoottimeAtOrigin());
    norm_.OnProcess(info.pid, info.process_name);
  }
  const model::Track t{info.pid, e.tid};
  if (threads_.insert(e.tid).second) norm_.OnThread(t, e.thread_name);
  switch (e.type) {
    case EventType::kScopeBegin: norm_.OnBegin(t, e.name, e.ns, e.cpu, e.color); break;
    case EventType::kScopeEnd: norm_.OnEnd(t, "", e.ns, ""); break;
    case EventType::kInstant: norm_.OnInstant(t, e.name, e.ns, e.cpu, e.color); break;
    case EventType::kCounter: norm_.OnCounter(t, e.name, e.ns, e.value); break;
    case EventType::kFlowOut: {
      // Into the link's emptiest or oldest place (flow numbers only grow).
      Outs& q = outs_[e.link];
      Out* place = &q[0];
      for (Out& o : q)
        if (o.flow < place->flow) place = &o;
      *place = Out{e.flow, false};
      // A NULL name ("(null)") is an unnamed point.
      const std::string_view name = e.name_ptr ? e.name : std::string_view();
      norm_.OnFlowPoint(t, true, e.flow, name, e.ns, e.cpu, e.color, false);
      BindPending(e.link, *place);  // after its start: an end needs it first
      break;
    }
    case EventType::kFlowIn: {
      const std::string_view name = e.name_ptr ? e.name : std::string_view();
      bool ambiguous = false;
      const uint32_t id = Resolve(e.link, e.flow, &ambiguous);
      norm_.OnFlowPoint(t, false, id, name, e.ns, e.cpu, e.color, false);
      if (!id && !ambiguous) pending_[e.link].push_back({t, e.link, e.flow, e.ns});
      break;
    }
    case EventType::kTimeBase:  // consumed by the decoder, never yielded
      break;
  }
}

Status StreamToModel::Finish() {
  Status s = dec_.Finish();
  for (const auto& [link, ends] : pending_)
    for (const PendingEnd& p : ends) {
      bool ambiguous = false;
      const uint32_t id = Resolve(p.link, p.newest, &ambiguous);
      if (ambiguous) continue;  // counted
      if (id) {
        norm_.OnFlow(p.t, false, id, p.ns);
      } else if (keep_unresolved_links_) {
        norm_.UnresolvedLinkEnd(p.t, p.link, p.ns);  // its start may be in another input (merge --join-flows)
      } else {
        norm_.FlowEndWithoutStart();  // its start was lost: the point stays, no arrow
      }
    }
  namespace stat = format::stat;
  const StreamInfo& info = dec_.info();
  norm_.OnMetadata(stat::kClockHz, int64_t(info.clock_hz));
  if (dec_.has_clock_samples()) {
    norm_.OnMetadata(stat::kClockMonotonicAtOrigin, int64_t(dec_.MonotonicAtOrigin()));
    norm_.OnMetadata(stat::kClockBoottimeAtOrigin, int64_t(dec_.BoottimeAtOrigin()));
  }
  norm_.OnMetadata(stat::kStreamVersion, int64_t(info.version));
  norm_.OnMetadata(stat::kStreamEvents, int64_t(dec_.events()));
  norm_.OnMetadata(stat::kLostRecords, int64_t(dec_.lost_records()));
  norm_.OnMetadata(stat::kDroppedRecords, int64_t(dec_.dropped_records()));
  norm_.OnMetadata(stat::kDamagedRecords, int64_t(dec_.record_errors().size()));
  if (dec_.has_http_responses_cut()) norm_.OnMetadata(stat::kHttpResponsesCut, int64_t(dec_.http_responses_cut()));
  norm_.OnMetadata(stat::kFlowEndsAmbiguous, int64_t(flow_ends_ambiguous_));
  if (!s.ok) norm_.OnMetadata(stat::kStreamError, s.message);
  write_ok_ = norm_.Finish();
  return s;
}

}  // namespace mabutrace::host
