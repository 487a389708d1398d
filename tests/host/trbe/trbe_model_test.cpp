// SPDX-License-Identifier: MIT
// trbe_model_test.cpp: the TRBU model against the architecture's rules
// (ARM DDI 0487 D6; reference/arm-trace-facts.md §1.8-§1.11). One table of
// fill mode x trigger mode cases (buffer size, start, trigger position,
// bytes written -> TRBPTR, TRBSR flags and codes, IRQ, memory), then the
// register-level rules one by one.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "trbe_model.h"
#include "trbe_simulate.h"

namespace {

using namespace mabutrace::trbe;

constexpr uint64_t kBase = 0x80000000;
constexpr uint8_t kFill = 0xEE;

std::vector<uint8_t> Pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 7 + 1) & 0xFF);
  return v;
}

struct Case {
  const char* name;
  const char* cites;  // the rule the case checks
  FillMode fm;
  TriggerMode tm;
  uint64_t size;
  uint64_t start;
  uint64_t bytes_in;
  std::optional<uint64_t> trigger_at;
  uint32_t trigger_count;
  uint64_t flush_latency;
  std::optional<uint64_t> fault_at;
  uint64_t trbidr;
  // expected
  uint64_t ptr_offset;
  bool irq, s, wrap, trg, ea;
  uint8_t ec;
  uint16_t mss;
  uint64_t written;
  uint64_t trb_wrap, trb_trig;
};

constexpr FillMode F = FillMode::kFill, W = FillMode::kWrap, C = FillMode::kCircular;
constexpr TriggerMode TS = TriggerMode::kStop, TI = TriggerMode::kIrq, TX = TriggerMode::kIgnore;
constexpr auto N = std::nullopt;

