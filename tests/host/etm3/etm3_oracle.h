// SPDX-License-Identifier: MIT
// etm3_oracle.h: the TC2 capture's OpenCSD 1.8.0 listing
// (expected/opencsd-1.8.0-decode.ppl) split per trace ID into packet lines
// and element lines, and ours for the same buffer, for the ETMv3 oracle
// tests (packets and elements).
#ifndef MABUTRACE_TESTS_HOST_ETM3_ETM3_ORACLE_H
#define MABUTRACE_TESTS_HOST_ETM3_ETM3_ORACLE_H

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "shared_data.h"

namespace mabutrace_tests::etm3_oracle {

using Lines = std::map<unsigned, std::vector<std::string>>;  // trace ID -> lines

inline const std::filesystem::path& Tc2() {
  static const std::filesystem::path p =
      std::filesystem::path(MABUTRACE_SHARED_DIR) / "data" / "arm-trace-snapshots" / "TC2";
  return p;
}
inline std::filesystem::path Tc2Listing() { return Tc2() / "expected" / "opencsd-1.8.0-decode.ppl"; }

inline std::string RTrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// Packet lines ("Idx:N; ID:x; [..];\tNAME : ...") when `packets`, else the
// element lines reduced to "Idx:N; OCSD_GEN_TRC_ELEM_...", per trace ID.
inline Lines ReadListing(const std::filesystem::path& ppl, bool packets) {
  Lines out;
  std::ifstream in(ppl);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("Idx:");
    if (at == std::string::npos) continue;
    const size_t id = line.find("; ID:", at);
    if (id == std::string::npos) continue;
    const unsigned tid = static_cast<unsigned>(std::stoul(line.substr(id + 5), nullptr, 16));
    const bool is_packet = line.find("];\t", id) != std::string::npos;
    const size_t elem = line.find("OCSD_GEN_TRC_ELEM_", id);
    if (packets && is_packet) out[tid].push_back(RTrim(line.substr(at)));
    if (!packets && !is_packet && elem != std::string::npos)
      out[tid].push_back(RTrim(line.substr(at, id - at) + "; " + line.substr(elem)));
  }
  return out;
}

}  // namespace mabutrace_tests::etm3_oracle

#endif  // MABUTRACE_TESTS_HOST_ETM3_ETM3_ORACLE_H
