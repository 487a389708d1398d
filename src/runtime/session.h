// SPDX-License-Identifier: MIT
// session.h: the live session as the recording paths see it.
//
// lifecycle.cpp owns these: init and deinit write them under
// g_lifecycle_lock. Writers read them on every record (relaxed: a record
// racing with deinit is refused by the session check or by its slow path,
// which takes the lock-free path through g_runtime); readers go through
// BeginExport() (ring_buffer.h).
#ifndef MABUTRACE_RUNTIME_SESSION_H
#define MABUTRACE_RUNTIME_SESSION_H

#include <stdint.h>

#include <atomic>

#include "compiler.h"
#include "port.h"
#include "ring_buffer.h"

namespace mabutrace {

// 0 when not initialized; else the session number of the live Runtime.
extern std::atomic<uint32_t> g_session;
extern std::atomic<Runtime*> g_runtime;
// The clock of the live session: the config's, or nullptr for the port's.
extern std::atomic<mabutrace_clock_fn> g_clock;
// Serializes init, deinit, thread exit and the start of an export, so that
// none of them sees the Runtime freed under it.
extern SpinLock g_lifecycle_lock;

// Ticks now on the live session's clock.
MT_INLINE uint64_t Now() {
  const mabutrace_clock_fn clock = g_clock.load(std::memory_order_relaxed);
  return MT_UNLIKELY(clock != nullptr) ? clock() : port::NowTicks();
}

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_SESSION_H
