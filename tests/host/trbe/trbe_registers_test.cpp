// SPDX-License-Identifier: MIT
// trbe_registers_test.cpp: TRBE register fields bit by bit against
// reference/arm-trace-facts.md §1.2-§1.6 (ARM DDI 0487 D24.4), including the
// seed's wrong trigger-mode encodings (sheet §9 claim 1).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "json_fields.h"
#include "trbe_registers.h"

namespace {

using namespace mabutrace::trbe;
using mt_json::ExpectFields;

TEST(TrbeRegisters, LimitrFieldPositions) {  // §1.2
  const Limitr l = Limitr::Decode(0x0000000081234000ull | 0x40 | 0x20 | (0b01 << 3) | (0b11 << 1) | 1);
  EXPECT_EQ(l.limit, 0x81234000u);
  EXPECT_TRUE(l.xe);
  EXPECT_TRUE(l.nvm);
  EXPECT_EQ(l.tm, TriggerMode::kIrq);
  EXPECT_EQ(l.fm, FillMode::kCircular);
  EXPECT_TRUE(l.e);
}

TEST(TrbeRegisters, TriggerModeEncodingsAreTheArchitecturesNotTheSeeds) {  // §9 claim 1
  EXPECT_EQ(static_cast<int>(TriggerMode::kStop), 0b00);
  EXPECT_EQ(static_cast<int>(TriggerMode::kIrq), 0b01);
  EXPECT_EQ(static_cast<int>(TriggerMode::kIgnore), 0b11);
  Limitr l;
  l.tm = TriggerMode::kStop;
  EXPECT_EQ(l.Encode() & 0x18, 0u);  // the seed says 0b01 (0x08): wrong
  l.tm = TriggerMode::kIrq;
  EXPECT_EQ(l.Encode() & 0x18, 0x08u);  // the seed says 0b10 (0x10): wrong
  EXPECT_EQ(Limitr::Decode(0x10).tm, TriggerMode::kReserved);
  // Linux programs limit | 0x19: E=1, FM=Fill, TM=Ignore (§1.12).
  const Limitr lin = Limitr::Decode(0x80001000 | 0x19);
  EXPECT_TRUE(lin.e);
  EXPECT_EQ(lin.fm, FillMode::kFill);
  EXPECT_EQ(lin.tm, TriggerMode::kIgnore);
  EXPECT_EQ(lin.limit, 0x80001000u);
}

TEST(TrbeRegisters, StatusFieldPositions) {  // §1.4
  Status s;
  s.irq = true;
  EXPECT_EQ(s.Encode(), uint64_t{1} << 22);
  s = {};
  s.trg = true;
  EXPECT_EQ(s.Encode(), uint64_t{1} << 21);
  s = {};
  s.wrap = true;
  EXPECT_EQ(s.Encode(), uint64_t{1} << 20);
  s = {};
  s.ea = true;
  EXPECT_EQ(s.Encode(), uint64_t{1} << 18);
  s = {};
  s.s = true;
  EXPECT_EQ(s.Encode(), uint64_t{1} << 17);
  s = {};
  s.dat = true;
  EXPECT_EQ(s.Encode(), uint64_t{1} << 23);
  s = {};
  s.ec = 0x25;
  EXPECT_EQ(s.Encode(), uint64_t{0x25} << 26);
  s = {};
  s.mss2 = 0x123456;
  EXPECT_EQ(s.Encode(), uint64_t{0x123456} << 32);
  // Buffer full as Linux sees it: IRQ | WRAP | S | BSC=FILLED.
  const Status full = Status::Decode(0x520001);
  EXPECT_TRUE(full.irq && full.wrap && full.s && !full.trg);
  EXPECT_EQ(full.ec, kEcOther);
  EXPECT_EQ(full.bsc(), kBscFilled);
  // Round trip of every defined bit.
  const uint64_t defined =
      (uint64_t{0xFFFFFF} << 32) | (uint64_t{0x3F} << 26) | (uint64_t{0xF} << 20) | (uint64_t{3} << 17) | 0xFFFF;
  EXPECT_EQ(Status::Decode(defined).Encode(), defined);
  EXPECT_EQ(Status::Decode(~uint64_t{0}).Encode(), defined);  // RES0 63:56, 25:24, 19, 16 dropped
}

TEST(TrbeRegisters, IdrAndMar) {  // §1.5, §1.6
  const Idr i = Idr::Decode(0x0000000000000226ull | 0x10);
  EXPECT_EQ(i.align, 6);
  EXPECT_EQ(i.alignment_bytes(), 64u);
  EXPECT_TRUE(i.p);
  EXPECT_TRUE(i.f);
  EXPECT_EQ(i.ea, 2);
  EXPECT_EQ(i.Encode(), 0x236u);
  const Mar m = Mar::Decode(0x7FF);
  EXPECT_EQ(m.pas, 1);
  EXPECT_EQ(m.sh, 3);
  EXPECT_EQ(m.attr, 0xFF);
  EXPECT_EQ(m.Encode(), 0x7FFu);
}

TEST(TrbeRegisters, ExplainSummaryInWords) {  // R-G3, issue example
  const Explanation e = Explain(Reg::kTrbsrEl1, (1u << 22) | (1u << 20) | (1u << 17) | kBscTriggered);
  EXPECT_EQ(e.summary, "collection stopped: trigger event; wrapped; IRQ pending");
  EXPECT_TRUE(e.warnings.empty());
  const Explanation f = Explain(Reg::kTrbsrEl1, (uint64_t{0x24} << 26) | (1u << 22) | (1u << 17) | 0x21);
  EXPECT_EQ(f.summary, "collection stopped: stage 1 data abort, alignment fault; IRQ pending");
  const Explanation g = Explain(Reg::kTrbsrEl1, 0);
  EXPECT_EQ(g.summary, "collecting (not stopped)");
  const Explanation w = Explain(Reg::kTrbsrEl1, uint64_t{1} << 19);
  EXPECT_FALSE(w.warnings.empty());
  const Explanation r = Explain(Reg::kTrbsrEl1, uint64_t{0x3} << 26);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("reserved"), std::string::npos);
}

