// SPDX-License-Identifier: MIT
// instr.h: classify one A64, A32 or T32 instruction for ETE instruction
// following (SPEC R-F3; docs/armisa.md).
//
// The trace unit emits one P0 element (an atom, in the common case) per
// executed "P0 instruction" (Arm ARM DDI 0487, D4.4 "Instruction
// classification"); a decoder walks the program image from a known address
// and stops at the first P0 instruction, whose outcome the atom gives. This
// file answers, for one opcode: is it P0, which kind (OpenCSD's
// ocsd_instr_type / ocsd_instr_subtype, because the oracle listings print
// those), its size, whether it may be "not taken", and the target of a
// direct branch.
//
// Encodings are matched against tables of (mask, value) rows, first match
// wins (classify.cpp); each row cites its Arm ARM encoding. Pure functions:
// no state, no heap, callable from any thread.
//
// T32 opcodes are packed the way the Arm ARM writes them and OpenCSD reads
// them: first halfword in bits [31:16], second halfword in [15:0]. For a
// 16-bit instruction only bits [31:16] matter (use T32Opcode(hw1, hw2)).
#ifndef MABUTRACE_HOST_ARMISA_INSTR_H
#define MABUTRACE_HOST_ARMISA_INSTR_H

#include <cstdint>
#include <string_view>

namespace mabutrace::armisa {

// Instruction set state (ETE context: AArch64, or AArch32 A32/T32).
enum class Isa : uint8_t { kA64 = 0, kA32 = 1, kT32 = 2 };

// Waypoint kind; same values and meaning as OpenCSD's ocsd_instr_type.
enum class InstrType : uint8_t {
  kOther = 0,           // OCSD_INSTR_OTHER: not a P0 instruction
  kBranch = 1,          // OCSD_INSTR_BR: direct branch (target in the opcode)
  kIndirectBranch = 2,  // OCSD_INSTR_BR_INDIRECT: target from a register/memory
  kIsb = 3,             // OCSD_INSTR_ISB: context synchronisation barrier
  kDsbDmb = 4,          // OCSD_INSTR_DSB_DMB: only with ClassifyOptions::dsb_dmb_waypoints
  kWfiWfe = 5,          // OCSD_INSTR_WFI_WFE: only with ClassifyOptions::wfx_waypoints
  kTstart = 6,          // OCSD_INSTR_TSTART: TME transaction start
};

// Refinement of kBranch/kIndirectBranch; OpenCSD's ocsd_instr_subtype.
enum class InstrSubtype : uint8_t {
  kNone = 0,          // OCSD_S_INSTR_NONE
  kBrLink = 1,        // OCSD_S_INSTR_BR_LINK: branch with link (return stack push)
  kV8Ret = 2,         // OCSD_S_INSTR_V8_RET: A64 RET, RETAA/RETAB, RETA*SPPC
  kV8Eret = 3,        // OCSD_S_INSTR_V8_ERET: A64 ERET, ERETAA/ERETAB, TEXIT
  kV7ImpliedRet = 4,  // OCSD_S_INSTR_V7_IMPLIED_RET: A32/T32 BX LR, MOV PC,LR, POP {..,PC}
};

// Which ETE options make more instructions P0 (read from the trace unit's
// ID registers). ETE: WFx are P0 when TRCIDR2.WFXMODE (bit 31) is 1; DSB/DMB
// are never P0 (an ETMv3 notion, kept for OpenCSD parity).
struct ClassifyOptions {
  bool wfx_waypoints = true;
  bool dsb_dmb_waypoints = false;
};

// The classification of one instruction. Plain data, 24 bytes.
struct InstrInfo {
  uint64_t target = 0;  // direct branch target (has_target)
  InstrType type = InstrType::kOther;
  InstrSubtype subtype = InstrSubtype::kNone;
  uint8_t size = 4;            // bytes: 4, or 2 for 16-bit T32
  Isa target_isa = Isa::kA64;  // ISA at the target (BLX imm switches)
  bool has_target = false;     // kBranch: target is valid
  bool is_link = false;        // writes the return address (LR)
  // Architecturally conditional: the P0 element may be an N atom (B.cond,
  // BC.cond, CBZ/CBNZ, TBZ/TBNZ, CB<cc>/CBB<cc>/CBH<cc>, A32 cond != 111x,
  // T32 B<c>/CBZ/CBNZ; the follower adds T32 instructions in an IT block).
  bool is_conditional = false;
  // What OpenCSD 1.8.0 prints as "<cond>": as is_conditional except that it
  // does not mark FEAT_CMPBR CB<cc>/CBB<cc>/CBH<cc> (feat_cmpbr oracle:
  // "E BR " for cbeq) nor T32 instructions in an IT block.
  bool ocsd_conditional = false;
  uint8_t it_count = 0;      // T32 IT: instructions it covers (1-4)
  uint8_t it_firstcond = 0;  // T32 IT: firstcond (0b1110 = AL)

