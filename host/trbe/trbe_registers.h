// SPDX-License-Identifier: MIT
// trbe_registers.h: the Trace Buffer Extension (TRBE) system registers, field
// by field, as Arm defines them (ARM DDI 0487 D24.4 "Trace registers";
// reference/arm-trace-facts.md §1.1-§1.6), plus "explain this value in words".
//
// Every register is a 64-bit value. The structs below decode a raw value into
// named fields (Arm's field names, Arm's bit positions) and encode them back;
// Decode(Encode(x)) == x for every field the struct holds, and
// Encode(Decode(v)) == v with the RES0 bits of v cleared.
//
// The trigger-mode and fill-mode encodings here are the architecture's
// (TM: 0b00 stop, 0b01 IRQ, 0b11 ignore; FM: 0b00 fill, 0b01 wrap,
// 0b11 circular). Seed document 001 has the TM encodings wrong
// (sheet §9 claim 1).
#ifndef MABUTRACE_HOST_TRBE_TRBE_REGISTERS_H
#define MABUTRACE_HOST_TRBE_TRBE_REGISTERS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mabutrace::trbe {

// The TRBE registers (sheet §1.1). kTrbsrEl1 is the only syndrome register
// modelled: without FEAT_TRBE_EXC every management event is recorded there.
enum class Reg : uint8_t {
  kTrblimitrEl1,
  kTrbptrEl1,
  kTrbbaserEl1,
  kTrbsrEl1,
  kTrbmarEl1,
  kTrbtrgEl1,
  kTrbidrEl1,
};
// "TRBLIMITR_EL1" etc.
std::string_view RegName(Reg reg);
// Case-insensitive; accepts the name with or without "_EL1". nullopt if unknown.
std::optional<Reg> ParseRegName(std::string_view name);

// TRBLIMITR_EL1.FM, bits[2:1] (sheet §1.2; ARM-D6 D6.1.1).
enum class FillMode : uint8_t {
  kFill = 0b00,      // stop collection + management event on wrap
  kWrap = 0b01,      // continue + management event on wrap
  kReserved = 0b10,  // reserved: the model treats it as a programming error
  kCircular = 0b11,  // continue, no management event
};
// TRBLIMITR_EL1.TM, bits[4:3] (sheet §1.2; ARM-D6 D6.5.3).
enum class TriggerMode : uint8_t {
  kStop = 0b00,      // Stop on trigger: flush, then stop + management event
  kIrq = 0b01,       // IRQ on trigger: flush, then management event, keep collecting
  kReserved = 0b10,  // reserved
  kIgnore = 0b11,    // Ignore trigger: no TRBSR change
};
std::string_view FillModeName(FillMode m);        // "fill", "wrap", "circular", "reserved"
std::string_view TriggerModeName(TriggerMode m);  // "stop", "irq", "ignore", "reserved"
// Accepts the names above (and "stop-on-trigger", "irq-on-trigger", "circular-buffer").
std::optional<FillMode> ParseFillMode(std::string_view s);
std::optional<TriggerMode> ParseTriggerMode(std::string_view s);

// TRBLIMITR_EL1 (sheet §1.2).
struct Limitr {
  uint64_t limit = 0;  // LIMIT, bits[63:12] as an address: the exclusive end of the buffer (bits[11:0] = 0)
  bool xe = false;     // XE, bit 6 (FEAT_TRBE_EXT external-mode enable)
  bool nvm = false;    // nVM, bit 5: 1 = pointers are physical (PA/IPA)
  TriggerMode tm = TriggerMode::kStop;  // TM, bits[4:3]
  FillMode fm = FillMode::kFill;        // FM, bits[2:1]
  bool e = false;                       // E, bit 0: enable (self-hosted)

  static Limitr Decode(uint64_t v);
  uint64_t Encode() const;
};

// TRBSR_EL1 (sheet §1.4).
struct Status {
  uint32_t mss2 = 0;  // MSS2, bits[55:32] (24 bits)
  uint8_t ec = 0;     // EC, bits[31:26] (6 bits)
  bool dat = false;   // DAT, bit 23
  bool irq = false;   // IRQ, bit 22
  bool trg = false;   // TRG, bit 21
  bool wrap = false;  // WRAP, bit 20
  bool ea = false;    // EA, bit 18
  bool s = false;     // S, bit 17
  uint16_t mss = 0;   // MSS, bits[15:0]; BSC = MSS[5:0] for EC=0, FSC = MSS[5:0] for EC=0x24/0x25