// One case a row, its columns as the comment names them.
// clang-format off
const Case kCases[] = {
    // name, cites, fm, tm, size, start, in, trig@, count, flush, fault@, trbidr,
    //   ptr, irq, s, wrap, trg, ea, ec, mss, written, wraps, trigs
    {"fill_no_wrap", "§1.8 step 4", F, TX, 4096, 0, 100, N, 0, 0, N, 0x20, 100, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0},
    {"fill_exactly_full", "§1.9 Fill: S=1 BSC=FILLED, PTR=Base", F, TX, 4096, 0, 4096, N, 0, 0, N, 0x20,
     0, 1, 1, 1, 0, 0, 0x00, kBscFilled, 4096, 1, 0},
    {"fill_overfull_discards", "§1.8 step 1: stopped => discard", F, TX, 4096, 0, 5000, N, 0, 0, N, 0x20,
     0, 1, 1, 1, 0, 0, 0x00, kBscFilled, 4096, 1, 0},
    {"fill_from_mid_buffer", "§1.9 wrap at Limit-1 from a start offset", F, TX, 8192, 8000, 300, N, 0, 0, N, 0x20,
     0, 1, 1, 1, 0, 0, 0x00, kBscFilled, 192, 1, 0},
    {"wrap_mode_once", "§1.9 Wrap: IRQ, S unchanged", W, TX, 4096, 0, 5000, N, 0, 0, N, 0x20,
     904, 1, 0, 1, 0, 0, 0, 0, 5000, 1, 0},
    {"wrap_mode_twice", "§1.9 Wrap: keeps collecting", W, TX, 4096, 0, 9000, N, 0, 0, N, 0x20,
     808, 1, 0, 1, 0, 0, 0, 0, 9000, 2, 0},
    {"circular_wraps_silently", "§1.9 Circular: WRAP, no IRQ", C, TX, 4096, 0, 5000, N, 0, 0, N, 0x20,
     904, 0, 0, 1, 0, 0, 0, 0, 5000, 1, 0},
    {"circular_no_wrap", "§1.8", C, TX, 4096, 0, 100, N, 0, 0, N, 0x20, 100, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0},
    {"stop_trigger_count0", "§1.10 (a) counter 0, TRG 0 => immediate Trigger Event; Stop => S, BSC=TRIGGERED",
     C, TS, 4096, 0, 3000, 1000, 0, 0, N, 0x20, 1000, 1, 1, 0, 1, 0, 0, kBscTriggered, 1000, 0, 1},
    {"stop_trigger_count500", "§1.10 (b) counter decremented to 0", C, TS, 4096, 0, 3000, 1000, 500, 0, N, 0x20,
     1500, 1, 1, 0, 1, 0, 0, kBscTriggered, 1500, 0, 1},
    {"stop_trigger_half_buffer", "§1.10 usage: counter = half buffer keeps trace around the trigger", C, TS, 4096, 0,
     10000, 3000, 2048, 0, N, 0x20, 5048 - 4096, 1, 1, 1, 1, 0, 0, kBscTriggered, 5048, 1, 1},
    {"stop_trigger_at_last_byte", "§1.10 Stop: PTR = Base if the last byte written was at Limit-1", C, TS, 4096, 0,
     5000, 4095, 1, 0, N, 0x20, 0, 1, 1, 1, 1, 0, 0, kBscTriggered, 4096, 1, 1},
    {"irq_trigger", "§1.10 IRQ on trigger: IRQ, S unchanged", C, TI, 4096, 0, 3000, 1000, 0, 0, N, 0x20,
     3000, 1, 0, 0, 1, 0, 0, 0, 3000, 0, 1},
    {"irq_trigger_wrap_mode", "§1.10 + §1.9", W, TI, 4096, 0, 6000, 1000, 100, 0, N, 0x20,
     6000 - 4096, 1, 0, 1, 1, 0, 0, 0, 6000, 1, 1},
    {"ignore_trigger", "§1.10 Ignore: TRBSR unchanged but TRG, TRB_TRIG counted", C, TX, 4096, 0, 3000, 1000, 0, 0, N,
     0x20, 3000, 0, 0, 0, 1, 0, 0, 0, 3000, 0, 1},
    {"ignore_trigger_fill_mode", "§1.10 Ignore + §1.9 Fill", F, TX, 4096, 0, 5000, 10, 5, 0, N, 0x20,
     0, 1, 1, 1, 1, 0, 0, kBscFilled, 4096, 1, 1},
    {"stop_flush_latency", "§1.10 Stop: management event when the flush completes", C, TS, 4096, 0, 3000, 1000, 0, 100,
     N, 0x20, 1100, 1, 1, 0, 1, 0, 0, kBscTriggered, 1100, 0, 1},
    {"stop_flush_overtaken_by_fill", "§1.10 extra trace during the flush raises another event first; its syndrome wins",
     F, TS, 4096, 0, 5000, 4000, 0, 200, N, 0x20, 0, 1, 1, 1, 1, 0, 0, kBscFilled, 4096, 1, 1},
    {"trigger_while_stopped", "§1.10 Trigger Event while collection stopped: TRBSR unchanged (TRG still set)", F, TS,
     4096, 0, 5000, 4500, 0, 0, N, 0x20, 0, 1, 1, 1, 1, 0, 0, kBscFilled, 4096, 1, 1},
    {"stage1_translation_fault", "§1.11 MMU fault: S, IRQ, EC=0x24, FSC, PTR = faulting address", C, TX, 4096, 0,
     3000, N, 0, 0, 2000, 0x20, 2000, 1, 1, 0, 0, 0, kEcStage1Abort, kFscTranslationL3, 2000, 0, 0},
    {"misaligned_ptr", "§1.3 D6.2.2: PTR not a multiple of 2^Align => alignment fault", C, TX, 4096, 3, 100, N, 0, 0, N,
     0x26, 3, 1, 1, 0, 0, 0, kEcStage1Abort, kFscAlignment, 0, 0, 0},
    {"aligned_ptr", "§1.3 aligned PTR with Align=6 collects normally", C, TX, 4096, 64, 100, N, 0, 0, N, 0x26,
     164, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0},
};
// clang-format on

class ModelTable : public ::testing::TestWithParam<Case> {};

