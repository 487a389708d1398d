// SPDX-License-Identifier: MIT
// thread_registry.cpp: registering threads and naming them (thread_registry.h).
#include "thread_registry.h"

#include <string.h>

#include "compiler.h"
#include "port.h"
#include "writer.h"

namespace mabutrace {

// Slot states.
constexpr uint32_t kSlotFree = 0, kSlotLive = 1, kSlotExited = 2;

MT_COLD uint32_t RegisterThread(Runtime& rt, uint32_t tid) {
  // A free slot first, then one whose thread has exited (its old chunks
  // then lose their name: the generation tells the exporter).
  for (uint32_t pass = 0; pass < 2; ++pass) {
    const uint32_t want = pass == 0 ? kSlotFree : kSlotExited;
    for (uint32_t i = 0; i < rt.max_threads; ++i) {
      ThreadSlot& s = rt.threads[i];
      uint32_t st = want;
      if (s.state.load(std::memory_order_relaxed) != want) continue;
      if (!s.state.compare_exchange_strong(st, kSlotLive, std::memory_order_acq_rel)) continue;
      const uint32_t gen = (s.gen.load(std::memory_order_relaxed) + (pass ? 1 : 0)) & 0xFFFF;
      s.gen.store(gen, std::memory_order_relaxed);
      s.tid.store(tid, std::memory_order_relaxed);
      rt.names_lock.lock();
      s.explicit_name = false;
      port::CurrentThreadName(s.name, sizeof s.name);
      rt.names_lock.unlock();
      return i | (gen << 16);
    }
  }
  return kNoSlot;
}

void ReleaseThread(Runtime& rt, uint32_t thread) {
  rt.threads[SlotOf(thread)].state.store(kSlotExited, std::memory_order_release);
}

}  // namespace mabutrace

using namespace mabutrace;

extern "C" MT_COLD int mabutrace_set_thread_name(const char* name) {
  if (!name) return MABUTRACE_ERR_INVALID_ARG;
  Runtime* rt = nullptr;
  uint32_t slot = 0;
  if (const int err = writer::CallerSlot(&rt, &slot)) return err;
  ThreadSlot& s = rt->threads[slot];
  rt->names_lock.lock();
  // Cut to the slot's 31 bytes at a UTF-8 character boundary.
  size_t n = 0;  // strnlen is POSIX, not in a strict C++17 newlib
  while (n < sizeof s.name && name[n] != '\0') ++n;
  if (n == sizeof s.name) {
    n = sizeof s.name - 1;
    while (n > 0 && (uint8_t(name[n]) & 0xC0) == 0x80) --n;
  }
  memcpy(s.name, name, n);
  s.name[n] = '\0';
  s.explicit_name = true;
  rt->names_lock.unlock();
  return MABUTRACE_OK;
}
