// SPDX-License-Identifier: MIT
// thread_registry.h: the threads that recorded in this session
// (Runtime::threads, one ThreadSlot each): their OS tid and name, which the
// exporters give their tracks.
//
// A writer registers its thread with its first record and keeps the
// answer, `slot | gen << 16`, which every chunk it takes carries
// (Chunk::thread). A slot is reused after its thread exits, with the
// generation bumped, so that the exited thread's old chunks no longer
// claim the new thread's name. Lock-free but for the name, which
// Runtime::names_lock guards.
#ifndef MABUTRACE_RUNTIME_THREAD_REGISTRY_H
#define MABUTRACE_RUNTIME_THREAD_REGISTRY_H

#include <stdint.h>

#include "ring_buffer.h"

namespace mabutrace {

// The slot of a thread the registry had no room for: it records nothing.
constexpr uint32_t kNoSlot = 0xFFFF;

inline uint32_t SlotOf(uint32_t thread) { return thread & 0xFFFF; }

// Registers the calling thread as `tid`, named as the port names it:
// slot | gen << 16, or kNoSlot when every slot is live.
uint32_t RegisterThread(Runtime& rt, uint32_t tid);
// The thread `thread` (as RegisterThread returned it) has exited: its slot
// may be reused.
void ReleaseThread(Runtime& rt, uint32_t thread);

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_THREAD_REGISTRY_H
