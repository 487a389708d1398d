// SPDX-License-Identifier: MIT
// compiler.h: the GCC/Clang attributes the recording core uses, named for
// why it uses them.
#ifndef MABUTRACE_RUNTIME_COMPILER_H
#define MABUTRACE_RUNTIME_COMPILER_H

#define MT_LIKELY(x) __builtin_expect(!!(x), 1)
#define MT_UNLIKELY(x) __builtin_expect(!!(x), 0)
// Slow paths: out of line, so that the hot path around them stays short.
#define MT_NOINLINE __attribute__((noinline))
// Hot-path helpers: inlined even at -Os (a call costs more than they do).
#define MT_INLINE inline __attribute__((always_inline))
// Init, chunk changes, registration: rare. GCC optimizes cold functions for
// size at any -O (on an MCU, flash matters more than their speed).
#define MT_COLD __attribute__((cold))

// Built with ThreadSanitizer (GCC says so with a macro, Clang as a
// feature): hand-written atomics in assembly are invisible to it.
#if defined(__SANITIZE_THREAD__)
#define MT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MT_TSAN 1
#endif
#endif

#endif  // MABUTRACE_RUNTIME_COMPILER_H
