// SPDX-License-Identifier: MIT
/*
 * atomic.c: the atomic operations GCC calls out of line on RV32 (the core's
 * std::atomic<uint64_t> chunk tags, ring position and statistics, GCC 12's
 * sub-word ones, and on RV32IMC every read-modify-write: without the A
 * extension there is no LR/SC or AMO at all).
 *
 * RV32A has 32-bit AMOs and LR/SC only (no 64-bit ones: those are RV64A),
 * and riscv64-unknown-elf's libgcc supplies no __atomic_* functions. On
 * one hart, clearing mstatus.MIE (Privileged spec §3.1.6) makes the few
 * instructions of each operation indivisible. Only the rare paths use them
 * (chunk change, statistics, readers): the recording hot path publishes
 * its commit word inside its own critical section.
 *
 * Signatures: GCC's libatomic ABI ("size-specific" entry points). The
 * memory-model argument is ignored: with interrupts masked on one hart
 * every operation is sequentially consistent.
 */
#if defined(__riscv) && __riscv_xlen == 32 && !defined(ESP_PLATFORM) && !defined(ARDUINO_ARCH_ESP32) && \
    !defined(__linux__) && !defined(__ZEPHYR__)

#include <stdbool.h>
#include <stdint.h>

#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"

static inline uint32_t irq_save(void) {
  uint32_t mstatus;
  __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(mstatus) : : "memory");
  return mstatus & 8u;
}

static inline void irq_restore(uint32_t mie) { __asm__ volatile("csrs mstatus, %0" : : "r"(mie) : "memory"); }

/* A read-modify-write: the old value, `mem` set to EXPR of old and val. */
#define MT_ATOMIC_RMW(NAME, N, T, EXPR)                           \
  T __atomic_##NAME##_##N(volatile void* mem, T val, int model) { \
    (void)model;                                                  \
    const uint32_t s = irq_save();                                \
    const T old = *(volatile T*)mem;                              \
    *(volatile T*)mem = (T)(EXPR);                                \
    irq_restore(s);                                               \
    return old;                                                   \
  }

#define MT_ATOMIC_OPS(N, T)                                                                                 \
  T __atomic_load_##N(const volatile void* mem, int model) {                                                \
    (void)model;                                                                                            \
    const uint32_t s = irq_save();                                                                          \
    const T v = *(const volatile T*)mem;                                                                    \
    irq_restore(s);                                                                                         \
    return v;                                                                                               \
  }                                                                                                         \
  void __atomic_store_##N(volatile void* mem, T val, int model) {                                           \
    (void)model;                                                                                            \
    const uint32_t s = irq_save();                                                                          \
    *(volatile T*)mem = val;                                                                                \
    irq_restore(s);                                                                                         \
  }                                                                                                         \
  bool __atomic_compare_exchange_##N(volatile void* mem, void* expected, T desired, bool weak, int success, \
                                     int failure) {                                                         \
    (void)weak;                                                                                             \
    (void)success;                                                                                          \
    (void)failure;                                                                                          \
    const uint32_t s = irq_save();                                                                          \
    const T cur = *(volatile T*)mem;                                                                        \
    const bool ok = cur == *(T*)expected;                                                                   \
    if (ok) {                                                                                               \
      *(volatile T*)mem = desired;                                                                          \
    } else {                                                                                                \
      *(T*)expected = cur;                                                                                  \
    }                                                                                                       \
    irq_restore(s);                                                                                         \
    return ok;                                                                                              \
  }                                                                                                         \
  MT_ATOMIC_RMW(exchange, N, T, val)                                                                        \
  MT_ATOMIC_RMW(fetch_add, N, T, old + val)                                                                 \
  MT_ATOMIC_RMW(fetch_sub, N, T, old - val)

MT_ATOMIC_OPS(8, uint64_t)
/* GCC 12 calls these even with the A extension (inline sub-word atomics
 * came with GCC 13): std::atomic<bool>::exchange. */
MT_ATOMIC_OPS(2, uint16_t)
MT_ATOMIC_OPS(1, uint8_t)
#if !defined(__riscv_atomic)
/* RV32IMC (ESP32-C3 class): no A extension, no word AMOs either. */
MT_ATOMIC_OPS(4, uint32_t)
#endif

#endif /* bare-metal RV32 */
