// SPDX-License-Identifier: MIT
// etm_registers.h: the ETE trace-unit programming registers, their encodings
// and their fields, as Arm defines them (R-H1; ARM DDI 0487 D24.4;
// reference/arm-trace-facts.md §8.1-§8.2).
//
// Every register has a system-register encoding (op0=0b10, op1=0b001, CRn,
// CRm, op2; usable as "s2_1_c<n>_c<m>_<op2>" in MSR/MRS) and, for the
// external debug interface, an MMIO offset. DecodeRegister() turns a value
// into Arm's field names and words; the field names are the JSON keys of
// `mabutrace etm-config --decode REG=VALUE --format json`.
#ifndef MABUTRACE_HOST_TRACEUNIT_ETM_REGISTERS_H
#define MABUTRACE_HOST_TRACEUNIT_ETM_REGISTERS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mabutrace::traceunit {

// A system register's MSR/MRS encoding.
struct SysRegEncoding {
  uint8_t op0 = 2, op1 = 1, crn = 0, crm = 0, op2 = 0;
  // "s2_1_c0_c4_0": what an assembler accepts for any system register.
  std::string AsmName() const;
};

// One register of the trace unit (or TRFCR_ELx, which gates it).
struct RegisterInfo {
  std::string name;  // "TRCCONFIGR", "TRCACVR3", "TRFCR_EL1"
  SysRegEncoding enc;
  std::optional<uint32_t> mmio_offset;  // external debug offset, if any
  unsigned width_bits = 32;             // 64 for TRCACVRn, TRCCIDCVRn, TRCVMIDCVRn, TRFCR
};

// Looks a register up by name (case-insensitive; TRCACVR0..15, TRCACATR0..15,
// TRCCIDCVR0..7, TRCVMIDCVR0..7, TRCRSCTLR2..31 included). nullopt if unknown.
std::optional<RegisterInfo> FindRegister(std::string_view name);

// A field of a decoded value.
struct FieldValue {
  std::string name;  // Arm's field name: "RS", "EXLEVEL_NS_EL0", ...
  unsigned hi = 0, lo = 0;
  uint64_t value = 0;
  std::string meaning;
};

struct Decoded {
  std::string reg;
  uint64_t value = 0;
  std::vector<FieldValue> fields;
  std::vector<std::string> warnings;  // RES0 set, RES1 clear, reserved values
  std::string summary;
};

// Registers DecodeRegister understands field by field.
std::vector<std::string> DecodableRegisters();
// Decodes `value` of register `name`. Returns false (and sets *error, which
// lists DecodableRegisters) for an unknown register; TRCACVRn and other
// address registers decode as one field.
bool DecodeRegister(std::string_view name, uint64_t value, Decoded* out, std::string* error);

std::string DecodedToText(const Decoded& d);
// One field as a text line: `indent`, "[hi:lo]" (or "[bit]"), the name, the
// value in hex padded to `value_width`, the meaning, '\n'.
std::string FieldToText(const FieldValue& f, const char* indent, int value_width);
// {"register": "...", "value": "0x...", <FIELD>: <int>, ..., "summary": "...", "warnings": [...]}
std::string DecodedToJson(const Decoded& d);

// TRCVICTLR / TRCACATR exception-level bits (sheet §8.2). Index order:
// S_EL0..S_EL2, EL3, NS_EL0..NS_EL2, RL_EL0..RL_EL2.
enum class ExceptionLevel : uint8_t {
  kSEl0,
  kSEl1,
  kSEl2,
  kEl3,
  kNsEl0,
  kNsEl1,
  kNsEl2,
  kRlEl0,
  kRlEl1,
  kRlEl2,
};
constexpr int kNumExceptionLevels = 10;
std::string_view ExceptionLevelName(ExceptionLevel el);  // "s_el0", ..., "el3", "ns_el0", ..., "rl_el2"
// TRCVICTLR bit of EXLEVEL_<el> (16..19, 20..22, 24..26).
unsigned VictlrExlevelBit(ExceptionLevel el);

}  // namespace mabutrace::traceunit

#endif  // MABUTRACE_HOST_TRACEUNIT_ETM_REGISTERS_H
