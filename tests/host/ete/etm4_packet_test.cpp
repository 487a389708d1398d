// SPDX-License-Identifier: MIT
// etm4_packet_test.cpp: what the ETE packet processor does differently when
// its configuration is an ETMv4 trace unit (ete_config.h): the headers only
// ETMv4 has (0x07 Exception Return, 0x05 Function Return on M-profile), the
// M-profile exception TYPE extension and names, the Trace Info text, and the
// ETE-only headers it rejects. Hand-made byte sequences, OpenCSD 1.8.0 text.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ete/ete_packet_processor.h"
#include "ete/ete_packet_text.h"

namespace ete = mabutrace::ete;
using ete::PacketType;
using Bytes = std::vector<uint8_t>;

namespace {

struct Seen {
  std::vector<PacketType> types;
  std::vector<std::string> texts;
  std::vector<std::string> errors;
};

// ETMv4.0 (TRCDEVARCH as FromDevice() builds it from TRCIDR1 0x4100F403).
ete::EteConfig Etm4(bool m_profile = false) {
  ete::EteConfig c;
  c.trcidr0 = 0x28000EA1;
  c.trcidr1 = 0x4100F403;
  c.trcidr2 = 0x00000488;
  c.trcdevarch = 0x47704A13;
  c.trctraceidr = 0x10;
  c.m_profile = m_profile;
  return c;
}

Seen Decode(Bytes body, const ete::EteConfig& cfg) {
  Bytes in(11, 0x00);
  in.push_back(0x80);                       // A-Sync
  in.insert(in.end(), {0x01, 0x01, 0x00});  // Trace Info, INFO section, CC off
  in.insert(in.end(), body.begin(), body.end());
  Seen s;
  ete::EtePacketProcessor proc(
      cfg,
      [](void* c, const ete::EtePacket& p) {
        auto* seen = static_cast<Seen*>(c);
        seen->types.push_back(p.type);
        std::string t;
        ete::FormatOcsd(p, &t);
        seen->texts.push_back(t);
      },
      &s, [](void* c, const ete::EteError& e) { static_cast<Seen*>(c)->errors.push_back(e.message); });
  proc.Push(0, in.data(), in.size());
  proc.Finish();
  return s;
}

TEST(Etm4Packets, ConfigFromTrcidr1IsEtmV4) {
  const ete::EteConfig c = Etm4();
  EXPECT_FALSE(c.is_ete());
  EXPECT_EQ(c.full_version(), 0x40);
  EXPECT_EQ(c.Describe().rfind("ETMv4.0 trace_id=0x10", 0), 0u) << c.Describe();
}

// Mutation: the ETMv4 branch of the Trace Info text removed -> "{ CC.0, TSTATE.0 }".
TEST(Etm4Packets, TraceInfoHasNoTransactionalState) {
  const Seen s = Decode({}, Etm4());
  ASSERT_EQ(s.types.size(), 2u);
  EXPECT_EQ(s.texts[1], "I_TRACE_INFO : Trace Info.; INFO=0x0 { CC.0 }; Decoder Sync point TINFO");
}

// 0x07 is Exception Return under ETMv4 (reserved for the config under ETE);
// 0x0A (ETE Transaction Start) and 0xB0-0xB9 (ETE source addresses) are
// reserved under ETMv4.
TEST(Etm4Packets, EtmOnlyAndEteOnlyHeaders) {
  Seen s = Decode({0x07}, Etm4());
  EXPECT_EQ(s.types.back(), PacketType::kExceptionReturn);
  EXPECT_TRUE(s.errors.empty());
  s = Decode({0x0A}, Etm4());
  EXPECT_EQ(s.types.back(), PacketType::kReserved);
  EXPECT_EQ(s.errors.size(), 1u);
  s = Decode({0xB4, 0x10}, Etm4());
  EXPECT_EQ(s.types[2], PacketType::kReserved);
}

// 0x05: Function Return only on an M-profile PE.
// Mutation: the m_profile condition of 0x05 in BuildTable dropped -> A-profile gets FUNC_RET.
TEST(Etm4Packets, FunctionReturnOnlyOnMProfile) {
  Seen s = Decode({0x05}, Etm4(/*m_profile=*/true));
  EXPECT_EQ(s.types.back(), PacketType::kFunctionReturn);
  EXPECT_EQ(s.texts.back(), "I_FUNC_RET : V8M - function return.");
  s = Decode({0x05}, Etm4(false));
  EXPECT_EQ(s.types.back(), PacketType::kReserved);
}

// ETMv4-M exception packet: info bit 7 -> a third byte with TYPE[9:5] and
// FAULT_PENDING; M-profile names.
// Mutation: MExceptionTypeName -> the A-profile names ("IRQ" for 0x0E is "PendSV" on M).
TEST(Etm4Packets, MProfileExceptionNumbers) {
  // 06 1D 96 01: E=01, TYPE[4:0]=0x0E (PendSV), then a short IS1 address.
  Seen s = Decode({0x06, 0x1D, 0x96, 0x01}, Etm4(true));
  ASSERT_EQ(s.types.size(), 4u);
  EXPECT_EQ(s.texts[2], "I_EXCEPT : Exception.;  PendSV; Ret Addr Follows;");
  // 06 91 30 ...: E=01, C=1, TYPE[4:0]=0x08, byte 2 = 0x30: TYPE[9:5]=0x10 -> 0x208 (IRQ8), fault pending.
  s = Decode({0x06, 0x91, 0x30, 0x96, 0x01}, Etm4(true));
  ASSERT_EQ(s.types.size(), 4u);
  EXPECT_EQ(s.texts[2], "I_EXCEPT : Exception.;  IRQ8; Fault Pending; Ret Addr Follows;");
  // The same TYPE 0x0E on an A-profile PE is an IRQ.
  s = Decode({0x06, 0x1D, 0x96, 0x01}, Etm4(false));
  EXPECT_EQ(s.texts[2], "I_EXCEPT : Exception.;  IRQ; Ret Addr Follows;");
}

}  // namespace
