// SPDX-License-Identifier: MIT
// etm_config_test.cpp: the ETE programming helper's values bit by bit
// against reference/arm-trace-facts.md §8 (ARM DDI 0487 D24.4, K10 Table
// K10-3), including the design documents' example values the sheet marks
// right or wrong (§9 claims 10a-10c).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "etm_config.h"
#include "etm_registers.h"

namespace {

using namespace mabutrace::traceunit;

std::map<std::string, uint64_t> Values(const Program& p) {
  std::map<std::string, uint64_t> m;
  for (const auto& r : p.registers) m[r.info.name] = r.value;
  return m;
}

uint64_t Field(const Decoded& d, const std::string& name) {
  for (const auto& f : d.fields)
    if (f.name == name) return f.value;
  ADD_FAILURE() << "no field " << name << " in " << d.reg;
  return ~uint64_t{0};
}

Decoded Decode(const std::string& reg, uint64_t v) {
  Decoded d;
  std::string err;
  EXPECT_TRUE(DecodeRegister(reg, v, &d, &err)) << err;
  return d;
}

// ---- Decoding the seeds' example values -----------------------------------------

TEST(EtmDecode, Trcconfigr18C1AlsoEnablesCidAndVmid) {  // §9 claim 10a (seed: "RS + TS" only)
  const Decoded d = Decode("TRCCONFIGR", 0x18C1);
  EXPECT_EQ(Field(d, "CID"), 1u);
  EXPECT_EQ(Field(d, "VMID"), 1u);
  EXPECT_EQ(Field(d, "TS"), 1u);
  EXPECT_EQ(Field(d, "RS"), 1u);
  EXPECT_EQ(Field(d, "BB"), 0u);
  EXPECT_EQ(Field(d, "CCI"), 0u);
  EXPECT_EQ(Field(d, "QE"), 0u);
  EXPECT_EQ(Field(d, "VMIDOPT"), 0u);
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_NE(d.summary.find("context ID"), std::string::npos);
  EXPECT_NE(d.summary.find("VMID"), std::string::npos);
  // Bit 0 is RES1: a value without it is flagged.
  EXPECT_FALSE(Decode("TRCCONFIGR", 0x18C0).warnings.empty());
}

TEST(EtmDecode, Trcvictlr006F0201IsNonSecureEl0Only) {  // §9 claim 10b
  const Decoded d = Decode("TRCVICTLR", 0x006F0201);
  EXPECT_EQ(Field(d, "EVENT_SEL"), 1u);
  EXPECT_EQ(Field(d, "SSSTATUS"), 1u);
  EXPECT_EQ(Field(d, "EXLEVEL_S_EL0"), 1u);  // Secure EL0 NOT traced
  EXPECT_EQ(Field(d, "EXLEVEL_S_EL1"), 1u);
  EXPECT_EQ(Field(d, "EXLEVEL_S_EL2"), 1u);
  EXPECT_EQ(Field(d, "EXLEVEL_S_EL3"), 1u);
  EXPECT_EQ(Field(d, "EXLEVEL_NS_EL0"), 0u);
  EXPECT_EQ(Field(d, "EXLEVEL_NS_EL1"), 1u);
  EXPECT_EQ(Field(d, "EXLEVEL_NS_EL2"), 1u);
  EXPECT_EQ(Field(d, "EXLEVEL_RL_EL0"), 0u);
  // Exactly NS EL0 (and Realm EL0, which follows it); no Secure level.
  const std::string tail = "; traces NS-EL0, RL-EL0";
  ASSERT_GE(d.summary.size(), tail.size());
  EXPECT_EQ(d.summary.substr(d.summary.size() - tail.size()), tail) << d.summary;
}

TEST(EtmDecode, TrcviiectlrIncludeExcludeBits) {  // §9 claim 10c
  EXPECT_EQ(Field(Decode("TRCVIIECTLR", 0x00010000), "EXCLUDE"), 1u);
  EXPECT_EQ(Field(Decode("TRCVIIECTLR", 0x00010000), "INCLUDE"), 0u);
  EXPECT_EQ(Field(Decode("TRCVIIECTLR", 0x00000001), "INCLUDE"), 1u);
  EXPECT_NE(Decode("TRCVIIECTLR", 0x00010000).summary.find("exclude ARC0 (TRCACVR0..TRCACVR1)"), std::string::npos);
}

TEST(EtmDecode, SyncPeriodAndIdRegisters) {  // §8.2
  EXPECT_NE(Decode("TRCSYNCPR", 0xC).summary.find("4096"), std::string::npos);
  EXPECT_FALSE(Decode("TRCSYNCPR", 5).warnings.empty());
  const Decoded id0 = Decode("TRCIDR0", 0x2801CEA1);  // the sheet's decoded example
  EXPECT_EQ(Field(id0, "TRCBB"), 1u);
  EXPECT_EQ(Field(id0, "TRCCCI"), 1u);
  EXPECT_EQ(Field(id0, "RETSTACK"), 1u);
  EXPECT_EQ(Field(id0, "NUMEVENT"), 3u);
  EXPECT_EQ(Field(id0, "QFILT"), 1u);
  EXPECT_EQ(Field(id0, "QSUPP"), 3u);
  EXPECT_EQ(Field(id0, "TSSIZE"), 8u);
  EXPECT_EQ(Field(id0, "COMMOPT"), 1u);
  EXPECT_EQ(Field(id0, "COMMTRANS"), 0u);
  const Decoded id2 = Decode("TRCIDR2", 0xD0001088);
  EXPECT_EQ(Field(id2, "IASIZE"), 8u);
  EXPECT_EQ(Field(id2, "CIDSIZE"), 4u);
  EXPECT_EQ(Field(id2, "VMIDSIZE"), 4u);
  EXPECT_EQ(Field(id2, "CCSIZE"), 8u);
  EXPECT_EQ(Field(id2, "VMIDOPT"), 2u);
  EXPECT_EQ(Field(id2, "WFXMODE"), 1u);
  Decoded d;
  std::string err;
  EXPECT_FALSE(DecodeRegister("TRCNOPE", 1, &d, &err));
}

// ---- Encodings (§8.1) ------------------------------------------------------------------

TEST(EtmRegisters, Encodings) {
  auto enc = [](const char* n) { return FindRegister(n)->enc.AsmName(); };
  auto mmio = [](const char* n) { return *FindRegister(n)->mmio_offset; };
  EXPECT_EQ(enc("TRCPRGCTLR"), "s2_1_c0_c1_0");
  EXPECT_EQ(enc("TRCCONFIGR"), "s2_1_c0_c4_0");
  EXPECT_EQ(enc("TRCTRACEIDR"), "s2_1_c0_c0_1");
  EXPECT_EQ(enc("TRCVICTLR"), "s2_1_c0_c0_2");
  EXPECT_EQ(enc("TRCACVR0"), "s2_1_c2_c0_0");
  EXPECT_EQ(enc("TRCACVR9"), "s2_1_c2_c2_1");   // CRm = n[2:0]:0, op2 = 00:n[3]
  EXPECT_EQ(enc("TRCACATR9"), "s2_1_c2_c2_3");  // op2 = 01:n[3]
  EXPECT_EQ(enc("TRCRSCTLR17"), "s2_1_c1_c1_1");
  EXPECT_EQ(enc("TRCIDR0"), "s2_1_c0_c8_7");
  EXPECT_EQ(enc("TRCIDR8"), "s2_1_c0_c0_6");
  EXPECT_EQ(enc("TRCCIDCVR1"), "s2_1_c3_c2_0");
  EXPECT_EQ(enc("TRCVMIDCVR1"), "s2_1_c3_c2_1");
  EXPECT_EQ(enc("TRFCR_EL1"), "s3_0_c1_c2_1");
  EXPECT_EQ(mmio("TRCCONFIGR"), 0x010u);
  EXPECT_EQ(mmio("TRCACVR9"), 0x448u);
  EXPECT_EQ(mmio("TRCACATR1"), 0x488u);
  EXPECT_EQ(mmio("TRCIDR0") / 4, 0x078u);  // snapshot annotation = offset / 4
  EXPECT_EQ(mmio("TRCIDR8") / 4, 0x060u);
  EXPECT_FALSE(FindRegister("TRCACVR16").has_value());
  EXPECT_FALSE(FindRegister("TRCRSCTLR1").has_value());
  EXPECT_TRUE(FindRegister("trcconfigr").has_value());
}

// ---- Computing values (§8.4, §8.5) ---------------------------------------------------

EtmConfig K10Minimal() {
  EtmConfig c;
  std::string err;
  EXPECT_TRUE(SetExceptionLevels({"ns_el0"}, &c, &err));
  c.return_stack = c.timestamps = c.context_id = c.vmid = true;
  c.trace_id = 0x10;
  c.sync_period_bytes = 4096;
  return c;
}

TEST(EtmCompute, ReproducesK10MinimalTable) {  // §8.4 Table K10-3
  Program p;
  std::string err;
  ASSERT_TRUE(Compute(K10Minimal(), &p, &err)) << err;
  auto v = Values(p);
  EXPECT_EQ(v["TRCCONFIGR"], 0x000018C1u);
  EXPECT_EQ(v["TRCEVENTCTL0R"], 0u);
  EXPECT_EQ(v["TRCEVENTCTL1R"], 0u);
  EXPECT_EQ(v["TRCSTALLCTLR"], 0u);
  EXPECT_EQ(v["TRCSYNCPR"], 0xCu);
  EXPECT_EQ(v["TRCTRACEIDR"], 0x10u);
  EXPECT_EQ(v["TRCTSCTLR"], 0u);
  EXPECT_EQ(v["TRCVICTLR"], 0x006F0201u);
  EXPECT_EQ(v["TRCVIIECTLR"], 0u);
  EXPECT_EQ(v["TRCVISSCTLR"], 0u);
  EXPECT_EQ(v.count("TRCCCCTLR"), 0u);
  EXPECT_EQ(v.count("TRCACVR0"), 0u);
  // Permission: EL0 only, physical timestamps; VMID needs TRFCR_EL2.CX.
  EXPECT_EQ(p.trfcr_el1.value, 0x61u);
  EXPECT_EQ(p.trfcr_el2.value & 0x8, 0x8u);
}

TEST(EtmCompute, ExcludeAndIncludeOneRange) {  // §8.4 last rows
  EtmConfig c = K10Minimal();
  c.ranges.push_back({0x8000, 0x8FFF, false});
  Program p;
  std::string err;
  ASSERT_TRUE(Compute(c, &p, &err)) << err;
  auto v = Values(p);
  EXPECT_EQ(v["TRCVIIECTLR"], 0x00010000u);
  EXPECT_EQ(v["TRCACVR0"], 0x8000u);
  EXPECT_EQ(v["TRCACVR1"], 0x8FFFu);
  EXPECT_EQ(v["TRCACATR0"], v["TRCACATR1"]);  // both TRCACATRs identical
  // Same EL filter as ViewInst: TRCVICTLR bits 16-26 -> TRCACATR bits 8-18.
  EXPECT_EQ(v["TRCACATR0"], 0x006F0000u >> 8);
  c.ranges[0].include = true;
  ASSERT_TRUE(Compute(c, &p, &err)) << err;
  EXPECT_EQ(Values(p)["TRCVIIECTLR"], 0x00000001u);
  c.ranges.push_back({0x9000, 0x9FFF, false});
  ASSERT_TRUE(Compute(c, &p, &err)) << err;
  v = Values(p);
  EXPECT_EQ(v["TRCVIIECTLR"], 0x00020001u);  // ARC0 include, ARC1 exclude
  EXPECT_EQ(v["TRCACVR2"], 0x9000u);
  EXPECT_EQ(v["TRCACVR3"], 0x9FFFu);
}

TEST(EtmCompute, CycleCountingBranchBroadcastQ) {  // §8.5
  EtmConfig c;
  c.cycle_counting = true;
  c.cycle_threshold = 0x100;
  c.branch_broadcast = true;
  Program p;
  std::string err;
  ASSERT_TRUE(Compute(c, &p, &err)) << err;
  auto v = Values(p);
  EXPECT_EQ(v["TRCCONFIGR"], 0x1u | 0x8 | 0x10);
  EXPECT_EQ(v["TRCCCCTLR"], 0x100u);
  EXPECT_EQ(v["TRCBBCTLR"], 0u);
  c.branch_broadcast = false;
  c.q_elements = QElements::kAll;
  ASSERT_TRUE(Compute(c, &p, &err)) << err;
  EXPECT_EQ(Values(p)["TRCCONFIGR"], 0x1u | 0x10 | (0b11 << 13));
  EXPECT_EQ(Values(p).count("TRCQCTLR"), 1u);
}

TEST(EtmCompute, ExceptionLevelsAndRealm) {  // §8.2 TRCVICTLR EXLEVEL, RL = NS xor RL
  EtmConfig c;
  std::string err;
  ASSERT_TRUE(SetExceptionLevels({"el0", "el1", "el2", "s_el1", "el3"}, &c, &err));
  Program p;
  ASSERT_TRUE(Compute(c, &p, &err)) << err;
  EXPECT_EQ(Values(p)["TRCVICTLR"], 0x201u | (1u << 16) | (1u << 18));
  ASSERT_TRUE(SetExceptionLevels({"ns_el0", "rl_el1"}, &c, &err));
  ASSERT_TRUE(Compute(c, &p, &err)) << err;
  const uint64_t v = Values(p)["TRCVICTLR"];
  EXPECT_EQ((v >> 16) & 0xF, 0xFu);  // no Secure level
  EXPECT_EQ((v >> 20) & 0x7, 0x6u);  // NS EL0 only
  EXPECT_EQ((v >> 24) & 0x7, 0x3u);  // RL EL0 differs from NS (traced vs not), RL EL1 too
  EXPECT_FALSE(SetExceptionLevels({"el4"}, &c, &err));
}

TEST(EtmCompute, ImpossibleConfigsAreErrors) {
  std::string err;
  Program p;
  EtmConfig c;
  c.cycle_counting = true;
  c.cycle_threshold = 0;
  EXPECT_FALSE(Compute(c, &p, &err));
  c = EtmConfig();
  c.sync_period_bytes = 1000;
  EXPECT_FALSE(Compute(c, &p, &err));
  c = EtmConfig();
  c.trace_id = 0x70;
  EXPECT_FALSE(Compute(c, &p, &err));
  c = EtmConfig();
  c.ranges.push_back({0x2000, 0x1000, true});
  EXPECT_FALSE(Compute(c, &p, &err));
  EXPECT_NE(err.find("above end"), std::string::npos);
  c = EtmConfig();
  c.address_pairs = 2;
  c.ranges.assign(3, AddressRange{0, 1, true});
  EXPECT_FALSE(Compute(c, &p, &err));
  c = EtmConfig();
  c.branch_broadcast = true;
  c.q_elements = QElements::kCounts;
  EXPECT_FALSE(Compute(c, &p, &err));
  c = EtmConfig();
  c.trace_el.fill(false);
  EXPECT_FALSE(Compute(c, &p, &err));
}

// ---- Sequences (§8.3) ------------------------------------------------------------------

size_t IndexOf(const Sequence& s, Step::Kind k, const std::string& reg = "", uint64_t value = ~uint64_t{0}) {
  for (size_t i = 0; i < s.steps.size(); ++i)
    if (s.steps[i].kind == k && (reg.empty() || s.steps[i].reg == reg) &&
        (value == ~uint64_t{0} || s.steps[i].value == value))
      return i;
  return SIZE_MAX;
}

TEST(EtmSequences, OrderFollowsTheArchitecture) {
  Program p;
  std::string err;
  ASSERT_TRUE(Compute(K10Minimal(), &p, &err)) << err;
  ASSERT_EQ(p.sequences.size(), 4u);
  const Sequence& en = p.sequences[0];
  const size_t off = IndexOf(en, Step::Kind::kWrite, "TRCPRGCTLR", 0);
  const size_t cfg = IndexOf(en, Step::Kind::kWrite, "TRCCONFIGR");
  const size_t on = IndexOf(en, Step::Kind::kWrite, "TRCPRGCTLR", 1);
  ASSERT_NE(on, SIZE_MAX);
  EXPECT_LT(off, cfg);
  EXPECT_EQ(en.steps[on - 1].kind, Step::Kind::kIsb);   // ISB before TRCPRGCTLR=1
  EXPECT_EQ(en.steps[on + 1].kind, Step::Kind::kPoll);  // then poll IDLE==0
  EXPECT_EQ(en.steps[on + 1].mask, 1u);
  EXPECT_EQ(en.steps[on + 1].expect, 0u);

  const Sequence& dis = p.sequences[1];
  const size_t prohibit = IndexOf(dis, Step::Kind::kProhibit);
  const size_t tsb = IndexOf(dis, Step::Kind::kTsbCsync);
  const size_t en0 = IndexOf(dis, Step::Kind::kWrite, "TRCPRGCTLR", 0);
  const size_t poll = IndexOf(dis, Step::Kind::kPoll);
  const size_t restore = IndexOf(dis, Step::Kind::kUnprohibit);
  EXPECT_EQ(prohibit, 0u);
  EXPECT_EQ(dis.steps[1].kind, Step::Kind::kIsb);
  EXPECT_LT(prohibit, tsb);
  EXPECT_LT(tsb, en0);
  EXPECT_LT(en0, poll);
  EXPECT_EQ(dis.steps[poll].mask, 3u);  // IDLE and PMSTABLE
  EXPECT_EQ(dis.steps[poll].expect, 3u);
  EXPECT_LT(poll, restore);
  EXPECT_LT(restore, IndexOf(dis, Step::Kind::kClearBits, "TRBLIMITR_EL1"));  // source before sink

  const Sequence& save = p.sequences[2];
  EXPECT_LT(IndexOf(save, Step::Kind::kWrite, "OSLAR_EL1", 1), IndexOf(save, Step::Kind::kSave, "TRCPRGCTLR"));
  const Sequence& rest = p.sequences[3];
  EXPECT_LT(IndexOf(rest, Step::Kind::kWriteSaved, "TRCCONFIGR"), IndexOf(rest, Step::Kind::kWriteSaved, "TRCPRGCTLR"));
  EXPECT_LT(IndexOf(rest, Step::Kind::kWriteSaved, "TRCPRGCTLR"), IndexOf(rest, Step::Kind::kWrite, "OSLAR_EL1", 0));
  // The save list covers the seed's list and what the seed forgot.
  for (const char* r :
       {"TRCPRGCTLR", "TRCCONFIGR", "TRCEVENTCTL0R", "TRCVICTLR", "TRCVIIECTLR", "TRCSYNCPR", "TRCTRACEIDR"})
    EXPECT_NE(std::find(p.context.begin(), p.context.end(), r), p.context.end()) << r;
}

// ---- TOML ------------------------------------------------------------------------------

TEST(EtmToml, ExampleFilesParseAndMatch) {
  const std::string dir = MABUTRACE_EXAMPLES_DIR;
  std::ifstream f(dir + "/ns-el0-process.toml");
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  EtmConfig c;
  std::string err;
  ASSERT_TRUE(ParseToml(text, "ns-el0-process.toml", &c, &err)) << err;
  Program p;
  ASSERT_TRUE(Compute(c, &p, &err)) << err;
  EXPECT_EQ(Values(p)["TRCCONFIGR"], 0x18C1u);
  EXPECT_EQ(Values(p)["TRCVICTLR"], 0x006F0201u);

  std::ifstream g(dir + "/kernel-range.toml");
  const std::string t2((std::istreambuf_iterator<char>(g)), std::istreambuf_iterator<char>());
  EtmConfig k;
  ASSERT_TRUE(ParseToml(t2, "kernel-range.toml", &k, &err)) << err;
  ASSERT_EQ(k.ranges.size(), 2u);
  EXPECT_EQ(k.ranges[0].start, 0xffff800080010000ull);
  EXPECT_FALSE(k.ranges[1].include);
}

TEST(EtmToml, ErrorsNameTheLine) {
  EtmConfig c;
  std::string err;
  EXPECT_FALSE(ParseToml("return_stack = true\nretrun_stack = true\n", "x.toml", &c, &err));
  EXPECT_NE(err.find("x.toml:2:"), std::string::npos) << err;
  EXPECT_FALSE(ParseToml("timestamps = 1\n", "x.toml", &c, &err));
  EXPECT_NE(err.find("true or false"), std::string::npos);
  EXPECT_FALSE(ParseToml("exception_levels = [\"el9\"]\n", "x.toml", &c, &err));
  EXPECT_FALSE(ParseToml("[[range]]\nstart = 1\n", "x.toml", &c, &err));
  EXPECT_NE(err.find("start and end"), std::string::npos);
  EXPECT_FALSE(ParseToml("this is not toml", "x.toml", &c, &err));
  EXPECT_NE(err.find("x.toml:1"), std::string::npos);
}

// ---- C output --------------------------------------------------------------------------

TEST(EtmC, GeneratedHeaderAssemblesForAArch64) {
  EtmConfig c = K10Minimal();
  c.ranges.push_back({0x8000, 0x8FFF, true});
  c.cycle_counting = true;
  Program p;
  std::string err;
  ASSERT_TRUE(Compute(c, &p, &err)) << err;
  const std::string header = ProgramToC(p);
  EXPECT_NE(header.find("#define MBT_VAL_TRCCONFIGR 0x000018d1ULL"), std::string::npos);
  EXPECT_NE(header.find("\"s2_1_c0_c4_0\""), std::string::npos);
  EXPECT_NE(header.find("hint #18"), std::string::npos);
#ifdef MABUTRACE_CLANG
  const std::string dir = ::testing::TempDir();
  {
    std::ofstream h(dir + "/mbt_ete.h");
    h << header;
    std::ofstream m(dir + "/mbt_ete_use.c");
    m << "#include \"mbt_ete.h\"\nvoid use(struct mbt_ete_context *c) { mbt_ete_enable(); "
         "mbt_ete_disable();"
         " mbt_ete_save(c); mbt_ete_restore(c); }\n";
  }
  const std::string cmd = std::string(MABUTRACE_CLANG) +
                          " --target=aarch64-linux-gnu -ffreestanding -Wall -Werror -c '" + dir +
                          "/mbt_ete_use.c' -o '" + dir + "/mbt_ete_use.o'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
#else
  GTEST_SKIP() << "clang not found: header text checked, not assembled";
#endif
}

TEST(EtmJson, ProgramJsonHasFieldsAndSequences) {
  Program p;
  std::string err;
  ASSERT_TRUE(Compute(K10Minimal(), &p, &err)) << err;
  const auto j = nlohmann::json::parse(ProgramToJson(p));
  EXPECT_EQ(j["registers"]["TRCCONFIGR"]["value"], "0x000018c1");
  EXPECT_EQ(j["registers"]["TRCCONFIGR"]["CID"], 1);
  EXPECT_EQ(j["registers"]["TRCVICTLR"]["EXLEVEL_NS_EL0"], 0);
  EXPECT_TRUE(j["sequences"]["enable"].is_array());
  EXPECT_TRUE(j["sequences"]["disable"].is_array());
}

}  // namespace
