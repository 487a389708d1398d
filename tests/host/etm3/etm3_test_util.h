// SPDX-License-Identifier: MIT
// etm3_test_util.h: run bytes through an Etm3PacketProcessor and keep what
// came out (packet copies with their lister text, errors).
#ifndef MABUTRACE_TESTS_HOST_ETM3_ETM3_TEST_UTIL_H
#define MABUTRACE_TESTS_HOST_ETM3_ETM3_TEST_UTIL_H

#include <cstdint>
#include <string>
#include <vector>

#include "etm3/etm3_packet_processor.h"
#include "etm3/etm3_packet_text.h"

namespace mabutrace::etm3::test {

using Bytes = std::vector<uint8_t>;

struct Got {
  Etm3Packet packet;  // raw cleared (points into the processor)
  Bytes raw;
  std::string text;  // FormatOcsd
};

struct Run {
  std::vector<Got> packets;
  std::vector<Etm3Error> errors;
};

inline const Bytes kAsync = {0x00, 0x00, 0x00, 0x00, 0x00, 0x80};

// TC2's ETM_0 registers unless told otherwise.
inline Etm3Config Config(uint32_t etmcr = 0x10001860, uint32_t etmidr = 0x410CF250, uint32_t etmccer = 0x344008F2) {
  Etm3Config c;
  c.etmcr = etmcr;
  c.etmidr = etmidr;
  c.etmccer = etmccer;
  c.etmtraceidr = 0x10;
  return c;
}

inline Run Process(const Etm3Config& cfg, const Bytes& in, ErrorPolicy policy = ErrorPolicy::kResync,
                   size_t chunk = 0) {
  Run r;
  Etm3PacketProcessor proc(
      cfg,
      [](void* c, const Etm3Packet& p) {
        Got g;
        g.packet = p;
        g.raw.assign(p.raw, p.raw + p.size);
        g.packet.raw = nullptr;
        FormatOcsd(p, &g.text);
        static_cast<Run*>(c)->packets.push_back(g);
      },
      &r, [](void* c, const Etm3Error& e) { static_cast<Run*>(c)->errors.push_back(e); }, policy);
  if (chunk == 0) chunk = in.size() ? in.size() : 1;
  for (size_t at = 0; at < in.size(); at += chunk) proc.Push(at, in.data() + at, std::min(chunk, in.size() - at));
  proc.Finish();
  return r;
}

// Bytes after an A-sync; returns the packets after the A-sync.
inline std::vector<Got> AfterSync(const Etm3Config& cfg, const Bytes& body, Run* run = nullptr) {
  Bytes in = kAsync;
  in.insert(in.end(), body.begin(), body.end());
  Run r = Process(cfg, in);
  std::vector<Got> out(r.packets.begin() + (r.packets.empty() ? 0 : 1), r.packets.end());
  if (run) *run = r;
  return out;
}

}  // namespace mabutrace::etm3::test

#endif  // MABUTRACE_TESTS_HOST_ETM3_ETM3_TEST_UTIL_H
