// SPDX-License-Identifier: MIT
// trbe_linearize.h: turn a TRBE buffer dump into the oldest-to-newest byte
// stream an ETE decoder reads, as Linux perf does (R-G3;
// reference/arm-trace-facts.md §2; ARM DDI 0487 D6.1.1).
//
//   not wrapped                   [start, PTR)
//   wrapped, fill mode            [start, Limit)          (PTR == Base)
//   wrapped, wrap/circular mode   [PTR, Limit) + [Base, PTR)
//
// In the last case the oldest byte sits at PTR, usually in the middle of a
// packet. The decoder must discard bytes until an A-Sync (11 x 0x00, 0x80),
// and `head` says what to do with those bytes here:
//   kKeep  leave them (the decoder resyncs),
//   kPad   overwrite them with 0x70, the ETE Ignore packet (one byte, one
//          complete packet): the stream keeps its length and byte offsets,
//          and decodes from offset 0. This is how the Linux TRBE driver
//          pads parts of the buffer it cannot use (sheet §1.12),
//   kDrop  remove them.
// strip_padding removes the run of 0x70 Ignore bytes at the start of the
// result (the driver's padding before the session, or the kPad head); it is
// only meaningful when the stream starts on a packet boundary, which
// start / the A-Sync guarantee.
#ifndef MABUTRACE_HOST_TRBE_TRBE_LINEARIZE_H
#define MABUTRACE_HOST_TRBE_TRBE_LINEARIZE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trbe_registers.h"

namespace mabutrace::trbe {

constexpr uint8_t kEteIgnoreByte = 0x70;  // ETE Ignore packet (sheet §4.11)

enum class HeadPolicy { kKeep, kPad, kDrop };
std::string_view HeadPolicyName(HeadPolicy h);  // "keep", "pad", "drop"
std::optional<HeadPolicy> ParseHeadPolicy(std::string_view s);

struct LinearizeOptions {
  uint64_t base = 0;  // TRBBASER_EL1: address of dump[0]
  // TRBLIMITR_EL1 limit (exclusive): dump holds [base, limit); nullopt =
  // base + dump size.
  std::optional<uint64_t> limit;
  uint64_t ptr = 0;      // final TRBPTR_EL1, in [base, limit]
  bool wrapped = false;  // TRBSR_EL1.WRAP
  FillMode fill_mode = FillMode::kCircular;
  std::optional<uint64_t> start;        // PTR software programmed first (default base)
  HeadPolicy head = HeadPolicy::kKeep;  // only used when the oldest data was overwritten
  bool strip_padding = false;
};

struct Segment {
  uint64_t begin = 0, end = 0;  // buffer addresses [begin, end)
};

struct LinearizeResult {
  std::vector<uint8_t> bytes;     // oldest to newest
  std::vector<Segment> segments;  // where the bytes came from, in order
  bool overwritten = false;       // the oldest data was overwritten (head is mid-packet)
  uint64_t head_bytes = 0;        // bytes before the first A-Sync (overwritten case), before head policy
  bool async_found = false;       // an A-Sync was found (overwritten case)
  uint64_t padding_stripped = 0;  // 0x70 bytes removed by strip_padding
};

// Offset of the first A-Sync packet (11 x 0x00 then 0x80, sheet §4.2) at or
// after `from`, or nullopt.
std::optional<size_t> FindAsync(std::span<const uint8_t> bytes, size_t from = 0);

// `dump` is the memory image of [base, limit) (dump.size() == limit - base).
// Returns false and sets *error when the pointers are inconsistent (limit <=
// base, size mismatch, PTR or start outside the buffer, start > PTR when not
// wrapped).
bool Linearize(std::span<const uint8_t> dump, const LinearizeOptions& options, LinearizeResult* out,
               std::string* error);

// What `trbe linearize` says about a result, one fact a line: "N bytes from
// [0x.., 0x..) ...", then (indented) how an overwritten head was handled
// under `head` or that it cannot be decoded, and the padding stripped.
std::string LinearizeSummary(const LinearizeResult& r, HeadPolicy head);

}  // namespace mabutrace::trbe

#endif  // MABUTRACE_HOST_TRBE_TRBE_LINEARIZE_H