TEST_P(ModelTable, PointersStatusIrqMemory) {
  const Case& k = GetParam();
  SCOPED_TRACE(std::string(k.name) + " - " + k.cites);
  const auto data = Pattern(k.bytes_in);
  SimulationConfig cfg;
  cfg.fill_mode = k.fm;
  cfg.trigger_mode = k.tm;
  cfg.base = kBase;
  cfg.size = k.size;
  cfg.start_offset = k.start;
  cfg.trigger_at = k.trigger_at;
  cfg.trigger_count = k.trigger_count;
  cfg.flush_latency = k.flush_latency;
  cfg.fault_offset = k.fault_at;
  cfg.trbidr = k.trbidr;
  cfg.fill_byte = kFill;
  SimulationResult r;
  std::string err;
  ASSERT_TRUE(Simulate(data, cfg, &r, &err)) << err;

  const Status s = Status::Decode(r.trbsr);
  EXPECT_EQ(r.trbptr, kBase + k.ptr_offset);
  EXPECT_EQ(s.irq, k.irq);
  EXPECT_EQ(r.irq, k.irq);
  EXPECT_EQ(s.s, k.s);
  EXPECT_EQ(s.wrap, k.wrap);
  EXPECT_EQ(s.trg, k.trg);
  EXPECT_EQ(s.ea, k.ea);
  EXPECT_EQ(s.ec, k.ec);
  EXPECT_EQ(s.mss, k.mss);
  EXPECT_EQ(r.bytes_written, k.written);
  EXPECT_EQ(r.bytes_discarded, k.bytes_in - k.written);
  EXPECT_EQ(r.trb_wrap, k.trb_wrap);
  EXPECT_EQ(r.trb_trig, k.trb_trig);

  // Memory: the first `written` bytes landed at start, start+1, ... modulo
  // the buffer; everything else still holds the fill byte.
  std::vector<uint8_t> expect(k.size, kFill);
  for (uint64_t i = 0; i < k.written; ++i) expect[(k.start + i) % k.size] = data[i];
  ASSERT_EQ(r.memory.size(), expect.size());
  EXPECT_TRUE(r.memory == expect) << "memory differs";

  // The IRQ line rose exactly once when a management event happened.
  int raised = 0;
  for (const auto& e : r.events) raised += e.kind == EventKind::kIrqRaised;
  EXPECT_EQ(raised, k.irq ? 1 : 0);
}

