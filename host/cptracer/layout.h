// SPDX-License-Identifier: MIT
// layout.h: the CP_Tracer message bit layout, as one table (R-I1).
//
// CP_Tracer messages reach the host as 32-bit words written by STM hardware
// master 0x80 (ti-cptracer-facts.md §3.1, V), each word one D32 packet (seed
// 002 §2.4: "0b0110 + 32-bit tracer message" = STPv2 opcode 6, D32). The
// bit layout of the words is NOT public (facts §2, U): the default table
// below is seed 002 §2.3's layout, every width and position of which is a
// design assumption; a file can override any of it (LoadLayout).
//
// Default table (word 0 = first word, bit 31 = MSB; MSB-first packing U):
//
//   type field      word 0 [31:29]
//   status   (1 w)  type 0: sid [28:24]  group [23]  access_status [22:0]
//   event B  (1 w)  type 1: sid [28:24]  mid [23:16]  xid [15:12]
//   event C  (1 w)  type 2:   overflow [11]  rw [10] (1 = write)  address [9:0]
//   event E  (1 w)  type 3: same fields as B
//   statistics (4 w, no type field): throughput0 w0, throughput1 w1,
//                   wait (accumulated wait cycles) w2, grants w3, each [31:0]
//
// Message boundaries (U, facts §3.5): the words of one message are sent on
// one STM master/channel and the last word is marked (D32M / D32MTS); a
// 1-word message is a status or event message chosen by the type field, a
// 4-word message is a statistics message. Conflicts recorded in the facts
// sheet (event: 10 vs 11 address bits; 8-bit MID vs 128-bit select) are
// why this is a table.
//
// Override file (INI, inih): sections [type], [status], [event_b],
// [event_c], [event_e], [statistics]; keys are field names with value
// "WORD:LSB:WIDTH" (e.g. "address = 0:0:11"), plus "words = N" and
// "type = V" for the message sections, plus [stm] hw_master = 0x80. Keys
// not given keep their default.
#ifndef MABUTRACE_HOST_CPTRACER_LAYOUT_H
#define MABUTRACE_HOST_CPTRACER_LAYOUT_H

#include <cstdint>
#include <string>
#include <vector>

namespace mabutrace::cptracer {

enum class MsgType : uint8_t { kStatus, kEventB, kEventC, kEventE, kStatistics, kUnknown };
const char* MsgTypeName(MsgType t);  // "status", "event_b", ...

// Field names used in the table (also the override file's keys).
enum class Field : uint8_t {
  kSid,
  kGroup,
  kAccessStatus,
  kMid,
  kXid,
  kOverflow,
  kRw,
  kAddress,
  kThroughput0,
  kThroughput1,
  kWait,
  kGrants,
  kCount
};
const char* FieldName(Field f);

struct FieldSpec {
  bool present = false;
  uint8_t word = 0;   // 0-based word of the message
  uint8_t lsb = 0;    // bit position in that word
  uint8_t width = 0;  // 1..32
  uint32_t Extract(const uint32_t* words, size_t n) const;
  uint32_t Insert(uint32_t word_value, uint32_t v) const;  // into its word
};

struct MessageSpec {
  MsgType type = MsgType::kUnknown;
  uint8_t words = 1;
  int type_value = -1;  // value of the type field, -1 = none (statistics)
  FieldSpec fields[static_cast<int>(Field::kCount)];
  const FieldSpec& f(Field x) const { return fields[static_cast<int>(x)]; }
  FieldSpec& f(Field x) { return fields[static_cast<int>(x)]; }
};

struct Layout {
  FieldSpec type_field;
  std::vector<MessageSpec> messages;  // status, event_b, event_c, event_e, statistics
  uint16_t hw_master = 0x80;          // STM master of the CP tracers (facts §3.1, V)
  const MessageSpec* Find(MsgType t) const;
};

// Seed 002's layout (see table above).
Layout DefaultLayout();
// Default layout with the overrides of `path`; false + message (file:line)
// on a syntax error, an unknown key or a field outside 32 bits.
bool LoadLayout(const std::string& path, Layout* out, std::string* error);

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_LAYOUT_H
