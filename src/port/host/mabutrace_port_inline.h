// SPDX-License-Identifier: MIT
// Host port (Linux first; macOS-compatible fallbacks), inline part.
#ifndef MABUTRACE_PORT_HOST_INLINE_H
#define MABUTRACE_PORT_HOST_INLINE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#include <sys/rseq.h>
#define MABUTRACE_HAVE_RSEQ 1
#endif
#include <sched.h>

// port.h's SelectClock and SampleClocks: the OS clocks the trace relates to.
#define MABUTRACE_PORT_HAS_OS_CLOCKS 1

// Writers in thread-local storage: selects the recording path
// src/runtime/writer_tls.cpp. Linked into the executable (the static
// library: position-dependent or PIE code), local-exec TLS: the variable's
// offset from the thread pointer is a link-time constant, so an access is
// one %fs-relative instruction. In the shared library (PIC, not PIE),
// initial-exec: the offset is loaded from the GOT first, still no
// __tls_get_addr call.
#if defined(__PIC__) && !defined(__PIE__)
#define MABUTRACE_PORT_TLS thread_local __attribute__((tls_model("initial-exec")))
#else
#define MABUTRACE_PORT_TLS thread_local __attribute__((tls_model("local-exec")))
#endif

namespace mabutrace::port {

// The host clocks (docs/runtime.md §10). The hot path reads the CPU's own
// counter: x86-64 RDTSC (not RDTSCP: nothing needs ordering against the
// record's own stores, and the record carries the CPU number anyway),
// AArch64 CNTVCT_EL0. init (port.cpp SelectClock) uses it only where it is
// one clock for every core and never stops: the invariant-TSC CPUID bit,
// the kernel's own clocksource agreeing; the architected generic timer.
// Elsewhere, or when forced (mabutrace_config_t.clock_source, the
// MABUTRACE_CLOCK environment variable), init installs MonotonicNs as the
// session's clock function and NowTicks() is never called. Building with
// MABUTRACE_HOST_CLOCK_MONOTONIC (CMake option MABUTRACE_HOST_CLOCK=monotonic)
// leaves the counter out: NowTicks() is then CLOCK_MONOTONIC itself.
// All are safe from any thread; none keeps state.

// CLOCK_MONOTONIC in ns: steady, shared by all threads and cores, never set
// back (R-D1). clock_gettime goes through the vDSO: no system call.
inline uint64_t MonotonicNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

#if !defined(MABUTRACE_HOST_CLOCK_MONOTONIC) && (defined(__x86_64__) || defined(__aarch64__))
#define MABUTRACE_HOST_HAS_COUNTER 1
#endif

// The port's default clock: the CPU counter where built in, else
// CLOCK_MONOTONIC ns.
inline uint64_t NowTicks() {
#if defined(MABUTRACE_HOST_HAS_COUNTER) && defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#elif defined(MABUTRACE_HOST_HAS_COUNTER) && defined(__aarch64__)
  uint64_t v;
  __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
  return MonotonicNs();
#endif
}

// The CPU the caller runs on. glibc >= 2.35 registers rseq for every thread
// (__rseq_size != 0 then, for the whole process), and the kernel keeps
// rseq.cpu_id current: one load from the thread's own memory instead of a
// call (sched_getcpu does the same load behind a call). HasRseqCpu() says
// whether RseqCpu() gives it; the TLS writer asks once per binding (not per
// record) and otherwise records on its slow path, with CurrentCpu().
inline bool HasRseqCpu() {
#if defined(MABUTRACE_HAVE_RSEQ)
  return __rseq_size != 0;
#else
  return false;
#endif
}

// Only where HasRseqCpu(). x86-64: one %fs-relative load (the generic form
// reads the thread pointer from %fs:0 first).
inline uint32_t RseqCpu() {
#if defined(MABUTRACE_HAVE_RSEQ) && defined(__x86_64__)
  uint32_t cpu;
  __asm__ volatile("movl %%fs:%c1(%2), %0" : "=r"(cpu) : "i"(offsetof(struct rseq, cpu_id)), "r"(__rseq_offset));
  return cpu;
#elif defined(MABUTRACE_HAVE_RSEQ)
  auto* rs =
      reinterpret_cast<const volatile struct rseq*>(static_cast<char*>(__builtin_thread_pointer()) + __rseq_offset);
  return rs->cpu_id;
#else
  return 0;
#endif
}

inline uint32_t CurrentCpu() {
  if (HasRseqCpu()) return RseqCpu();
#if defined(__linux__)
  const int n = sched_getcpu();
  return n < 0 ? 0 : uint32_t(n);
#else
  return 0;
#endif
}

inline bool InIsr() { return false; }

// Called while spinning on a rarely held lock (names, export).
inline void CpuRelax() { sched_yield(); }

}  // namespace mabutrace::port

#endif  // MABUTRACE_PORT_HOST_INLINE_H
