// SPDX-License-Identifier: MIT
// raw_dump_test.cpp: a raw RAM dump of the trace memory, converted with
// names resolved from the program's ELF (issue 3, docs/raw-dump.md):
// tests/tools/raw_dump_program records a known workload; gdb (or the
// program itself) dumps the memory; `mabutrace convert DUMP --elf PROGRAM`
// must give back the names, counter values, flows and threads. Bad dumps
// (no descriptor, cut short, a damaged chunk, a name pointer outside the
// ELF) give an error with the dump's byte offset and keep the rest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "format/dump_format.h"
#include "tool_process.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kItems = 40;  // raw_dump_program's

using mt_tools::ReadFile;
using mt_tools::Result;
using mt_tools::RunProgram;
using mt_tools::TempDir;

void WriteFile(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

Result Convert(const fs::path& dump, const fs::path& out, bool with_elf = true,
               const char* elf = RAW_DUMP_PROGRAM_PATH) {
  std::vector<std::string> args = {"convert", dump.string(), "-o", out.string()};
  if (with_elf) args.insert(args.end(), {"--elf", elf});
  return RunProgram(MABUTRACE_CLI_PATH, args);
}

// The workload's checks on the converted JSON.
void CheckWorkload(const json& doc, bool expect_foreign) {
  std::map<std::string, int> slices;
  std::vector<int64_t> levels;
  std::set<uint64_t> starts, ends;
  std::set<std::string> threads, instants;
  for (const json& e : doc.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "M" && e.at("name") == "thread_name") threads.insert(e["args"]["name"]);
    if (ph == "B") ++slices[e.at("name")];
    if (ph == "C") levels.push_back(e["args"].at("value"));
    if (ph == "s") starts.insert(e.at("id").get<uint64_t>());
    if (ph == "f") ends.insert(e.at("id").get<uint64_t>());
    if (ph == "i") instants.insert(e.at("name"));
  }
  EXPECT_EQ(slices["produce"], kItems);
  EXPECT_EQ(slices["consume"], kItems);
  EXPECT_EQ(slices["inner"], kItems);
  ASSERT_EQ(levels.size(), size_t(kItems));
  for (int i = 0; i < kItems; ++i) EXPECT_EQ(levels[size_t(i)], i * 1000 - 7);
  EXPECT_EQ(starts.size(), size_t(kItems));
  EXPECT_EQ(starts, ends);
  EXPECT_TRUE(threads.count("main"));
  EXPECT_TRUE(threads.count("worker \xe2\x9c\x93"));
  EXPECT_TRUE(instants.count("done"));
  EXPECT_EQ(instants.size(), expect_foreign ? 2u : 1u);
}

fs::path SelfDump(const TempDir& dir, bool foreign = false) {
  const fs::path dump = dir.path / "trace.dump";
  std::vector<std::string> args = {dump.string(), "--self"};
  if (foreign) args.push_back("--foreign-name");
  const Result r = RunProgram(RAW_DUMP_PROGRAM_PATH, args);
  EXPECT_EQ(r.rc, 0) << r.err;
  return dump;
}

// Converts `dump` (with --elf) expecting `rc`, and checks that the JSON
// holds the whole workload; the run, for more checks.
Result ConvertsToTheWorkload(const fs::path& dump, const TempDir& dir, int rc = 0) {
  const fs::path out = dir.path / "trace.json";
  const Result r = Convert(dump, out);
  EXPECT_EQ(r.rc, rc) << r.err;
  json doc;
  EXPECT_NO_THROW(doc = json::parse(ReadFile(out)));
  if (!doc.is_null()) CheckWorkload(doc, false);
  return r;
}

TEST(RawDump, SelfDumpConvertsWithNamesFromTheElf) {
  TempDir dir;
  const fs::path dump = SelfDump(dir);
  ConvertsToTheWorkload(dump, dir);
}

TEST(RawDump, GdbDumpOfTheStoppedProgram) {
  if (::access("/usr/bin/gdb", X_OK) != 0) GTEST_SKIP() << "gdb is not installed";
  TempDir dir;
  const fs::path dump = dir.path / "gdb.dump";
  const Result g =
      RunProgram("/usr/bin/gdb", {"-batch", "-nx", "-ex", "break mabutrace_test_dump_point", "-ex", "run", "-ex",
                                  "dump binary memory " + dump.string() +
                                      " mabutrace_dump_region.base (char*)mabutrace_dump_region.base + "
                                      "mabutrace_dump_region.bytes",
                                  "-ex", "kill", "--args", RAW_DUMP_PROGRAM_PATH, (dir.path / "unused").string()});
  if (!fs::exists(dump) && g.err.find("ptrace") != std::string::npos)
    GTEST_SKIP() << "this machine does not allow ptrace: " << g.err.substr(0, 200);
  ASSERT_TRUE(fs::exists(dump)) << g.out << g.err;
  ConvertsToTheWorkload(dump, dir);
}

