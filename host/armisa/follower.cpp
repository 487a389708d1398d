// SPDX-License-Identifier: MIT
// follower.cpp: see follower.h.
#include "follower.h"

#include <cstring>
#include <type_traits>

namespace mabutrace::armisa {
namespace {

constexpr uint64_t kNoStop = ~uint64_t{0};

// Sequential reader over the image: keeps a pointer into the current
// region so that each fetch is a bounds check and a load.
class Cursor {
 public:
  Cursor(const MemoryImage* image, uint8_t space) : image_(image), space_(space) {}

  // Reads n (2 or 4) bytes at address, little-endian. The caller fetches
  // consecutive addresses and calls Advance(n) after each fetch.
  bool Fetch(uint64_t address, unsigned n, uint32_t* value) {
    uint8_t b[4];
    if (left_ < n) {
      const MemSpan s = image_->Span(address, space_);
      p_ = s.data;
      left_ = s.size;
      if (left_ < n) {  // unmapped, or the instruction straddles two regions
        left_ = 0;
        if (image_->Read(address, n, b, space_) < n) return false;
        straddle_ = true;
        *value = n == 4 ? Le32(b) : Le16(b);
        return true;
      }
    }
    straddle_ = false;
    *value = n == 4 ? Le32(p_) : Le16(p_);
    return true;
  }
  void Advance(unsigned n) {
    if (straddle_) return;  // left_ is 0: the next Fetch looks the address up
    p_ += n;
    left_ -= n;
  }

 private:
  static uint32_t Le32(const uint8_t* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  }
  static uint32_t Le16(const uint8_t* p) { return uint32_t{p[0]} | uint32_t{p[1]} << 8; }

