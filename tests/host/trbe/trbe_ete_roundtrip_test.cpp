// SPDX-License-Identifier: MIT
// trbe_ete_roundtrip_test.cpp: the packet-level round trip (issue 7): a
// shared ETE capture written through the TRBU model in circular mode until
// it wraps, dumped and linearized, decodes with the ETE packet processor
// (host/ete) into the same packets as the tail of the original stream.
//
// The stream is the capture twice in a row (two sessions, each starting
// with an A-Sync, the only one in these captures), into a buffer larger
// than one copy: the kept window holds the end of the first session and all
// of the second. From its first A-Sync on, the window must decode into
// exactly the packets (type, bytes, fields) the original stream gives from
// the same point, for every --head policy. Built only when mabutrace_ete is.
#include <gtest/gtest.h>

#include "shared_data.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ete/ete_config.h"
#include "ete/ete_packet.h"
#include "ete/ete_packet_processor.h"
#include "trbe_linearize.h"
#include "trbe_model.h"

namespace {

using namespace mabutrace;

constexpr uint64_t kBase = 0x80000000;

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The [regs] of the snapshot's trace-source .ini (key=value lines).
ete::EteConfig ConfigFromIni(const std::string& path) {
  std::map<std::string, uint32_t> regs;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || line.rfind("TRC", 0) != 0) continue;  // [regs] entries only
    regs[line.substr(0, eq)] = static_cast<uint32_t>(std::strtoul(line.c_str() + eq + 1, nullptr, 0));
  }
  ete::EteConfig c;
  auto get = [&](const char* k, uint32_t* dst) {
    if (regs.count(k)) *dst = regs[k];
  };
  get("TRCIDR0", &c.trcidr0);
  get("TRCIDR1", &c.trcidr1);
  get("TRCIDR2", &c.trcidr2);
  get("TRCIDR8", &c.trcidr8);
  get("TRCCONFIGR", &c.trcconfigr);
  get("TRCDEVARCH", &c.trcdevarch);
  get("TRCTRACEIDR", &c.trctraceidr);
  return c;
}

struct Pkt {
  ete::PacketType type;
  uint64_t index;
  std::vector<uint8_t> raw;
  uint64_t addr, timestamp;
  uint32_t atoms, cycles, commit;
  bool SameBytes(const Pkt& o) const { return type == o.type && raw == o.raw; }
  bool cc_valid, commit_valid;
  uint8_t atom_count;
  // Fields a packet carries (cycle count, commit, atoms only where the
  // packet has them; the processor keeps stale values otherwise), plus the
  // persistent address and timestamp.
  bool SameFields(const Pkt& o) const {
    return addr == o.addr && timestamp == o.timestamp && cc_valid == o.cc_valid && (!cc_valid || cycles == o.cycles) &&
           commit_valid == o.commit_valid && (!commit_valid || commit == o.commit) && atom_count == o.atom_count &&
           (atom_count == 0 || atoms == o.atoms);
  }
};

std::vector<Pkt> Packets(const ete::EteConfig& cfg, const std::vector<uint8_t>& bytes) {
  std::vector<Pkt> out;
  ete::EtePacketProcessor proc(
      cfg,
      [](void* ctx, const ete::EtePacket& p) {
        static_cast<std::vector<Pkt>*>(ctx)->push_back({p.type, p.index, std::vector<uint8_t>(p.raw, p.raw + p.size),
                                                        p.addr.value, p.timestamp, p.atom_bits, p.cycle_count, p.commit,
                                                        p.cc_valid, p.commit_valid, p.atom_count});
      },
      &out);
  proc.Push(0, bytes.data(), bytes.size());
  proc.Finish();
  return out;
}

// Packets from the first A-Sync at or after byte `from`, indices made relative to it.
std::vector<Pkt> From(const std::vector<Pkt>& all, uint64_t from) {
  std::vector<Pkt> out;
  uint64_t origin = 0;
  bool on = false;
  for (const auto& p : all) {
    if (!on && p.index >= from && p.type == ete::PacketType::kAsync) {
      on = true;
      origin = p.index;
    }
    if (!on) continue;
    Pkt q = p;
    q.index -= origin;
    out.push_back(q);
  }
  return out;
}

class EteRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(EteRoundTrip, WindowDecodesLikeTheTail) {
  const std::string dir = std::string(MABUTRACE_ETE_SNAPSHOTS) + "/" + GetParam();
  MABUTRACE_NEEDS_SHARED(dir);
  const auto capture = ReadFile(dir + "/session1.bin");
  ASSERT_GT(capture.size(), 2048u);
  const ete::EteConfig cfg = ConfigFromIni(dir + "/ETE_0_s1.ini");
  const uint64_t n = capture.size();
  const uint64_t size = (n / 4096 + 1) * 4096;
  ASSERT_LT(size, 2 * n);
  std::vector<uint8_t> stream = capture;
  stream.insert(stream.end(), capture.begin(), capture.end());

  trbe::FlatMemory mem(kBase, size);
  trbe::TraceBufferUnit tbu(&mem);
  trbe::Limitr l;
  l.limit = kBase + size;
  l.fm = trbe::FillMode::kCircular;
  l.tm = trbe::TriggerMode::kIgnore;
  l.e = true;
  ASSERT_EQ(tbu.WriteRegister(trbe::Reg::kTrbbaserEl1, kBase), trbe::WriteResult::kOk);
  ASSERT_EQ(tbu.WriteRegister(trbe::Reg::kTrbptrEl1, kBase), trbe::WriteResult::kOk);
  ASSERT_EQ(tbu.WriteRegister(trbe::Reg::kTrblimitrEl1, l.Encode()), trbe::WriteResult::kOk);
  tbu.Collect(stream);
  ASSERT_TRUE(tbu.status().wrap);

  // The tail of the original: the packets from the second session's A-Sync.
  const auto original = From(Packets(cfg, stream), n);
  ASSERT_GT(original.size(), 10u);
  EXPECT_EQ(original.front().type, ete::PacketType::kAsync);

  for (auto head : {trbe::HeadPolicy::kKeep, trbe::HeadPolicy::kPad, trbe::HeadPolicy::kDrop}) {
    trbe::LinearizeOptions o;
    o.base = kBase;
    o.limit = kBase + size;
    o.ptr = tbu.ptr();
    o.wrapped = true;
    o.head = head;
    trbe::LinearizeResult r;
    std::string err;
    ASSERT_TRUE(trbe::Linearize(mem.bytes(), o, &r, &err)) << err;
    const auto window = Packets(cfg, r.bytes);
    const auto kept = From(window, 0);
    ASSERT_EQ(kept.size(), original.size()) << "head policy " << static_cast<int>(head);
    // Every packet has the same type and bytes. Its decoded fields also
    // carry packet-layer state (address history, last timestamp...), which
    // in the original continues from the first session until the second
    // session's Trace Info resets it (sheet §4.4, §4.12): compare the fields
    // of the packets after that Trace Info.
    bool reset = false;
    for (size_t i = 0; i < kept.size(); ++i) {
      if (i > 0) reset = reset || kept[i - 1].type == ete::PacketType::kTraceInfo;
      ASSERT_TRUE(kept[i].SameBytes(original[i]) && (!reset || kept[i].SameFields(original[i])))
          << "packet " << i << " differs (head policy " << static_cast<int>(head) << "): type "
          << static_cast<int>(kept[i].type) << "/" << static_cast<int>(original[i].type) << " size "
          << kept[i].raw.size() << "/" << original[i].raw.size() << " addr " << kept[i].addr << "/" << original[i].addr
          << " ts " << kept[i].timestamp << "/" << original[i].timestamp << " atoms " << kept[i].atoms << "/"
          << original[i].atoms << " cc " << kept[i].cycles << "/" << original[i].cycles << " commit " << kept[i].commit
          << "/" << original[i].commit;
    }
    EXPECT_TRUE(reset) << "no Trace Info after the A-Sync";
    // Before the A-Sync the decoder is unsynchronised: nothing but not-sync
    // (partial data) packets, never a packet invented from the 0x70 padding.
    for (const auto& p : window) {
      if (p.type == ete::PacketType::kAsync) break;
      EXPECT_EQ(p.type, ete::PacketType::kNotSync);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Snapshots, EteRoundTrip,
                         ::testing::Values("001-ack_test", "tme_test", "texit-poe2", "maxspec78_commopt0",
                                           "trace_file_cid_vmid"),
                         [](const auto& info) { return mabutrace_tests::CaptureTestName(info.param); });

}  // namespace
