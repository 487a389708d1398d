// SPDX-License-Identifier: MIT
// itm_timeline_test.cpp: a raw SWO stream -> ItmTimeline -> Chrome JSON,
// parsed strictly: ISR slices (nesting, exception names or ELF handler
// names), stimulus ports as counters / text lines / instants, events spread
// between the timestamps that follow them, ns from --clock-hz, PC samples
// per function.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "itm/elf_symbols.h"
#include "itm/itm_session.h"
#include "itm/itm_timeline.h"
#include "json_writer.h"

namespace mabutrace::itm {
namespace {

using nlohmann::json;

struct ToTimeline final : SessionSink {
  explicit ToTimeline(ItmTimeline* t) : t(t) {}
  void OnElement(size_t s, const ItmElement& e) override { t->OnElement(s, e); }
  void OnError(size_t, uint64_t, const std::string& m) override { ADD_FAILURE() << m; }
  ItmTimeline* t;
};

void Le32(std::vector<uint8_t>* v, uint32_t x) {
  for (int i = 0; i < 4; ++i) v->push_back(static_cast<uint8_t>(x >> (8 * i)));
}

// SysTick entered, IRQ0 preempts it, TS +3; IRQ0 exits, back to SysTick,
// SysTick exits, back to thread, TS +4; channel 1 = 10, "hi\n" on channel
// 0, two PC samples at `pc`, one sleeping, TS +2.
std::vector<uint8_t> Stream(uint32_t pc) {
  std::vector<uint8_t> s = {0x0e, 0x0f, 0x10, 0x0e, 0x10, 0x10, 0x30, 0x0e, 0x10, 0x20, 0x0e, 0x0f, 0x30, 0x0e, 0x0f,
                            0x20, 0x0e, 0x00, 0x30, 0x40, 0x0a, 0x0a, 0x00, 0x01, 'h',  0x01, 'i',  0x01, '\n'};
  for (int i = 0; i < 2; ++i) {
    s.push_back(0x17);
    Le32(&s, pc);
  }
  s.insert(s.end(), {0x15, 0x00, 0x20});
  return s;
}

json Export(const std::vector<uint8_t>& bytes, const TimelineOptions& options) {
  std::string out;
  {
    exporter::JsonWriter writer([&out](const char* d, size_t n) {
      out.append(d, n);
      return true;
    });
    ItmTimeline timeline(&writer, options, {"SWO"});
    ItmInput in;
    in.kind = "swo";
    in.sources.push_back(ItmSource{"SWO", "", ItmConfig{}, 0});
    ToTimeline sink(&timeline);
    DecodeItmBytes(in, SessionOptions{}, bytes.data(), bytes.size(), &sink);
    EXPECT_TRUE(timeline.Finish());
  }
  return json::parse(out);  // throws on malformed JSON
}

// (ph, name, ts in ns) of the B/E/C/i events on `tid`.
std::vector<std::tuple<std::string, std::string, long>> Events(const json& doc, int tid) {
  std::vector<std::tuple<std::string, std::string, long>> v;
  for (const auto& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" || e["tid"] != tid) continue;
    v.emplace_back(ph, e.value("name", ""), std::lround(e["ts"].get<double>() * 1000));
  }
  return v;
}

TEST(ItmTimeline, IsrSlicesPortsAndTime) {
  TimelineOptions o;
  o.clock_hz = 1e6;  // one tick = 1000 ns
  std::string err;
  auto p1 = ParsePortMapping("1=counter:level", &err);
  auto p0 = ParsePortMapping("0=text:stdout", &err);
  ASSERT_TRUE(p1 && p0) << err;
  o.ports.insert(*p1);
  o.ports.insert(*p0);
  const json doc = Export(Stream(0x08000100), o);
  using E = std::tuple<std::string, std::string, long>;
  // The two entries happen before the TS at tick 3: spread over (0, 3000].
  EXPECT_EQ(Events(doc, 2),
            (std::vector<E>{{"B", "SysTick", 1500}, {"B", "IRQ0", 3000}, {"E", "IRQ0", 4000}, {"E", "SysTick", 6000}}));
  const auto stim = Events(doc, 1);
  ASSERT_EQ(stim.size(), 2u);
  EXPECT_EQ(stim[0], E("C", "level", 7285));       // 1st of 7 events before the TS at tick 9
  EXPECT_EQ(stim[1], E("i", "stdout: hi", 8142));  // at its newline, the 4th
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "C") {
      EXPECT_EQ(e["args"]["value"], 10);
    }
  }
  EXPECT_EQ(doc["metadata"]["itm.pc_samples"], 3);
  EXPECT_EQ(doc["metadata"]["itm.pc_samples_sleep"], 1);
  EXPECT_EQ(doc["metadata"]["itm.pc_samples.0x08000100"], 2);
  EXPECT_EQ(doc["metadata"]["itm.isr_slices"], 2);
}

