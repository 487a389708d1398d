// SPDX-License-Identifier: MIT
// tarmac_test.cpp: 002-ack_test_scr's executed instruction addresses,
// reconstructed from its trace, against the simulator's TARMAC log.
//
// The traced window is the core's execution between the TRCPRGCTLR write of
// 1 (trace unit enabled; from the instruction after the ISB that follows it)
// and the next TRCPRGCTLR write (disabled). Every
// instruction address of every INSTR_RANGE element must appear in the
// TARMAC in the same order. TARMAC instructions the trace does not show
// are allowed only right after a TRACE_ON or EXCEPTION element (trace is
// filtered while the core is at EL2/EL3 here) and must all be at EL2/EL3;
// with them removed the two sequences are identical, and the trace covers
// the window to its last instruction before the disable.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ete_decode/ete_decode_session.h"
#include "shared_data.h"

namespace mabutrace::ete_decode {
namespace {

namespace fs = std::filesystem;
const fs::path kDir = fs::path(MABUTRACE_SHARED_DIR) / "data" / "ete-snapshots" / "002-ack_test_scr";

struct TarmacInstr {
  uint64_t addr;
  std::string mode;  // "EL1h_n", "EL3h_s"...
  std::string line;
};

// The cpu0 instructions (IT executed, IS condition failed) of the traced window.
std::vector<TarmacInstr> ReadTarmacWindow() {
  std::ifstream in(kDir / "test_TARMAC");
  std::vector<TarmacInstr> out;
  std::string line;
  bool in_window = false;
  bool skipped_isb = false;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::vector<std::string> f;
    for (std::string w; ss >> w;) f.push_back(w);
    if (f.size() < 5 || f[2] != "cpu0") continue;
    if (!in_window) {
      if (f[3] == "R" && f[4] == "TRCPRGCTLR" && f.size() > 5 && f[5].size() >= 1 && f[5].back() == '1')
        in_window = true;
      continue;
    }
    if ((f[3] == "IT" || f[3] == "IS") && f.size() > 8) {
      if (line.find("MSR      TRCPRGCTLR") != std::string::npos) break;  // trace unit disabled
      // The enable takes effect at the context synchronisation that follows
      // it (Arm ARM D4.2, TRCPRGCTLR + ISB): that ISB itself is not traced.
      if (out.empty() && line.find(": ISB") != std::string::npos && !skipped_isb) {
        skipped_isb = true;
        continue;
      }
      out.push_back({std::stoull(f[5].substr(0, f[5].find(':')), nullptr, 16), f[8], line});
    }
  }
  return out;
}

struct Step {
  bool marker;  // TRACE_ON / EXCEPTION: untraced code may run before the next address
  uint64_t addr;
};

void OnElement(void* c, size_t, const EteElement& e) {
  auto* steps = static_cast<std::vector<Step>*>(c);
  if (e.type == ElemType::kTraceOn || e.type == ElemType::kException) steps->push_back({true, 0});
  if (e.type != ElemType::kInstrRange) return;
  for (uint64_t a = e.start; a < e.end; a += 4) steps->push_back({false, a});  // A64 capture
}
void OnError(void*, size_t, uint64_t, const std::string&) {}

TEST(Tarmac, AckTestScrAddressesMatchTheCore) {
  MABUTRACE_NEEDS_SHARED(kDir / "test_TARMAC");
  const std::vector<TarmacInstr> tarmac = ReadTarmacWindow();
  ASSERT_GT(tarmac.size(), 1000u);
  LoadedSnapshot snap = LoadSnapshotForDecode(kDir);
  ASSERT_EQ(snap.buffers.size(), 1u);
  std::vector<Step> steps;
  ASSERT_TRUE(DecodeBufferFile(snap.buffers[0], &OnElement, &OnError, &steps));

  size_t pos = 0, traced = 0, skipped = 0;
  bool may_skip = false;
  for (const Step& s : steps) {
    if (s.marker) {
      may_skip = true;
      continue;
    }
    size_t q = pos;
    while (q < tarmac.size() && tarmac[q].addr != s.addr) ++q;
    ASSERT_LT(q, tarmac.size()) << "traced address 0x" << std::hex << s.addr << " (instruction " << std::dec << traced
                                << ") not in the TARMAC window after line: "
                                << (pos ? tarmac[pos - 1].line : std::string("<start>"));
    if (q != pos) {
      ASSERT_TRUE(may_skip) << "trace jumps over " << (q - pos) << " executed instructions at instruction " << traced
                            << ": TARMAC has " << tarmac[pos].line << ", trace has 0x" << std::hex << s.addr;
      for (size_t k = pos; k < q; ++k)
        ASSERT_TRUE(tarmac[k].mode.rfind("EL2", 0) == 0 || tarmac[k].mode.rfind("EL3", 0) == 0)
            << "untraced instruction outside EL2/EL3: " << tarmac[k].line;
      skipped += q - pos;
    }
    may_skip = false;
    pos = q + 1;
    ++traced;
  }
  EXPECT_EQ(traced, 5146u);  // instructions in the 1137 executed ranges
  EXPECT_EQ(pos, tarmac.size()) << "the trace ends before the window: next TARMAC line " << tarmac[pos].line;
  EXPECT_EQ(traced + skipped, tarmac.size());
  std::printf("TARMAC window %zu instructions: %zu traced in order, %zu untraced at EL2/EL3\n", tarmac.size(), traced,
              skipped);
}

}  // namespace
}  // namespace mabutrace::ete_decode
