// SPDX-License-Identifier: MIT
// ptm_config_test.cpp: PtmConfig::FromDevice reads the trace ID from
// ETMTRACEIDR [6:0] and refuses a value with a higher bit set (0x90 was
// masked to 0x10 and decoded as that source without a word).
#include <gtest/gtest.h>

#include <string>

#include "ptm/ptm_source.h"
#include "snapshot/snapshot.h"

namespace mabutrace::ptm {
namespace {

snapshot::Device Ptm(uint64_t traceidr) {
  snapshot::Device d;
  d.ini_file = "snap/PTM_0.ini";
  d.name = "PTM_0";
  d.regs = {{"ETMCR", 0x1000}, {"ETMTRACEIDR", traceidr}};
  return d;
}

TEST(PtmConfig, TraceIdFromEtmTraceIdr) { EXPECT_EQ(PtmConfig::FromDevice(Ptm(0x10)).trace_id(), 0x10); }

TEST(PtmConfig, TraceIdrAboveBit6IsAnErrorNamingFileKeyAndValue) {
  try {
    const PtmConfig c = PtmConfig::FromDevice(Ptm(0x90));
    FAIL() << "ETMTRACEIDR 0x90 read as trace ID 0x" << std::hex << int(c.trace_id());
  } catch (const snapshot::SnapshotError& e) {
    EXPECT_STREQ(e.what(), "snap/PTM_0.ini: [regs] ETMTRACEIDR: 0x90 sets bits outside 0x7f");
  }
}

// ETMIDR and ETMCCER are optional, but a value wider than 32 bits is an
// error too, not cut to its low half.
TEST(PtmConfig, IdRegisterWiderThan32BitsIsAnError) {
  snapshot::Device d = Ptm(0x10);
  d.regs["ETMCCER"] = 0x100000000;
  try {
    PtmConfig::FromDevice(d);
    FAIL() << "ETMCCER 0x100000000 read as 0";
  } catch (const snapshot::SnapshotError& e) {
    EXPECT_STREQ(e.what(), "snap/PTM_0.ini: [regs] ETMCCER: 0x100000000 sets bits outside 0xffffffff");
  }
}

}  // namespace
}  // namespace mabutrace::ptm
