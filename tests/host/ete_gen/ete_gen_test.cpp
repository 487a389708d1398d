// SPDX-License-Identifier: MIT
// ete_gen_test.cpp: the ETE packet generator against our decoder (issue 21).
//
// call_graph.S is traced along call_graph.run (host/ete_gen); the snapshot
// it writes is decoded by host/ete_decode, which must report exactly the
// scripted path (every executed range, in order, with its atom), the
// scripted exception and every timestamp. Exported with the ELF's symbols
// the function slices must form the program's call tree, on real time
// (ns from CNTFRQ_EL0).
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ete_decode/elf_symbols.h"
#include "ete_decode/ete_decode_session.h"
#include "ete_decode/ete_export.h"
#include "ete_gen/ete_generator.h"
#include "ete_gen/snapshot_writer.h"
#include "json_writer.h"

namespace mabutrace::ete_gen {
namespace {

namespace fs = std::filesystem;

#define NEEDS_TOOLCHAIN()                                                                                    \
  do {                                                                                                       \
    if (std::string(ETE_GEN_ELF).empty())                                                                    \
      GTEST_SKIP() << "aarch64-linux-gnu-gcc not found at configure time (scripts/install-deps.sh installs " \
                      "gcc-aarch64-linux-gnu): no test program to trace";                                    \
  } while (0)

struct Generated {
  ete_decode::ElfFile elf;
  GenScript script;
  GenResult result;
  fs::path dir;
};

std::string ReadText(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Generates the snapshot into a fresh temporary directory.
Generated Generate(uint64_t ts_hz_override = UINT64_MAX) {
  Generated g;
  std::string error;
  auto elf = ete_decode::ReadElfFile(ETE_GEN_ELF, std::nullopt, &error);
  EXPECT_TRUE(elf) << error;
  g.elf = std::move(*elf);
  EXPECT_TRUE(ParseScript(ReadText(ETE_GEN_SCRIPT), "call_graph.run", g.elf, &g.script, &error)) << error;
  if (ts_hz_override != UINT64_MAX) g.script.ts_hz = ts_hz_override;
  armisa::MemoryImage image;
  for (const auto& s : g.elf.segments)
    EXPECT_TRUE(image.AddRegion(s.vaddr, s.bytes.data(), s.bytes.size(), armisa::kMemAny, &error)) << error;
  EXPECT_TRUE(mabutrace::ete_gen::Generate(image, g.script, &g.result, &error)) << error;
  static int n = 0;
  g.dir = fs::temp_directory_path() / ("ete_gen_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  fs::remove_all(g.dir);
  EXPECT_TRUE(WriteSnapshot(g.dir, ImagesOf(g.elf), g.result, g.script.ts_hz, &error)) << error;
  return g;
}

struct Decoded {
  std::vector<GenRange> ranges;
  std::vector<GenException> exceptions;
  std::vector<uint64_t> timestamps;
  std::vector<std::string> errors;
};

void OnElement(void* c, size_t, const ete_decode::EteElement& e) {
  auto* d = static_cast<Decoded*>(c);
  using ete_decode::ElemType;
  if (e.type == ElemType::kInstrRange || e.type == ElemType::kInstrRangeNoPath) {
    const bool p0 = e.last_type != armisa::InstrType::kOther;
    d->ranges.push_back({e.start, e.end, e.num_instr, p0, p0 && e.executed});
  } else if (e.type == ElemType::kException) {
    d->exceptions.push_back({d->ranges.size(), static_cast<uint8_t>(e.exception_number), e.end, 0});
  } else if (e.type == ElemType::kTimestamp) {
    d->timestamps.push_back(e.timestamp);
  } else if (e.type == ElemType::kAddrNacc || e.type == ElemType::kInstrLimit) {
    d->errors.push_back(std::string(ete_decode::ElemTypeName(e.type)));
  }
}
void OnError(void* c, size_t, uint64_t, const std::string& m) { static_cast<Decoded*>(c)->errors.push_back(m); }

std::string Describe(const GenRange& r) {
  std::ostringstream s;
  s << std::hex << "0x" << r.start << "-0x" << r.end << std::dec << " n" << r.num_instr << " "
    << (r.ends_in_p0 ? (r.taken ? "E" : "N") : "X");
  return s.str();
}

TEST(EteGen, DecodeEqualsTheScriptedPath) {
  NEEDS_TOOLCHAIN();
  const Generated g = Generate();
  // The script's path itself: _start, main's loop twice, f -> g x2 each time, h, the SVC.
  ASSERT_EQ(g.result.exceptions.size(), 1u);
  EXPECT_EQ(g.result.atoms, g.result.ranges.size() - 1);  // every range but the one the SVC cuts ends in an atom
  const auto snap = ete_decode::LoadSnapshotForDecode(g.dir);
  ASSERT_EQ(snap.buffers.size(), 1u);
  EXPECT_TRUE(snap.warnings.empty());
  Decoded d;
  ASSERT_TRUE(ete_decode::DecodeBufferFile(snap.buffers[0], &OnElement, &OnError, &d));
  EXPECT_TRUE(d.errors.empty()) << d.errors.front();
  ASSERT_EQ(d.ranges.size(), g.result.ranges.size());
  for (size_t i = 0; i < d.ranges.size(); ++i)
    EXPECT_EQ(Describe(d.ranges[i]), Describe(g.result.ranges[i])) << "range " << i;
  ASSERT_EQ(d.exceptions.size(), 1u);
  EXPECT_EQ(d.exceptions[0].after_range, g.result.exceptions[0].after_range);
  EXPECT_EQ(d.exceptions[0].type, 0x02);  // Call
  EXPECT_EQ(d.exceptions[0].preferred_return, g.result.exceptions[0].preferred_return);
  EXPECT_EQ(d.timestamps, g.result.timestamps);
  EXPECT_GE(g.result.timestamps.size(), 4u);
  fs::remove_all(g.dir);
}

// "name(child,child...)" per thread, from the Chrome JSON B/E events.
struct Tree {
  std::string text;
  std::vector<size_t> open;  // text length where each open frame's children start
  int depth = 0;
  int open_at_end = 0;
};

std::map<int, Tree> CallTrees(const nlohmann::json& j) {
  std::map<int, Tree> trees;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph != "B" && ph != "E") continue;
    Tree& t = trees[e["tid"].get<int>()];
    if (ph == "B") {
      if (!t.text.empty() && t.text.back() != '(') t.text += ",";
      t.text += e["name"].get<std::string>() + "(";
      ++t.depth;
    } else {
      if (t.text.back() == '(')
        t.text.pop_back();  // a leaf: no "()"
      else
        t.text += ")";
      --t.depth;
      if (e.contains("args") && e["args"].value("open_at_end", false)) ++t.open_at_end;
    }
  }
  return trees;
}

nlohmann::json ExportJson(const Generated& g, const ete_decode::SymbolTable* symbols, double ts_hz,
                          ete_decode::ExportSummary* summary) {
  const auto snap = ete_decode::LoadSnapshotForDecode(g.dir);
  std::string out;
  exporter::JsonWriter writer([&out](const char* d, size_t n) {
    out.append(d, n);
    return true;
  });
  ete_decode::ExportOptions opt;
  opt.symbols = symbols;
  opt.timestamp_hz = ts_hz;
  *summary = ete_decode::ExportTimeline(snap, "gen", &writer, opt);
  if (summary->elf_mismatch) return nlohmann::json();
  return nlohmann::json::parse(out);
}

TEST(EteGen, FunctionSlicesFormTheProgramsCallTree) {
  NEEDS_TOOLCHAIN();
  const Generated g = Generate();
  ete_decode::SymbolTable symbols;
  symbols.Add(g.elf);
  ete_decode::ExportSummary s;
  const nlohmann::json j = ExportJson(g, &symbols, 0, &s);
  EXPECT_FALSE(s.elf_mismatch);
  EXPECT_EQ(s.ranges_without_symbol, 0u);
  const auto trees = CallTrees(j);
  ASSERT_EQ(trees.size(), 1u);
  const Tree& t = trees.begin()->second;
  EXPECT_EQ(t.text, "_start(main(f(g,g),f(g,g),h(exception Call(el1_sync))))");
  EXPECT_EQ(t.depth, 0);        // balanced: every B has its E
  EXPECT_EQ(t.open_at_end, 1);  // _start never returns: closed at the end
  EXPECT_EQ(j["metadata"]["ete.slices"], "functions");
  EXPECT_EQ(j["metadata"]["ete.function_slices"], 11);
  fs::remove_all(g.dir);
}

TEST(EteGen, TimestampsBecomeNanosecondsFromTheSnapshotFrequency) {
  NEEDS_TOOLCHAIN();
  const Generated g = Generate();
  ete_decode::ExportSummary s;
  const nlohmann::json j = ExportJson(g, nullptr, 0, &s);
  EXPECT_EQ(s.timestamp_hz, 100e6);
  EXPECT_EQ(j["metadata"]["ete.time_unit"], "ns (timestamp at 100000000 Hz from snapshot cpu_0.ini CNTFRQ_EL0)");
  EXPECT_EQ(j["metadata"]["ete.timestamp_origin"], std::to_string(g.result.timestamps.front()));
  // Ticks of 10 ns: the last range ends after the third-last timestamp (one
  // every 3 atoms, a last one at the end) and by the last one; each range
  // between two timestamps takes 1 ns.
  double last_us = 0;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "E") last_us = std::max(last_us, e["ts"].get<double>());
  const auto& ts = g.result.timestamps;
  ASSERT_GE(ts.size(), 3u);
  EXPECT_LE(last_us * 1000.0, static_cast<double>(ts.back() - ts.front()) * 10.0 + 4);
  EXPECT_GE(last_us * 1000.0, static_cast<double>(ts[ts.size() - 3] - ts.front()) * 10.0);
  fs::remove_all(g.dir);
}

TEST(EteGen, TsHzFlagWhenTheSnapshotHasNoFrequency) {
  NEEDS_TOOLCHAIN();
  const Generated g = Generate(/*ts_hz_override=*/0);
  ete_decode::ExportSummary s;
  const nlohmann::json j = ExportJson(g, nullptr, 1e9, &s);
  EXPECT_EQ(j["metadata"]["ete.time_unit"], "ns (timestamp at 1000000000 Hz from --ts-hz)");
  const nlohmann::json raw = ExportJson(g, nullptr, 0, &s);
  EXPECT_EQ(raw["metadata"]["ete.time_unit"], "timestamp ticks (as ns), from the first timestamp");
  fs::remove_all(g.dir);
}

TEST(EteGen, AnElfThatDoesNotMatchIsRefusedBeforeWriting) {
  NEEDS_TOOLCHAIN();
  const Generated g = Generate();
  ete_decode::ElfFile moved = g.elf;
  ete_decode::SymbolTable symbols;
  std::string error;
  // The same ELF, as if loaded 16 MiB higher: no symbol covers the trace.
  ASSERT_TRUE(symbols.AddElf(ETE_GEN_ELF, 0x1000000, &error)) << error;
  ete_decode::ExportSummary s;
  ExportJson(g, &symbols, 0, &s);
  EXPECT_TRUE(s.elf_mismatch);
  EXPECT_GT(s.ranges_without_symbol, 0u);
  EXPECT_FALSE(symbols.AddElf("/nonexistent/prog.elf", std::nullopt, &error));
  EXPECT_NE(error.find("/nonexistent/prog.elf"), std::string::npos) << error;
  fs::remove_all(g.dir);
}

TEST(EteGen, ScriptErrorsNameTheLine) {
  NEEDS_TOOLCHAIN();
  std::string error;
  auto elf = ete_decode::ReadElfFile(ETE_GEN_ELF, std::nullopt, &error);
  ASSERT_TRUE(elf);
  GenScript s;
  EXPECT_FALSE(ParseScript("start _start\ncond nowhere T\n", "x.run", *elf, &s, &error));
  EXPECT_EQ(error.rfind("x.run:2: 'nowhere': not a symbol", 0), 0u) << error;
  // Outcomes that run out: the generator says which branch and visit.
  GenScript short_script;
  ASSERT_TRUE(
      ParseScript("start _start\nstop start_done\ncond main_loop_br T\n", "y.run", *elf, &short_script, &error));
  armisa::MemoryImage image;
  for (const auto& seg : elf->segments) image.AddRegion(seg.vaddr, seg.bytes.data(), seg.bytes.size(), 0xFF, &error);
  GenResult r;
  EXPECT_FALSE(mabutrace::ete_gen::Generate(image, short_script, &r, &error));
  EXPECT_NE(error.find("has no scripted outcome"), std::string::npos) << error;
}

}  // namespace
}  // namespace mabutrace::ete_gen
