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

// A flow-out record's payload word (record_format.h): link, flow number n.
MT_INLINE uint64_t OutPayload(uint32_t n, uint32_t link) { return uint64_t(uint16_t(link)) | (uint64_t(n) << 16); }

#if defined(MABUTRACE_PORT_TLS)
// A thread's block of flow numbers: next .. end - 1, taken when flow_seq
// was `start`, in session `session`. The fast path hands out numbers up to
// `stop`: the block's end, or earlier where a link cycle ends inside the
// block, so that up to there an out's link is its number less `link_base`
// (no division). Zero (thread-local storage starts so): no block. Used by
// its thread only.
struct FlowBlock {
  uint32_t next;
  uint32_t stop;
  uint32_t end;
  uint32_t start;
  uint32_t session;
  uint32_t link_base;
};
MABUTRACE_PORT_TLS FlowBlock tls_flows;

// The next flow number n and its link, as a flow-out's payload word, when
// the thread's block has no number for the fast path (NextFlowFast).
MT_NOINLINE uint64_t NextFlowSlow(Runtime& rt) {
  FlowBlock& b = tls_flows;
  if (b.session != rt.session || b.next == b.end ||
      rt.flow_seq.load(std::memory_order_relaxed) - b.start >= kFlowStale) {
    uint32_t first = rt.flow_seq.fetch_add(kFlowBlock, std::memory_order_relaxed) + 1;
    if (MT_UNLIKELY(first == 0 || first + kFlowBlock < first)) {
      // The 32-bit numbers wrapped: skip the block that holds 0.
      first = rt.flow_seq.fetch_add(kFlowBlock, std::memory_order_relaxed) + 1;
    }
    b.start = first - 1;
    b.next = first;
    b.end = first + kFlowBlock;
    b.session = rt.session;
  }
  // (Else the block reached the end of a link cycle: the rest of it goes on
  // with the next cycle's links.)
  const uint32_t first_link = LinkForFlow(b.next);
  const uint32_t cycle_rest = kLinkCycle - first_link + 1;  // numbers left in this link cycle
  b.link_base = b.next - first_link;
  b.stop = b.end - b.next <= cycle_rest ? b.end : b.next + cycle_rest;
  return OutPayload(b.next++, first_link);
}

// The same from the block's fast part, or false (nothing taken).
MT_INLINE bool NextFlowFast(Runtime& rt, uint64_t* payload) {
  FlowBlock& b = tls_flows;
  if (MT_UNLIKELY(b.session != rt.session || b.next == b.stop ||
                  rt.flow_seq.load(std::memory_order_relaxed) - b.start >= kFlowStale)) {
    return false;
  }
  const uint32_t n = b.next++;
  // (n - link_base is the link, 1..kLinkCycle below `stop`: 16 bits
  // already, no mask needed.)
  *payload = uint64_t(n) << 16 | (n - b.link_base);
  return true;
}
#else
MT_INLINE uint64_t NextFlowSlow(Runtime& rt) {
  uint32_t n = rt.flow_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  if (MT_UNLIKELY(n == 0)) n = rt.flow_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  return OutPayload(n, LinkForFlow(n));
}
MT_INLINE bool NextFlowFast(Runtime& rt, uint64_t* payload) {
  *payload = NextFlowSlow(rt);
  return true;
}
#endif

// Every out starts a new arrow with a fresh id (R-A4: never 0, cycling).
// A variable that still holds the id of an earlier hop gets a new one, so
// forwarding the same message variable chains arrows hop by hop.
MT_INLINE void RecordOut(uint16_t* link, const char* name, uint32_t color, uint64_t payload) {
  *link = uint16_t(payload);
  writer::RecordFlow(uintptr_t(name), writer::RecordKind(RecordType::kFlowOut, color), payload);
}

// An out whose number NextFlowFast could not give: out of line, so that
// the fast path makes no call but the record's own (a tail call).
MT_NOINLINE void RecordOutSlow(Runtime& rt, uint16_t* link, const char* name, uint32_t color) {
  RecordOut(link, name, color, NextFlowSlow(rt));
}

}  // namespace

extern "C" {

void mabutrace_flow_out(uint16_t* link, const char* name, uint32_t color) {
  Runtime* rt = g_runtime.load(std::memory_order_acquire);
  if (!link || !rt) return;
  uint64_t payload;
  if (MT_UNLIKELY(!NextFlowFast(*rt, &payload))) return RecordOutSlow(*rt, link, name, color);
  RecordOut(link, name, color, payload);
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