  const MemoryImage* image_;
  uint8_t space_;
  bool straddle_ = false;
  const uint8_t* p_ = nullptr;
  uint64_t left_ = 0;
};

}  // namespace

std::string_view WalkStatusName(WalkStatus status) {
  switch (status) {
    case WalkStatus::kP0: return "P0";
    case WalkStatus::kStopReached: return "stop reached";
    case WalkStatus::kNotAccessible: return "address not accessible";
    case WalkStatus::kLimit: return "instruction limit";
  }
  return "?";
}

InstrFollower::InstrFollower(const MemoryImage* image, FollowOptions options, unsigned cache_log2)
    : image_(image),
      options_(options),
      cache_log2_(cache_log2 < 1 ? 1 : (cache_log2 > 24 ? 24 : cache_log2)),
      cache_(new Entry[size_t{1} << cache_log2_]) {
  InvalidateCache();
}

void InstrFollower::InvalidateCache() {
  const size_t n = size_t{1} << cache_log2_;
  for (size_t i = 0; i < n; ++i) cache_[i].valid = false;
}

WalkResult InstrFollower::FindNextP0(uint64_t address, Isa isa, uint8_t space) {
  if (isa != Isa::kA64) address &= 0xFFFFFFFFu;
  ++stats_.lookups;
  // Fibonacci hashing of the address (instructions are 2- or 4-aligned).
  const uint64_t h =
      ((address >> 1) ^ (uint64_t{static_cast<uint8_t>(isa)} << 62) ^ (uint64_t{space} << 54)) * 0x9E3779B97F4A7C15ull;
  Entry& e = cache_[h >> (64 - cache_log2_)];
  if (e.valid && e.result.start == address && e.result.isa == isa && e.space == space) {
    ++stats_.hits;
    return e.result;
  }
  e.result = Walk(address, isa, kNoStop, space);
  e.space = space;
  e.valid = true;
  stats_.instructions_walked += e.result.num_instr;
  return e.result;
}

WalkResult InstrFollower::WalkTo(uint64_t address, Isa isa, uint64_t stop_address, uint8_t space) {
  if (isa != Isa::kA64) {
    address &= 0xFFFFFFFFu;
    stop_address &= 0xFFFFFFFFu;
  }
  return Walk(address, isa, stop_address, space);
}

WalkResult InstrFollower::Walk(uint64_t address, Isa isa, uint64_t stop_address, uint8_t space) {
  switch (isa) {
    case Isa::kA64: return WalkIsa<Isa::kA64>(address, stop_address, space);
    case Isa::kA32: return WalkIsa<Isa::kA32>(address, stop_address, space);
    case Isa::kT32: break;
  }
  return WalkIsa<Isa::kT32>(address, stop_address, space);
}

// The instruction at pc (T32 packed by T32Opcode) and its size: one bounds
// check and load per halfword or word in the cursor's region. AArch32
// addresses wrap at 2^32 (Pc is uint32_t).
template <Isa kIsa, typename Pc>
static bool FetchOpcode(Cursor& cursor, Pc pc, uint32_t* opcode, unsigned* size) {
  if constexpr (kIsa != Isa::kT32) {
    *size = 4;
    if (!cursor.Fetch(pc, 4, opcode)) return false;
    cursor.Advance(4);
    return true;
  } else {
    uint32_t hw1, hw2 = 0;
    if (!cursor.Fetch(pc, 2, &hw1)) return false;
    cursor.Advance(2);
    *size = T32Size(static_cast<uint16_t>(hw1));
    if (*size == 4) {
      if (!cursor.Fetch(static_cast<Pc>(pc + 2), 2, &hw2)) return false;  // the first halfword was readable
      cursor.Advance(2);
    }
    *opcode = T32Opcode(static_cast<uint16_t>(hw1), static_cast<uint16_t>(hw2));
    return true;
  }
}

template <Isa kIsa>
static InstrInfo ClassifyIsa(uint32_t opcode, uint64_t pc, const ClassifyOptions& options) {
  if constexpr (kIsa == Isa::kA64)
    return ClassifyA64(opcode, pc, options);
  else if constexpr (kIsa == Isa::kA32)
    return ClassifyA32(opcode, static_cast<uint32_t>(pc), options);
  else
    return ClassifyT32(opcode, static_cast<uint32_t>(pc), options);
}

template <Isa kIsa>
WalkResult InstrFollower::WalkIsa(uint64_t address, uint64_t stop_address, uint8_t space) {
  using Pc = std::conditional_t<kIsa == Isa::kA64, uint64_t, uint32_t>;
  WalkResult r;
  r.start = address;
  r.isa = kIsa;
  Cursor cursor(image_, space);
  Pc pc = static_cast<Pc>(address);
  Pc last = pc;
  uint32_t n = 0;
  unsigned it_left = 0;  // T32: instructions still covered by the current IT
  unsigned it_firstcond = 0;
  const uint32_t limit = options_.max_instructions;
  for (;;) {
    if (pc == stop_address) {
      r.status = WalkStatus::kStopReached;
      break;
    }
    if (n >= limit) {
      r.status = WalkStatus::kLimit;
      break;
    }
    uint32_t op;
    unsigned size;
    if (!FetchOpcode<kIsa>(cursor, pc, &op, &size)) {
      r.status = WalkStatus::kNotAccessible;
      break;
    }
    ++n;
    last = pc;
    InstrInfo info = ClassifyIsa<kIsa>(op, pc, options_.classify);
    if constexpr (kIsa == Isa::kT32) {
      if (info.it_count) {
        it_left = info.it_count;
        it_firstcond = info.it_firstcond;
      } else if (it_left) {
        --it_left;
        // F2.2.3 "Conditional execution": an instruction in an IT block is
        // conditional unless the block's condition is AL.
        if (info.is_p0() && it_firstcond != 0xE) info.is_conditional = true;
      }
    }
    pc = static_cast<Pc>(pc + size);
    if (info.is_p0()) {
      r.status = WalkStatus::kP0;
      r.info = info;
      r.opcode = op;
      break;
    }
  }
  r.end = pc;
  r.num_instr = n;
  r.last_address = last;
  return r;
}

std::optional<InstrInfo> InstrFollower::Decode(uint64_t address, Isa isa, uint8_t space) const {
  Cursor cursor(image_, space);
  uint32_t op;
  unsigned size;
  switch (isa) {
    case Isa::kA64:
      if (!FetchOpcode<Isa::kA64>(cursor, address, &op, &size)) return std::nullopt;
      return ClassifyIsa<Isa::kA64>(op, address, options_.classify);
    case Isa::kA32:
      if (!FetchOpcode<Isa::kA32>(cursor, static_cast<uint32_t>(address), &op, &size)) return std::nullopt;
      return ClassifyIsa<Isa::kA32>(op, address, options_.classify);
    case Isa::kT32: break;
  }
  if (!FetchOpcode<Isa::kT32>(cursor, static_cast<uint32_t>(address), &op, &size)) return std::nullopt;
  return ClassifyIsa<Isa::kT32>(op, address, options_.classify);
}

std::optional<uint32_t> InstrFollower::CountInstructions(uint64_t start, uint64_t end, Isa isa, uint8_t space) const {
  if (end <= start) return 0;
  if (isa != Isa::kT32) {
    // More than 2^32 instructions is no range: the two addresses are
    // unrelated (a source address far from the last one), and the count
    // would not fit.
    const uint64_t n = (end - start) / 4;
    if (n > UINT32_MAX) return std::nullopt;
    return static_cast<uint32_t>(n);
  }
  Cursor cursor(image_, space);
  uint32_t n = 0;
  for (uint64_t a = start; a < end; ++n) {
    uint32_t op;
    unsigned size;
    if (!FetchOpcode<Isa::kT32>(cursor, static_cast<uint32_t>(a), &op, &size)) return std::nullopt;
    a += size;
  }
  return n;
}

}  // namespace mabutrace::armisa
