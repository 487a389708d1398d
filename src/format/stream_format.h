// SPDX-License-Identifier: MIT
// stream_format.h: constants of the binary stream (R-C3), shared by the
// device-side writer (stream_writer.cpp) and the host decoder
// (host/stream/stream_decoder.cpp). The byte-by-byte layout, with offsets
// and an example, is docs/stream-format.md; keep the two in step.
//
// C++17, header only, no dependencies beyond <stdint.h>: it is compiled into
// the runtime (no heap, no exceptions) and into host tools.
#ifndef MABUTRACE_FORMAT_STREAM_FORMAT_H
#define MABUTRACE_FORMAT_STREAM_FORMAT_H

#include <stdint.h>

namespace mabutrace::stream {

// ---- stream header (once, at offset 0) -----------------------------------
// "MABUTRC" + 0x1A: the 0x1A stops `type`-style text dumps, and an 8-byte
// magic lets a host tell a stream from a raw ring-buffer dump.
constexpr uint8_t kMagic[8] = {'M', 'A', 'B', 'U', 'T', 'R', 'C', 0x1A};
// Bumped only when the meaning or position of an existing field changes
// (docs/stream-format.md §4); decoders reject versions they do not know.
constexpr uint16_t kVersion = 1;
constexpr uint8_t kLittleEndian = 1;
constexpr uint8_t kBigEndian = 2;
constexpr uint8_t kWordBytes = 8;  // bytes per ring-buffer word (record_format.h)

// Offsets in the header.
constexpr uint32_t kHdrMagic = 0;         // u8[8]
constexpr uint32_t kHdrVersion = 8;       // u16
constexpr uint32_t kHdrLength = 10;       // u16: bytes of the whole header
constexpr uint32_t kHdrPointerSize = 12;  // u8: sizeof(void*) on the device
constexpr uint32_t kHdrEndianness = 13;   // u8: kLittleEndian / kBigEndian
constexpr uint32_t kHdrWordSize = 14;     // u8: kWordBytes
constexpr uint32_t kHdrReserved = 15;     // u8: 0
constexpr uint32_t kHdrClockHz = 16;      // u64: ticks per second
constexpr uint32_t kHdrOrigin = 24;       // u64: ticks at init (time 0)
constexpr uint32_t kHdrPid = 32;          // u32
constexpr uint32_t kHdrNameLength = 36;   // u16: bytes of the process name
constexpr uint32_t kHdrName = 38;         // u8[name length], no NUL
constexpr uint32_t kHdrFixedBytes = 38;   // header bytes before the name
// The clock fields, after the name (at kHdrName + name length), in headers
// of length >= kHdrFixedBytes + name length + kClkHdrBytes (older writers:
// absent, the clock relates to no OS clock). The (ticks, CLOCK_MONOTONIC
// ns, CLOCK_BOOTTIME ns) sample taken at init (format/clock_map.h), all 0
// when the clock has none (user clocks, MCU ports), and the clock's kind.
constexpr uint32_t kClkTicks = 0;      // u64
constexpr uint32_t kClkMonotonic = 8;  // u64
constexpr uint32_t kClkBoottime = 16;  // u64
constexpr uint32_t kClkSource = 24;    // u8: kClockSource*
constexpr uint32_t kClkHdrBytes = 25;
constexpr uint8_t kClockSourcePort = 0;       // the port's own (MCU), no OS relation
constexpr uint8_t kClockSourceCounter = 1;    // host CPU counter (TSC, CNTVCT_EL0)
constexpr uint8_t kClockSourceMonotonic = 2;  // host CLOCK_MONOTONIC ns
constexpr uint8_t kClockSourceUser = 255;     // mabutrace_config_t.clock

// ---- records (after the header, back to back) ------------------------------
// Every record: kind (u8), payload length (u32), payload. A decoder skips
// kinds it does not know and bytes past the fields it knows.
constexpr uint32_t kRecordHeaderBytes = 5;
enum class Kind : uint8_t {
  kString = 1,  // u64 pointer, u16 length, bytes
  kThread = 2,  // u32 thread key, u32 tid, u16 length, bytes
  kEvents = 3,  // u32 thread key, u32 tid, u64 chunk seq, u64 time base,
                // u32 first word, u32 word count, u64 words[word count]
  kLost = 4,    // u64 records lost (total), u64 records dropped (total),
                // u64 HTTP responses cut short (total since init; writers
                // since issue 17, older payloads end before it)
  kClock = 5,   // u64 ticks, u64 CLOCK_MONOTONIC ns, u64 CLOCK_BOOTTIME ns:
                // a sample of the clock taken at the start of a flush,
                // before the flush's EVENTS (only from clocks with samples)
};

// Payload offsets.
constexpr uint32_t kStringPtr = 0, kStringLength = 8, kStringBytes = 10;
constexpr uint32_t kThreadKey = 0, kThreadTid = 4, kThreadLength = 8, kThreadName = 10;
constexpr uint32_t kEventsKey = 0, kEventsTid = 4, kEventsSeq = 8, kEventsBase = 16, kEventsFirstWord = 24,
                   kEventsWordCount = 28, kEventsWords = 32;
constexpr uint32_t kLostRecords = 0, kLostDropped = 8, kLostBytes = 16;
constexpr uint32_t kLostHttpCut = 16, kLostBytesWithHttpCut = 24;
constexpr uint32_t kClockTicks = 0, kClockMonotonic = 8, kClockBoottime = 16, kClockBytes = 24;

// Longest name sent; longer names are cut (the decoder sees the prefix).
constexpr uint32_t kMaxStringBytes = 65535;

}  // namespace mabutrace::stream

#endif  // MABUTRACE_FORMAT_STREAM_FORMAT_H
