// SPDX-License-Identifier: MIT
// port.h: what the recording core needs from a platform. Each port
// (src/port/<platform>/) implements these; nothing else in src/runtime knows
// the OS or the chip.
//
// The hot ones are inline and come from the port's mabutrace_port_inline.h:
//   uint64_t mabutrace::port::NowTicks()   the default clock (host: ns)
//   uint32_t mabutrace::port::CurrentCpu() CPU number of the caller
//   bool     mabutrace::port::InIsr()      true in interrupt context
//   MABUTRACE_PORT_TLS                     storage for per-thread writer state
//   bool mabutrace::port::HasRseqCpu()     (TLS ports) RseqCpu() gives the CPU
//   uint32_t mabutrace::port::RseqCpu()    number with one load, no call
#ifndef MABUTRACE_RUNTIME_PORT_H
#define MABUTRACE_RUNTIME_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "mabutrace_port_inline.h"

namespace mabutrace::port {

// Ticks per second of NowTicks().
uint64_t ClockHz();

// Ports with OS clocks (MABUTRACE_PORT_HAS_OS_CLOCKS: the host) also give:
//
// The clock init chooses for a session that has no user clock, from
// `requested` (MABUTRACE_CLOCK_*) and what the platform offers (host: the
// MABUTRACE_CLOCK environment variable too; MCU ports: their one clock).
// *fn: nullptr when the inline NowTicks() is the clock, else the function
// the writers call instead (host: MonotonicNs). *hz: its ticks per second
// (host counter: measured against CLOCK_MONOTONIC once per process). Returns
// the MABUTRACE_CLOCK_* chosen (MABUTRACE_CLOCK_AUTO: the port's own clock,
// related to no OS clock). Cold: init only, under the lifecycle lock.
uint32_t SelectClock(uint32_t requested, uint64_t (**fn)(void), uint64_t* hz);
// One sample of the chosen clock's ticks with CLOCK_MONOTONIC and
// CLOCK_BOOTTIME (ns) taken as close together as the platform can; false
// (and nothing written) where there are no OS clocks (MCU ports). Any
// thread; cold (init, export, flush).
bool SampleClocks(uint64_t* ticks, uint64_t* monotonic_ns, uint64_t* boottime_ns);
// OS id of the calling thread (host: gettid()), never 0.
uint32_t CurrentThreadId();
// NUL-terminated name of the calling thread into buf (may be empty).
void CurrentThreadName(char* buf, size_t len);
// Process id and name for the trace's process track.
uint32_t ProcessId();
void ProcessName(char* buf, size_t len);
// The one allocation of init, 64-byte aligned; nullptr on failure.
void* Allocate(size_t bytes);
void Free(void* p);
// Calls fn(arg) when the calling thread exits (once per thread; later calls
// replace arg). Returns false where the platform cannot tell.
bool AtThreadExit(void (*fn)(void*), void* arg);

}  // namespace mabutrace::port

#endif  // MABUTRACE_RUNTIME_PORT_H
