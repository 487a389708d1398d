// SPDX-License-Identifier: MIT
// element_oracle.h: the element-listing oracle shared by the ETE and ETMv4
// element tests. Reads the OCSD_GEN_TRC_ELEM_* lines of an OpenCSD 1.8.0
// listing per trace ID, decodes the first trace buffer of the snapshot (the
// one the lister decodes) into our elements printed the same way, and
// compares the two sequences: element kind, the packet index that produced
// it, and every value the lister prints.
#ifndef MABUTRACE_TESTS_HOST_ETE_DECODE_ELEMENT_ORACLE_H
#define MABUTRACE_TESTS_HOST_ETE_DECODE_ELEMENT_ORACLE_H

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ete_decode/ete_decode_session.h"

namespace mabutrace::ete_decode::oracle {

using Streams = std::map<unsigned, std::vector<std::string>>;  // trace ID -> "Idx:N; TEXT"

inline Streams ReadOracle(const std::filesystem::path& ppl) {
  Streams out;
  std::ifstream in(ppl);
  std::string line;
  while (std::getline(in, line)) {
    const auto elem = line.find("OCSD_GEN_TRC_ELEM_");
    if (elem == std::string::npos) continue;
    // Error messages may share a line with a packet ("...Unknown packet type.Idx:2165; ..."):
    // take the last "Idx:" before the element.
    const auto idx = line.rfind("Idx:", elem);
    const auto id = line.find("ID:", idx);
    if (idx == std::string::npos || id == std::string::npos) continue;
    const unsigned trace_id = std::stoul(line.substr(id + 3), nullptr, 16);
    std::string text = line.substr(idx, line.find(';', idx) - idx + 2) + line.substr(elem);
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
    out[trace_id].push_back(text);
  }
  return out;
}

inline Streams DecodeCapture(const std::filesystem::path& dir) {
  LoadedSnapshot snap = LoadSnapshotForDecode(dir);
  Streams streams;
  // The OpenCSD lister decodes the first trace buffer of trace.ini only.
  EXPECT_FALSE(snap.buffers.empty());
  if (snap.buffers.empty()) return {};
  const DecodeBuffer& b = snap.buffers.front();
  auto on_element = [](void* c, size_t, const EteElement& e) {
    std::string text = "Idx:" + std::to_string(e.index) + "; ";
    FormatElementOcsd(e, &text);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    (*static_cast<Streams*>(c))[e.trace_id].push_back(text);
  };
  auto on_error = [](void*, size_t, uint64_t, const std::string&) {};
  EXPECT_TRUE(DecodeBufferFile(b, on_element, on_error, &streams)) << b.buffer.file;
  return streams;
}

// The whole check for the capture in `dir` (`name` labels the messages).
inline void ExpectElementsEqualListing(const std::filesystem::path& dir, const std::string& name) {
  const std::filesystem::path ppl = dir / "expected" / "opencsd-1.8.0-decode.ppl";
  const Streams want = ReadOracle(ppl);
  ASSERT_FALSE(want.empty());
  // Every element line of the listing was read (independent count).
  size_t lines = 0, parsed = 0;
  {
    std::ifstream in(ppl);
    for (std::string l; std::getline(in, l);) lines += l.find("OCSD_GEN_TRC_ELEM_") != std::string::npos;
  }
  for (const auto& [id, w] : want) parsed += w.size();
  ASSERT_EQ(parsed, lines);
  const Streams got = DecodeCapture(dir);
  for (const auto& [id, w] : want) {
    SCOPED_TRACE("trace ID 0x" + std::to_string(id));
    auto it = got.find(id);
    ASSERT_NE(it, got.end()) << "no elements for this trace ID";
    const auto& g = it->second;
    size_t i = 0;
    while (i < w.size() && i < g.size() && w[i] == g[i]) ++i;
    if (i == w.size() && i == g.size()) continue;
    std::string ctx;
    for (size_t j = i >= 3 ? i - 3 : 0; j < i; ++j) ctx += "    = " + w[j] + "\n";
    for (size_t j = i; j < i + 4 && j < w.size(); ++j) ctx += "  want " + w[j] + "\n";
    for (size_t j = i; j < i + 4 && j < g.size(); ++j) ctx += "  got  " + g[j] + "\n";
    ADD_FAILURE() << name << ": first difference at element " << i << " of " << w.size() << " (we have " << g.size()
                  << ")\n"
                  << ctx;
  }
  for (const auto& [id, g] : got)
    EXPECT_TRUE(want.count(id)) << "extra elements for trace ID " << id << ": " << g.size();
}

}  // namespace mabutrace::ete_decode::oracle

#endif  // MABUTRACE_TESTS_HOST_ETE_DECODE_ELEMENT_ORACLE_H
