// SPDX-License-Identifier: MIT
// oracle_ranges_test.cpp: the follower against OpenCSD 1.8.0's executed
// ranges on the real ETE captures (data/ete-snapshots/*/expected/*.ppl).
//
// Every OCSD_GEN_TRC_ELEM_INSTR_RANGE line gives (start, end, num_i,
// last_sz, ISA, last type/subtype, <cond>). From the range's start, the
// first P0 instruction must be the range's last instruction, with the same
// count and kind: an atom ends a range at the first P0 whatever its outcome
// (an N atom ends it on a not-taken conditional branch). Ranges whose last
// type is "---" end without a P0 (an exception cut them): the walk to their
// end must meet no P0 and count the same instructions.
//
// The memory image comes from the capture's cpu_0.ini [dumpN] sections;
// WFx are P0 when the trace unit's TRCIDR2.WFXMODE (bit 31) is set.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "follower.h"
#include "instr.h"
#include "memory_image.h"
#include "shared_data.h"

namespace mabutrace::armisa {
namespace {

namespace fs = std::filesystem;

const fs::path kSnapshots = MABUTRACE_ETE_SNAPSHOTS_DIR;

std::string Trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Minimal .ini reader: section -> key -> value (comments after ';' or '#').
using Ini = std::map<std::string, std::map<std::string, std::string>>;
Ini ReadIni(const fs::path& path) {
  Ini ini;
  std::ifstream in(path);
  std::string line, section;
  while (std::getline(in, line)) {
    line = Trim(line.substr(0, line.find_first_of(";#")));
    if (line.empty()) continue;
    if (line.front() == '[') {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = Trim(line.substr(0, eq));
    key = key.substr(0, key.find('('));
    ini[section][key] = Trim(line.substr(eq + 1));
  }
  return ini;
}

bool LoadCore(const fs::path& dir, MemoryImage* image, std::string* error) {
  const Ini ini = ReadIni(dir / "cpu_0.ini");
  for (const auto& [section, keys] : ini) {
    if (section.rfind("dump", 0) != 0) continue;
    std::string file = keys.at("file");
    if (!file.empty() && file.front() == '"') file = file.substr(1, file.size() - 2);
    const auto get = [&](const char* k) -> uint64_t {
      auto it = keys.find(k);
      return it == keys.end() ? 0 : std::stoull(it->second, nullptr, 0);
    };
    uint8_t space = kMemAny;
    if (auto it = keys.find("space"); it != keys.end()) space = ParseMemSpace(it->second).value_or(kMemAny);
    if (!fs::exists(dir / file)) continue;  // event_test has no images
    if (!image->AddFile((dir / file).string(), get("address"), space, error, get("offset"), get("length")))
      return false;
  }
  return true;
}

bool WfxMode(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".ini") continue;
    const Ini ini = ReadIni(entry.path());
    if (auto s = ini.find("regs"); s != ini.end()) {
      if (auto r = s->second.find("TRCIDR2"); r != s->second.end())
        return (std::stoull(r->second, nullptr, 0) >> 31) & 1;
    }
  }
  return false;
}

struct OracleRange {
  uint64_t start, end;
  unsigned num, last_size;
  Isa isa;
  std::string type, subtype;
  bool cond;
  std::string line;
};

std::vector<OracleRange> ReadRanges(const fs::path& ppl) {
  std::vector<OracleRange> out;
  std::ifstream in(ppl);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find("OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=");
    if (at == std::string::npos) continue;
    OracleRange r{};
    unsigned long long s, e;
    char isa[4] = {};
    int used = 0;
    if (std::sscanf(line.c_str() + at,
                    "OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x%llx:[0x%llx] num_i(%u) "
                    "last_sz(%u) (ISA=%3s) %*c %n",
                    &s, &e, &r.num, &r.last_size, isa, &used) < 5 ||
        used == 0)
      continue;
    r.start = s;
    r.end = e;
    r.isa = std::string(isa) == "A64" ? Isa::kA64 : std::string(isa) == "A32" ? Isa::kA32 : Isa::kT32;
    std::string rest = line.substr(at + used);
    rest = rest.substr(0, rest.rfind(')'));
    r.cond = rest.find("<cond>") != std::string::npos;
    if (r.cond) rest.erase(rest.find("<cond>"));
    rest = Trim(rest);
    const auto sp = rest.find(' ');
    r.type = rest.substr(0, sp);
    r.subtype = sp == std::string::npos ? "" : Trim(rest.substr(sp));
    r.line = line;
    out.push_back(r);
  }
  return out;
}

