// SPDX-License-Identifier: MIT
// classify_test.cpp: table tests of the P0 classifier, per ISA and class.
//
// Each row: the encoding, the address it sits at, the assembly text, and
// the expected classification. Unless noted, encodings and branch targets
// come from GNU as/objdump 2.40 (aarch64-linux-gnu-as -march=armv8.8-a+tme,
// arm-none-eabi-as -march=armv8-a, .arm / .thumb) at the listed address;
// FEAT_CMPBR rows come from binutils' gas/testsuite/gas/aarch64/cmpbr.d
// (binutils 2.40 predates FEAT_CMPBR) and the Arm ARM C6.2 encodings;
// FEAT_PAuth_LR rows from LLVM's assembler tests; rows marked "capture"
// are opcodes from the ETE snapshots, with the oracle's verdict.
#include <gtest/gtest.h>

#include "instr.h"

namespace mabutrace::armisa {
namespace {

constexpr InstrType O = InstrType::kOther, BR = InstrType::kBranch, IBR = InstrType::kIndirectBranch,
                    ISB = InstrType::kIsb, DSB = InstrType::kDsbDmb, WFX = InstrType::kWfiWfe, TST = InstrType::kTstart;
constexpr InstrSubtype NO = InstrSubtype::kNone, LNK = InstrSubtype::kBrLink, RET = InstrSubtype::kV8Ret,
                       ERT = InstrSubtype::kV8Eret, IMP = InstrSubtype::kV7ImpliedRet;
constexpr uint64_t kNoTarget = ~uint64_t{0};
// cond: architectural / OpenCSD "<cond>"
enum Cond { kUncond, kCondBoth, kCondArchOnly };

struct Row {
  uint32_t opcode;
  uint64_t address;
  const char* text;
  InstrType type;
  InstrSubtype subtype;
  bool link;
  Cond cond;
  uint64_t target;
  Isa target_isa;
};

void Check(Isa isa, const Row& row, const ClassifyOptions& options, unsigned size) {
  SCOPED_TRACE(row.text);
  const InstrInfo info = Classify(isa, row.opcode, row.address, options);
  EXPECT_EQ(info.type, row.type) << OcsdTypeName(info.type);
  EXPECT_EQ(info.subtype, row.subtype) << OcsdSubtypeName(info.subtype);
  EXPECT_EQ(info.is_p0(), row.type != O);
  EXPECT_EQ(info.is_link, row.link);
  EXPECT_EQ(info.is_conditional, row.cond != kUncond);
  EXPECT_EQ(info.ocsd_conditional, row.cond == kCondBoth);
  EXPECT_EQ(info.size, size);
  EXPECT_EQ(info.has_target, row.target != kNoTarget);
  if (row.target != kNoTarget) {
    EXPECT_EQ(info.target, row.target) << std::hex << info.target;
    EXPECT_EQ(info.target_isa, row.target_isa);
  }
}

// ---- A64 ----------------------------------------------------------------
constexpr Isa A64 = Isa::kA64;
const Row kA64Rows[] = {
    // Direct unconditional / link (C6.2 B, BL).
    {0x14000400, 0x0, "b 0x1000", BR, NO, false, kUncond, 0x1000, A64},
    {0x94000400, 0x4, "bl 0x1004", BR, LNK, true, kUncond, 0x1004, A64},
    {0x17ffffff, 0x8, "b 0x4", BR, NO, false, kUncond, 0x4, A64},
    {0x97ffffff, 0xffffffc000081000, "bl .-4 (64-bit address)", BR, LNK, true, kUncond, 0xffffffc000080ffc, A64},
    // B.cond vs BC.cond (C6.2 B.cond, BC.cond; FEAT_HBC): bit 4 differs.
    {0x54000200, 0xc, "b.eq 0x4c", BR, NO, false, kCondBoth, 0x4c, A64},
    {0x54ffffc1, 0x10, "b.ne 0x8", BR, NO, false, kCondBoth, 0x8, A64},
    {0x5400008e, 0x14, "b.al 0x24", BR, NO, false, kCondBoth, 0x24, A64},
    {0x543fffc2, 0xc0, "b.cs 0x800b8 (max forward imm19)", BR, NO, false, kCondBoth, 0x800b8, A64},
    {0x54000210, 0x18, "bc.eq 0x58", BR, NO, false, kCondBoth, 0x58, A64},
    {0x54000070, 0xcda94, "bc.eq 0xcdaa0 (capture ete-bc-instr: E BR <cond>)", BR, NO, false, kCondBoth, 0xcdaa0, A64},
    // Compare / test and branch (C6.2 CBZ, CBNZ, TBZ, TBNZ).
    {0xb4000100, 0x1c, "cbz x0, 0x3c", BR, NO, false, kCondBoth, 0x3c, A64},
    {0x35ffff03, 0x20, "cbnz w3, 0x0", BR, NO, false, kCondBoth, 0x0, A64},
    {0xb6f80801, 0x24, "tbz x1, #63, 0x124", BR, NO, false, kCondBoth, 0x124, A64},
    {0x3707f802, 0x28, "tbnz w2, #0, -0xd8", BR, NO, false, kCondBoth, 0xffffffffffffff28, A64},
    // FEAT_CMPBR (C6.2 CB<cc> (register), CB<cc> (immediate), CBB<cc>, CBH<cc>);
    // OpenCSD 1.8.0 does not print <cond> for them (feat_cmpbr oracle).
    {0x75000000, 0x0, "cbgt w0, #0, 0x0", BR, NO, false, kCondArchOnly, 0x0, A64},
    {0x75003fe0, 0x4, "cbgt w0, #0, 0x0", BR, NO, false, kCondArchOnly, 0x0, A64},
    {0x753fbfe0, 0x4c, "cblt w0, #63, 0x48", BR, NO, false, kCondArchOnly, 0x48, A64},
    {0xf5ffbfff, 0x17c, "cbne xzr, #63, 0x178", BR, NO, false, kCondArchOnly, 0x178, A64},
    {0x74c00000, 0x280, "cbeq w0, w0, 0x280", BR, NO, false, kCondArchOnly, 0x280, A64},
    {0xf47f3fff, 0x27c, "cbhs xzr, xzr, 0x278", BR, NO, false, kCondArchOnly, 0x278, A64},
    {0xf4df0021, 0x102c0c0, "cbeq x1, xzr, 0x102c0c4 (capture feat_cmpbr: E BR)", BR, NO, false, kCondArchOnly,
     0x102c0c4, A64},
    {0x74008000, 0x300, "cbbgt w0, w0, 0x300", BR, NO, false, kCondArchOnly, 0x300, A64},
    {0x74ffbfff, 0x3bc, "cbbne wzr, wzr, 0x3b8", BR, NO, false, kCondArchOnly, 0x3b8, A64},
    {0x7400c000, 0x3c0, "cbhgt w0, w0, 0x3c0", BR, NO, false, kCondArchOnly, 0x3c0, A64},
    {0x74ffffff, 0x47c, "cbhne wzr, wzr, 0x478", BR, NO, false, kCondArchOnly, 0x478, A64},
    // FEAT_CMPBR unallocated: cc = 0b100/0b101, CBB/CBH with sf = 1, bits[15:14] = 01.
    {0x74800000, 0x0, "CB<cc> (register) cc=100: unallocated", O, NO, false, kUncond, kNoTarget, A64},
    {0x75a00000, 0x0, "CB<cc> (immediate) cc=101: unallocated", O, NO, false, kUncond, kNoTarget, A64},
    {0xf4008000, 0x0, "CBB<cc> with sf=1: unallocated", O, NO, false, kUncond, kNoTarget, A64},
    {0x74004000, 0x0, "CB<cc> (register) bits[15:14]=01: unallocated", O, NO, false, kUncond, kNoTarget, A64},
    // Indirect (C6.2 BR, BLR, RET, ERET).
    {0xd61f0060, 0x2c, "br x3", IBR, NO, false, kUncond, kNoTarget, A64},
    {0xd63f0220, 0x30, "blr x17", IBR, LNK, true, kUncond, kNoTarget, A64},
    {0xd65f03c0, 0x34, "ret", IBR, RET, false, kUncond, kNoTarget, A64},
    {0xd65f00a0, 0x38, "ret x5", IBR, RET, false, kUncond, kNoTarget, A64},
    {0xd69f03e0, 0x3c, "eret", IBR, ERT, false, kUncond, kNoTarget, A64},
    // Pointer authentication (C6.2 BRAA..., FEAT_PAuth).
    {0xd71f0822, 0x40, "braa x1, x2", IBR, NO, false, kUncond, kNoTarget, A64},
    {0xd71f0c3f, 0x44, "brab x1, sp", IBR, NO, false, kUncond, kNoTarget, A64},
    {0xd73f0864, 0x48, "blraa x3, x4", IBR, LNK, true, kUncond, kNoTarget, A64},
    {0xd73f0c64, 0x4c, "blrab x3, x4", IBR, LNK, true, kUncond, kNoTarget, A64},
    {0xd61f08bf, 0x50, "braaz x5", IBR, NO, false, kUncond, kNoTarget, A64},
    {0xd61f0cbf, 0x54, "brabz x5", IBR, NO, false, kUncond, kNoTarget, A64},
    {0xd63f08df, 0x58, "blraaz x6", IBR, LNK, true, kUncond, kNoTarget, A64},
    {0xd63f0cdf, 0x5c, "blrabz x6", IBR, LNK, true, kUncond, kNoTarget, A64},
    {0xd65f0bff, 0x60, "retaa", IBR, RET, false, kUncond, kNoTarget, A64},
    {0xd65f0fff, 0x64, "retab", IBR, RET, false, kUncond, kNoTarget, A64},
    {0xd69f0bff, 0x68, "eretaa", IBR, ERT, false, kUncond, kNoTarget, A64},
    {0xd69f0fff, 0x6c, "eretab", IBR, ERT, false, kUncond, kNoTarget, A64},
    // FEAT_PAuth_LR (C6.2 RETAASPPC, RETABSPPC, RETAASPPCR, RETABSPPCR).
    {0x551fffbf, 0x10275ec, "retaasppc <label> (capture pauth_lr: iBR A64:ret)", IBR, RET, false, kUncond, kNoTarget,
     A64},
    {0x553fffbf, 0x0, "retabsppc <label>", IBR, RET, false, kUncond, kNoTarget, A64},
    {0xd65f0be2, 0x0, "retaasppcr x2 (LLVM)", IBR, RET, false, kUncond, kNoTarget, A64},
    {0xd65f0fe2, 0x0, "retabsppcr x2 (LLVM)", IBR, RET, false, kUncond, kNoTarget, A64},
    // TEXIT (capture texit-poe2: iBR A64:eret).
    {0xd6ff03e0, 0x10002c4, "texit", IBR, ERT, false, kUncond, kNoTarget, A64},
    // Barriers, WFx, TME (C6.2 ISB, DSB, DMB, WFE, WFI, WFET, WFIT, TSTART).
    {0xd5033fdf, 0x70, "isb", ISB, NO, false, kUncond, kNoTarget, A64},
    {0xd50335df, 0x74, "isb #5", ISB, NO, false, kUncond, kNoTarget, A64},
    {0xd5033f9f, 0x78, "dsb sy (not P0 under ETE)", O, NO, false, kUncond, kNoTarget, A64},
    {0xd5033bbf, 0x7c, "dmb ish (not P0 under ETE)", O, NO, false, kUncond, kNoTarget, A64},
    {0xd503205f, 0x80, "wfe", WFX, NO, false, kUncond, kNoTarget, A64},
    {0xd503207f, 0x84, "wfi", WFX, NO, false, kUncond, kNoTarget, A64},
    {0xd5031003, 0x88, "wfet x3", WFX, NO, false, kUncond, kNoTarget, A64},
    {0xd5031024, 0x8c, "wfit x4", WFX, NO, false, kUncond, kNoTarget, A64},
    {0xd5233060, 0x90, "tstart x0", TST, NO, false, kUncond, kNoTarget, A64},
    {0xd503307f, 0x94, "tcommit (not P0: a Transaction Commit element)", O, NO, false, kUncond, kNoTarget, A64},
    {0xd4600020, 0x98, "tcancel #1", O, NO, false, kUncond, kNoTarget, A64},
    {0xd5233160, 0x9c, "ttest x0", O, NO, false, kUncond, kNoTarget, A64},
    // Not P0: exception generating (the exception is traced instead), hints, data processing.
    {0xd4000001, 0xa0, "svc #0", O, NO, false, kUncond, kNoTarget, A64},
    {0xd4000002, 0xa4, "hvc #0", O, NO, false, kUncond, kNoTarget, A64},
    {0xd4200000, 0xa8, "brk #0", O, NO, false, kUncond, kNoTarget, A64},
    {0xd503201f, 0xac, "nop", O, NO, false, kUncond, kNoTarget, A64},
    {0x8b020020, 0xb0, "add x0, x1, x2", O, NO, false, kUncond, kNoTarget, A64},
    {0xf9400020, 0xb4, "ldr x0, [x1]", O, NO, false, kUncond, kNoTarget, A64},
    {0x9a820020, 0xb8, "csel x0, x1, x2, eq (not conditional in trace terms)", O, NO, false, kUncond, kNoTarget, A64},
    {0xfa411800, 0xbc, "ccmp x0, #1, #0, ne", O, NO, false, kUncond, kNoTarget, A64},
};

TEST(ClassifyA64, Table) {
  for (const Row& row : kA64Rows) Check(Isa::kA64, row, ClassifyOptions{}, 4);
}

TEST(ClassifyA64, OptionsGateWfxAndDsbDmb) {
  ClassifyOptions no_wfx;
  no_wfx.wfx_waypoints = false;
  EXPECT_FALSE(ClassifyA64(0xd503207f, 0, no_wfx).is_p0());  // wfi
  EXPECT_FALSE(ClassifyA64(0xd5031003, 0, no_wfx).is_p0());  // wfet x3
  ClassifyOptions etmv3;
  etmv3.dsb_dmb_waypoints = true;
  EXPECT_EQ(ClassifyA64(0xd5033f9f, 0, etmv3).type, InstrType::kDsbDmb);  // dsb sy
  EXPECT_EQ(ClassifyA64(0xd5033bbf, 0, etmv3).type, InstrType::kDsbDmb);  // dmb ish
  EXPECT_EQ(ClassifyA64(0xd5033fdf, 0, etmv3).type, InstrType::kIsb);     // isb stays ISB
}

// Every A64 P0 lies in the branch/exception/system group, opcode[28:26] =
// 0b101: no opcode outside it is P0 (checks the fast reject in instr.h
// against the table on a sweep of the other groups).
TEST(ClassifyA64, FastRejectIsExact) {
  for (uint64_t op = 0; op <= 0xFFFFFFFFu; op += 0x10001) {
    const uint32_t i = static_cast<uint32_t>(op);
    if (((i >> 26) & 7) == 5) continue;
    ASSERT_FALSE(internal::ClassifyA64Slow(i, 0, ClassifyOptions{}).is_p0()) << std::hex << i;
  }
}

// The per-top-byte row index gives the same answer as a plain scan of the
// table, for every ISA, on a sweep of opcodes plus random ones.
TEST(Classify, IndexMatchesLinearScan) {
  uint32_t x = 0x12345678;
  for (uint64_t n = 0; n < 400000; ++n) {
    const uint32_t op = n < 65536 ? static_cast<uint32_t>(n * 0x10001u) : (x = x * 1664525u + 1013904223u);
    for (Isa isa : {Isa::kA64, Isa::kA32, Isa::kT32}) {
      uint32_t o = op;
      if (isa == Isa::kT32 && T32Size(static_cast<uint16_t>(o >> 16)) == 2) o &= 0xFFFF0000u;
      if (isa == Isa::kT32 && (o >> 24) == 0xBF && ((o >> 16) & 0xF) != 0) continue;  // IT
      const InstrInfo fast = Classify(isa, o, 0x8000);
      const InstrInfo slow = internal::ClassifyLinear(isa, o, 0x8000, ClassifyOptions{});
      ASSERT_EQ(fast.type, slow.type) << IsaName(isa) << " " << std::hex << o;
      ASSERT_EQ(fast.subtype, slow.subtype) << IsaName(isa) << " " << std::hex << o;
      ASSERT_EQ(fast.target, slow.target) << IsaName(isa) << " " << std::hex << o;
      ASSERT_EQ(fast.is_link, slow.is_link) << IsaName(isa) << " " << std::hex << o;
    }
  }
}

// ---- A32 ----------------------------------------------------------------
constexpr Isa A32 = Isa::kA32, T32 = Isa::kT32;
const Row kA32Rows[] = {
    // F5.1 B, BL (A1), BLX (immediate) A2.
    {0xea0003fe, 0x0, "b 0x1000", BR, NO, false, kUncond, 0x1000, A32},
    {0xebfffffc, 0x4, "bl 0xfffffffc", BR, LNK, true, kUncond, 0xfffffffc, A32},
    {0x0b000006, 0x8, "bleq 0x28", BR, LNK, true, kCondBoth, 0x28, A32},
    {0x1b000006, 0xc, "blne 0x2c", BR, LNK, true, kCondBoth, 0x2c, A32},
    {0xfb00003e, 0x10, "blx 0x112 (H=1, to T32)", BR, LNK, true, kUncond, 0x112, T32},
    // F5.1 BLX (register), BX, BXJ.
    {0xe12fff33, 0x14, "blx r3", IBR, LNK, true, kUncond, kNoTarget, A32},
    {0x112fff33, 0x18, "blxne r3", IBR, LNK, true, kCondBoth, kNoTarget, A32},
    {0xe12fff1e, 0x1c, "bx lr", IBR, IMP, false, kUncond, kNoTarget, A32},
    {0x012fff1e, 0x20, "bxeq lr", IBR, IMP, false, kCondBoth, kNoTarget, A32},
    {0x312fff1e, 0x1a9564, "bxcc lr (capture ete_ip: iBR V7:impl ret <cond>)", IBR, IMP, false, kCondBoth, kNoTarget,
     A32},
    {0xe12fff12, 0x24, "bx r2", IBR, NO, false, kUncond, kNoTarget, A32},
    {0xe12fff21, 0x28, "bxj r1", IBR, NO, false, kUncond, kNoTarget, A32},
    // F5.1 POP / LDM with PC; LDR to PC.
    {0xe8bd8070, 0x2c, "pop {r4, r5, r6, pc}", IBR, IMP, false, kUncond, kNoTarget, A32},
    {0xe8bd8010, 0x30, "pop {r4, pc}", IBR, IMP, false, kUncond, kNoTarget, A32},
    {0xe8908002, 0x34, "ldm r0, {r1, pc}", IBR, NO, false, kUncond, kNoTarget, A32},
    {0xe9b08000, 0x38, "ldmib r0!, {pc}", IBR, NO, false, kUncond, kNoTarget, A32},
    {0xe49df004, 0x3c, "pop {pc} (ldr pc, [sp], #4)", IBR, IMP, false, kUncond, kNoTarget, A32},
    {0xe591f004, 0x44, "ldr pc, [r1, #4]", IBR, NO, false, kUncond, kNoTarget, A32},
    {0xe51ff004, 0x48, "ldr pc, [pc, #-4]", IBR, NO, false, kUncond, kNoTarget, A32},
    {0xe792f101, 0x4c, "ldr pc, [r2, r1, lsl #2] (capture ete_ip: iBR)", IBR, NO, false, kUncond, kNoTarget, A32},
    // Data processing to PC.
    {0xe1a0f00e, 0x50, "mov pc, lr", IBR, IMP, false, kUncond, kNoTarget, A32},
    {0x11a0f00e, 0x54, "movne pc, lr", IBR, IMP, false, kCondBoth, kNoTarget, A32},
    {0xe1b0f00e, 0x58, "movs pc, lr (exception return, not an implied return)", IBR, NO, false, kUncond, kNoTarget,
     A32},
    {0xe1a0f003, 0x5c, "mov pc, r3", IBR, NO, false, kUncond, kNoTarget, A32},
    {0xe08ff101, 0x60, "add pc, pc, r1, lsl #2", IBR, NO, false, kUncond, kNoTarget, A32},
    {0xe25ef004, 0x64, "subs pc, lr, #4", IBR, NO, false, kUncond, kNoTarget, A32},
    // F5.1 ERET, RFE (D4.4: P0; OpenCSD 1.8.0 misses A32 ERET).
    {0xe160006e, 0x68, "eret", IBR, NO, false, kUncond, kNoTarget, A32},
    {0xf8bd0a00, 0x6c, "rfeia sp!", IBR, NO, false, kUncond, kNoTarget, A32},
    // Barriers and WFx.
    {0xf57ff06f, 0x70, "isb sy", ISB, NO, false, kUncond, kNoTarget, A32},
    {0xf57ff04f, 0x74, "dsb sy (not P0 under ETE)", O, NO, false, kUncond, kNoTarget, A32},
    {0xf57ff05b, 0x78, "dmb ish", O, NO, false, kUncond, kNoTarget, A32},
    {0xee070f95, 0x7c, "mcr p15, 0, r0, c7, c5, 4 (CP15ISB)", ISB, NO, false, kUncond, kNoTarget, A32},
    {0xee070f9a, 0x80, "mcr p15, 0, r0, c7, c10, 4 (CP15DSB)", O, NO, false, kUncond, kNoTarget, A32},
    {0xe320f003, 0x84, "wfi", WFX, NO, false, kUncond, kNoTarget, A32},
    {0xe320f002, 0x88, "wfe", WFX, NO, false, kUncond, kNoTarget, A32},
    {0x1320f003, 0x8c, "wfine", WFX, NO, false, kCondBoth, kNoTarget, A32},
    // Not P0.
    {0xef000009, 0x90, "svc 9 (capture ete_ip: range cut, ---)", O, NO, false, kUncond, kNoTarget, A32},
    {0xe31f0004, 0x94, "tst pc, #4", O, NO, false, kUncond, kNoTarget, A32},
    {0xe150000f, 0x98, "cmp r0, pc", O, NO, false, kUncond, kNoTarget, A32},
    {0xe1a00001, 0x9c, "mov r0, r1", O, NO, false, kUncond, kNoTarget, A32},
    {0xe59f0008, 0xa0, "ldr r0, [pc, #8]", O, NO, false, kUncond, kNoTarget, A32},
    {0xe28f0008, 0xa4, "add r0, pc, #8", O, NO, false, kUncond, kNoTarget, A32},
    {0xe3010234, 0xa8, "movw r0, #0x1234", O, NO, false, kUncond, kNoTarget, A32},
    {0xe320f000, 0xac, "nop", O, NO, false, kUncond, kNoTarget, A32},
    {0xe1200070, 0xb0, "bkpt 0", O, NO, false, kUncond, kNoTarget, A32},
    {0xe7f000f0, 0xb4, "udf #0", O, NO, false, kUncond, kNoTarget, A32},
};

TEST(ClassifyA32, Table) {
  for (const Row& row : kA32Rows) Check(Isa::kA32, row, ClassifyOptions{}, 4);
}

// ---- T32 (packed hw1:hw2) -----------------------------------------------
const Row kT32Rows16[] = {
    // F5.1 B T1/T2, CBZ/CBNZ T1.
    {0xe01e0000, 0x0, "b.n 0x40", BR, NO, false, kUncond, 0x40, T32},
    {0xd0f60000, 0x2, "beq.n 0xfffffff2", BR, NO, false, kCondBoth, 0xfffffff2, T32},
    {0xd17e0000, 0x4, "bne.n 0x104", BR, NO, false, kCondBoth, 0x104, T32},
    {0xb1700000, 0x1a, "cbz r0, 0x3a", BR, NO, false, kCondBoth, 0x3a, T32},
    {0xbbef0000, 0x1c, "cbnz r7, 0x9a", BR, NO, false, kCondBoth, 0x9a, T32},
    // F5.1 BX, BLX (register), POP, MOV/ADD PC.
    {0x47700000, 0x1e, "bx lr", IBR, IMP, false, kUncond, kNoTarget, T32},
    {0x47180000, 0x20, "bx r3", IBR, NO, false, kUncond, kNoTarget, T32},
    {0x47980000, 0x22, "blx r3", IBR, LNK, true, kUncond, kNoTarget, T32},
    {0xbd100000, 0x24, "pop {r4, pc}", IBR, IMP, false, kUncond, kNoTarget, T32},
    {0x46f70000, 0x3e, "mov pc, lr", IBR, IMP, false, kUncond, kNoTarget, T32},
    {0x469f0000, 0x40, "mov pc, r3", IBR, NO, false, kUncond, kNoTarget, T32},
    {0x448f0000, 0x42, "add pc, r1", IBR, NO, false, kUncond, kNoTarget, T32},
    // WFx T1.
    {0xbf300000, 0x6c, "wfi", WFX, NO, false, kUncond, kNoTarget, T32},
    {0xbf200000, 0x6e, "wfe", WFX, NO, false, kUncond, kNoTarget, T32},
    // Not P0: IT (reported separately), hints, SVC/UDF in B T1's space, data processing.
    {0xbf080000, 0x78, "it eq", O, NO, false, kUncond, kNoTarget, T32},
    {0xbf000000, 0x88, "nop", O, NO, false, kUncond, kNoTarget, T32},
    {0xdf010000, 0x8a, "svc 1", O, NO, false, kUncond, kNoTarget, T32},
    {0xde000000, 0x8c, "udf #0", O, NO, false, kUncond, kNoTarget, T32},
    {0x46080000, 0x9a, "mov r0, r1", O, NO, false, kUncond, kNoTarget, T32},
    // The second halfword of a 16-bit instruction is the next instruction: ignored.
    {0x4770f000, 0x0, "bx lr; (next: f000)", IBR, IMP, false, kUncond, kNoTarget, T32},
    {0x46084770, 0x0, "mov r0, r1; (next: bx lr)", O, NO, false, kUncond, kNoTarget, T32},
};
const Row kT32Rows32[] = {
    // F5.1 B T3/T4, BL T1, BLX (immediate) T2.
    {0xf000bffe, 0x6, "b.w 0x1006", BR, NO, false, kUncond, 0x1006, T32},
    {0xf43eaffe, 0xa, "beq.w 0xfffff00a", BR, NO, false, kCondBoth, 0xfffff00a, T32},
    {0xf00ffffe, 0xe, "bl 0x1000e", BR, LNK, true, kUncond, 0x1000e, T32},
    {0xf7fffffc, 0x12, "bl 0xe", BR, LNK, true, kUncond, 0xe, T32},
    {0xf001e800, 0x16, "blx 0x1018 (to A32, Align(PC,4))", BR, LNK, true, kUncond, 0x1018, A32},
    // LDM/POP.W, LDR PC.
    {0xe8bd8ff0, 0x26, "ldmia.w sp!, {r4-r11, pc} (pop.w)", IBR, IMP, false, kUncond, kNoTarget, T32},
    {0xe8908002, 0x2a, "ldmia.w r0, {r1, pc}", IBR, NO, false, kUncond, kNoTarget, T32},
    {0xf85dfb04, 0x2e, "ldr.w pc, [sp], #4 (pop.w {pc})", IBR, IMP, false, kUncond, kNoTarget, T32},
    {0xf8d1f008, 0x32, "ldr.w pc, [r1, #8]", IBR, NO, false, kUncond, kNoTarget, T32},
    {0xf85ff008, 0x36, "ldr.w pc, [pc, #-8]", IBR, NO, false, kUncond, kNoTarget, T32},
    {0xf852f021, 0x3a, "ldr.w pc, [r2, r1, lsl #2]", IBR, NO, false, kUncond, kNoTarget, T32},
    // TBB/TBH, exception returns, BXJ.
    {0xe8dff001, 0x44, "tbb [pc, r1]", IBR, NO, false, kUncond, kNoTarget, T32},
    {0xe8d0f011, 0x48, "tbh [r0, r1, lsl #1]", IBR, NO, false, kUncond, kNoTarget, T32},
    {0xf3de8f04, 0x4c, "subs pc, lr, #4", IBR, NO, false, kUncond, kNoTarget, T32},
    {0xf3de8f00, 0x50, "eret (subs pc, lr, #0)", IBR, NO, false, kUncond, kNoTarget, T32},
    {0xe9bdc000, 0x54, "rfeia sp!", IBR, NO, false, kUncond, kNoTarget, T32},
    {0xe810c000, 0x58, "rfedb r0", IBR, NO, false, kUncond, kNoTarget, T32},
    {0xf3c28f00, 0x5c, "bxj r2", IBR, NO, false, kUncond, kNoTarget, T32},
    // Barriers, WFx T2.
    {0xf3bf8f6f, 0x60, "isb sy", ISB, NO, false, kUncond, kNoTarget, T32},
    {0xf3bf8f4f, 0x64, "dsb sy", O, NO, false, kUncond, kNoTarget, T32},
    {0xf3bf8f5b, 0x68, "dmb ish", O, NO, false, kUncond, kNoTarget, T32},
    {0xf3af8003, 0x70, "wfi.w", WFX, NO, false, kUncond, kNoTarget, T32},
    {0xf3af8002, 0x74, "wfe.w", WFX, NO, false, kUncond, kNoTarget, T32},
    // Not P0: misc control in B T3's cond=111x space, UDF.W, data processing.
    {0xf7f0a000, 0x8e, "udf.w #0", O, NO, false, kUncond, kNoTarget, T32},
    {0xf3ef8000, 0x92, "mrs r0, apsr", O, NO, false, kUncond, kNoTarget, T32},
    {0xf3808800, 0x96, "msr apsr_nzcvq, r0", O, NO, false, kUncond, kNoTarget, T32},
    {0xeb010002, 0x9c, "add.w r0, r1, r2", O, NO, false, kUncond, kNoTarget, T32},
    // Armv8.1-M low-overhead loops: direct branches, N possible, no OpenCSD
    // "<cond>" (the first two from armv8_1m_branches' image and listing).
    {0xf044c003, 0x1e0c4, "wls lr, r4, 0x1e0cc", BR, NO, false, kCondArchOnly, 0x1e0cc, T32},
    {0xf00fc00b, 0x1e104, "le lr, 0x1e0f4", BR, NO, false, kCondArchOnly, 0x1e0f4, T32},
    {0xf02fc801, 0x1000, "le 0x1002 (offset[1] from bit 11)", BR, NO, false, kCondArchOnly, 0x1002, T32},
    {0xf01fc005, 0x1000, "letp lr, 0xffc", BR, NO, false, kCondArchOnly, 0xffc, T32},
    {0xf011c009, 0x1000, "wlstp.16 lr, r1, 0x1014", BR, NO, false, kCondArchOnly, 0x1014, T32},
    {0xf044e001, 0x1000, "dls lr, r4 (not a branch)", O, NO, false, kUncond, kNoTarget, T32},
};

TEST(ClassifyT32, Table16) {
  for (const Row& row : kT32Rows16) Check(Isa::kT32, row, ClassifyOptions{}, 2);
}
TEST(ClassifyT32, Table32) {
  for (const Row& row : kT32Rows32) Check(Isa::kT32, row, ClassifyOptions{}, 4);
}

TEST(ClassifyT32, WidthFromFirstHalfword) {
  EXPECT_EQ(T32Size(0xe7ff), 2u);  // b.n (11100)
  EXPECT_EQ(T32Size(0xe800), 4u);  // 11101
  EXPECT_EQ(T32Size(0xf000), 4u);  // 11110
  EXPECT_EQ(T32Size(0xf800), 4u);  // 11111
  EXPECT_EQ(T32Size(0x4770), 2u);
  EXPECT_EQ(T32Opcode(0xf000, 0xbffe), 0xf000bffeu);
}

TEST(ClassifyT32, ItBlocks) {
  struct It {
    uint16_t hw;
    const char* text;
    unsigned count;
    unsigned firstcond;
  };
  const It kIts[] = {
      {0xbf08, "it eq", 1, 0x0},  {0xbf1a, "itte ne", 3, 0x1},  {0xbfe8, "it al", 1, 0xe},
      {0xbf14, "ite ne", 2, 0x1}, {0xbf01, "itttt eq", 4, 0x0},
  };
  for (const It& it : kIts) {
    SCOPED_TRACE(it.text);
    const InstrInfo info = ClassifyT32(T32Opcode(it.hw), 0);
    EXPECT_FALSE(info.is_p0());
    EXPECT_EQ(info.size, 2u);
    EXPECT_EQ(info.it_count, it.count);
    EXPECT_EQ(info.it_firstcond, it.firstcond);
  }
  EXPECT_EQ(ClassifyT32(T32Opcode(0xbf00), 0).it_count, 0u);  // nop: mask 0000 is a hint
}

TEST(Names, MatchOpenCsdLister) {
  EXPECT_EQ(OcsdTypeName(InstrType::kOther), "---");
  EXPECT_EQ(OcsdTypeName(InstrType::kBranch), "BR");
  EXPECT_EQ(OcsdTypeName(InstrType::kIndirectBranch), "iBR");
  EXPECT_EQ(OcsdTypeName(InstrType::kIsb), "ISB");
  EXPECT_EQ(OcsdTypeName(InstrType::kDsbDmb), "DSB.DMB");
  EXPECT_EQ(OcsdTypeName(InstrType::kWfiWfe), "WFI.WFE");
  EXPECT_EQ(OcsdTypeName(InstrType::kTstart), "TSTART");
  EXPECT_EQ(OcsdSubtypeName(InstrSubtype::kNone), "");
  EXPECT_EQ(OcsdSubtypeName(InstrSubtype::kBrLink), "b+link");
  EXPECT_EQ(OcsdSubtypeName(InstrSubtype::kV8Ret), "A64:ret");
  EXPECT_EQ(OcsdSubtypeName(InstrSubtype::kV8Eret), "A64:eret");
  EXPECT_EQ(OcsdSubtypeName(InstrSubtype::kV7ImpliedRet), "V7:impl ret");
  EXPECT_EQ(OcsdTypeEnumName(InstrType::kIndirectBranch), "OCSD_INSTR_BR_INDIRECT");
  EXPECT_EQ(OcsdSubtypeEnumName(InstrSubtype::kV7ImpliedRet), "OCSD_S_INSTR_V7_IMPLIED_RET");
  EXPECT_EQ(IsaName(Isa::kT32), "T32");
}

}  // namespace
}  // namespace mabutrace::armisa
