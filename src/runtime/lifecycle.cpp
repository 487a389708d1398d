// SPDX-License-Identifier: MIT
// lifecycle.cpp: init and deinit, the live session (session.h), and the
// readers' way in (BeginExport). Init takes or is given one block of memory
// (layout.h) and allocates nothing after; deinit waits out a running export
// before the block goes.
#include <string.h>

#include <new>

#include "compiler.h"
#include "layout.h"
#include "mabutrace/mabutrace.h"
#include "port.h"
#include "ring_buffer.h"
#include "session.h"
#include "writer.h"

namespace mabutrace {

std::atomic<uint32_t> g_session{0};
std::atomic<Runtime*> g_runtime{nullptr};
std::atomic<mabutrace_clock_fn> g_clock{nullptr};
SpinLock g_lifecycle_lock;

namespace {

uint32_t g_last_session = 0;  // guarded by g_lifecycle_lock
std::atomic<void (*)()> g_deinit_hook{nullptr};

bool ConfigValid(const mabutrace_config_t& c) {
  return c.buffer_size >= 4096 && c.buffer_size <= (size_t(1) << 30) && c.max_threads >= 1 && c.max_threads <= 4096 &&
         c.max_depth >= 1 && c.max_depth <= 1024 && (c.clock == nullptr || c.clock_hz != 0) &&
         c.clock_source <= MABUTRACE_CLOCK_MONOTONIC;
}

}  // namespace

Runtime* CurrentRuntime() { return g_runtime.load(std::memory_order_acquire); }

void SetDeinitHook(void (*fn)()) { g_deinit_hook.store(fn, std::memory_order_release); }

Runtime* BeginExport() {
  g_lifecycle_lock.lock();
  Runtime* rt = g_runtime.load(std::memory_order_relaxed);
  if (rt) rt->export_lock.lock();
  g_lifecycle_lock.unlock();
  return rt;
}

void EndExport(Runtime* rt) {
  if (rt) rt->export_lock.unlock();
}

}  // namespace mabutrace

using namespace mabutrace;

extern "C" {

void mabutrace_config_default(mabutrace_config_t* cfg) {
  if (!cfg) return;
  memset(cfg, 0, sizeof *cfg);
#ifdef CONFIG_MABUTRACE_BUFFER_SIZE
  cfg->buffer_size = CONFIG_MABUTRACE_BUFFER_SIZE;
#else
  cfg->buffer_size = 64 * 1024;
#endif
  cfg->max_threads = 64;
  cfg->max_depth = 32;
}

size_t mabutrace_memory_required(const mabutrace_config_t* cfg) {
  mabutrace_config_t c;
  mabutrace_config_default(&c);
  if (cfg) c = *cfg;
  return ConfigValid(c) ? ComputeLayout(c).total : 0;
}

MT_COLD int mabutrace_init_with_config(const mabutrace_config_t* cfg) {
  mabutrace_config_t c;
  mabutrace_config_default(&c);
  if (cfg) c = *cfg;
  if (!ConfigValid(c)) return MABUTRACE_ERR_INVALID_ARG;

  g_lifecycle_lock.lock();
  if (g_runtime.load(std::memory_order_relaxed)) {
    g_lifecycle_lock.unlock();
    return MABUTRACE_ERR_ALREADY_INITIALIZED;
  }
  const Layout l = ComputeLayout(c);
  void* mem = c.memory;
  const bool owns = mem == nullptr;
  if (owns) mem = port::Allocate(l.total);
  if (!mem || (uintptr_t(mem) & 63) != 0) {
    if (owns && mem) port::Free(mem);
    g_lifecycle_lock.unlock();
    return mem ? MABUTRACE_ERR_INVALID_ARG : MABUTRACE_ERR_NO_MEMORY;
  }
  auto* base = static_cast<uint8_t*>(mem);
  memset(base, 0, l.data_offset);  // bookkeeping; the data needs no clearing
  auto* rt = new (base) Runtime{};
  rt->memory = mem;
  rt->owns_memory = owns;
  rt->memory_bytes = l.total;
  rt->chunks = reinterpret_cast<Chunk*>(base + l.chunks_offset);
  for (uint32_t i = 0; i < l.num_chunks; ++i) new (&rt->chunks[i]) Chunk{};
  rt->num_chunks = l.num_chunks;
  rt->chunk_words = l.chunk_words;
  rt->threads = reinterpret_cast<ThreadSlot*>(base + l.threads_offset);
  for (uint32_t i = 0; i < c.max_threads; ++i) new (&rt->threads[i]) ThreadSlot{};
  rt->max_threads = c.max_threads;
  rt->max_depth = c.max_depth;
  rt->data = reinterpret_cast<uint64_t*>(base + l.data_offset);
  CarveWorkspace(*rt, base, l);
  rt->clock = c.clock;
  mabutrace_clock_fn session_clock = c.clock;
  if (c.clock) {
    rt->clock_hz = c.clock_hz;
    rt->clock_source = kClockUser;
  } else {
#if defined(MABUTRACE_PORT_HAS_OS_CLOCKS)
    rt->clock_source = port::SelectClock(c.clock_source, &session_clock, &rt->clock_hz);
#else
    rt->clock_hz = port::ClockHz();  // the port's one clock (MABUTRACE_CLOCK_AUTO)
#endif
  }
  g_clock.store(session_clock, std::memory_order_relaxed);
  rt->origin = writer::StartSession();
#if defined(MABUTRACE_PORT_HAS_OS_CLOCKS)  // (else clock_init stays none)
  format::ClockSync& s = rt->clock_init;
  if (!c.clock && port::SampleClocks(&s.ticks, &s.monotonic_ns, &s.boottime_ns)) {
    rt->origin = s.ticks;  // time 0 is the sample: no record is older (not yet published)
  } else {
    s = {};
  }
#endif
  rt->pid = port::ProcessId();
  if (c.process_name) {
    strncpy(rt->process_name, c.process_name, sizeof rt->process_name - 1);
  } else {
    port::ProcessName(rt->process_name, sizeof rt->process_name);
  }
  if (++g_last_session == 0) g_last_session = 1;
  rt->session = g_last_session;
  WriteDumpDescriptor(*rt, l);

  g_runtime.store(rt, std::memory_order_release);
  g_session.store(rt->session, std::memory_order_release);
  g_lifecycle_lock.unlock();
  return MABUTRACE_OK;
}

int mabutrace_init(void) { return mabutrace_init_with_config(nullptr); }

int mabutrace_is_initialized(void) { return g_session.load(std::memory_order_acquire) != 0; }

MT_COLD void mabutrace_deinit(void) {
  // Servers stop first: they export from the memory that goes below.
  if (auto hook = g_deinit_hook.load(std::memory_order_acquire)) hook();
  g_lifecycle_lock.lock();
  Runtime* rt = g_runtime.load(std::memory_order_relaxed);
  if (!rt) {
    g_lifecycle_lock.unlock();
    return;
  }
  g_session.store(0, std::memory_order_release);
  g_clock.store(nullptr, std::memory_order_relaxed);  // the user's clock is not called again
  writer::EndSession();
  // Wait out a running export before the memory goes.
  rt->export_lock.lock();
  g_runtime.store(nullptr, std::memory_order_release);
  rt->export_lock.unlock();
  ClearDumpRegion();
  const bool owns = rt->owns_memory;
  void* mem = rt->memory;
  rt->~Runtime();
  if (owns) port::Free(mem);
  g_lifecycle_lock.unlock();
}

}  // extern "C"
