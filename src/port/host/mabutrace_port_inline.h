// Host port (Linux first; macOS-compatible fallbacks), inline part.
#ifndef MABUTRACE_PORT_HOST_INLINE_H
#define MABUTRACE_PORT_HOST_INLINE_H

#include <stdint.h>
#include <time.h>

#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#include <sys/rseq.h>
#define MABUTRACE_HAVE_RSEQ 1
#endif
#include <sched.h>

// Writers in thread-local storage: selects the recording path
// src/runtime/writer_tls.cpp. Initial-exec TLS: one fs-relative access, no
// __tls_get_addr call. The library is linked into the executable (static)
// on hosts.
#define MABUTRACE_PORT_TLS thread_local __attribute__((tls_model("initial-exec")))

namespace mabutrace::port {

// CLOCK_MONOTONIC in ns: steady, shared by all threads and cores, never set
// back (R-D1). clock_gettime goes through the vDSO: no system call.
inline uint64_t NowTicks() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// The CPU the caller runs on. glibc >= 2.35 registers rseq for every thread,
// and the kernel keeps rseq.cpu_id current: one load from the thread's own
// memory instead of a call (sched_getcpu does the same load behind a call).
inline uint32_t CurrentCpu() {
#if defined(MABUTRACE_HAVE_RSEQ)
  if (__builtin_expect(__rseq_size != 0, 1)) {
    auto* rs =
        reinterpret_cast<const volatile struct rseq*>(static_cast<char*>(__builtin_thread_pointer()) + __rseq_offset);
    return rs->cpu_id;
  }
#endif
#if defined(__linux__)
  int cpu = sched_getcpu();
  return cpu < 0 ? 0 : uint32_t(cpu);
#else
  return 0;
#endif
}

inline bool InIsr() { return false; }

// Called while spinning on a rarely held lock (names, export).
inline void CpuRelax() { sched_yield(); }

}  // namespace mabutrace::port

#endif  // MABUTRACE_PORT_HOST_INLINE_H
