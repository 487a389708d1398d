// SPDX-License-Identifier: MIT
// dump_format.h: the descriptor that makes a raw RAM dump of the trace
// memory decodable on a host (R-C3, docs/raw-dump.md).
//
// mabutrace_init writes one DumpDescriptor into its memory block. A
// debugger dump of that block, or of any larger region that contains it
// (all of SRAM, say), can then be converted by `mabutrace convert DUMP
// --elf FIRMWARE.elf`: the host finds the descriptor by its magic, learns
// the buffer geometry and the layout of the bookkeeping structures from
// it, and resolves the name pointers of the records through the ELF. The
// descriptor lists field offsets rather than assuming a struct layout, so
// one host reads every port's layout (32- or 64-bit, any padding).
//
// All fields are in the device's byte order (`endianness`), at fixed
// offsets (static_asserts below); offsets are bytes from the start of the
// memory block, whose device address is `block_address`.
#ifndef MABUTRACE_FORMAT_DUMP_FORMAT_H
#define MABUTRACE_FORMAT_DUMP_FORMAT_H

#include <stddef.h>
#include <stdint.h>

namespace mabutrace::dump {

// "MABUDMP" + 0x1A; a host scans the dump for it (at any offset: a dump
// may start anywhere). The first match is taken.
constexpr uint8_t kMagic[8] = {'M', 'A', 'B', 'U', 'D', 'M', 'P', 0x1A};
constexpr uint16_t kVersion = 1;

// flags: the chunks are zeroed when taken, and the commit word of a chunk
// still being written may lag behind its records (single-core MCU ports,
// whose recording fast path moves only the writer's cursor:
// src/runtime/writer_single_core.cpp). A reader takes the records past the commit word up to the
// first zero header word (a record still being written has one: headers
// are written last).
constexpr uint8_t kFlagZeroedChunks = 1;

struct DumpDescriptor {
  uint8_t magic[8];
  uint16_t version;            // kVersion
  uint16_t descriptor_bytes;   // sizeof(DumpDescriptor) of the writer
  uint8_t pointer_size;        // sizeof(void*) on the device
  uint8_t endianness;          // 1 little, 2 big (stream_format.h)
  uint8_t word_size;           // bytes per record word: 8
  uint8_t flags;               // kFlag* (0 in dumps of older writers)
  uint64_t block_address;      // device address of the memory block
  uint64_t descriptor_offset;  // of this descriptor in the block
  uint64_t block_bytes;        // size of the memory block
  uint64_t clock_hz;           // ticks per second
  uint64_t origin;             // ticks at init: time 0 of the trace
  uint32_t pid;
  uint32_t session;  // init number: tells two dumps' inits apart
  // Geometry.
  uint64_t chunks_offset;   // Chunk[num_chunks]
  uint64_t threads_offset;  // ThreadSlot[max_threads]
  uint64_t data_offset;     // uint64_t[num_chunks * chunk_words]
  uint32_t num_chunks;
  uint32_t chunk_words;
  uint32_t max_threads;
  uint32_t chunk_stride;   // sizeof(Chunk)
  uint32_t thread_stride;  // sizeof(ThreadSlot)
  // Field offsets and widths (bytes) inside Chunk.
  uint16_t chunk_gen, chunk_seq, chunk_base, chunk_commit, chunk_thread, chunk_tid;
  uint8_t chunk_seq_bytes, chunk_base_bytes, chunk_commit_bytes, reserved1;
  // Field offsets inside ThreadSlot (state, gen, tid: 32-bit; name: chars).
  uint16_t slot_state, slot_gen, slot_tid, slot_name, slot_name_bytes;
  uint16_t reserved2;
  char process_name[64];  // NUL-terminated
  // The clock (format/clock_map.h); in descriptors of descriptor_bytes >=
  // 256 only (older writers: absent). The init sample of (ticks,
  // CLOCK_MONOTONIC ns, CLOCK_BOOTTIME ns) and the latest one, refreshed
  // by every export and stream flush; all 0 where there is none (user
  // clocks, MCU ports; the latest before the first export).
  uint64_t clock_init_ticks, clock_init_monotonic_ns, clock_init_boottime_ns;
  uint64_t clock_last_ticks, clock_last_monotonic_ns, clock_last_boottime_ns;
  uint8_t clock_source;  // stream_format.h kClockSource*
  uint8_t reserved3[7];
};

// Where a host finds each field (docs/raw-dump.md lists the same table).
static_assert(offsetof(DumpDescriptor, version) == 8);
static_assert(offsetof(DumpDescriptor, flags) == 15);
static_assert(offsetof(DumpDescriptor, block_address) == 16);
static_assert(offsetof(DumpDescriptor, clock_hz) == 40);
static_assert(offsetof(DumpDescriptor, pid) == 56);
static_assert(offsetof(DumpDescriptor, chunks_offset) == 64);
static_assert(offsetof(DumpDescriptor, num_chunks) == 88);
static_assert(offsetof(DumpDescriptor, chunk_gen) == 108);
static_assert(offsetof(DumpDescriptor, chunk_seq_bytes) == 120);
static_assert(offsetof(DumpDescriptor, slot_state) == 124);
static_assert(offsetof(DumpDescriptor, process_name) == 136);
static_assert(offsetof(DumpDescriptor, clock_init_ticks) == 200);
static_assert(offsetof(DumpDescriptor, clock_last_ticks) == 224);
static_assert(offsetof(DumpDescriptor, clock_source) == 248);
static_assert(sizeof(DumpDescriptor) == 256);
// Descriptors this long or longer carry the clock fields.
constexpr uint16_t kClockFieldsBytes = 256;

}  // namespace mabutrace::dump

#endif  // MABUTRACE_FORMAT_DUMP_FORMAT_H
