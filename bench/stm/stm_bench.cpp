// SPDX-License-Identifier: MIT
// stm_bench: STM (MIPI STPv2) throughput, mabutrace vs OpenCSD, same input.
//
// Input (--input), CoreSight-framed as real STM captures are (memory-aligned
// 16-byte frames, trace ID --trace-id, default 0x20 as in the captures):
//   capture   - the shared real capture stm-snapshots/stm_only (32 KiB,
//               framed) repeated to >= --min-mib MiB. Each copy starts
//               unsynchronised (NOTSYNC until its ASYNC), as the capture does.
//   synthetic - an STPv2 stream written with StpEncoder (ASYNC, VERSION,
//               FREQ, then M8/C8 and D4..D64 with and without marker and
//               timestamp, FLAG_TS, periodic ASYNC), framed here, repeated.
// Layers, each run on both decoders over the same bytes, CoreSight
// de-formatting included in both:
//   packets  - ours: FrameDeformatter -> StpDecoder -> counting sink (type
//              and payload of each packet; fast-path packets in batches,
//              StpPacketSink::OnPackets);
//              OpenCSD: frame de-formatter -> STM packet processor
//              (OCSD_CREATE_FLG_PACKET_PROC) -> counting packet callback.
//   messages - ours: ... -> StmMessageDecoder -> counting sink;
//              OpenCSD: ... -> STM full decoder (OCSD_CREATE_FLG_FULL_DECODER)
//              -> counting generic-element callback (SWTRACE elements).
// Runs are interleaved (ours, OpenCSD, ours, ...) --repeat times so that a
// load change on the shared machine hits both; the report gives per decoder
// the median and the range (min..max) in MB/s (1 MB = 10^6 bytes of framed
// input, thread CPU time) and the ratio of the medians. --json prints one
// JSON object per layer; --nibble-path runs ours without the whole-packet
// fast path (the decoder before issue 20) for a before/after in one run.
#include <opencsd/c_api/opencsd_c_api.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ete_bench.h"
#include "snapshot/snapshot.h"
#include "stm_capture.h"
#include "stm_messages.h"

#include "stp_decoder.h"
#include "stp_encoder.h"

namespace bench = mabutrace::bench;
namespace stm = mabutrace::stm;

namespace {

struct Args {
  std::string input = "capture";
  std::string snapshots = std::string(MABUTRACE_SHARED_DIR) + "/data/stm-snapshots";
  double min_mib = 64;
  int repeat = 5;
  size_t chunk = 1 << 16;
  int trace_id = 0x20;
  std::string layers = "packets,messages";
  bool json = false;
  bool nibble_path = false;  // ours without the fast path (the before state)
};

// One memory-aligned CoreSight frame (arm-trace-facts.md §3) per 15 bytes of
// `stp` (14 in the first frame, which opens with the ID byte): even bytes
// carry their bit 0 in the AUX byte.
std::vector<uint8_t> Frame(const std::vector<uint8_t>& stp, uint8_t id) {
  std::vector<uint8_t> out;
  size_t at = 0;
  bool first = true;
  while (at < stp.size()) {
    uint8_t f[16] = {};
    int pos = 0;
    if (first) f[pos++] = static_cast<uint8_t>((id << 1) | 1);  // AUX bit 0 = 0: byte 1 is the new ID's
    first = false;
    for (; pos < 15; ++pos) {
      const uint8_t b = at < stp.size() ? stp[at++] : 0;  // NULL nibbles pad the last frame
      if (pos % 2 == 0) {
        f[pos] = static_cast<uint8_t>(b & 0xFE);
        f[15] = static_cast<uint8_t>(f[15] | ((b & 1) << (pos / 2)));
      } else {
        f[pos] = b;
      }
    }
    out.insert(out.end(), f, f + 16);
  }
  return out;
}

// About 1 MiB of STPv2 as an STM with a few software masters writes it.
std::vector<uint8_t> SyntheticStp() {
  std::mt19937_64 rng(20);
  stm::StpEncoder e;
  e.set_ts_nibbles(8);
  uint64_t ts = 0x1000;
  const unsigned sizes[] = {4, 8, 16, 32, 32, 32, 64};
  for (int block = 0; block < 64; ++block) {
    e.Async();
    e.Version(3);
    e.Freq(100000000);
    for (int i = 0; i < 4000; ++i) {
      const uint64_t r = rng();
      if ((r & 15) == 0) e.Master8(static_cast<uint8_t>(0x40 + ((r >> 4) & 3)));
      if ((r & 7) == 0) e.Channel8(static_cast<uint8_t>(r >> 8));
      ts += (r >> 16) & 0xFF;
      const bool marker = ((r >> 24) & 3) == 0, with_ts = ((r >> 26) & 1) != 0;
      if (((r >> 27) & 31) == 0)
        e.Flag(true, ts);
      else
        e.Data(sizes[(r >> 32) % 7], rng(), marker, with_ts, ts);
    }
  }
  return e.Bytes();
}

std::vector<uint8_t> BuildInput(const Args& a) {
  std::vector<uint8_t> unit;
  if (a.input == "synthetic") {
    unit = Frame(SyntheticStp(), static_cast<uint8_t>(a.trace_id));
  } else {
    const std::string dir = a.snapshots + "/stm_only";
    std::error_code ec;
    if (!std::filesystem::exists(dir + "/snapshot.ini", ec)) {
      // A clone without ../shared: the smoke test counts this as skipped.
      std::fprintf(
          stderr,
          "stm_bench: skipped: %s/snapshot.ini is missing (the shared STM captures; --input synthetic needs none)\n",
          dir.c_str());
      std::exit(77);
    }
    auto snap = mabutrace::snapshot::ReadSnapshot(dir);
    for (const auto& b : snap.buffers) {
      auto bytes = mabutrace::snapshot::ReadBinaryFile(b.file);
      unit.insert(unit.end(), bytes.begin(), bytes.end());
    }
  }
  if (unit.empty() || unit.size() % 16 != 0) {
    std::fprintf(stderr, "no framed STM input (%zu bytes)\n", unit.size());
    std::exit(1);
  }
  return bench::Repeat(unit, a.min_mib);
}

struct Count {
  uint64_t items = 0;
  uint64_t check = 0;  // keeps the callbacks from being optimised away
};

struct OurPackets final : stm::StpPacketSink {
  Count c;
  void OnPacket(const stm::StpPacket& p) override {
    ++c.items;
    c.check += static_cast<uint64_t>(p.type) + p.payload;
  }
  // The fast path's batches: the same count and fields, read in place.
  void OnPackets(const stm::StpPacketRecord* r, size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      ++c.items;
      c.check += static_cast<uint64_t>(r[i].type) + r[i].payload;
    }
  }
};

