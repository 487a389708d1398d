// SPDX-License-Identifier: MIT
// return_stack.h: the ETE return stack (arm-trace-facts.md §5.9; Arm ARM
// D4.3, TRCCONFIGR.RS; OpenCSD's TrcAddrReturnStack).
//
// With TRCCONFIGR.RS = 1 the trace unit does not trace the target of an
// indirect branch that returns to the address a branch with link left: the
// decoder keeps the same stack and pops it instead. 16 entries; a push on a
// full stack drops the oldest; a pop of an empty stack means the trace and
// the decoder disagree (the caller reports it). AArch32 return addresses
// are 32-bit. Disabled (RS = 0), Push does nothing and the stack stays empty.
#ifndef MABUTRACE_HOST_ETE_DECODE_RETURN_STACK_H
#define MABUTRACE_HOST_ETE_DECODE_RETURN_STACK_H

#include <cstdint>

#include "instr.h"

namespace mabutrace::ete_decode {

class ReturnStack {
 public:
  static constexpr unsigned kEntries = 16;

  explicit ReturnStack(bool enabled) : enabled_(enabled) {}

  bool enabled() const { return enabled_; }
  unsigned size() const { return count_; }

  // A taken branch with link: its return address (the next instruction).
  void Push(uint64_t address, armisa::Isa isa) {
    if (!enabled_) return;
    head_ = (head_ + 1) % kEntries;
    entries_[head_] = {isa == armisa::Isa::kA64 ? address : (address & 0xFFFFFFFFu), isa};
    if (count_ < kEntries) ++count_;
  }
  // The newest entry, removed; false when empty.
  bool Pop(uint64_t* address, armisa::Isa* isa) {
    if (count_ == 0) return false;
    *address = entries_[head_].address;
    *isa = entries_[head_].isa;
    head_ = (head_ + kEntries - 1) % kEntries;
    --count_;
    return true;
  }
  // Trace On, Trace Info, resynchronisation: the stack no longer matches.
  void Flush() { count_ = 0; }

 private:
  struct Entry {
    uint64_t address;
    armisa::Isa isa;
  };
  bool enabled_;
  Entry entries_[kEntries] = {};
  unsigned head_ = 0, count_ = 0;
};

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_RETURN_STACK_H