TEST(ItmTimeline, DefaultPortIsAnInstantWithTheValue) {
  const json doc = Export({0x0b, 0x78, 0x56, 0x34, 0x12, 0x10}, TimelineOptions{});
  const auto stim = Events(doc, 1);
  ASSERT_EQ(stim.size(), 1u);
  EXPECT_EQ(std::get<1>(stim[0]), "ITM port 1 0x12345678");
  EXPECT_EQ(std::get<2>(stim[0]), 1);  // no --clock-hz: ticks as ns
}

TEST(ItmTimeline, ElfNamesHandlersAndSampledFunctions) {
#ifndef ITM_FIRMWARE_ELF
  GTEST_SKIP() << "arm-none-eabi-gcc not found at configure time: no firmware ELF";
#else
  std::string err;
  auto elf = ElfSymbols::Open(ITM_FIRMWARE_ELF, &err);
  ASSERT_TRUE(elf) << err;
  ASSERT_TRUE(elf->vector_table());
  ASSERT_NE(elf->Handler(15), nullptr);
  EXPECT_EQ(*elf->Handler(15), "SysTick_Handler");
  ASSERT_NE(elf->Handler(16), nullptr);
  EXPECT_EQ(*elf->Handler(16), "UART0_IRQHandler");
  const auto systick = elf->Word(*elf->vector_table() + 4 * 15);
  ASSERT_TRUE(systick);
  TimelineOptions o;
  o.elf = elf.get();
  const json doc = Export(Stream(*systick & ~1u), o);
  std::vector<std::string> begins;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "B") begins.push_back(e["name"]);
  EXPECT_EQ(begins, (std::vector<std::string>{"SysTick_Handler", "UART0_IRQHandler"}));
  EXPECT_EQ(doc["metadata"]["itm.pc_samples.SysTick_Handler"], 2);
#endif
}

TEST(ItmTimeline, AnElfNotForArmIsRefused) {
  std::string err;
  EXPECT_EQ(ElfSymbols::Open("/proc/self/exe", &err), nullptr);  // this test: an x86-64 or AArch64 ELF
  EXPECT_NE(err.find("not Arm (EM_ARM, 40)"), std::string::npos) << err;
}

TEST(ItmTimeline, PortMappingErrors) {
  std::string err;
  EXPECT_FALSE(ParsePortMapping("300=counter:x", &err));
  EXPECT_NE(err.find("0-255"), std::string::npos);
  EXPECT_FALSE(ParsePortMapping("3=gauge:x", &err));
  EXPECT_NE(err.find("instant, counter or text"), std::string::npos);
  auto m = ParsePortMapping("0x10=instant", &err);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->first, 16u);
  EXPECT_EQ(m->second.name, "ITM port 16");
}

// A clock shared with other tracks of the sink (`arm export`): global
// timestamps count from TimelineOptions::global_origin and land at
// origin_ns + ticks; the tracks are on TimelineOptions::pid.
TEST(ItmTimeline, GlobalTimestampsOnASharedClock) {
  TimelineOptions o;
  o.pid = 2;
  o.global_origin = 1000;
  o.origin_ns = 50;
  o.clock_note = "shared: test";
  std::string out;
  {
    exporter::JsonWriter writer([&out](const char* d, size_t n) {
      out.append(d, n);
      return true;
    });
    ItmTimeline timeline(&writer, o, {"ITM_0"});
    ItmElement w;
    w.type = ElemType::kItmTrace;
    w.kind = ItmKind::kSwit;
    w.src_id = 1;
    w.size = 1;
    w.value = 5;
    timeline.OnElement(0, w);
    ItmElement ts;
    ts.type = ElemType::kItmTrace;
    ts.kind = ItmKind::kTsGlobal;
    ts.timestamp = 1010;
    timeline.OnElement(0, ts);
    EXPECT_TRUE(timeline.Finish());
  }
  const json doc = json::parse(out);
  const auto stim = Events(doc, 1);
  ASSERT_EQ(stim.size(), 1u);
  EXPECT_EQ(std::get<2>(stim[0]), 60);  // 50 + (1010 - 1000)
  for (const auto& e : doc["traceEvents"]) EXPECT_EQ(e["pid"], 2) << e;
  EXPECT_EQ(doc["metadata"]["itm.clock"], "shared: test");
}

}  // namespace
}  // namespace mabutrace::itm