struct OurMessages final : stm::StmMessageSink {
  Count c;
  void OnMessage(const stm::StmMessage& m) override {
    ++c.items;
    c.check += m.data + m.channel;
  }
  // The message decoder's batches: the same count and fields.
  void OnMessages(const stm::StmMessage* m, size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      ++c.items;
      c.check += m[i].data + m[i].channel;
    }
  }
};

Count RunOurs(const std::vector<uint8_t>& in, uint8_t id, bool messages, bool fast) {
  std::vector<std::string> warnings;
  if (messages) {
    OurMessages sink;
    stm::StmMessageDecoder md(&sink);
    stm::StpDecoder dec(&md);
    dec.set_fast_path(fast);
    stm::FeedBytes(in.data(), in.size(), true, id, &dec, &warnings);
    return sink.c;
  }
  OurPackets sink;
  stm::StpDecoder dec(&sink);
  dec.set_fast_path(fast);
  stm::FeedBytes(in.data(), in.size(), true, id, &dec, &warnings);
  return sink.c;
}

ocsd_datapath_resp_t OcsdPacket(const void* ctx, const ocsd_datapath_op_t op, const ocsd_trc_index_t, const void* pkt) {
  auto* k = static_cast<Count*>(const_cast<void*>(ctx));
  if (op == OCSD_OP_DATA && pkt) {
    const auto* p = static_cast<const ocsd_stm_pkt*>(pkt);
    ++k->items;
    k->check += static_cast<uint64_t>(p->type) + p->payload.D64;
  }
  return OCSD_RESP_CONT;
}

ocsd_datapath_resp_t OcsdElement(const void* ctx, const ocsd_trc_index_t, const uint8_t,
                                 const ocsd_generic_trace_elem* e) {
  auto* k = static_cast<Count*>(const_cast<void*>(ctx));
  if (e->elem_type == OCSD_GEN_TRC_ELEM_SWTRACE) {
    ++k->items;
    k->check += e->sw_trace_info.swt_channel_id;
  }
  return OCSD_RESP_CONT;
}

Count RunOpenCsd(const std::vector<uint8_t>& in, uint8_t id, bool messages, size_t chunk) {
  Count c;
  dcd_tree_handle_t tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_FRAME_FORMATTED, OCSD_DFRMTR_FRAME_MEM_ALIGN);
  if (tree == C_API_INVALID_TREE_HANDLE) {
    std::fprintf(stderr, "ocsd_create_dcd_tree failed\n");
    std::exit(1);
  }
  ocsd_stm_cfg cfg{};
  cfg.reg_tcsr = static_cast<uint32_t>(id) << 16;  // STMTCSR.TRACEID, bits[22:16]
  unsigned char csid = 0;
  ocsd_err_t err = ocsd_dt_create_decoder(
      tree, OCSD_BUILTIN_DCD_STM, messages ? OCSD_CREATE_FLG_FULL_DECODER : OCSD_CREATE_FLG_PACKET_PROC, &cfg, &csid);
  if (err == OCSD_OK) {
    if (messages)
      err = ocsd_dt_set_gen_elem_outfn(tree, &OcsdElement, &c);
    else
      err =
          ocsd_dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK, reinterpret_cast<void*>(&OcsdPacket), &c);
  }
  bench::FeedOpenCsd(tree, err, messages ? "STM decoder" : "STM packet processor", in, chunk);
  return c;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Series {
  std::vector<double> mbs;
  Count last;
  double median() const { return Median(mbs); }
  double min() const { return *std::min_element(mbs.begin(), mbs.end()); }
  double max() const { return *std::max_element(mbs.begin(), mbs.end()); }
};

