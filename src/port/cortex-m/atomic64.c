// SPDX-License-Identifier: MIT
/*
 * atomic64.c: the 64-bit atomic operations GCC calls out of line on
 * Armv7-M (the core's std::atomic<uint64_t> chunk tags, ring position and
 * statistics).
 *
 * Armv7-M has LDREX/STREX for 8, 16 and 32 bits only (no LDREXD/STREXD,
 * Armv7-M ARM A3.4), and arm-none-eabi's libgcc does not supply
 * __atomic_*_8. On a single core, masking interrupts with PRIMASK (B1.4.3)
 * makes the few instructions of each operation indivisible. Only the rare
 * paths use them (chunk change, statistics, readers): the recording hot
 * path publishes its commit word inside its own critical section
 * (ring_buffer.h PublishCommit).
 *
 * Signatures: GCC's libatomic ABI (gcc/libatomic, "size-specific" entry
 * points). The memory-model argument is ignored: with interrupts masked on
 * one core every operation is sequentially consistent.
 */
/* Armv7-M only: the Arduino IDE compiles every source under src/ for
 * whatever board it targets. */
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)

#include <stdbool.h>
#include <stdint.h>

#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"

static inline uint32_t irq_save(void) {
  uint32_t primask;
  __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
  return primask;
}

static inline void irq_restore(uint32_t primask) { __asm__ volatile("msr primask, %0" : : "r"(primask) : "memory"); }

uint64_t __atomic_load_8(const volatile void* mem, int model) {
  (void)model;
  const uint32_t s = irq_save();
  const uint64_t v = *(const volatile uint64_t*)mem;
  irq_restore(s);
  return v;
}

void __atomic_store_8(volatile void* mem, uint64_t val, int model) {
  (void)model;
  const uint32_t s = irq_save();
  *(volatile uint64_t*)mem = val;
  irq_restore(s);
}

uint64_t __atomic_exchange_8(volatile void* mem, uint64_t val, int model) {
  (void)model;
  const uint32_t s = irq_save();
  const uint64_t old = *(volatile uint64_t*)mem;
  *(volatile uint64_t*)mem = val;
  irq_restore(s);
  return old;
}

bool __atomic_compare_exchange_8(volatile void* mem, void* expected, uint64_t desired, bool weak, int success,
                                 int failure) {
  (void)weak;
  (void)success;
  (void)failure;
  const uint32_t s = irq_save();
  const uint64_t cur = *(volatile uint64_t*)mem;
  const bool ok = cur == *(uint64_t*)expected;
  if (ok) {
    *(volatile uint64_t*)mem = desired;
  } else {
    *(uint64_t*)expected = cur;
  }
  irq_restore(s);
  return ok;
}

uint64_t __atomic_fetch_add_8(volatile void* mem, uint64_t val, int model) {
  (void)model;
  const uint32_t s = irq_save();
  const uint64_t old = *(volatile uint64_t*)mem;
  *(volatile uint64_t*)mem = old + val;
  irq_restore(s);
  return old;
}

uint64_t __atomic_fetch_sub_8(volatile void* mem, uint64_t val, int model) {
  (void)model;
  const uint32_t s = irq_save();
  const uint64_t old = *(volatile uint64_t*)mem;
  *(volatile uint64_t*)mem = old - val;
  irq_restore(s);
  return old;
}

#endif /* Armv7-M */