  bool is_p0() const { return type != InstrType::kOther; }
};

// Packs a T32 instruction's halfwords (in memory order) as Classify expects.
constexpr uint32_t T32Opcode(uint16_t hw1, uint16_t hw2 = 0) { return (uint32_t{hw1} << 16) | hw2; }
// Size in bytes of the T32 instruction whose first halfword is hw1: 32-bit
// iff hw1[15:11] is 0b11101, 0b11110 or 0b11111 (Arm ARM F3.1, "T32
// instruction set encoding").
constexpr unsigned T32Size(uint16_t hw1) { return hw1 >= 0xE800 ? 4 : 2; }

namespace internal {
InstrInfo ClassifyA64Slow(uint32_t opcode, uint64_t address, const ClassifyOptions& options);
// The table rows scanned in order, without the per-top-byte index and
// without the A32 condition / T32 IT post-processing: for tests.
InstrInfo ClassifyLinear(Isa isa, uint32_t opcode, uint64_t address, const ClassifyOptions& options);
}  // namespace internal

// A64: every P0 instruction sits in the encoding group "Branches, exception
// generating and system instructions" (Arm ARM C4.1, op0 = x101, i.e.
// opcode[28:26] == 0b101), so most opcodes are rejected by one test here.
inline InstrInfo ClassifyA64(uint32_t opcode, uint64_t address, const ClassifyOptions& options = {}) {
  if (((opcode >> 26) & 7u) != 5u) return InstrInfo{};
  return internal::ClassifyA64Slow(opcode, address, options);
}
// A32 (address: of the instruction; PC reads as address + 8).
InstrInfo ClassifyA32(uint32_t opcode, uint32_t address, const ClassifyOptions& options = {});
// T32 (opcode packed by T32Opcode; PC reads as address + 4). Reports IT
// instructions through it_count/it_firstcond (not P0 themselves).
InstrInfo ClassifyT32(uint32_t opcode, uint32_t address, const ClassifyOptions& options = {});
// Dispatch on isa (A32/T32 addresses are truncated to 32 bits).
InstrInfo Classify(Isa isa, uint32_t opcode, uint64_t address, const ClassifyOptions& options = {});

// Names as the OpenCSD 1.8.0 lister prints them in INSTR_RANGE elements
// ("BR", "iBR", "ISB", "DSB.DMB", "WFI.WFE", "TSTART", "---"; subtypes
// "b+link", "A64:ret", "A64:eret", "V7:impl ret", "").
std::string_view OcsdTypeName(InstrType type);
std::string_view OcsdSubtypeName(InstrSubtype subtype);
// Enumerator names: "OCSD_INSTR_BR", "OCSD_S_INSTR_BR_LINK", ...
std::string_view OcsdTypeEnumName(InstrType type);
std::string_view OcsdSubtypeEnumName(InstrSubtype subtype);
// "A64", "A32", "T32" (the lister's ISA= names).
std::string_view IsaName(Isa isa);

}  // namespace mabutrace::armisa

#endif  // MABUTRACE_HOST_ARMISA_INSTR_H
