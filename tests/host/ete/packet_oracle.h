// SPDX-License-Identifier: MIT
// packet_oracle.h: the packet-listing oracle shared by the ETE and ETMv4
// oracle tests. Reads the packet lines of an OpenCSD 1.8.0 listing
// (expected/opencsd-1.8.0-decode.ppl) per trace ID, produces ours for the
// first trace buffer of a snapshot (the one OpenCSD's lister decodes), and
// compares them line by line: same byte index, trace ID, raw bytes, packet
// name and decoded fields as OpenCSD prints them.
#ifndef MABUTRACE_TESTS_HOST_ETE_PACKET_ORACLE_H
#define MABUTRACE_TESTS_HOST_ETE_PACKET_ORACLE_H

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ete/ete_packet_text.h"
#include "ete/ete_source.h"

namespace mabutrace_tests {

using PacketLines = std::map<unsigned, std::vector<std::string>>;  // trace ID -> lines

inline std::string RTrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// Packet lines per trace ID, in order. A packet line may follow an error
// message on the same line ("...CS ID=10; Unknown packet type.Idx:2165; ...").
// Packet lines look like "Idx:<dec>; ID:<hex>; [<raw bytes> ];\t<packet>";
// element lines have no "[" after the ID.
inline PacketLines OracleLines(const std::filesystem::path& ppl) {
  PacketLines out;
  std::ifstream in(ppl);
  std::string line;
  while (std::getline(in, line)) {
    size_t at = line.find("Idx:");
    while (at != std::string::npos) {
      size_t id = line.find("; ID:", at);
      size_t raw = id == std::string::npos ? id : line.find("; [", id);
      size_t end = raw == std::string::npos ? raw : line.find("];\t", raw);
      size_t next_idx = line.find("Idx:", at + 4);
      if (end != std::string::npos && (next_idx == std::string::npos || raw < next_idx) &&
          line.find_first_not_of("0123456789abcdefABCDEF", id + 5) == raw) {
        unsigned tid = static_cast<unsigned>(std::stoul(line.substr(id + 5, raw - id - 5), nullptr, 16));
        out[tid].push_back(RTrim(line.substr(at)));
        break;
      }
      at = next_idx;
    }
  }
  return out;
}

// Our packet lines of the first trace buffer of the snapshot in `dir`.
inline PacketLines OurLines(const std::filesystem::path& dir) {
  using namespace mabutrace;
  snapshot::Snapshot snap = snapshot::ReadSnapshot(dir);
  EXPECT_FALSE(snap.buffers.empty());
  if (snap.buffers.empty()) return {};
  const snapshot::TraceBuffer& buf = snap.buffers.front();  // the one OpenCSD's lister decodes
  std::vector<ete::SourceSpec> sources = ete::SnapshotSources(snap, buf);
  PacketLines lines;
  auto on_packet = [](void* c, size_t, const ete::EtePacket& p) {
    std::string s;
    ete::FormatLine(p, &s);
    (*static_cast<PacketLines*>(c))[p.trace_id].push_back(RTrim(s));
  };
  ete::BufferDecoder dec(buf.format, sources, on_packet, nullptr, &lines, ete::ErrorPolicy::kOpenCsd);
  std::vector<uint8_t> data = snapshot::ReadBinaryFile(buf.file);
  dec.Push(data.data(), data.size());
  dec.Finish();
  return lines;
}

// The whole check for the capture in `dir`: every packet line of its
// listing was parsed, and ours equal them per trace ID. `name` labels the
// failure messages.
inline void ExpectPacketsEqualListing(const std::filesystem::path& dir, const std::string& name) {
  const std::filesystem::path ppl = dir / "expected" / "opencsd-1.8.0-decode.ppl";
  PacketLines expected = OracleLines(ppl);
  ASSERT_FALSE(expected.empty()) << "no packet lines in the oracle of " << dir;
  {  // parser self-check: every line with raw packet bytes was taken
    std::ifstream in(ppl);
    size_t raw_lines = 0, parsed = 0;
    for (std::string l; std::getline(in, l);) raw_lines += l.find("];\t") != std::string::npos;
    for (const auto& [id, v] : expected) parsed += v.size();
    ASSERT_EQ(parsed, raw_lines);
    ::testing::Test::RecordProperty("packets_compared", static_cast<int>(parsed));
  }
  PacketLines ours = OurLines(dir);
  for (const auto& [id, exp] : expected) {
    const auto& got = ours[id];
    size_t n = std::min(exp.size(), got.size());
    size_t first_diff = n;
    for (size_t i = 0; i < n; ++i)
      if (exp[i] != got[i]) {
        first_diff = i;
        break;
      }
    ASSERT_EQ(first_diff, n) << name << " ID " << id << " packet #" << first_diff << "\n  expected: " << exp[first_diff]
                             << "\n  ours:     " << got[first_diff];
    ASSERT_EQ(exp.size(), got.size()) << name << " ID " << id << ": packet count differs";
  }
  for (const auto& [id, got] : ours) EXPECT_TRUE(expected.count(id)) << "packets for ID " << id << " not in the oracle";
}

}  // namespace mabutrace_tests

#endif  // MABUTRACE_TESTS_HOST_ETE_PACKET_ORACLE_H
