// SPDX-License-Identifier: MIT
// stream_test_util.cpp: see stream_test_util.h.
#include "stream_test_util.h"

#include <string.h>

#include "format/stream_format.h"

namespace mt_stream {

std::string g_bytes;
uint64_t g_calls = 0;

void Capture(const uint8_t* data, size_t len) {
  g_bytes.append(reinterpret_cast<const char*>(data), len);
  ++g_calls;
}

Decoded Decode(const std::string& bytes, size_t piece) {
  Decoded d;
  mabutrace::host::StreamDecoder dec([&](const mabutrace::host::Event& e) {
    d.events.push_back(Ev{e.type, e.ticks, e.ns, e.cpu, e.tid, e.thread_key, std::string(e.thread_name),
                          std::string(e.name), e.name_known, e.value, e.link, e.flow, e.color});
  });
  if (piece == 0) piece = bytes.size() ? bytes.size() : 1;
  for (size_t at = 0; at < bytes.size() && d.status.ok; at += piece) {
    const size_t n = bytes.size() - at < piece ? bytes.size() - at : piece;
    d.status = dec.Feed(reinterpret_cast<const uint8_t*>(bytes.data()) + at, n);
  }
  if (d.status.ok) d.status = dec.Finish();
  d.info = dec.info();
  d.lost = dec.lost_records();
  d.dropped = dec.dropped_records();
  d.record_errors = dec.record_errors();
  return d;
}

std::vector<std::pair<uint8_t, std::string>> Records(const std::string& bytes) {
  std::vector<std::pair<uint8_t, std::string>> out;
  if (bytes.size() < mabutrace::stream::kHdrFixedBytes) return out;
  uint16_t hdr = 0;
  memcpy(&hdr, bytes.data() + mabutrace::stream::kHdrLength, 2);
  size_t at = hdr;
  while (at + mabutrace::stream::kRecordHeaderBytes <= bytes.size()) {
    uint32_t len = 0;
    memcpy(&len, bytes.data() + at + 1, 4);
    if (at + 5 + len > bytes.size()) break;
    out.emplace_back(uint8_t(bytes[at]), bytes.substr(at + 5, len));
    at += 5 + len;
  }
  return out;
}

std::vector<Ev> OnTid(const std::vector<Ev>& evs, uint32_t tid) {
  std::vector<Ev> out;
  for (const Ev& e : evs) {
    if (e.tid == tid) out.push_back(e);
  }
  return out;
}

}  // namespace mt_stream
