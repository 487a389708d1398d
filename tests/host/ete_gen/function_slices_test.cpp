// SPDX-License-Identifier: MIT
// function_slices_test.cpp: host/ete_decode/function_slices.h on hand-made
// ranges (the rules the generated call_graph capture does not reach): code
// without a symbol stays by address, a tail call replaces the top frame,
// a trace gap closes every frame, returns with nothing to pop are counted;
// and elf_symbols.h's FILE@ADDR parsing and lookups. (Kept beside the
// generator's tests: tests/host/ete_decode is another agent's at the time.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ete_decode/elf_symbols.h"
#include "ete_decode/function_slices.h"

namespace mabutrace::ete_decode {
namespace {

// Records B/E as "+name@ns" / "-name@ns".
class Recorder final : public model::EventSink {
 public:
  std::vector<std::string> log;
  std::vector<std::pair<std::string, int64_t>> meta;
  void OnProcess(uint32_t, std::string_view) override {}
  void OnThread(model::Track, std::string_view) override {}
  void OnBegin(model::Track, std::string_view n, uint64_t ns, uint32_t, uint32_t) override {
    log.push_back("+" + std::string(n) + "@" + std::to_string(ns));
  }
  void OnEnd(model::Track, std::string_view n, uint64_t ns, std::string_view) override {
    log.push_back("-" + std::string(n) + "@" + std::to_string(ns));
  }
  void OnInstant(model::Track, std::string_view, uint64_t, uint32_t, uint32_t) override {}
  void OnCounter(model::Track, std::string_view, uint64_t, int64_t) override {}
  void OnFlowPoint(model::Track, bool, uint64_t, std::string_view, uint64_t, uint32_t, uint32_t, bool) override {}
  void OnFlow(model::Track, bool, uint64_t, uint64_t) override {}
  void OnMetadata(std::string_view k, int64_t v) override { meta.emplace_back(std::string(k), v); }
  void OnMetadata(std::string_view, std::string_view) override {}
  bool Finish() override { return true; }
  int64_t Meta(const std::string& k) const {
    for (const auto& [key, v] : meta)
      if (key == k) return v;
    return -1;
  }
};

SymbolTable Symbols() {
  ElfFile elf;
  elf.path = "test.elf";
  elf.symbols = {{0x1000, 0x1100, "caller", true},
                 {0x2000, 0x2100, "callee", true},
                 {0x3000, 0x3100, "tail", true},
                 {0x1050, 0x1050, "label", false}};
  SymbolTable t;
  t.Add(elf);
  return t;
}

EteElement Range(uint64_t start, uint64_t end, armisa::InstrSubtype last, bool executed = true) {
  EteElement e;
  e.num_instr = static_cast<uint32_t>((end - start) / 4);
  e.type = ElemType::kInstrRange;
  e.start = start;
  e.end = end;
  e.last_subtype = last;
  e.last_type = last == armisa::InstrSubtype::kNone ? armisa::InstrType::kBranch : armisa::InstrType::kIndirectBranch;
  e.executed = executed;
  return e;
}

constexpr model::Track kTrack{1, 1};
using Sub = armisa::InstrSubtype;

TEST(FunctionSlices, UnknownCodeStaysByAddressAndTailCallsReplaceTheFrame) {
  const SymbolTable syms = Symbols();
  FunctionSlices f(&syms);
  Recorder r;
  f.OnRange(&r, kTrack, 0, Range(0x1000, 0x1010, Sub::kBrLink), 0, 1);  // caller: BL
  f.OnRange(&r, kTrack, 0, Range(0x2000, 0x2008, Sub::kNone), 1, 2);    // callee: B to tail (no link)
  f.OnRange(&r, kTrack, 0, Range(0x3000, 0x3008, Sub::kV8Ret), 2, 3);   // tail: RET to caller
  f.OnRange(&r, kTrack, 0, Range(0x1010, 0x1020, Sub::kBrLink), 3, 4);  // caller: BL into unknown code
  f.OnRange(&r, kTrack, 0, Range(0x9000, 0x9008, Sub::kNone, false), 4, 5);
  f.OnRange(&r, kTrack, 0, Range(0x9008, 0x9010, Sub::kV8Ret), 5, 6);
  EXPECT_EQ(r.log, (std::vector<std::string>{"+caller@0", "+callee@1", "-callee@2", "+tail@2", "-tail@3", "+0x9000@4",
                                             "-0x9000@6"}));
  EXPECT_EQ(f.ranges_without_symbol(), 2u);
  EXPECT_EQ(f.ranges_with_symbol(), 4u);
}

TEST(FunctionSlices, GapsCloseEverythingAndStrayReturnsAreCounted) {
  const SymbolTable syms = Symbols();
  FunctionSlices f(&syms);
  Recorder r;
  f.OnRange(&r, kTrack, 0, Range(0x1000, 0x1010, Sub::kBrLink), 0, 1);
  f.OnRange(&r, kTrack, 0, Range(0x2000, 0x2008, Sub::kNone, false), 1, 2);
  f.OnDiscontinuity(&r, kTrack, 5);  // trace on: the stack is unknown
  EXPECT_EQ(r.log, (std::vector<std::string>{"+caller@0", "+callee@1", "-callee@5", "-caller@5"}));
  r.log.clear();
  f.OnRange(&r, kTrack, 0, Range(0x2000, 0x2008, Sub::kV8Ret), 6, 7);   // returns out of the first frame
  f.OnRange(&r, kTrack, 0, Range(0x1010, 0x1014, Sub::kV8Eret), 7, 8);  // ERET outside an exception
  EXPECT_EQ(r.log, (std::vector<std::string>{"+callee@6", "-callee@7", "+caller@7", "-caller@8"}));
  f.WriteMetadata(&r);
  EXPECT_EQ(r.Meta("ete.unmatched_returns"), 1);
  EXPECT_EQ(r.Meta("ete.function_slices"), 4);
}

TEST(FunctionSlices, AnExceptionNestsItsHandlerAndEretReturnsPastIt) {
  const SymbolTable syms = Symbols();
  FunctionSlices f(&syms);
  Recorder r;
  f.OnRange(&r, kTrack, 0, Range(0x1000, 0x1010, Sub::kNone, false), 0, 1);
  EteElement irq;
  irq.type = ElemType::kException;
  irq.exception_number = 0x0E;
  f.OnException(&r, kTrack, 0, irq, 1);
  f.OnRange(&r, kTrack, 0, Range(0x2000, 0x2010, Sub::kBrLink), 1, 2);  // handler calls tail
  f.OnRange(&r, kTrack, 0, Range(0x3000, 0x3010, Sub::kNone), 2, 3);    // tail: B into callee's ERET
  f.OnRange(&r, kTrack, 0, Range(0x2010, 0x2014, Sub::kV8Eret), 3, 4);
  f.OnRange(&r, kTrack, 0, Range(0x1010, 0x1014, Sub::kNone, false), 4, 5);
  EXPECT_EQ(r.log, (std::vector<std::string>{"+caller@0", "+exception IRQ@1", "+callee@1", "+tail@2", "-tail@3",
                                             "+callee@3", "-callee@4", "-callee@4", "-exception IRQ@4"}));
}

TEST(FunctionSlices, InstructionsCountForTheirFunctionAndOnceForEachCaller) {
  const SymbolTable syms = Symbols();
  FunctionSlices f(&syms);
  Recorder r;
  f.OnRange(&r, kTrack, 0, Range(0x1000, 0x1010, Sub::kBrLink), 0, 1);       // caller 4: BL callee
  f.OnRange(&r, kTrack, 0, Range(0x2000, 0x2008, Sub::kBrLink), 1, 2);       // callee 2: BL callee (recursion)
  f.OnRange(&r, kTrack, 0, Range(0x2000, 0x200c, Sub::kV8Ret), 2, 3);        // callee 3: RET
  f.OnRange(&r, kTrack, 0, Range(0x2008, 0x200c, Sub::kV8Ret), 3, 4);        // callee 1: RET
  f.OnRange(&r, kTrack, 0, Range(0x1010, 0x1020, Sub::kBrLink), 4, 5);       // caller 4: BL into unknown code
  f.OnRange(&r, kTrack, 0, Range(0x9000, 0x9008, Sub::kV8Ret), 5, 6);        // 2 without symbol: RET
  f.OnRange(&r, kTrack, 0, Range(0x1020, 0x1024, Sub::kNone, false), 6, 7);  // caller 1
  f.WriteMetadata(&r);
  EXPECT_EQ(r.Meta("ete.function_instructions.caller"), 9);
  EXPECT_EQ(r.Meta("ete.function_instructions_total.caller"), 17) << "everything ran below it";
  EXPECT_EQ(r.Meta("ete.function_instructions.callee"), 6);
  EXPECT_EQ(r.Meta("ete.function_instructions_total.callee"), 6) << "recursion counts once";
  EXPECT_EQ(r.Meta("ete.function_instructions.(no symbol)"), 2);
  EXPECT_EQ(r.Meta("ete.function_instructions_total.(no symbol)"), 2);
  EXPECT_EQ(r.Meta("ete.function_instructions.tail"), -1) << "a function that never ran has no entry";
}

TEST(ElfSymbols, SpecsAndLookups) {
  std::string file;
  std::optional<uint64_t> at;
  EXPECT_TRUE(ParseElfSpec("a/b.elf", &file, &at));
  EXPECT_EQ(file, "a/b.elf");
  EXPECT_FALSE(at);
  EXPECT_TRUE(ParseElfSpec("lib.so@0x7f0000", &file, &at));
  EXPECT_EQ(file, "lib.so");
  EXPECT_EQ(at, 0x7f0000u);
  EXPECT_FALSE(ParseElfSpec("lib.so@zz", &file, &at));
  const SymbolTable syms = Symbols();
  EXPECT_EQ(syms.size(), 3u);  // the label is not a function
  ASSERT_NE(syms.Find(0x10FC), nullptr);
  EXPECT_EQ(syms.Find(0x10FC)->name, "caller");
  EXPECT_EQ(syms.Find(0x1100), nullptr);  // end is exclusive
  EXPECT_EQ(syms.Find(0x0FFF), nullptr);
}

}  // namespace
}  // namespace mabutrace::ete_decode
