// SPDX-License-Identifier: MIT
// itm_packet_test.cpp: the ITM packet processor and element decoder on
// hand-made streams: every packet kind (Armv7-M ARM Appendix D encodings),
// chunking at every byte, truncated and corrupted input (error with the byte
// offset, decoding resumes), raw SWO starts mid-packet.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "itm/itm_element.h"
#include "itm/itm_packet_processor.h"
#include "itm/itm_packet_text.h"
#include "itm/itm_session.h"

namespace mabutrace::itm {
namespace {

const std::vector<uint8_t> kAsync = {0x00, 0x00, 0x00, 0x00, 0x00, 0x80};

struct Collect final : PacketSink, ElementSink {
  void OnPacket(const ItmPacket& p) override {
    std::string s;
    if (p.raw_size) {
      FormatOcsd(p, &s);
      packets.push_back(s);
      offsets.push_back(p.index);
    }
    if (dec) dec->OnPacket(p);
  }
  void OnError(uint64_t offset, const std::string& m) override {
    error_offsets.push_back(offset);
    errors.push_back(m);
  }
  void OnElement(const ItmElement& e) override {
    std::string s;
    FormatElement(e, &s);
    elements.push_back(s);
  }
  ElementDecoder* dec = nullptr;
  std::vector<std::string> packets, elements, errors;
  std::vector<uint64_t> offsets, error_offsets;
};

// Decodes `bytes` (A-Sync prepended when `sync`) in chunks of `chunk` bytes.
Collect Decode(std::vector<uint8_t> bytes, bool sync = true, size_t chunk = 0, uint32_t prescale = 1) {
  if (sync) bytes.insert(bytes.begin(), kAsync.begin(), kAsync.end());
  Collect c;
  ElementDecoder dec(DecoderOptions{prescale, true, 0}, &c);
  c.dec = &dec;
  PacketProcessor pp(ProcessorOptions{}, &c);
  if (!chunk) chunk = bytes.size() ? bytes.size() : 1;
  for (size_t at = 0; at < bytes.size(); at += chunk)
    pp.Push(at, bytes.data() + at, std::min(chunk, bytes.size() - at));
  pp.Finish();
  dec.Finish();
  return c;
}

TEST(ItmPackets, SoftwareStimulusSizes) {
  Collect c = Decode({0x19, 0xbb, 0x0a, 0x45, 0x23, 0x0b, 0x23, 0x01, 0x89, 0x67});
  ASSERT_EQ(c.packets.size(), 4u);
  EXPECT_EQ(c.packets[1], "ITM_SWIT: {src id: 0x03}  0xbb; 'Software Stimulus write packet'");
  EXPECT_EQ(c.packets[2], "ITM_SWIT: {src id: 0x01}  0x2345; 'Software Stimulus write packet'");
  EXPECT_EQ(c.packets[3], "ITM_SWIT: {src id: 0x01}  0x67890123; 'Software Stimulus write packet'");
  EXPECT_EQ(c.offsets[3], 11u);
  ASSERT_EQ(c.elements.size(), 5u);  // NO_SYNC, 3 x SWIT, EO_TRACE
  EXPECT_EQ(c.elements[3], "OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_SWIT (ch: 0x1; Data: 0x67890123) )");
}

TEST(ItmPackets, HardwareSourceKinds) {
  Collect c = Decode({0x05, 0x3f,                    // event counter, all flags
                      0x0e, 0x10, 0x20,              // exception 16 exited
                      0x17, 0x01, 0x02, 0x03, 0x04,  // PC sample
                      0x15, 0x00,                    // PC sample: sleeping
                      0x47, 0x00, 0x10, 0x00, 0x20,  // data trace PC value, comparator 0
                      0x4e, 0x34, 0x12,              // data address offset, comparator 0
                      0xad, 0x7f});                  // data value write, comparator 2
  ASSERT_EQ(c.packets.size(), 8u);
  EXPECT_EQ(c.packets[1],
            "ITM_DWT: {desc: 0x00} [Event Counter: 0x3f; Flags:  CPI  EXC  Sleep  LSU  Fold  CYC ] ; "
            "'DWT hardware stimulus write'");
  EXPECT_EQ(c.packets[2], "ITM_DWT: {desc: 0x01} [Exception Num:  0x0010(exited) ]; 'DWT hardware stimulus write'");
  EXPECT_EQ(c.packets[3], "ITM_DWT: {desc: 0x02} [PC Sample: 0x04030201] ; 'DWT hardware stimulus write'");
  EXPECT_EQ(c.packets[4], "ITM_DWT: {desc: 0x02} [PC Sample: 0x00] ; 'DWT hardware stimulus write'");
  EXPECT_EQ(c.packets[5],
            "ITM_DWT: {desc: 0x08} [Data Trc: comp=0; PC Value=0x20001000 ] ; 'DWT hardware stimulus write'");
  EXPECT_EQ(c.packets[6], "ITM_DWT: {desc: 0x09} [Data Trc: comp=0; Address=0x1234 ] ; 'DWT hardware stimulus write'");
  EXPECT_EQ(c.packets[7], "ITM_DWT: {desc: 0x15} [Data Trc: comp=2; Val write: 0x7f] ; 'DWT hardware stimulus write'");
}

TEST(ItmPackets, LocalTimestampFormsAndPrescaler) {
  // Form 2 (delta 5 in the header), form 1 TC 1 with 2 payload bytes.
  Collect c = Decode({0x50, 0xd0, 0x81, 0x01}, true, 0, 4);
  ASSERT_EQ(c.packets.size(), 3u);
  EXPECT_EQ(c.packets[1], "ITM_TS_LOCAL: 0x05 { TS Sync }; 'Local Timestamp'");
  EXPECT_EQ(c.packets[2], "ITM_TS_LOCAL: 0x0081 { TS Delayed }; 'Local Timestamp'");
  // 5 * 4, then + 0x81 * 4.
  EXPECT_EQ(c.elements[1],
            "OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_TS_LOCAL ( TS delta: 0x00000005, { TS Sync}; TS cumulative: "
            "0x0000000000000014) )");
  EXPECT_EQ(c.elements[2],
            "OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_TS_LOCAL ( TS delta: 0x00000081, { TS Delay}; TS cumulative: "
            "0x0000000000000218) )");
}

TEST(ItmPackets, GlobalTimestampsNeedGts2First) {
  // GTS1 before any GTS2: no element; GTS2 (5 payload bytes -> 40 bits) then GTS1 low bits.
  Collect c = Decode({0x94, 0x01, 0xb4, 0x81, 0x80, 0x80, 0x80, 0x01, 0x94, 0x7f});
  ASSERT_EQ(c.packets.size(), 4u);
  EXPECT_EQ(c.packets[2], "ITM_GTS_2: { TS bits [63:26]} 0x0010000001; 'Global Timestamp [{63|42}:26]'");
  ASSERT_EQ(c.elements.size(), 4u);  // NO_SYNC, GTS2, GTS1, EO
  EXPECT_EQ(c.elements[1], "OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_TS_GLOBAL ( TS: 0x0040000004000001) )");
  EXPECT_EQ(c.elements[2], "OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_TS_GLOBAL ( TS: 0x004000000400007f) )");
}

TEST(ItmPackets, ExtensionPagesTheStimulusPorts) {
  // Page 3 (S=0, no payload), SWIT port 3, then a hardware (S=1) extension
  // with 2 payload bytes: bits [16:0].
  Collect c = Decode({0x38, 0x19, 0x01, 0x8c, 0x81, 0x01});
  ASSERT_GE(c.packets.size(), 3u);
  EXPECT_EQ(c.packets[1], "ITM_EXTENSION: {stim port page} 0x03; 'Extension packet'");
  EXPECT_EQ(c.elements[1], "OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_SWIT (ch: 0x63; Data: 0x01) )");
  EXPECT_EQ(c.packets[3], "ITM_EXTENSION: {unknown extension type, 17 bits } 0x00408; 'Extension packet'");
}

TEST(ItmPackets, OverflowFlagsTheNextElement) {
  Collect c = Decode({0x70, 0x09, 0x01});
  ASSERT_EQ(c.packets.size(), 3u);
  EXPECT_EQ(c.packets[1], "ITM_OVERFLOW: ; 'ITM overflow packet'");
  EXPECT_EQ(c.elements[1], "OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_OVERFLOW; ITM_SWIT (ch: 0x1; Data: 0x01) )");
}

TEST(ItmPackets, EveryChunkingGivesTheSamePackets) {
  const std::vector<uint8_t> s = {0x0b, 0x23, 0x01, 0x89, 0x67, 0xc0, 0x82, 0xc8, 0x04, 0x94, 0x82, 0xcf,
                                  0xfa, 0x77, 0xb4, 0x96, 0x9a, 0x92, 0x00, 0x0e, 0x04, 0x10, 0x70, 0x20};
  const Collect whole = Decode(s);
  for (size_t chunk = 1; chunk < 8; ++chunk) {
    const Collect c = Decode(s, true, chunk);
    EXPECT_EQ(c.packets, whole.packets) << "chunk " << chunk;
    EXPECT_EQ(c.elements, whole.elements) << "chunk " << chunk;
  }
}

TEST(ItmPackets, TruncatedPacketAtTheEndIsReportedWithItsOffset) {
  Collect c = Decode({0x09, 0x01, 0x0b, 0x11, 0x22});  // SWIT 4 bytes cut after 2
  ASSERT_EQ(c.packets.size(), 3u);
  EXPECT_EQ(c.packets[2], "ITM_INCOMPLETE_EOT: [Init type: ITM_SWIT] ; 'Incomplete packet flushed at end of trace'");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.error_offsets[0], 8u);
  EXPECT_NE(c.errors[0].find("byte 8: ITM_SWIT packet cut by the end of the trace after 3 bytes"), std::string::npos)
      << c.errors[0];
}

TEST(ItmPackets, CorruptedBytesAreReportedAndDecodingResumes) {
  // A reserved header (0x04), then a local TS whose payload never ends,
  // then good packets after the next A-Sync.
  std::vector<uint8_t> s = {0x09, 0x01, 0x04, 0xc0, 0x81, 0x82, 0x83, 0x84, 0x09, 0x02};
  s.insert(s.end(), kAsync.begin(), kAsync.end());
  s.insert(s.end(), {0x09, 0x03});
  Collect c = Decode(s);
  ASSERT_EQ(c.errors.size(), 2u);
  EXPECT_EQ(c.error_offsets[0], 8u);
  EXPECT_EQ(c.errors[0], "byte 8: reserved ITM header 0x04");
  EXPECT_EQ(c.error_offsets[1], 9u);
  EXPECT_EQ(c.errors[1], "byte 9: local timestamp: payload continues past 4 bytes");
  EXPECT_EQ(c.packets[2], "ITM_RESERVED: ; 'Reserved Packet Header'");
  EXPECT_EQ(c.packets[3], "ITM_BAD_SEQUENCE: [Init type: ITM_TS_LOCAL] ; 'Invalid sequence in packet'");
  EXPECT_EQ(c.packets[4], "ITM_SWIT: {src id: 0x01}  0x02; 'Software Stimulus write packet'");
  // The decoder restarts at the bad packet: NO_SYNC (bad-packet), then the
  // SWIT after the next A-Sync.
  ASSERT_GE(c.elements.size(), 5u);
  EXPECT_EQ(c.elements[2], "OCSD_GEN_TRC_ELEM_NO_SYNC( [bad-packet])");
  EXPECT_EQ(c.elements[3], "OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_SWIT (ch: 0x1; Data: 0x03) )");
}

TEST(ItmSwo, NoPlausibleStartIsSaid) {
  // 70 reserved headers: no start among the first 64 bytes parses.
  std::vector<uint8_t> s(70, 0x04);
  s.insert(s.end(), {0x09, 0x41, 0x09, 0x42});
  bool found = true;
  EXPECT_EQ(FindSwoStart(s.data(), s.size(), &found), 0u);
  EXPECT_FALSE(found);
  const std::vector<uint8_t> good = {0x09, 0x41, 0x09, 0x42};
  EXPECT_EQ(FindSwoStart(good.data(), good.size(), &found), 0u);
  EXPECT_TRUE(found);
}

TEST(ItmSwo, StartMidPacketSkipsTheLeftoverBytes) {
  // The capture starts in the last 2 payload bytes of a 4-byte SWIT write;
  // 0x34 and 0x04 would parse as reserved headers.
  const std::vector<uint8_t> s = {0x34, 0x04, 0x09, 0x41, 0x0a, 0x42, 0x43, 0x0e, 0x0f, 0x10,
                                  0x09, 0x44, 0x09, 0x45, 0x09, 0x46, 0x09, 0x47, 0x09, 0x48};
  EXPECT_EQ(FindSwoStart(s.data(), s.size()), 2u);
  ItmInput in;
  in.kind = "swo";
  in.sources.push_back(ItmSource{"SWO", "", ItmConfig{}, 0});
  struct Sink final : SessionSink {
    void OnElement(size_t, const ItmElement& e) override {
      if (e.type == ElemType::kItmTrace) elements.push_back(e);
    }
    void OnError(size_t, uint64_t, const std::string& m) override { errors.push_back(m); }
    void OnWarning(size_t, uint64_t, const std::string& m) override { warnings.push_back(m); }
    std::vector<ItmElement> elements;
    std::vector<std::string> errors, warnings;
  } sink;
  const InputStats st = DecodeItmBytes(in, SessionOptions{}, s.data(), s.size(), &sink);
  EXPECT_EQ(st.skipped_bytes, 2u);
  EXPECT_TRUE(sink.errors.empty());
  ASSERT_EQ(sink.warnings.size(), 1u);
  EXPECT_EQ(sink.warnings[0], "byte 0: skipped 2 bytes before the first plausible ITM header");
  // No A-Sync in the stream: decoded from the first header anyway.
  ASSERT_EQ(sink.elements.size(), 8u);
  EXPECT_EQ(sink.elements[0].index, 2u);
  EXPECT_EQ(sink.elements[0].value, 0x41u);
  EXPECT_EQ(sink.elements[1].value, 0x4342u);
  EXPECT_EQ(sink.elements[2].kind, ItmKind::kDwt);
}

// One TPIU / CoreSight formatter frame (coresight/deformatter.h): an ID
// byte for `id`, then 14 data bytes; the even ones keep their bit 0 in the
// AUX byte.
std::vector<uint8_t> Frame(uint8_t id, const std::vector<uint8_t>& d) {
  std::vector<uint8_t> f(16, 0);
  f[0] = static_cast<uint8_t>(id << 1 | 1);  // AUX bit 0 = 0: byte 1 is the new ID's
  uint8_t aux = 0;
  for (size_t i = 0; i < 14; ++i) {
    const size_t pos = i + 1;
    const uint8_t b = d[i];
    if (pos % 2 == 0) {
      f[pos] = b & 0xFE;
      aux |= static_cast<uint8_t>((b & 1) << (pos / 2));
    } else {
      f[pos] = b;
    }
  }
  f[15] = aux;
  return f;
}

TEST(ItmSwo, TpiuFramedSwoKeepsTheItmId) {
  // FSYNC, a frame of ITM (ID 1) bytes, an HSYNC pair inside the next frame
  // of another source (ID 2), then ITM again.
  std::vector<uint8_t> s = {0xFF, 0xFF, 0xFF, 0x7F};
  auto f1 = Frame(1, {0x09, 0x41, 0x0a, 0x42, 0x43, 0x0b, 1, 2, 3, 4, 0x0e, 0x0f, 0x10, 0x30});
  s.insert(s.end(), f1.begin(), f1.end());
  auto f2 = Frame(2, {0x09, 0x77, 0x09, 0x77, 0x09, 0x77, 0x09, 0x77, 0x09, 0x77, 0x09, 0x77, 0x09, 0x77});
  s.insert(s.end(), f2.begin(), f2.begin() + 4);
  s.insert(s.end(), {0xFF, 0x7F});
  s.insert(s.end(), f2.begin() + 4, f2.end());
  auto f3 = Frame(1, {0x09, 0x44, 0x09, 0x45, 0x09, 0x46, 0x09, 0x47, 0x09, 0x48, 0x09, 0x49, 0x09, 0x4a});
  s.insert(s.end(), f3.begin(), f3.end());
  SessionOptions opt;
  opt.tpiu = true;
  std::vector<ItmInput> inputs;
  std::string err;
  const std::string path = ::testing::TempDir() + "itm_tpiu_swo.bin";
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(s.data(), 1, s.size(), f);
    std::fclose(f);
  }
  ASSERT_TRUE(OpenItmInput(path, opt, &inputs, &err)) << err;
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].sources[0].trace_id, 1);
  struct Sink final : SessionSink {
    void OnElement(size_t, const ItmElement& e) override {
      if (e.type == ElemType::kItmTrace) values.push_back(e.value);
    }
    void OnError(size_t, uint64_t, const std::string& m) override { ADD_FAILURE() << m; }
    std::vector<uint32_t> values;
  } sink;
  DecodeItmInput(inputs[0], opt, &sink);
  std::remove(path.c_str());
  EXPECT_EQ(sink.values,
            (std::vector<uint32_t>{0x41, 0x4342, 0x04030201, 0x100f, 3, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a}));
}

TEST(ItmConfigTest, TcrFields) {
  const ItmConfig c = ItmConfig::FromTcr(0x00200006);  // TC2's ITMTCR
  EXPECT_EQ(c.trace_id(), 0x20);
  EXPECT_TRUE(c.timestamps());
  EXPECT_TRUE(c.sync_packets());
  EXPECT_EQ(c.ts_prescale(), 1u);
  EXPECT_EQ(ItmConfig::FromTcr(0x0310).ts_prescale(), 64u);  // SWOENA, TSPrescale 3
  EXPECT_EQ(ItmConfig::FromTcr(0x0300).ts_prescale(), 1u);   // prescaler only with SWOENA
}

}  // namespace
}  // namespace mabutrace::itm
