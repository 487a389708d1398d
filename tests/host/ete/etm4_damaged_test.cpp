// SPDX-License-Identifier: MIT
// etm4_damaged_test.cpp: damaged ETMv4 captures (issue 15). A corrupted
// packet header in a real ETMv4 stream gives one error naming its byte, the
// bytes up to the next A-Sync are reported as not synchronised, and from that
// A-Sync on the packets equal the clean decode; a capture cut inside a
// CoreSight frame names the frame's offset and every other packet is kept.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "coresight/deformatter.h"
#include "ete/ete_packet_processor.h"
#include "ete/ete_packet_text.h"
#include "ete/ete_source.h"
#include "shared_data.h"

namespace ete = mabutrace::ete;
namespace coresight = mabutrace::coresight;
using ete::PacketType;
using Bytes = std::vector<uint8_t>;

namespace {

const auto kJuno = std::filesystem::path(MABUTRACE_SHARED_DIR) / "data/arm-trace-snapshots/juno_r1_1";

// The de-formatted byte stream of one trace ID of a framed buffer.
Bytes StreamOf(const Bytes& framed, uint8_t id) {
  struct Sink : coresight::DeformatterSink {
    uint8_t id;
    Bytes out;
    void OnData(uint8_t i, uint64_t, uint64_t, const uint8_t* d, size_t n, const uint64_t*) override {
      if (i == id) out.insert(out.end(), d, d + n);
    }
    void OnError(const coresight::DeformatterError&) override {}
    void OnReset(uint64_t) override {}
  } sink;
  sink.id = id;
  coresight::DeformatterOptions opt;
  coresight::FrameDeformatter dfm(opt, &sink);
  dfm.Push(framed.data(), framed.size());
  dfm.Finish();
  return sink.out;
}

struct Decoded {
  std::vector<std::pair<uint64_t, std::string>> lines;  // (index, lister line)
  std::vector<PacketType> types;
  std::vector<ete::EteError> errors;
};

Decoded Decode(const Bytes& in, const ete::EteConfig& cfg) {
  Decoded r;
  ete::EtePacketProcessor proc(
      cfg,
      [](void* c, const ete::EtePacket& p) {
        std::string s;
        ete::FormatOcsd(p, &s);
        static_cast<Decoded*>(c)->lines.emplace_back(p.index, s);
        static_cast<Decoded*>(c)->types.push_back(p.type);
      },
      &r, [](void* c, const ete::EteError& e) { static_cast<Decoded*>(c)->errors.push_back(e); });
  proc.Push(0, in.data(), in.size());
  proc.Finish();
  return r;
}

// Mutation: ErrorPolicy::kResync treated as kOpenCsd (no resynchronisation)
// -> packets after the corruption are decoded from mid-stream, not reported
// as not synchronised up to the A-Sync.
TEST(Etm4Damaged, CorruptedHeaderResumesAtNextAsync) {
  MABUTRACE_NEEDS_SHARED(kJuno);
  auto snap = mabutrace::snapshot::ReadSnapshot(kJuno);
  auto sources = ete::SnapshotSources(snap, snap.buffers[0]);
  ASSERT_FALSE(sources.empty());
  const ete::EteConfig cfg = sources[0].config;  // ETM_0, trace ID 0x10, ETMv4.0
  ASSERT_FALSE(cfg.is_ete());
  const Bytes stream = StreamOf(mabutrace::snapshot::ReadBinaryFile(snap.buffers[0].file), cfg.trace_id());
  const Decoded clean = Decode(stream, cfg);
  ASSERT_TRUE(clean.errors.empty());
  // The first atom header after stream byte 2000, with an A-Sync after it.
  size_t at = 0, next_sync = 0;
  for (size_t i = 0; i < clean.lines.size(); ++i) {
    const uint64_t idx = clean.lines[i].first;
    if (!at && idx >= 2000 && clean.types[i] >= PacketType::kAtomF1 && clean.types[i] <= PacketType::kAtomF6) at = idx;
    if (at && idx > at && clean.types[i] == PacketType::kAsync) {
      next_sync = i;
      break;
    }
  }
  ASSERT_GT(at, 0u);
  ASSERT_GT(next_sync, 0u) << "no A-Sync after byte " << at;
  Bytes bad = stream;
  bad[at] = 0x0A;  // ETE Transaction Start: reserved in ETMv4
  const Decoded r = Decode(bad, cfg);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, ete::EteErrorKind::kReservedHeader);
  EXPECT_EQ(r.errors[0].index, at);
  EXPECT_EQ(r.errors[0].message.rfind("byte " + std::to_string(at) + " (trace ID 0x10): reserved header 0x0a", 0), 0u)
      << r.errors[0].message;
  // Up to the A-Sync: not synchronised; from it on: the clean packets.
  size_t b = 0;
  while (b < r.lines.size() && r.lines[b].first <= at) ++b;
  for (; b < r.lines.size() && r.types[b] != PacketType::kAsync; ++b) EXPECT_EQ(r.types[b], PacketType::kNotSync);
  ASSERT_LT(b, r.lines.size());
  ASSERT_EQ(r.lines.size() - b, clean.lines.size() - next_sync);
  for (size_t i = 0; b + i < r.lines.size(); ++i) ASSERT_EQ(r.lines[b + i], clean.lines[next_sync + i]);
}

// Mutation: FrameDeformatter::Finish not reporting the partial frame -> no
// "incomplete frame" error.
TEST(Etm4Damaged, CutInsideAFrameNamesItsOffset) {
  MABUTRACE_NEEDS_SHARED(kJuno);
  auto snap = mabutrace::snapshot::ReadSnapshot(kJuno);
  auto sources = ete::SnapshotSources(snap, snap.buffers[0]);
  Bytes data = mabutrace::snapshot::ReadBinaryFile(snap.buffers[0].file);
  ASSERT_GT(data.size(), 8192u);
  data.resize(8000 + 7);  // 7 bytes into the frame at 8000
  struct Seen {
    std::map<unsigned, size_t> packets;
    std::vector<std::string> errors;
  } seen;
  ete::BufferDecoder dec(
      snap.buffers[0].format, sources,
      [](void* c, size_t, const ete::EtePacket& p) { ++static_cast<Seen*>(c)->packets[p.trace_id]; },
      [](void* c, size_t, uint64_t, const std::string& m) { static_cast<Seen*>(c)->errors.push_back(m); }, &seen);
  dec.Push(data.data(), data.size());
  dec.Finish();
  bool named = false;
  for (const auto& e : seen.errors)
    named |= e == "incomplete frame at end of input: 7 of 16 bytes at input offset 8000";
  EXPECT_TRUE(named) << (seen.errors.empty() ? "no error" : seen.errors.front());
  EXPECT_GE(seen.packets.size(), 2u);  // the sources before the cut were decoded
}

}  // namespace
