// SPDX-License-Identifier: MIT
// follower.h: walk a program image to the next P0 instruction, with a cache
// so that repeated walks cost one lookup (SPEC R-F3; docs/armisa.md).
//
// ETE traces one P0 element per P0 instruction (Arm ARM D4.4); between
// them every instruction executes in sequence. To turn an atom into an
// executed range the decoder walks from the current address to the first P0
// instruction (arm-trace-facts.md 6.3, ARM-K10 AnalyzeAtom). The walk from
// a given (address, ISA, memory space) always gives the same answer, so
// FindNextP0 keeps it in a fixed-size direct-mapped cache: the cost of
// decoding then follows the number of branches taken, not the number of
// instructions executed. OpenCSD, by contrast, re-decodes every
// instruction of every range.
//
// Memory: the cache is allocated once, in the constructor; walks and cache
// lookups never allocate. The MemoryImage must outlive the follower; call
// InvalidateCache() after changing it. Not thread-safe (one follower per
// decoding thread; they may share the image).
#ifndef MABUTRACE_HOST_ARMISA_FOLLOWER_H
#define MABUTRACE_HOST_ARMISA_FOLLOWER_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "instr.h"
#include "memory_image.h"

namespace mabutrace::armisa {

enum class WalkStatus : uint8_t {
  kP0 = 0,             // stopped on a P0 instruction (included in the range)
  kStopReached = 1,    // WalkTo: reached the stop address before any P0
  kNotAccessible = 2,  // the instruction at `end` could not be read
  kLimit = 3,          // FollowOptions::max_instructions walked without a P0
};

// "P0", "stop reached", "address not accessible", "instruction limit".
std::string_view WalkStatusName(WalkStatus status);

// One executed range [start, end), as OpenCSD's INSTR_RANGE element gives it.
struct WalkResult {
  uint64_t start = 0;
  // kP0: the P0 instruction's address + size (exclusive end of the range).
  // kStopReached: the stop address. kNotAccessible: the address that
  // could not be read (the range before it did execute). kLimit: the next
  // address to walk from.
  uint64_t end = 0;
  uint64_t last_address = 0;  // address of the last instruction in the range (num_instr > 0)
  uint32_t num_instr = 0;     // instructions in [start, end), the P0 included
  uint32_t opcode = 0;        // kP0: the P0's opcode (T32 packed as T32Opcode)
  InstrInfo info;             // kP0: the P0's classification (IT-adjusted for T32)
  WalkStatus status = WalkStatus::kP0;
  Isa isa = Isa::kA64;  // ISA of the range (the walk never changes ISA)

  bool ok() const { return status == WalkStatus::kP0; }
};

struct FollowOptions {
  ClassifyOptions classify;
  // Walks longer than this stop with kLimit (runaway protection; OpenCSD
  // has the same check behind an environment variable).
  uint32_t max_instructions = 1u << 20;
};

struct FollowStats {
  uint64_t lookups = 0;
  uint64_t hits = 0;
  uint64_t instructions_walked = 0;  // by cache misses
};

class InstrFollower {
 public:
  // cache_log2: the cache holds 2^cache_log2 walks (72 bytes each; 16 -> 4.5 MiB),
  // clamped to [1, 24]. Colliding walks replace each other (direct-mapped).
  explicit InstrFollower(const MemoryImage* image, FollowOptions options = {}, unsigned cache_log2 = 16);
  InstrFollower(const InstrFollower&) = delete;
  InstrFollower& operator=(const InstrFollower&) = delete;

  // The walk from address to the first P0 instruction, cached. AArch32
  // addresses are taken modulo 2^32. A T32 walk assumes it does not start
  // inside an IT block (it starts at a branch target or trace address).
  WalkResult FindNextP0(uint64_t address, Isa isa, uint8_t space = kMemAny);

  // Uncached walk; stops at the first P0, at stop_address (exclusive: the
  // instruction at stop_address is not executed; exceptions E=01 walk to
  // the preferred exception return address this way, arm-trace-facts.md
  // 5.8), on unreadable memory or at the instruction limit.
  WalkResult WalkTo(uint64_t address, Isa isa, uint64_t stop_address, uint8_t space = kMemAny);

  // The one instruction at `address`: fetched, sized (info.size) and
  // classified as the walks do, uncached and without IT-block context;
  // nullopt when it cannot be read whole. For the decoders' single-step
  // walks (Q COUNT, source addresses: arm-trace-facts.md 5.10, 4.14).
  std::optional<InstrInfo> Decode(uint64_t address, Isa isa, uint8_t space = kMemAny) const;
  // The number of instructions in [start, end) executed in sequence: A64
  // and A32 from the distance, T32 by reading each first halfword (16- and
  // 32-bit encodings); nullopt when a T32 instruction cannot be read, or
  // when the range would hold 2^32 instructions or more (no range is that
  // long: the addresses are unrelated).
  std::optional<uint32_t> CountInstructions(uint64_t start, uint64_t end, Isa isa, uint8_t space = kMemAny) const;

  void InvalidateCache();
  const FollowStats& stats() const { return stats_; }
  const FollowOptions& options() const { return options_; }

 private:
  struct Entry {
    WalkResult result;
    bool valid;
    uint8_t space;
  };
  WalkResult Walk(uint64_t address, Isa isa, uint64_t stop_address, uint8_t space);
  template <Isa kIsa>
  WalkResult WalkIsa(uint64_t address, uint64_t stop_address, uint8_t space);

  const MemoryImage* image_;
  FollowOptions options_;
  unsigned cache_log2_;
  std::unique_ptr<Entry[]> cache_;
  FollowStats stats_;
};

}  // namespace mabutrace::armisa

#endif  // MABUTRACE_HOST_ARMISA_FOLLOWER_H
