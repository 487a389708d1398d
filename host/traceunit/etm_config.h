// SPDX-License-Identifier: MIT
// etm_config.h: the ETE trace-unit programming helper (R-H1,
// `mabutrace etm-config`, docs/etm-config.md).
//
// A small declarative configuration (which exception levels to trace,
// address ranges to include/exclude, return stack, timestamps, cycle
// counting, context ID / VMID, trace ID, sync period) becomes the register
// values of ARM DDI 0487 D24.4 by the formulas of reference/arm-trace-facts.md
// §8.5, plus the programming sequences of §8.3 (ARM-K10 K10.5.7, K10.5.10):
// enable, disable, save for power-down / context switch and restore, each as
// a list of steps that render as register writes or as C.
//
// The configuration comes from TOML (ParseToml; schema in
// docs/etm-config.md and examples/etm-config/*.toml) or is filled in by code.
#ifndef MABUTRACE_HOST_TRACEUNIT_ETM_CONFIG_H
#define MABUTRACE_HOST_TRACEUNIT_ETM_CONFIG_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "etm_registers.h"

namespace mabutrace::traceunit {

// An instruction address range, both ends inclusive (sheet §8.2 TRCVIIECTLR).
struct AddressRange {
  uint64_t start = 0;
  uint64_t end = 0;
  bool include = true;  // false: exclude
};

enum class QElements : uint8_t { kOff = 0b00, kCounts = 0b01, kAll = 0b11 };

struct EtmConfig {
  // Exception levels to trace, indexed by ExceptionLevel. Default: NS EL0 and NS EL1.
  std::array<bool, kNumExceptionLevels> trace_el{};
  // false: Realm levels follow the Non-secure ones (EXLEVEL_RL_* = 0);
  // true: trace_el's RL entries are honoured (RL bit = NS bit XOR wanted).
  bool realm_explicit = false;
  std::vector<AddressRange> ranges;        // at most address_pairs (ARC m = index)
  bool return_stack = false;               // TRCCONFIGR.RS
  bool timestamps = false;                 // TRCCONFIGR.TS (+ TRFCR_EL1.TS = physical)
  bool cycle_counting = false;             // TRCCONFIGR.CCI + TRCCCCTLR
  uint32_t cycle_threshold = 4;            // TRCCCCTLR.THRESHOLD, 1..4095 (>= TRCIDR3.CCITMIN)
  bool context_id = false;                 // TRCCONFIGR.CID
  bool vmid = false;                       // TRCCONFIGR.VMID (+ TRFCR_EL2.CX)
  bool vmid_from_contextidr_el2 = false;   // TRCCONFIGR.VMIDOPT
  bool branch_broadcast = false;           // TRCCONFIGR.BB + TRCBBCTLR (everywhere)
  QElements q_elements = QElements::kOff;  // TRCCONFIGR.QE (needs BB=0)
  uint32_t trace_id = 1;                   // TRCTRACEIDR, 1..0x6F
  uint32_t sync_period_bytes = 4096;       // TRCSYNCPR = log2 (256..1 MiB), 0 = off
  unsigned address_pairs = 8;              // TRCIDR4.NUMACPAIRS of the target (1..8)

  EtmConfig();
};

// "ns_el0", "el0" (= ns_el0), ..., "el3", "s_el1", "rl_el2", "all". Sets
// cfg->trace_el (cleared first) and realm_explicit. Returns false and sets
// *error for an unknown name.
bool SetExceptionLevels(const std::vector<std::string>& names, EtmConfig* cfg, std::string* error);

// Parses TOML text into *cfg (keys not present keep their values). Unknown
// keys and wrong types are errors; *error names the line.
bool ParseToml(std::string_view text, std::string_view source_name, EtmConfig* cfg, std::string* error);

// One register value with its explanation.
struct RegisterValue {
  RegisterInfo info;
  uint64_t value = 0;
  std::string why;  // which config item produced it
  Decoded decoded;  // field by field
};

// One step of a programming sequence.
struct Step {
  enum class Kind {
    kComment,     // text only
    kWrite,       // reg <- value
    kWriteSaved,  // reg <- saved copy (restore)
    kSave,        // saved copy <- reg
    kClearBits,   // reg <- reg & ~value (read-modify-write)
    kIsb,
    kTsbCsync,  // TSB CSYNC (hint #18)
    kDsbNsh,
    kPoll,        // loop { ISB; read reg } until (reg & mask) == expect
    kProhibit,    // saved TRFCR_EL1; TRFCR_EL1 &= ~0b11 (E0TRE, E1TRE)
    kUnprohibit,  // TRFCR_EL1 <- saved TRFCR_EL1
  };
  Kind kind = Kind::kComment;
  std::string reg;
  uint64_t value = 0;
  uint64_t mask = 0, expect = 0;
  std::string text;
};

struct Sequence {
  std::string name;    // "enable", "disable", "save", "restore"
  std::string source;  // where it comes from (sheet / Arm ARM section)
  std::vector<Step> steps;
};

struct Program {
  std::vector<RegisterValue> registers;  // programming order
  RegisterValue trfcr_el1, trfcr_el2;    // self-hosted permission (not written while programming)
  std::vector<std::string> context;      // registers to save/restore (incl. TRCPRGCTLR)
  std::vector<Sequence> sequences;       // enable, disable, save, restore
  std::vector<std::string> notes;        // warnings / hints for the user
};

// Computes every value. Returns false and sets *error for an impossible
// configuration (threshold 0 with cycle counting, too many ranges, start >
// end, bad sync period or trace ID, QE with BB).
bool Compute(const EtmConfig& cfg, Program* out, std::string* error);

// Renderings.
std::string ProgramToText(const Program& p);  // registers explained, sequences as register writes, save list
std::string ProgramToC(const Program& p);     // a self-contained C header (AArch64, GCC/Clang inline asm)
std::string ProgramToJson(const Program& p);  // {"registers": {"TRCCONFIGR": {"value": "0x..", fields...}}, ...}
std::string SequenceToText(const Sequence& s);

}  // namespace mabutrace::traceunit

#endif  // MABUTRACE_HOST_TRACEUNIT_ETM_CONFIG_H
