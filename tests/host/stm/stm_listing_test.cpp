// SPDX-License-Identifier: MIT
// stm_listing_test.cpp: the `stm packets|decode` lines (host/stm/stm_listing.h):
// every JSON line parses (nlohmann) whatever a packet's error says, keys as
// docs/cptracer.md lists them, text in OpenCSD's lister style.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "stm_listing.h"
#include "stp_encoder.h"

namespace mabutrace::stm {
namespace {

StpPacket DataPacket() {
  StpPacket p;
  p.offset = 42;
  p.raw = {0xf0, 0x0a};
  p.type = StpType::kD8;
  p.marker = true;
  p.has_ts = true;
  p.ts_bits = 8;
  p.timestamp = 0x1234;
  p.payload = 0xab;
  p.payload_bits = 8;
  return p;
}

TEST(StmListing, PacketJsonKeys) {
  const auto j = nlohmann::json::parse(PacketLine(DataPacket(), ListingFormat::kJsonl));
  EXPECT_EQ(j["offset"], 42);
  EXPECT_EQ(j["raw"], "f0 0a");
  EXPECT_EQ(j["type"], StpTypeName(DataPacket()));
  EXPECT_EQ(j["data"], "0xab");
  EXPECT_EQ(j["size"], 8);
  EXPECT_EQ(j["timestamp"], 0x1234);
  EXPECT_EQ(j["ts_bits"], 8);
  EXPECT_FALSE(j.contains("error"));
}

TEST(StmListing, AnyErrorTextStaysValidJson) {
  StpPacket p;
  p.type = StpType::kBadSequence;
  p.err_type = StpType::kD8;
  p.error = "offset 7: \"quoted\" \\ tab\t nl\n ctl\x01 bad utf8 \xff\xfe";
  const std::string line = PacketLine(p, ListingFormat::kJsonl);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;  // one line per packet
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["error"], "offset 7: \"quoted\" \\ tab\t nl\n ctl\x01 bad utf8 \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(j["err_type"], StpTypeBaseName(StpType::kD8));
}

TEST(StmListing, PacketText) {
  EXPECT_EQ(PacketLine(DataPacket(), ListingFormat::kText),
            "Idx:42; [f0 0a]; " + StpTypeName(DataPacket()) + " 0xab TS=0x1234");
}

TEST(StmListing, MessageJsonAndText) {
  StmMessage m;
  m.offset = 9;
  m.id_valid = true;
  m.master = 0x40;
  m.channel = 3;
  m.data = 0xbeef;
  m.size_bits = 16;
  m.marker = true;
  auto j = nlohmann::json::parse(MessageLine(m, ListingFormat::kJsonl));
  EXPECT_EQ(j["kind"], "data");
  EXPECT_EQ(j["master"], 0x40);
  EXPECT_EQ(j["channel"], 3);
  EXPECT_EQ(j["data"], "0xbeef");
  EXPECT_EQ(j["marker"], true);
  EXPECT_FALSE(j.contains("timestamp"));
  EXPECT_EQ(MessageLine(m, ListingFormat::kText), "Idx:9; Ma:0x40 Ch:0x03 data 0xbeef +Mrk");
  m.id_valid = false;
  m.has_ts = true;
  m.timestamp = 0x10;
  j = nlohmann::json::parse(MessageLine(m, ListingFormat::kJsonl));
  EXPECT_FALSE(j.contains("master"));
  EXPECT_EQ(j["timestamp"], 16);
  EXPECT_EQ(MessageLine(m, ListingFormat::kText), "Idx:9; Ma:?? Ch:?? data 0xbeef +Mrk TS=0x10");
}

TEST(StmListing, ListCaptureWritesALinePerPacketOrMessage) {
  StpEncoder e;
  e.Async();
  e.Version(3);
  e.Master8(0x40);
  e.Channel8(2);
  e.Data(32, 0x12345678, true);
  const std::string path = ::testing::TempDir() + "/stm_listing.stp";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_TRUE(f);
  const auto bytes = e.Bytes();
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  auto lines = [&](ListingLevel level) {
    FILE* out = std::tmpfile();
    ListingResult r;
    std::string err;
    EXPECT_TRUE(ListCapture(path, {}, level, ListingFormat::kJsonl, out, &r, &err)) << err;
    EXPECT_TRUE(r.packet_errors.empty());
    std::rewind(out);
    std::vector<nlohmann::json> v;
    char buf[512];
    while (std::fgets(buf, sizeof buf, out)) v.push_back(nlohmann::json::parse(buf));
    std::fclose(out);
    return v;
  };
  const auto packets = lines(ListingLevel::kPackets);
  ASSERT_EQ(packets.size(), 5u);
  EXPECT_EQ(packets[0]["type"], "ASYNC");
  const auto messages = lines(ListingLevel::kMessages);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0]["data"], "0x12345678");
  EXPECT_EQ(messages[0]["channel"], 2);
  ListingResult r;
  std::string err;
  EXPECT_FALSE(ListCapture(path + ".missing", {}, ListingLevel::kPackets, ListingFormat::kJsonl, stdout, &r, &err));
  EXPECT_NE(err.find("stm_listing.stp.missing"), std::string::npos) << err;
}

}  // namespace
}  // namespace mabutrace::stm