TEST(RawDump, NamePointerOutsideTheElfIsReportedWithItsOffsetRestKept) {
  TempDir dir;
  const fs::path dump = SelfDump(dir, true);
  const fs::path out = dir.path / "trace.json";
  const Result r = Convert(dump, out);
  EXPECT_EQ(r.rc, 1);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex(R"(offset (\d+): name pointer (0x[0-9a-f]+) is not in the ELF)")))
      << r.err;
  // The offset is where the pointer is in the dump file.
  const std::string bytes = ReadFile(dump);
  const uint64_t off = std::stoull(m[1]), ptr = std::stoull(m[2], nullptr, 16);
  ASSERT_LE(off + 8, bytes.size());
  uint64_t at = 0;
  std::memcpy(&at, bytes.data() + off, 8);
  EXPECT_EQ(at, ptr);
  json doc;
  ASSERT_NO_THROW(doc = json::parse(ReadFile(out)));
  CheckWorkload(doc, true);  // the heap name shows as <0x...>, the rest intact
}

TEST(RawDump, WithoutTheElfNamesStayAddresses) {
  TempDir dir;
  const fs::path dump = SelfDump(dir);
  const fs::path out = dir.path / "trace.json";
  const Result r = Convert(dump, out, false);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("without --elf"), std::string::npos) << r.err;
  EXPECT_NE(ReadFile(out).find("\"name\":\"<0x"), std::string::npos);
}

TEST(RawDump, NoDescriptorIsAClearError) {
  TempDir dir;
  const fs::path dump = dir.path / "junk.dump";
  WriteFile(dump, std::string(10000, '\x42'));
  const Result r = Convert(dump, dir.path / "o.json");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("offset 0: no mabutrace dump descriptor"), std::string::npos) << r.err;
}

// Reads the descriptor the program wrote, to aim the damage below.
mabutrace::dump::DumpDescriptor Descriptor(const std::string& bytes, size_t* at) {
  mabutrace::dump::DumpDescriptor d{};
  const size_t pos = bytes.find(std::string(reinterpret_cast<const char*>(mabutrace::dump::kMagic), 8));
  *at = pos;
  if (pos != std::string::npos) std::memcpy(&d, bytes.data() + pos, sizeof d);
  return d;
}

TEST(RawDump, CutShortDumpIsAClearError) {
  TempDir dir;
  const std::string bytes = ReadFile(SelfDump(dir));
  size_t at = 0;
  const auto d = Descriptor(bytes, &at);
  ASSERT_NE(at, std::string::npos);
  const fs::path cut = dir.path / "cut.dump";
  WriteFile(cut, bytes.substr(0, at - d.descriptor_offset + d.data_offset + 100));
  const Result r = Convert(cut, dir.path / "o.json");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("offset " + std::to_string(at) + ": dump descriptor: the buffer"), std::string::npos) << r.err;
}

TEST(RawDump, UnknownDescriptorVersionIsRefused) {
  TempDir dir;
  std::string bytes = ReadFile(SelfDump(dir));
  size_t at = 0;
  Descriptor(bytes, &at);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 8] = 9;  // version
  const fs::path bad = dir.path / "v9.dump";
  WriteFile(bad, bytes);
  const Result r = Convert(bad, dir.path / "o.json");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("version 9 is not supported"), std::string::npos) << r.err;
}