INSTANTIATE_TEST_SUITE_P(Sheet, ModelTable, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- Register-level rules -------------------------------------------------------

struct Rig {
  FlatMemory mem{kBase, 4096, kFill};
  TraceBufferUnit tbu;
  explicit Rig(ModelOptions o = {}) : tbu(&mem, o) {}
  void Program(FillMode fm, TriggerMode tm, uint64_t ptr_off = 0, uint32_t trg = 0) {
    Limitr l;
    l.limit = kBase + 4096;
    l.fm = fm;
    l.tm = tm;
    ASSERT_EQ(tbu.WriteRegister(Reg::kTrblimitrEl1, l.Encode()), WriteResult::kOk);
    ASSERT_EQ(tbu.WriteRegister(Reg::kTrbsrEl1, 0), WriteResult::kOk);
    ASSERT_EQ(tbu.WriteRegister(Reg::kTrbbaserEl1, kBase), WriteResult::kOk);
    ASSERT_EQ(tbu.WriteRegister(Reg::kTrbptrEl1, kBase + ptr_off), WriteResult::kOk);
    ASSERT_EQ(tbu.WriteRegister(Reg::kTrbtrgEl1, trg), WriteResult::kOk);
    l.e = true;
    ASSERT_EQ(tbu.WriteRegister(Reg::kTrblimitrEl1, l.Encode()), WriteResult::kOk);
  }
  void Feed(size_t n) { tbu.Collect(Pattern(n)); }
};

TEST(TrbeModel, DisabledDiscardsEverything) {  // §1.8 "Disabled"
  Rig r;
  r.Feed(10);
  EXPECT_EQ(r.tbu.bytes_written(), 0u);
  EXPECT_EQ(r.tbu.bytes_discarded(), 10u);
  EXPECT_EQ(r.mem.bytes()[0], kFill);
}

TEST(TrbeModel, WritesIgnoredWhileEnabledExceptClearingE) {  // §1.2, §1.3
  Rig r;
  r.Program(FillMode::kCircular, TriggerMode::kIgnore);
  EXPECT_EQ(r.tbu.WriteRegister(Reg::kTrbptrEl1, kBase + 8), WriteResult::kIgnoredWhileEnabled);
  EXPECT_EQ(r.tbu.ptr(), kBase);
  Limitr l = r.tbu.limitr();
  l.fm = FillMode::kFill;  // keeps E=1: ignored
  EXPECT_EQ(r.tbu.WriteRegister(Reg::kTrblimitrEl1, l.Encode()), WriteResult::kIgnoredWhileEnabled);
  EXPECT_EQ(r.tbu.limitr().fm, FillMode::kCircular);
  l.e = false;  // clears E: accepted
  EXPECT_EQ(r.tbu.WriteRegister(Reg::kTrblimitrEl1, l.Encode()), WriteResult::kOk);
  EXPECT_FALSE(r.tbu.enabled());
  EXPECT_EQ(r.tbu.WriteRegister(Reg::kTrbptrEl1, kBase + 8), WriteResult::kOk);
  EXPECT_EQ(r.tbu.ReadRegister(Reg::kTrbptrEl1), kBase + 8);
}

TEST(TrbeModel, TrbidrIsReadOnlyAndPForbidsProgramming) {  // §1.5
  ModelOptions o;
  o.trbidr = 0x10;  // P=1
  Rig r(o);
  EXPECT_EQ(r.tbu.WriteRegister(Reg::kTrbidrEl1, 0), WriteResult::kReadOnly);
  EXPECT_EQ(r.tbu.ReadRegister(Reg::kTrbidrEl1), 0x10u);
  EXPECT_EQ(r.tbu.WriteRegister(Reg::kTrbbaserEl1, kBase), WriteResult::kNotAllowed);
  EXPECT_EQ(r.tbu.base(), 0u);
}

TEST(TrbeModel, Res0BitsAreDropped) {  // §1.2-§1.4
  Rig r;
  EXPECT_EQ(r.tbu.WriteRegister(Reg::kTrbbaserEl1, kBase | 0xABC), WriteResult::kOk);
  EXPECT_EQ(r.tbu.ReadRegister(Reg::kTrbbaserEl1), kBase);
  EXPECT_EQ(r.tbu.WriteRegister(Reg::kTrblimitrEl1, 0x1000 | 0xF80 | 0x18), WriteResult::kOk);
  EXPECT_EQ(r.tbu.ReadRegister(Reg::kTrblimitrEl1), 0x1018u);
  EXPECT_EQ(r.tbu.WriteRegister(Reg::kTrbtrgEl1, 0x1234567800000010ull), WriteResult::kOk);
  EXPECT_EQ(r.tbu.ReadRegister(Reg::kTrbtrgEl1), 0x10u);
}

TEST(TrbeModel, ClearingIrqDropsTheLineAndReenableContinues) {  // §1.4 IRQ, §1.12 driver flow
  Rig r;
  r.Program(FillMode::kFill, TriggerMode::kIgnore);
  r.Feed(4096);
  ASSERT_TRUE(r.tbu.irq_line());
  ASSERT_TRUE(r.tbu.collection_stopped());
  EXPECT_EQ(ClassifyLikeLinux(r.tbu.status(), r.tbu.ptr(), r.tbu.base()), LinuxIrqClass::kBufferFull);
  // Driver: disable, clear TRBSR, re-arm.
  r.Program(FillMode::kFill, TriggerMode::kIgnore, 0);
  EXPECT_FALSE(r.tbu.irq_line());
  EXPECT_TRUE(r.tbu.running());
  EXPECT_EQ(r.tbu.events().back().kind, EventKind::kEnabled);
  bool cleared = false;
  for (const auto& e : r.tbu.events()) cleared = cleared || e.kind == EventKind::kIrqCleared;
  EXPECT_TRUE(cleared);
  r.Feed(10);
  EXPECT_EQ(r.tbu.ptr(), kBase + 10);
}

TEST(TrbeModel, SecondTriggerWithCounterZeroDoesNothing) {  // §1.10 "No Trigger Event when"
  Rig r;
  r.Program(FillMode::kCircular, TriggerMode::kIrq);
  r.tbu.DetectTrigger();
  EXPECT_EQ(r.tbu.trb_trig_events(), 1u);
  EXPECT_TRUE(r.tbu.irq_line());
  r.tbu.DetectTrigger();
  EXPECT_EQ(r.tbu.trb_trig_events(), 1u);
}

TEST(TrbeModel, TriggerWhileDisabledIsNotDetected) {  // §1.10
  Rig r;
  r.tbu.DetectTrigger();
  EXPECT_FALSE(r.tbu.status().trg);
  EXPECT_EQ(r.tbu.trb_trig_events(), 0u);
}

TEST(TrbeModel, CounterOnlyCountsAfterDetectedTrigger) {  // §1.8 step 5
  Rig r;
  r.Program(FillMode::kCircular, TriggerMode::kStop, 0, 10);
  r.Feed(100);
  EXPECT_EQ(r.tbu.trigger_counter(), 10u);  // TRG=0: no counting
  r.tbu.DetectTrigger();
  r.Feed(4);
  EXPECT_EQ(r.tbu.trigger_counter(), 6u);
  EXPECT_FALSE(r.tbu.collection_stopped());
  r.Feed(6);
  EXPECT_EQ(r.tbu.trigger_counter(), 0u);
  EXPECT_TRUE(r.tbu.collection_stopped());
  EXPECT_EQ(r.tbu.ptr(), kBase + 110);
}

TEST(TrbeModel, ExplicitFlushCompletion) {  // §1.10: management event when the flush completes
  ModelOptions o;
  o.flush_latency_bytes = 1000000;  // never by bytes
  Rig r(o);
  r.Program(FillMode::kCircular, TriggerMode::kStop);
  r.tbu.DetectTrigger();
  EXPECT_TRUE(r.tbu.flush_pending());
  EXPECT_FALSE(r.tbu.irq_line());
  r.Feed(50);  // still collected during the flush
  r.tbu.CompleteFlush();
  EXPECT_TRUE(r.tbu.irq_line());
  EXPECT_TRUE(r.tbu.collection_stopped());
  EXPECT_EQ(r.tbu.status().bsc(), kBscTriggered);
  EXPECT_EQ(r.tbu.ptr(), kBase + 50);
}

TEST(TrbeModel, ExternalAbortReportedToTrbu) {  // §1.11, TRBIDR.EA=0b0000
  Rig r;
  r.mem.InjectFault(kBase + 16, kBase + 32, Fault{kEcStage1Abort, kFscSyncExternalAbort, true});
  r.Program(FillMode::kCircular, TriggerMode::kIgnore);
  r.Feed(100);
  EXPECT_TRUE(r.tbu.status().ea);
  EXPECT_TRUE(r.tbu.status().s);
  EXPECT_EQ(r.tbu.status().ec, kEcStage1Abort);
  EXPECT_EQ(r.tbu.status().fsc(), kFscSyncExternalAbort);
  EXPECT_EQ(r.tbu.ptr(), kBase + 16);
  EXPECT_EQ(ClassifyLikeLinux(r.tbu.status(), r.tbu.ptr(), r.tbu.base()), LinuxIrqClass::kFatal);
}

TEST(TrbeModel, ExternalAbortIgnoredOrSError) {  // §1.11 alternatives, TRBIDR.EA=1/2
  for (uint64_t ea : {1, 2}) {
    ModelOptions o;
    o.trbidr = 0x20 | (ea << 8);
    Rig r(o);
    r.mem.InjectFault(kBase + 16, kBase + 32, Fault{kEcStage1Abort, kFscSyncExternalAbort, true});
    r.Program(FillMode::kCircular, TriggerMode::kIgnore);
    r.Feed(100);
    EXPECT_FALSE(r.tbu.status().ea) << ea;
    EXPECT_FALSE(r.tbu.status().s) << ea;
    EXPECT_EQ(r.tbu.ptr(), kBase + 100) << ea;
    EXPECT_EQ(r.tbu.bytes_written(), 84u) << ea;
    EXPECT_EQ(r.tbu.serrors(), ea == 2 ? 16u : 0u);
    EXPECT_EQ(r.mem.bytes()[20], kFill) << ea;
  }
}

TEST(TrbeModel, FaultAfterWrap) {  // §1.11 + §1.9: PTR frozen at the faulting address
  Rig r;
  r.mem.InjectFault(kBase + 100, kBase + 200, Fault{});
  r.Program(FillMode::kCircular, TriggerMode::kIgnore, 200);
  r.Feed(9000);
  EXPECT_EQ(r.tbu.ptr(), kBase + 100);
  EXPECT_EQ(r.tbu.bytes_written(), 3996u);
  EXPECT_TRUE(r.tbu.status().wrap);
  EXPECT_TRUE(r.tbu.status().s);
  EXPECT_EQ(r.tbu.status().ec, kEcStage1Abort);
  EXPECT_EQ(r.tbu.status().fsc(), kFscTranslationL3);
  EXPECT_EQ(r.mem.bytes()[99], Pattern(3996)[3995]);
  EXPECT_EQ(r.mem.bytes()[100], kFill);
}

TEST(TrbeModel, Stage2FaultKeepsSyndrome) {  // §1.11 EC=0x25, MSS2
  Rig r;
  r.mem.InjectFault(kBase + 8, kBase + 9, Fault{kEcStage2Abort, kFscPermissionL3, false, 0x80});
  r.Program(FillMode::kCircular, TriggerMode::kIgnore);
  r.Feed(20);
  EXPECT_EQ(r.tbu.status().ec, kEcStage2Abort);
  EXPECT_EQ(r.tbu.status().fsc(), kFscPermissionL3);
  EXPECT_EQ(r.tbu.status().mss2, 0x80u);
  EXPECT_EQ(r.tbu.ptr(), kBase + 8);
  // A later event while stopped keeps the first syndrome (§1.11 "only if S was 0").
  r.tbu.RaiseImpdefEvent(0x55);
  EXPECT_EQ(r.tbu.status().ec, kEcStage2Abort);
}

TEST(TrbeModel, OutOfRangePointerIsAModelledProgrammingError) {  // §1.3 D6.2.2
  Rig r;
  Limitr l;
  l.limit = kBase + 4096;
  l.fm = FillMode::kCircular;
  l.tm = TriggerMode::kIgnore;
  ASSERT_EQ(r.tbu.WriteRegister(Reg::kTrbbaserEl1, kBase), WriteResult::kOk);
  ASSERT_EQ(r.tbu.WriteRegister(Reg::kTrbptrEl1, kBase + 4096), WriteResult::kOk);  // == Limit
  l.e = true;
  ASSERT_EQ(r.tbu.WriteRegister(Reg::kTrblimitrEl1, l.Encode()), WriteResult::kOk);
  r.Feed(1);
  EXPECT_TRUE(r.tbu.collection_stopped());
  EXPECT_EQ(r.tbu.status().ec, kEcImpdef);
  EXPECT_EQ(r.tbu.status().mss, kMssPointerOutOfRange);
  EXPECT_EQ(r.tbu.bytes_written(), 0u);
}

TEST(TrbeModel, ReservedFillModeIsAModelledProgrammingError) {  // §1.2 FM=0b10 reserved
  Rig r;
  r.Program(FillMode::kReserved, TriggerMode::kIgnore);
  r.Feed(1);
  EXPECT_EQ(r.tbu.status().ec, kEcImpdef);
  EXPECT_EQ(r.tbu.status().mss, kMssReservedMode);
}

TEST(TrbeModel, WarmResetClearsEnable) {  // D24: TRBLIMITR_EL1.E warm reset 0
  Rig r;
  r.Program(FillMode::kCircular, TriggerMode::kIgnore);
  r.tbu.WarmReset();
  EXPECT_FALSE(r.tbu.enabled());
  r.Feed(5);
  EXPECT_EQ(r.tbu.bytes_written(), 0u);
}

TEST(TrbeModel, LinuxClassification) {  // §1.12
  Status s;
  s.irq = true;
  EXPECT_EQ(ClassifyLikeLinux(s, kBase, kBase), LinuxIrqClass::kSpurious);
  s.wrap = s.s = true;
  s.mss = kBscFilled;
  EXPECT_EQ(ClassifyLikeLinux(s, kBase, kBase), LinuxIrqClass::kBufferFull);
  EXPECT_EQ(ClassifyLikeLinux(s, kBase + 4, kBase), LinuxIrqClass::kSpurious);
  s.trg = true;
  EXPECT_EQ(ClassifyLikeLinux(s, kBase, kBase), LinuxIrqClass::kFatal);
}

TEST(TrbeSimulate, RejectsBadConfigs) {
  SimulationConfig c;
  SimulationResult r;
  std::string err;
  c.size = 1000;
  EXPECT_FALSE(Simulate({}, c, &r, &err));
  EXPECT_NE(err.find("4096"), std::string::npos);
  c.size = 4096;
  c.base = 0x80000010;
  EXPECT_FALSE(Simulate({}, c, &r, &err));
  c.base = kBase;
  c.start_offset = 4096;
  EXPECT_FALSE(Simulate({}, c, &r, &err));
}

TEST(TrbeSimulate, ReportNamesTheEvents) {
  SimulationConfig c;
  c.fill_mode = FillMode::kFill;
  SimulationResult r;
  std::string err;
  ASSERT_TRUE(Simulate(Pattern(5000), c, &r, &err));
  const std::string text = SimulationToText(c, r);
  EXPECT_NE(text.find("wrap"), std::string::npos);
  EXPECT_NE(text.find("irq-raised"), std::string::npos);
  EXPECT_NE(text.find("collection stopped: buffer full; wrapped; IRQ pending"), std::string::npos);
  EXPECT_NE(text.find("buffer-full"), std::string::npos);
}

}  // namespace
