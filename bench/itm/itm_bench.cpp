// SPDX-License-Identifier: MIT
// itm_bench.cpp: ITM packet-layer and full-decode throughput (host/itm).
//
// Builds one input of at least --min-mib MiB by repeating the synchronised
// part of the shared itm_only_raw capture (every packet kind: SWIT 1/2/4,
// DWT, local and global timestamps, extension, overflow, A-Sync), or a
// generated mix of the same kinds when the shared captures are absent, then
// decodes it --repeat times per layer and reports the best run in MB/s (1 MB
// = 10^6 bytes of input) with the packet and element counts. OpenCSD is not
// run beside it: Debian's libopencsd 1.3.3 has no ITM decoder (ITM came in
// OpenCSD 1.5).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "itm/itm_element.h"
#include "itm/itm_packet_processor.h"
#include "snapshot/snapshot.h"

namespace {

using namespace mabutrace::itm;

struct Count final : PacketSink, ElementSink {
  ElementDecoder* dec = nullptr;
  uint64_t packets = 0, elements = 0, errors = 0;
  void OnPacket(const ItmPacket& p) override {
    ++packets;
    if (dec) dec->OnPacket(p);
  }
  void OnError(uint64_t, const std::string&) override { ++errors; }
  void OnElement(const ItmElement&) override { ++elements; }
};

std::vector<uint8_t> Input(size_t min_bytes, std::string* what) {
  std::vector<uint8_t> unit;
  const std::filesystem::path f =
      std::filesystem::path(MABUTRACE_SHARED_DIR) / "data/arm-trace-snapshots/itm_only_raw/itm_testdata.bin";
  std::error_code ec;
  if (std::filesystem::exists(f, ec)) {
    unit = mabutrace::snapshot::ReadBinaryFile(f);
    unit.erase(unit.begin(), unit.begin() + 16);  // from its first A-Sync
    *what = "itm_only_raw (from its first A-Sync) repeated";
  } else {
    unit = {0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x09, 0x41, 0x0a, 0x42, 0x43, 0x0b, 1,    2,    3,   4,
            0x0e, 0x0f, 0x10, 0x0e, 0x0f, 0x20, 0x17, 0,    1,    0,    8,    0x30, 0xc0, 0x81, 0x01};
    *what = "generated ITM mix repeated";
  }
  std::vector<uint8_t> in;
  in.reserve(min_bytes + unit.size());
  while (in.size() < min_bytes) in.insert(in.end(), unit.begin(), unit.end());
  return in;
}

double Run(const std::vector<uint8_t>& in, bool decode, Count* out) {
  Count c;
  ElementDecoder dec(DecoderOptions{}, &c);
  if (decode) c.dec = &dec;
  PacketProcessor pp(ProcessorOptions{}, &c);
  const auto t0 = std::chrono::steady_clock::now();
  constexpr size_t kBlock = 1 << 16;
  for (size_t at = 0; at < in.size(); at += kBlock) pp.Push(at, in.data() + at, std::min(kBlock, in.size() - at));
  pp.Finish();
  if (decode) dec.Finish();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *out = c;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ITM packet / decode throughput"};
  double min_mib = 64;
  int repeat = 3;
  app.add_option("--min-mib", min_mib, "input size in MiB (default 64)");
  app.add_option("--repeat", repeat, "runs per layer, best reported (default 3)");
  CLI11_PARSE(app, argc, argv);
  std::string what;
  const std::vector<uint8_t> in = Input(static_cast<size_t>(min_mib * 1024 * 1024), &what);
  std::printf("input: %s, %zu bytes\n", what.c_str(), in.size());
  for (const bool decode : {false, true}) {
    double best = 1e30;
    Count c;
    for (int r = 0; r < repeat; ++r) best = std::min(best, Run(in, decode, &c));
    std::printf("%-8s %8.1f MB/s  (%.3f s, %llu packets, %llu elements, %llu errors)\n", decode ? "decode" : "packets",
                static_cast<double>(in.size()) / best / 1e6, best, static_cast<unsigned long long>(c.packets),
                static_cast<unsigned long long>(c.elements), static_cast<unsigned long long>(c.errors));
  }
  return 0;
}
