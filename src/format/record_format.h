// SPDX-License-Identifier: MIT
// record_format.h: the binary layout of one event record in the ring buffer.
//
// The buffer is cut into chunks (ring_buffer.h); a chunk belongs to one
// thread while it is written, so a record needs no thread id. Records are
// whole 64-bit words, stored with relaxed atomic stores so that a reader can
// copy a chunk while its owner appends (the chunk's commit word says how far
// it is valid).
//
//   word 0, header (always):
//     bits  0..39  timestamp delta, clock ticks since the chunk's base time
//     bits 40..43  RecordType
//     bit  44      kHasColor: a color word ends the record
//     bit  45      kInIsr: recorded in interrupt context (MCU ports)
//     bits 48..63  CPU number
//   word 1, name (every type but kScopeEnd and kTimeBase): the const char*
//   word 2, payload (kCounter, kFlowOut, kFlowIn, kTimeBase is word 1):
//     kCounter   the int64_t value (every int32_t exact, R-A5)
//     kFlowOut   bits 0..15 link id, bits 16..47 flow sequence number n
//     kFlowIn    bits 0..15 link id, bits 16..47 the newest n taken at the
//                time (hosts take n in per-thread blocks: runtime/flows.cpp)
//     kTimeBase  (word 1) the new 64-bit base time of the following records
//   last word, color (when kHasColor): bits 0..23 0xRRGGBB
//
// Sizes: scope begin 16 bytes, end 8, instant 16, counter 24, flow 24
// (+8 with a color). 40 delta bits are 18 minutes of 1 ns ticks; a thread
// that is quiet for longer writes a kTimeBase record first.
#ifndef MABUTRACE_FORMAT_RECORD_FORMAT_H
#define MABUTRACE_FORMAT_RECORD_FORMAT_H

#include <stdint.h>

namespace mabutrace {

enum class RecordType : uint8_t {
  kScopeBegin = 1,
  kScopeEnd = 2,
  kInstant = 3,
  kCounter = 4,
  kFlowOut = 5,
  kFlowIn = 6,
  kTimeBase = 7,
};

constexpr unsigned kDeltaBits = 40;
constexpr uint64_t kDeltaLimit = uint64_t{1} << kDeltaBits;
constexpr unsigned kTypeShift = 40;
constexpr uint64_t kHasColor = uint64_t{1} << 44;
constexpr uint64_t kInIsr = uint64_t{1} << 45;
constexpr unsigned kCpuShift = 48;

// Flow link ids cycle 1..65535 (0 means "no link yet", R-A4). Out number n
// (n >= 1) gets link ((n - 1) % 65535) + 1.
constexpr uint32_t kLinkCycle = 65535;
// Flow numbers a thread takes at once (runtime/flows.cpp, ports with
// thread-local storage), and how far flow_seq may run past the start of a
// thread's block before the thread gives the rest up.
constexpr uint32_t kFlowBlock = 64;
constexpr uint32_t kFlowStale = 1024;

inline uint64_t MakeHeader(uint64_t delta, RecordType type, uint32_t cpu) {
  return delta | (uint64_t(type) << kTypeShift) | (uint64_t(cpu & 0xFFFF) << kCpuShift);
}
inline RecordType HeaderType(uint64_t h) { return RecordType((h >> kTypeShift) & 0xF); }
inline uint64_t HeaderDelta(uint64_t h) { return h & (kDeltaLimit - 1); }
inline uint32_t HeaderCpu(uint64_t h) { return uint32_t(h >> kCpuShift); }

inline uint16_t LinkForFlow(uint32_t n) { return uint16_t((n - 1) % kLinkCycle + 1); }

// The out number that produced `link`, given `newest`, the newest out number
// when the flow-in was recorded: the largest n <= newest with that link.
// Exact while fewer than 65535 flows start between an out and its in.
inline uint32_t FlowForLink(uint16_t link, uint32_t newest) {
  if (link == 0 || newest == 0) return 0;
  uint32_t back = ((newest - 1) % kLinkCycle + kLinkCycle - (link - 1u)) % kLinkCycle;
  return newest > back ? newest - back : 0;
}

// Words of a record, from its header (0 for an unknown type: corrupt).
inline unsigned RecordWords(uint64_t header) {
  unsigned color = (header & kHasColor) ? 1 : 0;
  switch (HeaderType(header)) {
    case RecordType::kScopeEnd: return 1;
    case RecordType::kScopeBegin:
    case RecordType::kInstant: return 2 + color;
    case RecordType::kCounter:
    case RecordType::kFlowOut:
    case RecordType::kFlowIn: return 3 + color;
    case RecordType::kTimeBase: return 2;
  }
  return 0;
}

}  // namespace mabutrace

#endif  // MABUTRACE_FORMAT_RECORD_FORMAT_H
