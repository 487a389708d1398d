// SPDX-License-Identifier: MIT
// flows.cpp: TRACE_FLOW_OUT / TRACE_FLOW_IN, the flow numbers and links
// their records carry (record_format.h); the writer records them.
//
// Flow numbers n (1, 2, ... in 32 bits) come from Runtime::flow_seq; an
// out's link id is LinkForFlow(n), so ids are non-zero, 16-bit and cycle
// (R-A4). Where threads have their own storage (MABUTRACE_PORT_TLS: the
// host) each thread takes a block of kFlowBlock numbers with one fetch_add
// and hands them out itself, so writers on different cores share no
// written cache line per flow: flow_seq is written once per block, and a
// flow-in only reads it. MCU ports (no thread-local storage, one or two
// cores) take one number per out from flow_seq.
//
// What the blocks promise (docs/runtime.md §6): a thread hands out a number
// only while flow_seq is less than kFlowStale past the start of its block
// (else it drops the rest and takes a new block). So when a link id is
// handed out again, flow_seq has moved on by more than kLinkCycle -
// kFlowStale = 64511 numbers since its previous hand-out: no id goes to two
// links live at once as long as every link's flow-in follows its out
// within that many numbers, which is that many flow-outs less the unused
// rest (< kFlowBlock each) of blocks given up (thread exit, staleness, a
// new session). The single counter promised 65535 outs.
#include "../format/record_format.h"
#include "compiler.h"
#include "mabutrace/mabutrace.h"
#include "ring_buffer.h"
#include "session.h"
#include "writer.h"

using namespace mabutrace;

namespace {

#if defined(MABUTRACE_PORT_TLS)
// A thread's block of flow numbers: next .. end - 1, taken when flow_seq
// was `start`, in session `session`. Zero (thread-local storage starts so):
// no block. Used by its thread only.
struct FlowBlock {
  uint32_t next;
  uint32_t end;
  uint32_t start;
  uint32_t session;
};
MABUTRACE_PORT_TLS FlowBlock tls_flows;

MT_NOINLINE uint32_t TakeBlock(Runtime& rt, FlowBlock& b) {
  uint32_t first = rt.flow_seq.fetch_add(kFlowBlock, std::memory_order_relaxed) + 1;
  if (MT_UNLIKELY(first == 0 || first + kFlowBlock < first)) {
    // The 32-bit numbers wrapped: skip the block that holds 0.
    first = rt.flow_seq.fetch_add(kFlowBlock, std::memory_order_relaxed) + 1;
  }
  b.start = first - 1;
  b.next = first + 1;
  b.end = first + kFlowBlock;
  b.session = rt.session;
  return first;
}

MT_INLINE uint32_t NextFlow(Runtime& rt) {
  FlowBlock& b = tls_flows;
  if (MT_LIKELY(b.session == rt.session && b.next != b.end &&
                rt.flow_seq.load(std::memory_order_relaxed) - b.start < kFlowStale)) {
    return b.next++;
  }
  return TakeBlock(rt, b);
}
#else
MT_INLINE uint32_t NextFlow(Runtime& rt) {
  uint32_t n = rt.flow_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  if (MT_UNLIKELY(n == 0)) n = rt.flow_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  return n;
}
#endif

}  // namespace

extern "C" {

void mabutrace_flow_out(uint16_t* link, const char* name, uint32_t color) {
  Runtime* rt = g_runtime.load(std::memory_order_acquire);
  if (!link || !rt) return;
  // Every out starts a new arrow with a fresh id (R-A4: never 0, cycling).
  // A variable that still holds the id of an earlier hop gets a new one, so
  // forwarding the same message variable chains arrows hop by hop.
  const uint32_t n = NextFlow(*rt);
  *link = LinkForFlow(n);
  writer::RecordFlow(uintptr_t(name), writer::RecordKind(RecordType::kFlowOut, color),
                     uint64_t(*link) | (uint64_t(n) << 16));
}

void mabutrace_flow_in(uint16_t link, const char* name, uint32_t color) {
  Runtime* rt = g_runtime.load(std::memory_order_acquire);
  if (link == 0 || !rt) return;
  // Links cycle: with the newest flow number the exporter finds the out
  // this link came from (FlowForLink). flow_seq is at or past every number
  // handed out, block rests included.
  const uint32_t newest = rt->flow_seq.load(std::memory_order_relaxed);
  writer::RecordFlow(uintptr_t(name), writer::RecordKind(RecordType::kFlowIn, color),
                     uint64_t(link) | (uint64_t(newest) << 16));
}

}  // extern "C"
