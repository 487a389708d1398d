// SPDX-License-Identifier: MIT
// etm3_config_test.cpp: Etm3Config::FromDevice reads the trace ID from
// ETMTRACEIDR [6:0] and refuses a value with a higher bit set (0x90 was
// masked to 0x10 and decoded as that source without a word).
#include <gtest/gtest.h>

#include <string>

#include "etm3/etm3_config.h"
#include "snapshot/snapshot.h"

namespace mabutrace::etm3 {
namespace {

snapshot::Device Etm(uint64_t traceidr) {
  snapshot::Device d;
  d.ini_file = "snap/ETM_0.ini";
  d.name = "ETM_0";
  d.regs = {{"ETMCR", 0x1000}, {"ETMTRACEIDR", traceidr}};
  return d;
}

TEST(Etm3Config, TraceIdFromEtmTraceIdr) { EXPECT_EQ(Etm3Config::FromDevice(Etm(0x10)).trace_id(), 0x10); }

TEST(Etm3Config, TraceIdrAboveBit6IsAnErrorNamingFileKeyAndValue) {
  try {
    const Etm3Config c = Etm3Config::FromDevice(Etm(0x90));
    FAIL() << "ETMTRACEIDR 0x90 read as trace ID 0x" << std::hex << int(c.trace_id());
  } catch (const snapshot::SnapshotError& e) {
    EXPECT_STREQ(e.what(), "snap/ETM_0.ini: [regs] ETMTRACEIDR: 0x90 sets bits outside 0x7f");
  }
}

// ETMIDR and ETMCCER are optional, but a value wider than 32 bits is an
// error too, not cut to its low half.
TEST(Etm3Config, IdRegisterWiderThan32BitsIsAnError) {
  snapshot::Device d = Etm(0x10);
  d.regs["ETMCCER"] = 0x100000000;
  try {
    Etm3Config::FromDevice(d);
    FAIL() << "ETMCCER 0x100000000 read as 0";
  } catch (const snapshot::SnapshotError& e) {
    EXPECT_STREQ(e.what(), "snap/ETM_0.ini: [regs] ETMCCER: 0x100000000 sets bits outside 0xffffffff");
  }
}

}  // namespace
}  // namespace mabutrace::etm3