TEST(RawDump, DamagedChunkIsSkippedOthersKept) {
  TempDir dir;
  std::string bytes = ReadFile(SelfDump(dir));
  size_t at = 0;
  const auto d = Descriptor(bytes, &at);
  ASSERT_NE(at, std::string::npos);
  const size_t block = at - d.descriptor_offset;
  // Find a used chunk and give it an impossible commit mark.
  size_t victim = 0;
  for (uint32_t i = 0; i < d.num_chunks; ++i) {
    uint64_t seq = 0;
    std::memcpy(&seq, bytes.data() + block + d.chunks_offset + size_t(i) * d.chunk_stride + d.chunk_seq, 8);
    if (seq) {
      victim = block + d.chunks_offset + size_t(i) * d.chunk_stride + d.chunk_commit;
      break;
    }
  }
  ASSERT_NE(victim, 0u);
  const uint64_t huge = 0xFFFFFFull;
  std::memcpy(&bytes[victim], &huge, 8);
  const fs::path bad = dir.path / "damaged.dump";
  WriteFile(bad, bytes);
  const fs::path out = dir.path / "o.json";
  const Result r = Convert(bad, out);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("offset " + std::to_string(victim) + ": chunk"), std::string::npos) << r.err;
  json doc;
  ASSERT_NO_THROW(doc = json::parse(ReadFile(out)));
  size_t events = 0;
  for (const json& e : doc.at("traceEvents")) events += e.at("ph") != "M";
  EXPECT_GT(events, size_t(kItems));  // the other chunks' events are there
}

TEST(RawDump, WrongElfIsCalledOut) {
  TempDir dir;
  const fs::path dump = SelfDump(dir);
  const Result r = Convert(dump, dir.path / "o.json", true, RAW_DUMP_OTHER_PATH);
  EXPECT_EQ(r.rc, 1);
  // Its strings are elsewhere: names land mid-string, or outside any section.
  EXPECT_TRUE(r.err.find("is --elf the firmware that wrote this dump?") != std::string::npos ||
              r.err.find("is not in the ELF") != std::string::npos)
      << r.err;
}

TEST(RawDump, FatalProblemLeavesTheOutputAlone) {
  TempDir dir;
  const fs::path junk = dir.path / "junk.dump", out = dir.path / "keep.json";
  WriteFile(junk, std::string(5000, '\x42'));
  WriteFile(out, "precious");
  EXPECT_EQ(Convert(junk, out).rc, 1);
  EXPECT_EQ(ReadFile(out), "precious");
}

TEST(RawDump, TwoDescriptorsUseTheFirstValidAndSaySo) {
  TempDir dir;
  const std::string one = ReadFile(SelfDump(dir));
  const fs::path two = dir.path / "two.dump";
  WriteFile(two, "MABUDMP\x1a not a descriptor, just the magic in code" + one + one);
  const Result r = ConvertsToTheWorkload(two, dir, 1);
  EXPECT_NE(r.err.find("more than one valid descriptor"), std::string::npos) << r.err;
}

TEST(RawDump, ConvertOntoItselfIsRefused) {
  TempDir dir;
  const fs::path dump = SelfDump(dir);
  const std::string before = ReadFile(dump);
  const Result r = RunProgram(MABUTRACE_CLI_PATH, {"convert", dump.string(), "-o", dump.string(), "--format", "json",
                                                   "--elf", RAW_DUMP_PROGRAM_PATH});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("both the input and the output"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(dump), before);
}

// `mabutrace stats` reads a raw dump + ELF through convert's input path:
// consume holds inner (self = total - inner's total), the unnamed flows
// pair, the counter's values are exact, and --check gates on them.
// Mutation: cmd_stats reading without the --elf (ReadTrace(*fin, "", ...))
// leaves the names as addresses: no "consume" key, the checks fail.
TEST(RawDump, StatsOfADumpWithTheElf) {
#if !MABUTRACE_HAS_STATS
  GTEST_SKIP() << "host/stats is not built (MABUTRACE_HOST_DIRS)";
#else
  TempDir dir;
  const fs::path dump = SelfDump(dir);
  const fs::path out = dir.path / "stats.json";
  const Result r = mt_tools::RunProgram(
      MABUTRACE_CLI_PATH, {"stats", dump.string(), "--elf", RAW_DUMP_PROGRAM_PATH, "-o", out.string(), "--check",
                           "counter:level.min == -7", "--check", "counter:level.max == 38993", "--check",
                           "slice:consume.count == 40", "--check", "flow:(unnamed).count == 40"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const json doc = json::parse(ReadFile(out));
  std::map<std::string, json> slices;
  for (const auto& s : doc["slices"]) slices[s["key"]] = s;
  ASSERT_TRUE(slices.count("consume") && slices.count("inner")) << doc["slices"].dump();
  EXPECT_EQ(slices["consume"]["self"].get<uint64_t>(),
            slices["consume"]["total"].get<uint64_t>() - slices["inner"]["total"].get<uint64_t>());
  EXPECT_EQ(slices["inner"]["count"], 40);
#endif
}

}  // namespace