template <typename F>
void Time(Series* s, double mb, F&& f) {
  const double t0 = bench::ThreadCpuSeconds();
  s->last = f();
  s->mbs.push_back(mb / (bench::ThreadCpuSeconds() - t0));
}

void Report(const Args& a, const char* layer, size_t bytes, const Series& ours, const Series& ocsd) {
  const double ratio = ours.median() / ocsd.median();
  if (a.json) {
    std::printf(
        "{\"input\":\"%s\",\"layer\":\"%s\",\"input_bytes\":%zu,\"repeat\":%d,\"opencsd_version\":\"%s\","
        "\"mabutrace\":{\"mb_per_s\":%.1f,\"min\":%.1f,\"max\":%.1f,\"items\":%" PRIu64
        "},"
        "\"opencsd\":{\"mb_per_s\":%.1f,\"min\":%.1f,\"max\":%.1f,\"items\":%" PRIu64 "},\"ratio\":%.2f}\n",
        a.input.c_str(), layer, bytes, a.repeat, ocsd_get_version_str(), ours.median(), ours.min(), ours.max(),
        ours.last.items, ocsd.median(), ocsd.min(), ocsd.max(), ocsd.last.items, ratio);
    return;
  }
  std::printf("%-8s mabutrace      : %7.1f MB/s (%.1f..%.1f)  %" PRIu64 " %s\n", layer, ours.median(), ours.min(),
              ours.max(), ours.last.items, layer);
  std::printf("%-8s OpenCSD %-6s : %7.1f MB/s (%.1f..%.1f)  %" PRIu64 " %s\n", layer, ocsd_get_version_str(),
              ocsd.median(), ocsd.min(), ocsd.max(), ocsd.last.items, layer);
  std::printf("%-8s ratio (medians): %.2fx\n", layer, ratio);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{"STM (STPv2) decoding: mabutrace vs OpenCSD on the same CoreSight-framed input"};
  app.add_option("--input", a.input, "capture (real, repeated) or synthetic (StpEncoder)")
      ->check(CLI::IsMember({"capture", "synthetic"}));
  app.add_option("--snapshots", a.snapshots, "folder of the STM snapshots (capture input)");
  app.add_option("--min-mib", a.min_mib, "input size, MiB (unit repeated)")->check(CLI::PositiveNumber);
  app.add_option("--repeat", a.repeat, "interleaved runs of each decoder")->check(CLI::PositiveNumber);
  app.add_option("--chunk", a.chunk, "bytes per OpenCSD data call")->check(CLI::PositiveNumber);
  app.add_option("--trace-id", a.trace_id, "STM trace ID in the frames")->check(CLI::Range(1, 0x6F));
  app.add_option("--layers", a.layers, "packets,messages or one of them");
  app.add_flag("--json", a.json, "one JSON line per layer instead of text");
  app.add_flag("--nibble-path", a.nibble_path, "ours without the whole-packet fast path (StpDecoder::set_fast_path)");
  CLI11_PARSE(app, argc, argv);
  ocsd_def_errlog_init(OCSD_ERR_SEV_NONE, 0);
  const std::vector<uint8_t> in = BuildInput(a);
  const uint8_t id = static_cast<uint8_t>(a.trace_id);
  const double mb = static_cast<double>(in.size()) / 1e6;
  if (!a.json)
    std::printf("input: %s, %.1f MiB (%zu bytes) framed, trace ID 0x%02X, %d interleaved runs each\n", a.input.c_str(),
                static_cast<double>(in.size()) / 1048576.0, in.size(), a.trace_id, a.repeat);
  for (const bool messages : {false, true}) {
    const char* layer = messages ? "messages" : "packets";
    if (a.layers.find(layer) == std::string::npos) continue;
    Series ours, ocsd;
    for (int i = 0; i < a.repeat; ++i) {
      Time(&ours, mb, [&] { return RunOurs(in, id, messages, !a.nibble_path); });
      Time(&ocsd, mb, [&] { return RunOpenCsd(in, id, messages, a.chunk); });
    }
    Report(a, layer, in.size(), ours, ocsd);
  }
  return 0;
}
