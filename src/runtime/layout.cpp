// SPDX-License-Identifier: MIT
// layout.cpp: the regions of init's block, listed once (layout.h).
#include "layout.h"

#include <new>

#include "../format/record_format.h"
#include "compiler.h"
#include "export_workspace.h"
#include "stream_writer.h"

namespace mabutrace {
namespace {

uint32_t FlowWindow(size_t data_bytes) {
  // The exporter checks flows among the newest `window` flow numbers: at
  // least as many as flow-out records (24 bytes) fit in the buffer, plus,
  // where threads take blocks of numbers (flows.cpp), how far a thread's
  // numbers may lag behind the newest.
  uint64_t need = data_bytes / 24 + 1;
#if defined(MABUTRACE_PORT_TLS)
  need += kFlowStale;
#endif
  uint32_t bits = 1024;
  while (bits < need) bits <<= 1;
  return bits;
}

// Flow ends the exporter can hold back until their start is written: one
// per 256 bytes of storage, 256 .. 8192 (16 bytes each).
uint32_t DeferredFlowEnds(size_t data_bytes) {
  const size_t n = data_bytes / 256;
  return uint32_t(n < 256 ? 256 : n > 8192 ? 8192 : n);
}

// The block, one region a line, in address order. Adding a region to the
// export workspace is adding its member (export_workspace.h) and its line
// here. Sets the sizes that go with the regions too: when measuring, `ws`
// is a scratch copy.
MT_COLD void WalkBlock(Regions& r, Layout& l, uint32_t max_threads, uint32_t max_depth, ExportWorkspace& ws) {
  const size_t data_words = size_t(l.num_chunks) * l.chunk_words;
  r.Take<Runtime>(1);
  l.chunks_offset = r.Take<Chunk>(l.num_chunks);
  l.threads_offset = r.Take<ThreadSlot>(max_threads);
  l.workspace_offset = r.Take<ExportWorkspace>(1);
  r.Take(ws.order, l.num_chunks);
  r.Take(ws.copy, l.chunk_words);
  r.Take(ws.threads, max_threads + 1);  // one spare (json_exporter.cpp)
  r.Take(ws.stacks, size_t(max_threads + 1) * max_depth);
  ws.flow_window = FlowWindow(data_words * 8);
  r.Take(ws.flow_present, ws.flow_window / 64);
  r.Take(ws.flow_written, ws.flow_window / 64);
  ws.deferred_cap = DeferredFlowEnds(data_words * 8);
  r.Take(ws.deferred, ws.deferred_cap);
  ws.out_cap = kExportOutBytes;
  r.Take(ws.out, ws.out_cap);
  ws.packet_cap = kExportPacketBytes;
  r.Take(ws.packet, ws.packet_cap);
  ws.intern_cap = kExportInternEntries;
  r.Take(ws.interned, ws.intern_cap);
  r.TakeBytes(ws.stream, StreamStateBytes(l.num_chunks, max_threads));  // (CarveWorkspace)
  l.data_offset = r.Take<uint64_t>(data_words);
  l.total = r.end();
}

}  // namespace

MT_COLD Layout ComputeLayout(const mabutrace_config_t& cfg) {
  Layout l;
  // Chunk: a power of two of 256 B .. 4 KiB giving at least 32 chunks.
  size_t chunk_bytes = 4096;
  while (chunk_bytes > 256 && cfg.buffer_size / chunk_bytes < 32) chunk_bytes >>= 1;
  l.chunk_words = uint32_t(chunk_bytes / 8);
  l.num_chunks = uint32_t(cfg.buffer_size / chunk_bytes);
  Regions measure(0);
  ExportWorkspace scratch;
  WalkBlock(measure, l, cfg.max_threads, cfg.max_depth, scratch);
  return l;
}

MT_COLD void CarveWorkspace(Runtime& rt, uint8_t* base, const Layout& l) {
  auto* ws = new (base + l.workspace_offset) ExportWorkspace{};
  Regions carve{uintptr_t(base)};
  Layout again = l;
  WalkBlock(carve, again, rt.max_threads, rt.max_depth, *ws);
  ws->stream = CarveStreamState(ws->stream, l.num_chunks, rt.max_threads);
  rt.workspace = ws;
}

}  // namespace mabutrace
