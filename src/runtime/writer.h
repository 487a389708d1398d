// SPDX-License-Identifier: MIT
// writer.h: what the rest of the runtime asks of the recording path.
//
// One writer strategy is built per port; the port's inline header selects
// it and its build lists its file (cmake/mabutrace_sources.cmake,
// MABUTRACE_WRITER_SOURCES_<PORT>); the others compile to nothing:
//
//   writer_tls.cpp          MABUTRACE_PORT_TLS: a writer per thread in
//                           thread-local storage, any number of cores (host)
//   writer_contexts.cpp     MABUTRACE_PORT_WRITER_CONTEXTS: a writer per
//                           execution context the port names, nested by
//                           interrupts, several cores (FreeRTOS)
//   writer_single_core.cpp  MABUTRACE_PORT_SINGLE_CORE: one core, Thread
//                           mode records without masking (bare-metal
//                           Cortex-M)
//
// Each defines the hot recording functions of mabutrace.h (scope begin and
// end, instant, counter), so that its hot path is compiled in one
// translation unit with its writer state, and the functions below. What
// the strategies share (taking and releasing chunks) is chunk_writer.h.
#ifndef MABUTRACE_RUNTIME_WRITER_H
#define MABUTRACE_RUNTIME_WRITER_H

#include <stdint.h>

#include "../format/record_format.h"
#include "ring_buffer.h"

namespace mabutrace {
namespace writer {

// A record's type and color in one word: bits 0..24 the color (with
// MABUTRACE_COLOR_SET), bits 25..27 the RecordType. With the name and a
// 64-bit payload the arguments fit a 32-bit core's four argument registers.
constexpr uint32_t RecordKind(RecordType type, uint32_t color) { return (color & 0x1FFFFFFu) | uint32_t(type) << 25; }
inline RecordType KindType(uint32_t kind) { return RecordType((kind >> 25) & 7); }
// The same type where a record header has it (MakeHeader's type << kTypeShift):
// a mask and one shift.
inline uint64_t KindTypeField(uint32_t kind) { return uint64_t(kind & (7u << 25)) << (kTypeShift - 25); }
inline uint32_t KindColor(uint32_t kind) { return kind & 0x1FFFFFFu; }

// init, with the lifecycle lock held, once g_clock is the new session's
// and before the session is published: forgets the writers' state of any
// earlier session. Returns the clock's ticks now, the trace's origin.
uint64_t StartSession();
// deinit, once g_session is 0 and before the memory goes.
void EndSession();
// Binds the caller to the live session, registering its thread, and gives
// its registry slot: MABUTRACE_OK, MABUTRACE_ERR_NOT_INITIALIZED, or
// MABUTRACE_ERR_NO_MEMORY (the registry is full, or no writer context is
// free for the caller).
int CallerSlot(Runtime** rt, uint32_t* slot);
// Records a flow record (flows.cpp): its RecordKind(), the name and one
// payload word.
void RecordFlow(uintptr_t name, uint32_t kind, uint64_t payload);
// Readers call it before they read chunk `index`'s commit word: it brings
// the word up to the writer's cursor where records are not published one
// by one (single core); elsewhere it does nothing.
void SyncCommit(const Runtime& rt, uint32_t index);

}  // namespace writer
}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_WRITER_H
