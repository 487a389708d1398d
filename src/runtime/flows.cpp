// flows.cpp: TRACE_FLOW_OUT / TRACE_FLOW_IN, the flow numbers and links
// their records carry (record_format.h); the writer records them.
#include "../format/record_format.h"
#include "compiler.h"
#include "mabutrace/mabutrace.h"
#include "ring_buffer.h"
#include "session.h"
#include "writer.h"

using namespace mabutrace;

extern "C" {

void mabutrace_flow_out(uint16_t* link, const char* name, uint32_t color) {
  Runtime* rt = g_runtime.load(std::memory_order_acquire);
  if (!link || !rt) return;
  // Every out starts a new arrow with a fresh id (R-A4: never 0, cycling).
  // A variable that still holds the id of an earlier hop gets a new one, so
  // forwarding the same message variable chains arrows hop by hop.
  uint32_t n = rt->flow_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  if (MT_UNLIKELY(n == 0)) n = rt->flow_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  *link = LinkForFlow(n);
  writer::RecordFlow(uintptr_t(name), writer::RecordKind(RecordType::kFlowOut, color),
                     uint64_t(*link) | (uint64_t(n) << 16));
}

void mabutrace_flow_in(uint16_t link, const char* name, uint32_t color) {
  Runtime* rt = g_runtime.load(std::memory_order_acquire);
  if (link == 0 || !rt) return;
  // Links cycle: with the newest flow number the exporter finds the out
  // this link came from (FlowForLink).
  const uint32_t newest = rt->flow_seq.load(std::memory_order_relaxed);
  writer::RecordFlow(uintptr_t(name), writer::RecordKind(RecordType::kFlowIn, color),
                     uint64_t(link) | (uint64_t(newest) << 16));
}

}  // extern "C"
