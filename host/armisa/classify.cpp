// SPDX-License-Identifier: MIT
// classify.cpp: the P0 classification tables for A64, A32 and T32.
//
// Each table is scanned top to bottom and the first row whose (mask, value)
// matches decides; rows of type kOther are exclusions that stop the scan
// (an encoding that looks like a later row but is something else). The
// sections cited are those of the Arm ARM, DDI 0487 (L.a and later):
// C6.2 for A64 instructions, F5.1 for A32/T32 instructions (encoding names
// A1/T1/...), C4.1 / F3.1 / F4.1 for the encoding indexes, and D4.4 for
// the ETE P0 instruction lists (arm-trace-facts.md section 6.1).
#include "instr.h"

#include <array>

namespace mabutrace::armisa {
namespace {

// How a direct branch's target is computed from the opcode.
enum class Target : uint8_t {
  kNone,
  kA64Imm26,     // B, BL: PC + SignExtend(imm26:'00')
  kA64Imm19,     // B.cond, BC.cond, CBZ, CBNZ: imm19 in [23:5]
  kA64Imm14,     // TBZ, TBNZ: imm14 in [18:5]
  kA64Imm9,      // CB<cc>, CBB<cc>, CBH<cc>: imm9 in [13:5]
  kA32Imm24,     // B, BL (A1): PC+8 + SignExtend(imm24:'00')
  kA32Blx,       // BLX (immediate) A2: PC+8 + SignExtend(imm24:H:'0'), to T32
  kT32B1,        // B<c> T1: PC+4 + SignExtend(imm8:'0')
  kT32B2,        // B T2: PC+4 + SignExtend(imm11:'0')
  kT32B3,        // B<c>.W T3: SignExtend(S:J2:J1:imm6:imm11:'0')
  kT32B4,        // B.W T4, BL T1: SignExtend(S:I1:I2:imm10:imm11:'0')
  kT32Blx,       // BLX (immediate) T2: Align(PC,4) + SignExtend(S:I1:I2:imm10H:imm10L:'00'), to A32
  kT32Cbz,       // CBZ/CBNZ T1: PC+4 + ZeroExtend(i:imm5:'0')
  kT32LoopFwd,   // WLS/WLSTP (v8.1-M): PC+4 + offset (loop_offset below)
  kT32LoopBack,  // LE/LETP (v8.1-M): PC+4 - offset
};

enum Flags : uint8_t {
  kLink = 1,      // branch with link
  kCond = 2,      // architecturally conditional (N atom possible)
  kOcsdCond = 4,  // OpenCSD 1.8.0 prints "<cond>"
  kNeedWfx = 8,   // P0 only with ClassifyOptions::wfx_waypoints
  kNeedDsb = 16,  // P0 only with ClassifyOptions::dsb_dmb_waypoints
};

struct Rule {
  uint32_t mask;
  uint32_t value;
  InstrType type;
  InstrSubtype sub;
  Target target;
  uint8_t flags;
};

constexpr InstrType kOther = InstrType::kOther;
constexpr InstrType kBr = InstrType::kBranch;
constexpr InstrType kIbr = InstrType::kIndirectBranch;
constexpr InstrType kIsb = InstrType::kIsb;
constexpr InstrType kDsb = InstrType::kDsbDmb;
constexpr InstrType kWfx = InstrType::kWfiWfe;
constexpr InstrType kTstart = InstrType::kTstart;
constexpr InstrSubtype kNone = InstrSubtype::kNone;
constexpr InstrSubtype kLinkSub = InstrSubtype::kBrLink;
constexpr InstrSubtype kRet = InstrSubtype::kV8Ret;
constexpr InstrSubtype kEret = InstrSubtype::kV8Eret;
constexpr InstrSubtype kImplRet = InstrSubtype::kV7ImpliedRet;
constexpr uint8_t kCondBoth = kCond | kOcsdCond;

// ---- A64 (only opcodes with [28:26] == 0b101 get here; instr.h) ----------
constexpr Rule kA64Rules[] = {
    // C6.2 B: 0 00101 imm26
    {0xFC000000, 0x14000000, kBr, kNone, Target::kA64Imm26, 0},
    // C6.2 BL: 1 00101 imm26
    {0xFC000000, 0x94000000, kBr, kLinkSub, Target::kA64Imm26, kLink},
    // C6.2 B.cond: 0101010 0 imm19 0 cond
    {0xFF000010, 0x54000000, kBr, kNone, Target::kA64Imm19, kCondBoth},
    // C6.2 BC.cond (FEAT_HBC): 0101010 0 imm19 1 cond
    {0xFF000010, 0x54000010, kBr, kNone, Target::kA64Imm19, kCondBoth},
    // C6.2 RETAASPPC, RETABSPPC <label> (FEAT_PAuth_LR): 0101010100 M imm16 11111
    {0xFFC0001F, 0x5500001F, kIbr, kRet, Target::kNone, 0},
    // C6.2 CBZ, CBNZ: sf 011010 op imm19 Rt
    {0x7E000000, 0x34000000, kBr, kNone, Target::kA64Imm19, kCondBoth},
    // C6.2 TBZ, TBNZ: b5 011011 op b40 imm14 Rt
    {0x7E000000, 0x36000000, kBr, kNone, Target::kA64Imm14, kCondBoth},
    // C6.2 CB<cc> (register), FEAT_CMPBR: sf 1110100 cc Rm 00 imm9 Rt;
    // cc = 0b100/0b101 is unallocated. OpenCSD does not print <cond>.
    {0x7FC0C000, 0x74800000, kOther, kNone, Target::kNone, 0},
    {0x7F00C000, 0x74000000, kBr, kNone, Target::kA64Imm9, kCond},
    // C6.2 CBB<cc> / CBH<cc>, FEAT_CMPBR: 0 1110100 cc Rm 1 H imm9 Rt (sf = 0 only)
    {0xFFC08000, 0x74808000, kOther, kNone, Target::kNone, 0},
    {0xFF008000, 0x74008000, kBr, kNone, Target::kA64Imm9, kCond},
    // C6.2 CB<cc> (immediate), FEAT_CMPBR: sf 1110101 cc imm6 0 imm9 Rt
    {0x7FC04000, 0x75800000, kOther, kNone, Target::kNone, 0},
    {0x7F004000, 0x75000000, kBr, kNone, Target::kA64Imm9, kCond},
    // C6.2 BR: 1101011 0000 11111 000000 Rn 00000
    {0xFFFFFC1F, 0xD61F0000, kIbr, kNone, Target::kNone, 0},
    // C6.2 BLR: 1101011 0001 11111 000000 Rn 00000
    {0xFFFFFC1F, 0xD63F0000, kIbr, kLinkSub, Target::kNone, kLink},
    // C6.2 RET: 1101011 0010 11111 000000 Rn 00000
    {0xFFFFFC1F, 0xD65F0000, kIbr, kRet, Target::kNone, 0},
    // C6.2 ERET: 0xD69F03E0
    {0xFFFFFFFF, 0xD69F03E0, kIbr, kEret, Target::kNone, 0},
    // C6.2 TEXIT (transactional exit; the texit-poe2 oracle prints it "A64:eret")
    {0xFFFFFBFF, 0xD6FF03E0, kIbr, kEret, Target::kNone, 0},
    // C6.2 BRAAZ, BRABZ (FEAT_PAuth): 1101011 0000 11111 00001 M Rn 11111
    {0xFFFFF81F, 0xD61F081F, kIbr, kNone, Target::kNone, 0},
    // C6.2 BLRAAZ, BLRABZ: 1101011 0001 11111 00001 M Rn 11111
    {0xFFFFF81F, 0xD63F081F, kIbr, kLinkSub, Target::kNone, kLink},
    // C6.2 RETAA, RETAB: 1101011 0010 11111 00001 M 11111 11111
    {0xFFFFFBFF, 0xD65F0BFF, kIbr, kRet, Target::kNone, 0},
    // C6.2 RETAASPPCR, RETABSPPCR <Xm> (FEAT_PAuth_LR): 1101011 0010 11111 00001 M 11111 Rm
    {0xFFFFFBE0, 0xD65F0BE0, kIbr, kRet, Target::kNone, 0},
    // C6.2 ERETAA, ERETAB: 1101011 0100 11111 00001 M 11111 11111
    {0xFFFFFBFF, 0xD69F0BFF, kIbr, kEret, Target::kNone, 0},
    // C6.2 BRAA, BRAB: 1101011 1000 11111 00001 M Rn Rm
    {0xFFFFF800, 0xD71F0800, kIbr, kNone, Target::kNone, 0},
    // C6.2 BLRAA, BLRAB: 1101011 1001 11111 00001 M Rn Rm
    {0xFFFFF800, 0xD73F0800, kIbr, kLinkSub, Target::kNone, kLink},
    // C6.2 ISB: 1101010100 0 00 011 0011 CRm 1 10 11111
    {0xFFFFF0FF, 0xD50330DF, kIsb, kNone, Target::kNone, 0},
    // C6.2 DSB, DMB: ... 0011 CRm 1 00/01 11111 (ETMv3-style waypoints only)
    {0xFFFFF0FF, 0xD503309F, kDsb, kNone, Target::kNone, kNeedDsb},
    {0xFFFFF0FF, 0xD50330BF, kDsb, kNone, Target::kNone, kNeedDsb},
    // C6.2 WFE (0xD503205F), WFI (0xD503207F): HINT #2 / #3
    {0xFFFFFFDF, 0xD503205F, kWfx, kNone, Target::kNone, kNeedWfx},
    // C6.2 WFET (0xD5031000 | Rd), WFIT (0xD5031020 | Rd), FEAT_WFxT
    {0xFFFFFFC0, 0xD5031000, kWfx, kNone, Target::kNone, kNeedWfx},
    // C6.2 TSTART (FEAT_TME): 1101010100 1 00 011 0011 0000 011 Rt
    {0xFFFFFFE0, 0xD5233060, kTstart, kNone, Target::kNone, 0},
};

// ---- A32 (F5.1; cond = opcode[31:28]) ----------------------------------
constexpr Rule kA32Rules[] = {
    // Unconditional space (cond = 0b1111), F4.1.
    // F5.1 BLX (immediate) A2: 1111 101 H imm24
    {0xFE000000, 0xFA000000, kBr, kLinkSub, Target::kA32Blx, kLink},
    // F5.1 RFE A1: 1111 100 P U 0 W 1 Rn (0)(0)(0)(0)(1)(0)(1)(0)(0)...
    {0xFE500000, 0xF8100000, kIbr, kNone, Target::kNone, 0},
    // F5.1 ISB A1: 1111 0101 0111 (1)(1)(1)(1) (1)(1)(1)(1) (0)(0)(0)(0) 0110 option
    {0xFFF000F0, 0xF5700060, kIsb, kNone, Target::kNone, 0},
    // F5.1 DSB A1 (0100), DMB A1 (0101)
    {0xFFF000E0, 0xF5700040, kDsb, kNone, Target::kNone, kNeedDsb},
    {0xF0000000, 0xF0000000, kOther, kNone, Target::kNone, 0},
    // F5.1 B A1: cond 1010 imm24
    {0x0F000000, 0x0A000000, kBr, kNone, Target::kA32Imm24, 0},
    // F5.1 BL (immediate) A1: cond 1011 imm24
    {0x0F000000, 0x0B000000, kBr, kLinkSub, Target::kA32Imm24, kLink},
    // F5.1 BX A1 with Rm = LR ("BX LR", an implied return)
    {0x0FF000FF, 0x0120001E, kIbr, kImplRet, Target::kNone, 0},
    // F5.1 BLX (register) A1: cond 00010010 (1)(1)(1)(1)(1)(1)(1)(1)(1)(1)(1)(1) 0011 Rm
    {0x0FF000F0, 0x01200030, kIbr, kLinkSub, Target::kNone, kLink},
    // F5.1 BX A1: ... 0001 Rm
    {0x0FF000F0, 0x01200010, kIbr, kNone, Target::kNone, 0},
    // F5.1 BXJ A1: ... 0010 Rm (behaves as BX)
    {0x0FF000F0, 0x01200020, kIbr, kNone, Target::kNone, 0},
    // F5.1 ERET A1: cond 0001 0110 (0)(0)(0)(0) (0)(0)(0)(0) (0)(0)(0)(0) 0110 1110
    // (D4.4 lists it as P0; OpenCSD 1.8.0 does not classify it.)
    {0x0FFFFFFF, 0x0160006E, kIbr, kNone, Target::kNone, 0},
    // F5.1 POP (multiple registers) = LDMIA SP!, {..., PC} (SP not in the list)
    {0x0FFFA000, 0x08BD8000, kIbr, kImplRet, Target::kNone, 0},
    // F5.1 LDM, LDMDA, LDMDB, LDMIB, LDM (exception return) with PC in the list
    {0x0E108000, 0x08108000, kIbr, kNone, Target::kNone, 0},
    // F5.1 POP (single register) = LDR PC, [SP], #4 (LDR (immediate) A1 post-indexed)
    {0x0FFFF000, 0x049DF000, kIbr, kImplRet, Target::kNone, 0},
    // F5.1 LDR (immediate)/(literal) A1 with Rt = PC: cond 010 P U 0 W 1 Rn 1111 imm12
    {0x0E50F000, 0x0410F000, kIbr, kNone, Target::kNone, 0},
    // F5.1 LDR (register) A1 with Rt = PC: cond 011 P U 0 W 1 Rn 1111 imm5 type 0 Rm
    {0x0E50F010, 0x0610F000, kIbr, kNone, Target::kNone, 0},
    // F5.1 MOV (register) A1 "MOV PC, LR" (S = 0, no shift): an implied return
    {0x0FFFFFFF, 0x01A0F00E, kIbr, kImplRet, Target::kNone, 0},
    // F5.1 WFE A1 (…0010), WFI A1 (…0011): cond 0011 0010 0000 (1111) (0000) 0000 001x
    {0x0FFFFFFE, 0x0320F002, kWfx, kNone, Target::kNone, kNeedWfx},
    // F5.1 MCR A1 CP15ISB (c7, c5, 4), CP15DSB (c7, c10, 4), CP15DMB (c7, c10, 5)
    {0x0FFF0FFF, 0x0E070F95, kIsb, kNone, Target::kNone, 0},
    {0x0FFF0FFF, 0x0E070F9A, kDsb, kNone, Target::kNone, kNeedDsb},
    {0x0FFF0FFF, 0x0E070FBA, kDsb, kNone, Target::kNone, kNeedDsb},
    // Exclusions in the data-processing space (F4.1): miscellaneous and
    // halfword multiply (cond 00010xx0), multiply and extra load/store
    // (bits 7 and 4 set), MOVW/MOVT/MSR (immediate)/hints (cond 00110xx0),
    // TST/TEQ/CMP/CMN (no destination register).
    {0x0F900000, 0x01000000, kOther, kNone, Target::kNone, 0},
    {0x0E000090, 0x00000090, kOther, kNone, Target::kNone, 0},
    {0x0F900000, 0x03000000, kOther, kNone, Target::kNone, 0},
    {0x0D900000, 0x01100000, kOther, kNone, Target::kNone, 0},
    // Data-processing (immediate / register / register-shifted) with Rd = PC
    // (F4.1.x; includes MOV PC, Rm, ADD PC, ..., SUBS PC, LR, #imm).
    {0x0C00F000, 0x0000F000, kIbr, kNone, Target::kNone, 0},
};

// ---- T32 (packed hw1:hw2; F3.1, F5.1) ----------------------------------
constexpr Rule kT32Rules[] = {
    // 16-bit encodings (only hw1 = bits [31:16] may be tested).
    // F5.1 CBZ, CBNZ T1: 1011 op 0 i 1 imm5 Rn
    {0xF5000000, 0xB1000000, kBr, kNone, Target::kT32Cbz, kCondBoth},
    // F5.1 POP T1 with P = 1: 1011 110 1 register_list
    {0xFF000000, 0xBD000000, kIbr, kImplRet, Target::kNone, 0},
    // F5.1 WFE T1 (0xBF20), WFI T1 (0xBF30)
    {0xFFEF0000, 0xBF200000, kWfx, kNone, Target::kNone, kNeedWfx},
    // F5.1 BX T1 with Rm = LR (0x4770): an implied return
    {0xFFF80000, 0x47700000, kIbr, kImplRet, Target::kNone, 0},
    // F5.1 BX T1: 010001 11 0 Rm (0)(0)(0)
    {0xFF800000, 0x47000000, kIbr, kNone, Target::kNone, 0},
    // F5.1 BLX (register) T1: 010001 11 1 Rm (0)(0)(0)
    {0xFF800000, 0x47800000, kIbr, kLinkSub, Target::kNone, kLink},
    // F5.1 MOV (register) T1 "MOV PC, LR" (0x46F7): an implied return
    {0xFFFF0000, 0x46F70000, kIbr, kImplRet, Target::kNone, 0},
    // F5.1 ADD (register) T2 / MOV (register) T1 with Rd = PC: 010001 x0 1 Rm 111
    {0xFD870000, 0x44870000, kIbr, kNone, Target::kNone, 0},
    // F5.1 UDF T1 (0xDExx) and SVC T1 (0xDFxx) share B<c> T1's space
    {0xFE000000, 0xDE000000, kOther, kNone, Target::kNone, 0},
    // F5.1 B T1: 1101 cond imm8
    {0xF0000000, 0xD0000000, kBr, kNone, Target::kT32B1, kCondBoth},
    // F5.1 B T2: 11100 imm11
    {0xF8000000, 0xE0000000, kBr, kNone, Target::kT32B2, 0},
    // 32-bit encodings.
    // F5.1 TBB, TBH T1: 111010001101 Rn (1)(1)(1)(1)(0)(0)(0)(0)000 H Rm
    {0xFFF0FFE0, 0xE8D0F000, kIbr, kNone, Target::kNone, 0},
    // F5.1 RFE T1 (RFEDB): 1110100000 W 1 Rn (1)(1)(0)...; RFE T2 (RFEIA): 1110100110 W 1 Rn
    {0xFFD00000, 0xE8100000, kIbr, kNone, Target::kNone, 0},
    {0xFFD00000, 0xE9900000, kIbr, kNone, Target::kNone, 0},
    // F5.1 POP T2 = LDMIA SP!, {..., PC}: 1110100010111101 P M 0 register_list
    {0xFFFF8000, 0xE8BD8000, kIbr, kImplRet, Target::kNone, 0},
    // F5.1 LDM/LDMDB T2/T1 with PC in the list
    {0xFE508000, 0xE8108000, kIbr, kNone, Target::kNone, 0},
    // F5.1 POP T3 = LDR PC, [SP], #4 (LDR (immediate) T4 post-indexed, Rn = SP)
    {0xFFFFFF00, 0xF85DFB00, kIbr, kImplRet, Target::kNone, 0},
    // F5.1 LDR (literal) T2 with Rt = PC: 11111000 U 1011111 1111 imm12
    {0xFF7FF000, 0xF85FF000, kIbr, kNone, Target::kNone, 0},
    // F5.1 LDR (immediate) T3 with Rt = PC: 111110001101 Rn 1111 imm12
    {0xFFF0F000, 0xF8D0F000, kIbr, kNone, Target::kNone, 0},
    // F5.1 LDR (immediate) T4 with Rt = PC: 111110000101 Rn 1111 1 P U W imm8
    {0xFFF0F800, 0xF850F800, kIbr, kNone, Target::kNone, 0},
    // F5.1 LDR (register) T2 with Rt = PC: 111110000101 Rn 1111 000000 imm2 Rm
    {0xFFF0FFC0, 0xF850F000, kIbr, kNone, Target::kNone, 0},
    // F5.1 BXJ T1: 111100111100 Rm 10(0)0 (1)(1)(1)(1) (0)...
    {0xFFF0D000, 0xF3C08000, kIbr, kNone, Target::kNone, 0},
    // F5.1 SUBS PC, LR, #imm8 T5 (ERET is SUBS PC, LR, #0): 111100111101 (1)(1)(1)(0) 10(0)0
    // (1)(1)(1)(1) imm8
    {0xFFF0D000, 0xF3D08000, kIbr, kNone, Target::kNone, 0},
    // F5.1 ISB T1: 111100111011 (1)(1)(1)(1) 10(0)0 (1)(1)(1)(1) 0110 option
    {0xFFFFFFF0, 0xF3BF8F60, kIsb, kNone, Target::kNone, 0},
    // F5.1 DSB T1 (0100), DMB T1 (0101)
    {0xFFFFFFE0, 0xF3BF8F40, kDsb, kNone, Target::kNone, kNeedDsb},
    // F5.1 WFE T2 (0xF3AF8002), WFI T2 (0xF3AF8003)
    {0xFFFFFFFE, 0xF3AF8002, kWfx, kNone, Target::kNone, kNeedWfx},
    // F5.1 MCR T1 CP15ISB / CP15DSB / CP15DMB (as A32, with 0xEE top byte)
    {0xFFFF0FFF, 0xEE070F95, kIsb, kNone, Target::kNone, 0},
    {0xFFFF0FFF, 0xEE070F9A, kDsb, kNone, Target::kNone, kNeedDsb},
    {0xFFFF0FFF, 0xEE070FBA, kDsb, kNone, Target::kNone, kNeedDsb},
    // Branches and miscellaneous control (F3.1): cond = 0b111x in B T3's
    // field is the miscellaneous-control space (MSR, MRS, hints, ...).
    {0xFB80D000, 0xF3808000, kOther, kNone, Target::kNone, 0},
    // F5.1 B T3: 11110 S cond imm6 10 J1 0 J2 imm11
    {0xF800D000, 0xF0008000, kBr, kNone, Target::kT32B3, kCondBoth},
    // F5.1 B T4: 11110 S imm10 10 J1 1 J2 imm11
    {0xF800D000, 0xF0009000, kBr, kNone, Target::kT32B4, 0},
    // F5.1 BL T1: 11110 S imm10 11 J1 1 J2 imm11
    {0xF800D000, 0xF000D000, kBr, kLinkSub, Target::kT32B4, kLink},
    // F5.1 BLX (immediate) T2: 11110 S imm10H 11 J1 0 J2 imm10L 0
    {0xF800D001, 0xF000C000, kBr, kLinkSub, Target::kT32Blx, kLink},
    // Armv8.1-M low-overhead loops (DDI0553 C2.4): direct branches for the
    // trace unit (ETMv4-M) and for OpenCSD 1.8.0, which prints them without
    // "<cond>" although "not taken" (N) is their loop exit/entry. In
    // A-profile T32 these encodings (BLX T2 with H = 1) are UNDEFINED, so the
    // rows need no profile check.
    //   LE T1 (LE LR, label)  1111 0000 0000 1111 | 1100 imm 1
    //   LE T2 (LE label)      1111 0000 0010 1111 | 1100 imm 1
    //   LETP T3               1111 0000 0001 1111 | 1100 imm 1
    //   WLS T1                1111 0000 0100 Rn   | 1100 imm 1
    //   WLSTP T3              1111 0000 00sz Rn   | 1100 imm 1
    {0xFFFFF001, 0xF00FC001, kBr, kNone, Target::kT32LoopBack, kCond},
    {0xFFFFF001, 0xF02FC001, kBr, kNone, Target::kT32LoopBack, kCond},
    {0xFFFFF001, 0xF01FC001, kBr, kNone, Target::kT32LoopBack, kCond},
    {0xFFF0F001, 0xF040C001, kBr, kNone, Target::kT32LoopFwd, kCond},
    {0xFFC0F001, 0xF000C001, kBr, kNone, Target::kT32LoopFwd, kCond},
};

constexpr int64_t SignExtend(uint64_t value, unsigned bits) {
  const uint64_t m = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((value ^ m) - m);
}

// Direct-branch target; A32/T32 results are 32-bit addresses.
uint64_t BranchTarget(Target kind, uint32_t i, uint64_t pc, Isa* target_isa) {
  switch (kind) {
    case Target::kA64Imm26: return pc + SignExtend(i & 0x03FFFFFF, 26) * 4;
    case Target::kA64Imm19: return pc + SignExtend((i >> 5) & 0x7FFFF, 19) * 4;
    case Target::kA64Imm14: return pc + SignExtend((i >> 5) & 0x3FFF, 14) * 4;
    case Target::kA64Imm9: return pc + SignExtend((i >> 5) & 0x1FF, 9) * 4;
    case Target::kA32Imm24: return static_cast<uint32_t>(pc + 8 + SignExtend(i & 0xFFFFFF, 24) * 4);
    case Target::kA32Blx:
      *target_isa = Isa::kT32;
      return static_cast<uint32_t>(pc + 8 + SignExtend(((i & 0xFFFFFF) << 1) | ((i >> 24) & 1), 25) * 2);
    case Target::kT32B1: return static_cast<uint32_t>(pc + 4 + SignExtend((i >> 16) & 0xFF, 8) * 2);
    case Target::kT32B2: return static_cast<uint32_t>(pc + 4 + SignExtend((i >> 16) & 0x7FF, 11) * 2);
    case Target::kT32B3: {
      const uint32_t s = (i >> 26) & 1, j1 = (i >> 13) & 1, j2 = (i >> 11) & 1;
      const uint32_t imm = (s << 19) | (j2 << 18) | (j1 << 17) | (((i >> 16) & 0x3F) << 11) | (i & 0x7FF);
      return static_cast<uint32_t>(pc + 4 + SignExtend(imm, 20) * 2);
    }
    case Target::kT32B4:
    case Target::kT32Blx: {
      const uint32_t s = (i >> 26) & 1;
      const uint32_t i1 = ~((i >> 13) ^ s) & 1, i2 = ~((i >> 11) ^ s) & 1;
      const uint32_t imm = (s << 23) | (i1 << 22) | (i2 << 21) | (((i >> 16) & 0x3FF) << 11) | (i & 0x7FF);
      if (kind == Target::kT32B4) return static_cast<uint32_t>(pc + 4 + SignExtend(imm, 24) * 2);
      *target_isa = Isa::kA32;  // imm10L:'00' - imm[0] is H, which must be 0
      return static_cast<uint32_t>(((pc + 4) & ~uint64_t{3}) + SignExtend(imm & ~1u, 24) * 2);
    }
    case Target::kT32Cbz: return static_cast<uint32_t>(pc + 4 + ((((i >> 25) & 1) << 6) | (((i >> 19) & 0x1F) << 1)));
    case Target::kT32LoopFwd:
    case Target::kT32LoopBack: {
      // The loop offset: hw2 bits [10:1] are offset[11:2], bit 11 is
      // offset[1] (e.g. WLS f044 c003 at 0x1e0c4 -> 0x1e0cc, LE f00f c00b
      // at 0x1e104 -> 0x1e0f4 in armv8_1m_branches).
      const uint32_t offset = ((i & 0x7FE) << 1) | ((i & 0x800) >> 10);
      return static_cast<uint32_t>(kind == Target::kT32LoopFwd ? pc + 4 + offset : pc + 4 - offset);
    }
    case Target::kNone: break;
  }
  return 0;
}

// Per-table index: for each value of opcode[31:24], the bit set of rows
// whose mask/value can match that top byte, so a lookup tests only those
// rows (usually one to three) in table order.
template <size_t N>
constexpr std::array<uint64_t, 256> BuildIndex(const Rule (&rules)[N]) {
  static_assert(N <= 64, "a table index holds at most 64 rows");
  std::array<uint64_t, 256> index{};
  for (uint32_t top = 0; top < 256; ++top) {
    for (size_t r = 0; r < N; ++r) {
      if (((top << 24) & rules[r].mask & 0xFF000000u) == (rules[r].value & 0xFF000000u)) index[top] |= uint64_t{1} << r;
    }
  }
  return index;
}
// Every row's value lies within its mask (otherwise it could never match).
template <size_t N>
constexpr bool ValuesWithinMasks(const Rule (&rules)[N]) {
  for (const Rule& r : rules) {
    if ((r.value & ~r.mask) != 0) return false;
  }
  return true;
}
static_assert(ValuesWithinMasks(kA64Rules) && ValuesWithinMasks(kA32Rules) && ValuesWithinMasks(kT32Rules));
constexpr std::array<uint64_t, 256> kA64Index = BuildIndex(kA64Rules);
constexpr std::array<uint64_t, 256> kA32Index = BuildIndex(kA32Rules);
constexpr std::array<uint64_t, 256> kT32Index = BuildIndex(kT32Rules);

InstrInfo Decide(const Rule& r, uint32_t opcode, uint64_t address, Isa isa, const ClassifyOptions& options) {
  InstrInfo info;
  info.target_isa = isa;
  if (r.type == kOther) return info;
  if ((r.flags & kNeedWfx) && !options.wfx_waypoints) return info;
  if ((r.flags & kNeedDsb) && !options.dsb_dmb_waypoints) return info;
  info.type = r.type;
  info.subtype = r.sub;
  info.is_link = (r.flags & kLink) != 0;
  info.is_conditional = (r.flags & kCond) != 0;
  info.ocsd_conditional = (r.flags & kOcsdCond) != 0;
  if (r.target != Target::kNone) {
    info.has_target = true;
    info.target = BranchTarget(r.target, opcode, address, &info.target_isa);
  }
  return info;
}

// First matching row among those the index selects for the top byte.
template <size_t N>
inline InstrInfo Apply(const Rule (&rules)[N], const std::array<uint64_t, 256>& index, uint32_t opcode,
                       uint64_t address, Isa isa, const ClassifyOptions& options) {
  for (uint64_t rows = index[opcode >> 24]; rows != 0; rows &= rows - 1) {
    const size_t k = static_cast<size_t>(__builtin_ctzll(rows));
    if (k >= N) break;  // never: the index only holds row numbers < N
    const Rule& r = rules[k];
    if ((opcode & r.mask) == r.value) return Decide(r, opcode, address, isa, options);
  }
  InstrInfo info;
  info.target_isa = isa;
  return info;
}

// The same without the index (a plain scan), for tests of the index.
template <size_t N>
InstrInfo ApplyLinear(const Rule (&rules)[N], uint32_t opcode, uint64_t address, Isa isa,
                      const ClassifyOptions& options) {
  for (const Rule& r : rules) {
    if ((opcode & r.mask) == r.value) return Decide(r, opcode, address, isa, options);
  }
  InstrInfo info;
  info.target_isa = isa;
  return info;
}

}  // namespace

namespace internal {
InstrInfo ClassifyA64Slow(uint32_t opcode, uint64_t address, const ClassifyOptions& options) {
  return Apply(kA64Rules, kA64Index, opcode, address, Isa::kA64, options);
}
InstrInfo ClassifyLinear(Isa isa, uint32_t opcode, uint64_t address, const ClassifyOptions& options) {
  switch (isa) {
    case Isa::kA64: return ApplyLinear(kA64Rules, opcode, address, isa, options);
    case Isa::kA32: return ApplyLinear(kA32Rules, opcode, address, isa, options);
    case Isa::kT32: return ApplyLinear(kT32Rules, opcode, address, isa, options);
  }
  return InstrInfo{};
}
}  // namespace internal

InstrInfo ClassifyA32(uint32_t opcode, uint32_t address, const ClassifyOptions& options) {
  InstrInfo info = Apply(kA32Rules, kA32Index, opcode, address, Isa::kA32, options);
  if (info.is_p0()) {
    // A32: every instruction outside the unconditional space is
    // conditional unless cond is AL (0b1110); F4.1, "The condition code field".
    const bool cond = (opcode >> 29) != 7u;
    info.is_conditional = info.ocsd_conditional = cond;
  }
  return info;
}

InstrInfo ClassifyT32(uint32_t opcode, uint32_t address, const ClassifyOptions& options) {
  const uint16_t hw1 = static_cast<uint16_t>(opcode >> 16);
  const unsigned size = T32Size(hw1);
  if (size == 2) opcode &= 0xFFFF0000u;  // the second halfword is another instruction
  // F5.1 IT T1: 10111111 firstcond mask, mask != 0000 (mask = 0000 are the hints).
  if ((hw1 & 0xFF00) == 0xBF00 && (hw1 & 0xF) != 0) {
    InstrInfo info;
    info.size = 2;
    info.target_isa = Isa::kT32;
    const unsigned mask = hw1 & 0xF;
    info.it_count = static_cast<uint8_t>(4 - __builtin_ctz(mask));
    info.it_firstcond = static_cast<uint8_t>((hw1 >> 4) & 0xF);
    return info;
  }
  InstrInfo info = Apply(kT32Rules, kT32Index, opcode, address, Isa::kT32, options);
  info.size = static_cast<uint8_t>(size);
  return info;
}

InstrInfo Classify(Isa isa, uint32_t opcode, uint64_t address, const ClassifyOptions& options) {
  switch (isa) {
    case Isa::kA64: return ClassifyA64(opcode, address, options);
    case Isa::kA32: return ClassifyA32(opcode, static_cast<uint32_t>(address), options);
    case Isa::kT32: return ClassifyT32(opcode, static_cast<uint32_t>(address), options);
  }
  return InstrInfo{};
}

std::string_view OcsdTypeName(InstrType type) {
  static constexpr std::array<std::string_view, 7> kNames = {"---", "BR", "iBR", "ISB", "DSB.DMB", "WFI.WFE", "TSTART"};
  return kNames[static_cast<size_t>(type)];
}
std::string_view OcsdSubtypeName(InstrSubtype subtype) {
  static constexpr std::array<std::string_view, 5> kNames = {"", "b+link", "A64:ret", "A64:eret", "V7:impl ret"};
  return kNames[static_cast<size_t>(subtype)];
}
std::string_view OcsdTypeEnumName(InstrType type) {
  static constexpr std::array<std::string_view, 7> kNames = {
      "OCSD_INSTR_OTHER",   "OCSD_INSTR_BR",      "OCSD_INSTR_BR_INDIRECT", "OCSD_INSTR_ISB",
      "OCSD_INSTR_DSB_DMB", "OCSD_INSTR_WFI_WFE", "OCSD_INSTR_TSTART"};
  return kNames[static_cast<size_t>(type)];
}
std::string_view OcsdSubtypeEnumName(InstrSubtype subtype) {
  static constexpr std::array<std::string_view, 5> kNames = {"OCSD_S_INSTR_NONE", "OCSD_S_INSTR_BR_LINK",
                                                             "OCSD_S_INSTR_V8_RET", "OCSD_S_INSTR_V8_ERET",
                                                             "OCSD_S_INSTR_V7_IMPLIED_RET"};
  return kNames[static_cast<size_t>(subtype)];
}
std::string_view IsaName(Isa isa) {
  static constexpr std::array<std::string_view, 3> kNames = {"A64", "A32", "T32"};
  return kNames[static_cast<size_t>(isa)];
}

}  // namespace mabutrace::armisa