  uint8_t bsc() const { return mss & 0x3F; }
  uint8_t fsc() const { return mss & 0x3F; }

  static Status Decode(uint64_t v);
  uint64_t Encode() const;
};

// TRBSR_EL1.EC values (sheet §1.4).
constexpr uint8_t kEcOther = 0x00;        // other buffer management event (MSS = BSC)
constexpr uint8_t kEcGpcFault = 0x1E;     // GPC fault other than GPF (FEAT_RME)
constexpr uint8_t kEcImpdef = 0x1F;       // IMPLEMENTATION DEFINED
constexpr uint8_t kEcStage1Abort = 0x24;  // stage 1 Data Abort on buffer write (MSS = FSC)
constexpr uint8_t kEcStage2Abort = 0x25;  // stage 2 Data Abort on buffer write (MSS = FSC)
// BSC values (EC=0).
constexpr uint8_t kBscNotStopped = 0b000000;
constexpr uint8_t kBscFilled = 0b000001;
constexpr uint8_t kBscTriggered = 0b000010;
constexpr uint8_t kBscManualStop = 0b000011;
constexpr uint8_t kBscSizeTooLarge = 0b000100;
// A few FSC values (DFSC-style, sheet §1.4).
constexpr uint8_t kFscTranslationL3 = 0b000111;
constexpr uint8_t kFscPermissionL3 = 0b001111;
constexpr uint8_t kFscSyncExternalAbort = 0b010000;
constexpr uint8_t kFscAlignment = 0b100001;

// TRBIDR_EL1 (sheet §1.5).
struct Idr {
  uint16_t max_buff_size = 0;  // MaxBuffSize, bits[47:32]
  uint8_t mpam = 0;            // MPAM, bits[15:12]
  uint8_t ea = 0;              // EA, bits[11:8]: 0 not described, 1 ignored, 2 SError
  uint8_t addr_mode = 0;       // AddrMode, bits[7:6]
  bool f = false;              // F, bit 5: HW access flag / dirty state management
  bool p = false;              // P, bit 4: programming not allowed
  uint8_t align = 0;           // Align, bits[3:0]: alignment 2^Align bytes (max 0b1011 = 2 KB)

  uint64_t alignment_bytes() const { return uint64_t{1} << align; }
  static Idr Decode(uint64_t v);
  uint64_t Encode() const;
};

// TRBMAR_EL1 (sheet §1.6).
struct Mar {
  uint8_t pas = 0;   // PAS, bits[11:10]
  uint8_t sh = 0;    // SH, bits[9:8]
  uint8_t attr = 0;  // Attr, bits[7:0] (MAIR_ELx.Attr<n> encoding)
  static Mar Decode(uint64_t v);
  uint64_t Encode() const;
};

// Words for one field of a register value.
struct FieldText {
  std::string name;     // Arm's field name ("IRQ", "EC", "BSC", ...)
  uint64_t value = 0;   // the field's value (not shifted)
  std::string meaning;  // one line of words
};

// A register value explained: every field, and a one-line summary
// ("collection stopped: trigger event; wrapped; IRQ pending").
struct Explanation {
  Reg reg = Reg::kTrbsrEl1;
  uint64_t value = 0;
  std::vector<FieldText> fields;
  std::vector<std::string> warnings;  // RES0 bits set, reserved encodings
  std::string summary;
};

// Words for an EC value, a BSC value and an FSC value (sheet §1.4).
std::string EcMeaning(uint8_t ec);
std::string BscMeaning(uint8_t bsc);
std::string FscMeaning(uint8_t fsc);

// Explains TRBSR_EL1, TRBLIMITR_EL1, TRBIDR_EL1, TRBMAR_EL1, TRBPTR_EL1,
// TRBBASER_EL1 or TRBTRG_EL1. Never fails: values with RES0 bits set or
// reserved encodings are explained and listed in `warnings`.
Explanation Explain(Reg reg, uint64_t value);
// The TRBSR summary alone (used by the model's logs).
std::string StatusSummary(const Status& s);

// Text: one line per field, then the summary and warnings.
std::string ExplanationToText(const Explanation& e);
// JSON object: {"register": name, "value": "0x...", <field name>: <int>,...,
// "summary": "...", "warnings": [...]}. Field names are the architecture's.
std::string ExplanationToJson(const Explanation& e);

}  // namespace mabutrace::trbe

#endif  // MABUTRACE_HOST_TRBE_TRBE_REGISTERS_H
