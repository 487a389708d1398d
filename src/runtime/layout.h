// SPDX-License-Identifier: MIT
// layout.h: where everything lives in init's one block of memory
// (docs/runtime.md §1). layout.cpp lists the block's regions once; sizing
// (mabutrace_memory_required, init's allocation) and carving (init) both
// walk that list, so they cannot disagree.
//
// Cold code, called by init (with the lifecycle lock held) and by
// mabutrace_memory_required (any thread, no shared state).
#ifndef MABUTRACE_RUNTIME_LAYOUT_H
#define MABUTRACE_RUNTIME_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "mabutrace/mabutrace.h"
#include "ring_buffer.h"

namespace mabutrace {

// The block's geometry for a config: what the dump descriptor publishes,
// and what init needs to place the runtime's own tables. (ComputeLayout
// sets every field.)
struct Layout {
  uint32_t chunk_words;
  uint32_t num_chunks;
  size_t chunks_offset, threads_offset, workspace_offset, data_offset;
  size_t total;
};
Layout ComputeLayout(const mabutrace_config_t& cfg);

// Constructs rt.workspace in the block at `base` (laid out as `l`, zeroed)
// and points its members at their regions. rt.max_threads and
// rt.max_depth must be set.
void CarveWorkspace(Runtime& rt, uint8_t* base, const Layout& l);

// A walk over consecutive regions of a block, each 64-byte aligned (a cache
// line: regions that different threads write never share one), that
// points each region's member at its memory. Measuring, the base is 0 and
// the members, of a scratch object, get offsets: never dereferenced.
class Regions {
 public:
  explicit Regions(uintptr_t base) : base_(base) {}

  // `bytes` bytes: their offset from the base.
  size_t TakeBytes(size_t bytes) {
    const size_t at = (end_ + 63) / 64 * 64;
    end_ = at + bytes;
    return at;
  }
  // `count` T's: their offset from the base.
  template <class T>
  size_t Take(size_t count) {
    return TakeBytes(sizeof(T) * count);
  }
  // `count` T's for `member`, which points at them when carving.
  template <class T>
  void Take(T*& member, size_t count) {
    Place(member, TakeBytes(sizeof(T) * count));
  }
  // `bytes` bytes for `member` (a type whose size is not what it takes).
  template <class T>
  void TakeBytes(T*& member, size_t bytes) {
    Place(member, TakeBytes(bytes));
  }
  // Bytes from the base to the end of the last region.
  size_t end() const { return end_; }

 private:
  template <class T>
  void Place(T*& member, size_t at) {
    member = reinterpret_cast<T*>(base_ + at);
  }

  uintptr_t base_;
  size_t end_ = 0;
};

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_LAYOUT_H