class OracleRanges : public ::testing::TestWithParam<std::string> {};

TEST_P(OracleRanges, FirstP0MatchesOpenCsd) {
  const fs::path dir = kSnapshots / GetParam();
  MemoryImage image;
  std::string error;
  ASSERT_TRUE(LoadCore(dir, &image, &error)) << error;
  FollowOptions options;
  options.classify.wfx_waypoints = WfxMode(dir);
  InstrFollower follower(&image, options);
  const auto ranges = ReadRanges(dir / "expected" / "opencsd-1.8.0-decode.ppl");
  if (GetParam() != "event_test") {
    ASSERT_FALSE(ranges.empty());
  }
  size_t failures = 0, p0_checked = 0, cut_checked = 0, spanning = 0;
  for (const OracleRange& o : ranges) {
    std::ostringstream why;
    WalkResult w;
    uint32_t count = 0;
    if (o.type == "---") {
      w = follower.WalkTo(o.start, o.isa, o.end);
      ++cut_checked;
    } else {
      w = follower.FindNextP0(o.start, o.isa);
      ++p0_checked;
    }
    count = w.num_instr;
    if (w.ok() && w.end < o.end && o.start < o.end) {
      // A range that runs through P0 instructions: a Source Address or Q
      // element (arm-trace-facts.md 5.10) walks to an address, and the P0s
      // on the way were not taken. Chain the walks to the range's end.
      ++spanning;
      while (w.ok() && w.end < o.end) {
        w = follower.WalkTo(w.end, o.isa, o.end);
        count += w.num_instr;
      }
      if (w.status == WalkStatus::kStopReached && o.type != "---") {
        // Ended exactly on o.end without a P0 there: the oracle's last
        // instruction is a P0, so this is a mismatch reported below.
        why << "chain reached the end on a non-P0";
      }
    }
    if (!why.str().empty()) {
    } else if (o.type == "---") {
      if (w.status != WalkStatus::kStopReached || count != o.num)
        why << "walk to end: status " << int(w.status) << " num " << count << " end 0x" << std::hex << w.end;
    } else if (!w.ok()) {
      why << "status " << int(w.status) << " at 0x" << std::hex << w.end;
    } else if (w.end != o.end || count != o.num || w.info.size != o.last_size || OcsdTypeName(w.info.type) != o.type ||
               OcsdSubtypeName(w.info.subtype) != o.subtype || w.info.ocsd_conditional != o.cond) {
      why << "got end 0x" << std::hex << w.end << std::dec << " num " << count << " sz " << int(w.info.size) << " '"
          << OcsdTypeName(w.info.type) << "' '" << OcsdSubtypeName(w.info.subtype) << "' cond "
          << w.info.ocsd_conditional << " opcode 0x" << std::hex << w.opcode;
    }
    if (!why.str().empty() && ++failures <= 10) ADD_FAILURE() << o.line << "\n  " << why.str();
  }
  EXPECT_EQ(failures, 0u);
  // Sanity: the cache did its job (most ranges start at a seen address).
  std::printf("[          ] %s: %zu P0 ranges, %zu cut ranges, %zu through not-taken P0s, cache %" PRIu64 "/%" PRIu64
              " hits, %" PRIu64 " instructions walked\n",
              GetParam().c_str(), p0_checked, cut_checked, spanning, follower.stats().hits, follower.stats().lookups,
              follower.stats().instructions_walked);
}

std::vector<std::string> Captures() {
  return mabutrace_tests::SharedCaptures(kSnapshots, {"expected/opencsd-1.8.0-decode.ppl", "cpu_0.ini"});
}

INSTANTIATE_TEST_SUITE_P(EteSnapshots, OracleRanges, ::testing::ValuesIn(Captures()),
                         [](const auto& info) { return mabutrace_tests::CaptureTestName(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OracleRanges);  // a clone without the captures

TEST(OracleRangesSet, CapturesPresent) {
  MABUTRACE_NEEDS_SHARED(kSnapshots);
  EXPECT_FALSE(Captures().empty());
}

}  // namespace
}  // namespace mabutrace::armisa
