// SPDX-License-Identifier: MIT
// trace_protocol_test.cpp: the protocol registry (ete/trace_protocol.h):
// device types -> protocols, which ones are decoded, and the per-source
// message for the others.
#include "ete/trace_protocol.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "snapshot/snapshot.h"

namespace ete = mabutrace::ete;
using ete::TraceProtocol;

namespace {

TEST(TraceProtocols, DeviceTypes) {
  EXPECT_EQ(ete::ProtocolOfType("ETE"), TraceProtocol::kEte);
  EXPECT_EQ(ete::ProtocolOfType("ETM4"), TraceProtocol::kEtmV4);
  EXPECT_EQ(ete::ProtocolOfType("ETM4.1"), TraceProtocol::kEtmV4);
  EXPECT_EQ(ete::ProtocolOfType("etmv4.2"), TraceProtocol::kEtmV4);
  EXPECT_EQ(ete::ProtocolOfType("ETM3.5"), TraceProtocol::kEtmV3);
  EXPECT_EQ(ete::ProtocolOfType("PTM1.1"), TraceProtocol::kPtm);
  EXPECT_EQ(ete::ProtocolOfType("PFT1.1"), TraceProtocol::kPtm);
  EXPECT_EQ(ete::ProtocolOfType("ITM"), TraceProtocol::kItm);
  EXPECT_EQ(ete::ProtocolOfType("STM"), TraceProtocol::kStm);
  EXPECT_EQ(ete::ProtocolOfType("Cortex-A53"), TraceProtocol::kUnknown);
  // One row per protocol, in enum order; ETE, ETMv4, ETMv3 and PTM are the decoded ones.
  size_t i = 0, decoded = 0;
  for (const ete::TraceProtocolInfo& p : ete::TraceProtocols()) {
    EXPECT_EQ(static_cast<size_t>(p.protocol), i++);
    decoded += p.decoder != nullptr;
  }
  EXPECT_EQ(decoded, 4u);
  EXPECT_NE(ete::InfoOf(TraceProtocol::kEtmV3).decoder, nullptr);
  EXPECT_NE(ete::InfoOf(TraceProtocol::kEtmV4).decoder, nullptr);
  EXPECT_EQ(ete::InfoOf(TraceProtocol::kItm).decoder, nullptr);
}

// A formatted buffer with an ETMv4, an ITM and a PTM source: the ITM one is
// named (PTM has a decoder, host/ptm); for a source_data buffer only the first source counts.
// Mutation: UndecodedSources returning nothing -> no messages (the CLI test
// arm_cli_undecoded_sources_named fails the same way).
TEST(TraceProtocols, UndecodedSourcesOfABuffer) {
  const auto dir = std::filesystem::temp_directory_path() / ("mabutrace_proto_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const char* name, const std::string& text) { std::ofstream(dir / name) << text; };
  write("snapshot.ini",
        "[snapshot]\nversion=1.0\n[device_list]\ndevice0=etm.ini\ndevice1=itm.ini\ndevice2=ptm.ini\ndevice3=stm.ini\n"
        "[trace]\nmetadata=trace.ini\n");
  write("etm.ini",
        "[device]\nname=ETM_0\nclass=trace_source\ntype=ETM4\n[regs]\nTRCCONFIGR=0x1\nTRCTRACEIDR=0x10\n"
        "TRCIDR0=0x28000EA1\nTRCIDR2=0x488\n");
  write("itm.ini", "[device]\nname=ITM_0\nclass=trace_source\ntype=ITM\n[regs]\nITMTCR=0x10001\n");
  write("ptm.ini", "[device]\nname=PTM_0\nclass=trace_source\ntype=PTM1.1\n[regs]\nETMCR=0x1000\n");
  write("stm.ini", "[device]\nname=STM_0\nclass=trace_source\ntype=STM\n");
  auto snap_with = [&](const char* format) {
    write("trace.ini", std::string("[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=ETB_0\nfile=t.bin\nformat=") +
                           format + "\n[source_buffers]\nETM_0=ETB_0\nITM_0=ETB_0\nPTM_0=ETB_0\nSTM_0=ETB_0\n");
    return mabutrace::snapshot::ReadSnapshot(dir);
  };
  auto snap = snap_with("coresight");
  auto u = ete::UndecodedSources(snap, snap.buffers[0]);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].Message("ETB_0"),
            "source ITM_0 (ITM, buffer ETB_0): ITM trace is not decoded by `mabutrace arm` (it decodes ETE, ETMv4, "
            "ETMv3, PTM); "
            "skipped - see `mabutrace itm`");
  // `arm` lists ITM sources through host/itm: said to another protocol's source.
  EXPECT_EQ(u[1].Message("ETB_0"),
            "source STM_0 (STM, buffer ETB_0): STM trace is not decoded by `mabutrace arm` (it decodes ETE, ETMv4, "
            "ETMv3, PTM, ITM); skipped - see `mabutrace stm`");
  EXPECT_STREQ(ete::InfoOf(TraceProtocol::kPtm).decoder, "ptm");
  snap = snap_with("source_data");  // only ETM_0 would be decoded
  EXPECT_TRUE(ete::UndecodedSources(snap, snap.buffers[0]).empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
