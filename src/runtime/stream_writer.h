// SPDX-License-Identifier: MIT
// stream_writer.h: the memory the binary stream writer keeps between
// flushes (R-C3), reserved at init like the rest of the export workspace.
//
// A stream must not send a record twice nor a name twice, so it remembers,
// per chunk, which tenure (acquisition number) it sent and how many words of
// it; per thread slot, which thread it described; and which name pointers
// it sent. All of it is guarded by Runtime::export_lock.
#ifndef MABUTRACE_RUNTIME_STREAM_WRITER_H
#define MABUTRACE_RUNTIME_STREAM_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "mabutrace/mabutrace.h"

namespace mabutrace {

// 16 bytes per chunk.
struct StreamSent {
  uint64_t seq;      // tenure sent (0: nothing of this chunk sent)
  uint32_t words;    // words of it sent
  uint32_t records;  // records (time bases excluded) among them
};

// 8 bytes per thread slot.
struct StreamThread {
  uint32_t key;   // slot | gen << 16 described last
  uint32_t hash;  // hash of the name sent, 0 = not described
};

// Name pointers remembered per stream (8 B each); when 3/4 full, further
// names are sent again at every use (correct, only bigger).
constexpr uint32_t kStreamStrings = 256;

struct StreamState {
  mabutrace_output_fn cb;
  bool header_sent;
  uint64_t overwritten_base;  // Runtime::overwritten when the stream began
  uint64_t dropped_base;
  uint64_t sent_recycled;  // sent records whose chunk was recycled since
  uint64_t lost_reported;  // totals in the last LOST record
  uint64_t dropped_reported;
  uint64_t cut_reported;  // Runtime::responses_cut in the last LOST record
  uint32_t strings_used;
  uint32_t num_chunks;
  uint32_t max_threads;
  StreamSent* sent;       // num_chunks
  StreamThread* threads;  // max_threads
  uintptr_t* strings;     // kStreamStrings, open addressing, 0 = empty
};

// Bytes to reserve for the stream state (64-byte aligned pieces).
size_t StreamStateBytes(uint32_t num_chunks, uint32_t max_threads);
// Lays the state out in `mem` (StreamStateBytes bytes, 64-byte aligned, zeroed).
StreamState* CarveStreamState(void* mem, uint32_t num_chunks, uint32_t max_threads);

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_STREAM_WRITER_H