TEST(TrbeRegisters, FscWords) {  // §1.4 FSC table
  EXPECT_EQ(FscMeaning(0b000101), "translation fault at level 1");
  EXPECT_EQ(FscMeaning(0b001111), "permission fault at level 3");
  EXPECT_EQ(FscMeaning(0b010000), "synchronous external abort, not on translation table walk");
  EXPECT_EQ(FscMeaning(0b100001), "alignment fault");
  EXPECT_EQ(FscMeaning(0b110000), "TLB conflict abort");
}

TEST(TrbeRegisters, JsonUsesArchitectureFieldNames) {
  const auto j = nlohmann::json::parse(ExplanationToJson(Explain(Reg::kTrbsrEl1, 0x90420007)));
  ExpectFields(j, {{"IRQ", 1}, {"S", 1}, {"EC", 0x24}, {"FSC", 7}, {"MSS", 7}});
  EXPECT_FALSE(j.contains("BSC"));
  const auto k = nlohmann::json::parse(ExplanationToJson(Explain(Reg::kTrbsrEl1, 0x520001)));
  ExpectFields(k, {{"BSC", 1}, {"WRAP", 1}});
  EXPECT_FALSE(k.contains("FSC"));
  ExpectFields(nlohmann::json::parse(ExplanationToJson(Explain(Reg::kTrblimitrEl1, 0x80001019))),
               {{"LIMIT", 0x80001}, {"TM", 3}, {"FM", 0}, {"E", 1}, {"nVM", 0}});
}

TEST(TrbeRegisters, NameParsing) {
  EXPECT_EQ(ParseRegName("trbsr_el1"), Reg::kTrbsrEl1);
  EXPECT_EQ(ParseRegName("TRBLIMITR"), Reg::kTrblimitrEl1);
  EXPECT_FALSE(ParseRegName("TRBFOO").has_value());
  EXPECT_EQ(ParseFillMode("circular"), FillMode::kCircular);
  EXPECT_EQ(ParseTriggerMode("stop-on-trigger"), TriggerMode::kStop);
  EXPECT_FALSE(ParseTriggerMode("sometimes").has_value());
}

}  // namespace
