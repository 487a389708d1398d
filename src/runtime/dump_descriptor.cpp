// SPDX-License-Identifier: MIT
// dump_descriptor.cpp: fills the DumpDescriptor (dump_format.h) at init and
// publishes the memory block's address for debuggers (mabutrace.h,
// mabutrace_dump_region). No heap, no exceptions.
#include <stddef.h>
#include <string.h>

#include "../format/dump_format.h"
#include "../format/stream_format.h"
#include "layout.h"
#include "mabutrace/mabutrace.h"
#include "ring_buffer.h"

extern "C" {
volatile mabutrace_dump_region_t mabutrace_dump_region = {nullptr, 0};
}

namespace mabutrace {

void WriteDumpDescriptor(Runtime& rt, const Layout& l) {
  dump::DumpDescriptor& d = rt.dump;
  memset(&d, 0, sizeof d);
  memcpy(d.magic, dump::kMagic, sizeof d.magic);
  d.version = dump::kVersion;
  d.descriptor_bytes = sizeof d;
  d.pointer_size = sizeof(void*);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  d.endianness = stream::kBigEndian;
#else
  d.endianness = stream::kLittleEndian;
#endif
  d.word_size = 8;
#if defined(MABUTRACE_PORT_SINGLE_CORE)
  d.flags = dump::kFlagZeroedChunks;
#endif
  const auto* base = static_cast<const uint8_t*>(rt.memory);
  d.block_address = uint64_t(uintptr_t(base));
  d.descriptor_offset = uint64_t(reinterpret_cast<const uint8_t*>(&d) - base);
  d.block_bytes = l.total;
  d.clock_hz = rt.clock_hz;
  d.origin = rt.origin;
  d.pid = rt.pid;
  d.session = rt.session;
  d.chunks_offset = l.chunks_offset;
  d.threads_offset = l.threads_offset;
  d.data_offset = l.data_offset;
  d.num_chunks = l.num_chunks;
  d.chunk_words = l.chunk_words;
  d.max_threads = rt.max_threads;
  d.chunk_stride = sizeof(Chunk);
  d.thread_stride = sizeof(ThreadSlot);
  d.chunk_gen = offsetof(Chunk, gen);
  d.chunk_seq = offsetof(Chunk, seq);
  d.chunk_base = offsetof(Chunk, base);
  d.chunk_commit = offsetof(Chunk, commit);
  d.chunk_thread = offsetof(Chunk, thread);
  d.chunk_tid = offsetof(Chunk, tid);
  d.chunk_seq_bytes = sizeof(Chunk::seq);
  d.chunk_base_bytes = sizeof(Chunk::base);
  d.chunk_commit_bytes = sizeof(Chunk::commit);
  d.slot_state = offsetof(ThreadSlot, state);
  d.slot_gen = offsetof(ThreadSlot, gen);
  d.slot_tid = offsetof(ThreadSlot, tid);
  d.slot_name = offsetof(ThreadSlot, name);
  d.slot_name_bytes = sizeof(ThreadSlot::name);
  static_assert(sizeof(ThreadSlot::state) == 4 && sizeof(ThreadSlot::gen) == 4 && sizeof(ThreadSlot::tid) == 4 &&
                    sizeof(Chunk::gen) == 4 && sizeof(Chunk::thread) == 4 && sizeof(Chunk::tid) == 4,
                "the descriptor says these are 32-bit");
  memcpy(d.process_name, rt.process_name, sizeof d.process_name - 1);  // NUL: memset above
#if defined(MABUTRACE_PORT_HAS_OS_CLOCKS)                              // (else 0: memset above)
  d.clock_init_ticks = rt.clock_init.ticks;
  d.clock_init_monotonic_ns = rt.clock_init.monotonic_ns;
  d.clock_init_boottime_ns = rt.clock_init.boottime_ns;
#endif
  d.clock_source = rt.clock_source == kClockUser ? stream::kClockSourceUser : uint8_t(rt.clock_source);
  mabutrace_dump_region.base = rt.memory;
  mabutrace_dump_region.bytes = l.total;
}

void ClearDumpRegion() {
  mabutrace_dump_region.base = nullptr;
  mabutrace_dump_region.bytes = 0;
}

}  // namespace mabutrace
