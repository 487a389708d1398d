// SPDX-License-Identifier: MIT
// ete_packet_bench: ETE packet-layer throughput, mabutrace vs OpenCSD.
//
// Builds one input of at least --min-mib MiB by concatenating the raw
// ("source_data") trace buffers of the shared ETE captures (each starts with
// an A-Sync), then, in one process, runs over the same bytes:
//   - mabutrace::ete::EtePacketProcessor (packets to a counting callback)
//   - OpenCSD's ETE packet processor through its C API (libopencsd,
//     decoder created with OCSD_CREATE_FLG_PACKET_PROC, packets to a
//     counting callback; see RunOpenCsd for how the ETE version is set)
// Both get the same configuration registers and the same chunking. The best
// of --repeat runs is reported per decoder: MB/s (1 MB = 10^6 bytes of
// trace input) and the ratio ours / OpenCSD. --json prints one JSON object.
//
// --snapshot DIR (issue 15: ETMv4): instead, the first trace buffer of that
// snapshot (e.g. arm-trace-snapshots/juno_r1_1: six ETMv4 sources behind a
// CoreSight formatter) repeated, framing included: ours is
// ete::BufferDecoder with the snapshot's sources; OpenCSD a frame-formatted
// decode tree with one ETMv4 packet processor per source, configured from
// the same registers.
#include <opencsd/c_api/opencsd_c_api.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "ete/ete_packet_processor.h"
#include "ete/ete_source.h"
#include "ete_bench.h"
#include "snapshot/snapshot.h"

namespace fs = std::filesystem;
namespace ete = mabutrace::ete;

namespace {

struct Args : mabutrace::bench::CommonArgs {
  Args() : CommonArgs(5) {}
  std::string input;     // optional raw file instead
  std::string snapshot;  // optional: a snapshot's first buffer, framed
};

// The --snapshot input: the buffer's format, its ETE/ETMv4 sources and bytes.
struct Framed {
  mabutrace::snapshot::BufferFormat format = mabutrace::snapshot::BufferFormat::kSourceData;
  std::vector<ete::SourceSpec> sources;
  std::vector<uint8_t> unit;
};

Framed LoadFramed(const std::string& dir) {
  const auto snap = mabutrace::snapshot::ReadSnapshot(dir);
  if (snap.buffers.empty()) {
    std::fprintf(stderr, "%s: no trace buffer\n", dir.c_str());
    std::exit(1);
  }
  Framed f;
  const auto& b = snap.buffers[0];
  f.format = b.format;
  if (f.format != mabutrace::snapshot::BufferFormat::kCoresight &&
      f.format != mabutrace::snapshot::BufferFormat::kSourceData) {
    std::fprintf(stderr, "%s: buffer %s: only raw and CoreSight-formatted buffers are benchmarked\n", dir.c_str(),
                 b.name.c_str());
    std::exit(1);
  }
  for (auto& src : ete::SnapshotSources(snap, b))
    if (src.supported()) f.sources.push_back(src);
  f.unit = mabutrace::snapshot::ReadBinaryFile(b.file);
  if (f.sources.empty() || f.unit.empty()) {
    std::fprintf(stderr, "%s: no ETE/ETMv4 source or no bytes in buffer %s\n", dir.c_str(), b.name.c_str());
    std::exit(1);
  }
  return f;
}

// The ETE configuration both decoders use (ETE r3 as in the FEAT_ITE captures:
// Q elements, ITE, TS markers, COMMOPT=1, 64-bit VA, 32-bit VMID/CONTEXTID).
ete::EteConfig BenchConfig() {
  ete::EteConfig c;
  c.trcidr0 = 0x28C1CEA1;
  c.trcidr1 = 0x4100FFF0;
  c.trcidr2 = 0xD0001088;
  c.trcidr8 = 0;
  c.trcdevarch = 0x47735A13;
  c.trcconfigr = 0x8001;
  c.trctraceidr = 0x10;
  return c;
}

std::vector<uint8_t> BuildInput(const Args& a) {
  std::vector<uint8_t> unit;
  if (!a.input.empty()) {
    unit = mabutrace::snapshot::ReadBinaryFile(a.input);
  } else {
    a.RequireDefaultInput(a.snapshots);
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(a.snapshots))
      if (fs::exists(e.path() / "snapshot.ini")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
      auto snap = mabutrace::snapshot::ReadSnapshot(d);
      for (const auto& b : snap.buffers) {
        if (b.format != mabutrace::snapshot::BufferFormat::kSourceData) continue;
        auto bytes = mabutrace::snapshot::ReadBinaryFile(b.file);
        unit.insert(unit.end(), bytes.begin(), bytes.end());
      }
    }
  }
  if (unit.empty()) {
    std::fprintf(stderr, "no input trace\n");
    std::exit(1);
  }
  return mabutrace::bench::Repeat(unit, a.min_mib);
}

struct Count {
  uint64_t packets = 0;
  uint64_t check = 0;  // keeps the callbacks from being optimised away
};

void OurPacket(void* c, const ete::EtePacket& p) {
  auto* k = static_cast<Count*>(c);
  ++k->packets;
  k->check += static_cast<uint64_t>(p.type) + p.size;
}

Count RunOurs(const std::vector<uint8_t>& in, size_t chunk) {
  Count c;
  ete::EtePacketProcessor proc(BenchConfig(), &OurPacket, &c, nullptr, ete::ErrorPolicy::kOpenCsd);
  for (size_t i = 0; i < in.size(); i += chunk) proc.Push(i, in.data() + i, std::min(chunk, in.size() - i));
  proc.Finish();
  return c;
}

void OurSourcePacket(void* c, size_t, const ete::EtePacket& p) { OurPacket(c, p); }

Count RunOursFramed(const Framed& f, const std::vector<uint8_t>& in, size_t chunk) {
  Count c;
  ete::BufferDecoder dec(f.format, f.sources, &OurSourcePacket, nullptr, &c, ete::ErrorPolicy::kOpenCsd);
  for (size_t i = 0; i < in.size(); i += chunk) dec.Push(in.data() + i, std::min(chunk, in.size() - i));
  dec.Finish();
  return c;
}

ocsd_datapath_resp_t OcsdPacket(const void* ctx, const ocsd_datapath_op_t op, const ocsd_trc_index_t, const void* pkt) {
  auto* k = static_cast<Count*>(const_cast<void*>(ctx));
  if (op == OCSD_OP_DATA && pkt) {
    ++k->packets;
    k->check += static_cast<const ocsd_etmv4_i_pkt*>(pkt)->type;
  }
  return OCSD_RESP_CONT;
}

Count RunOpenCsd(const std::vector<uint8_t>& in, size_t chunk) {
  Count c;
  dcd_tree_handle_t tree = mabutrace::bench::NewOpenCsdTree();
  // Debian's OpenCSD 1.3.3 C API cannot attach a packet sink to a decoder
  // created as "ETE" (ocsd_dt_attach_packet_callback -> OCSD_ERR_NO_PROTOCOL).
  // OpenCSD's ETE decoder is its ETMv4 packet processor with an ETEConfig
  // that moves TRCDEVARCH's ARCHVER/REVISION into TRCIDR1[11:4]; doing the
  // same here runs the very same packet processor (ETE header table) through
  // the "ETMV4I" name, whose packet sink the C API supports.
  ocsd_etmv4_cfg cfg = mabutrace::bench::OpenCsdEtmv4Config(BenchConfig(), /*ete_version_in_idr1=*/true);
  unsigned char csid = 0;
  ocsd_err_t err = ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_PACKET_PROC, &cfg, &csid);
  if (err == OCSD_OK)
    err = ocsd_dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK, reinterpret_cast<void*>(&OcsdPacket), &c);
  mabutrace::bench::FeedOpenCsd(tree, err, "ETE packet processor", in, chunk);
  return c;
}

// One OpenCSD ETMv4 packet processor per source behind the frame
// deformatter (memory-aligned frames, as the snapshot's buffer holds them).
Count RunOpenCsdFramed(const Framed& f, const std::vector<uint8_t>& in, size_t chunk) {
  Count c;
  const bool framed = f.format == mabutrace::snapshot::BufferFormat::kCoresight;
  dcd_tree_handle_t tree = ocsd_create_dcd_tree(framed ? OCSD_TRC_SRC_FRAME_FORMATTED : OCSD_TRC_SRC_SINGLE,
                                                framed ? OCSD_DFRMTR_FRAME_MEM_ALIGN : 0);
  if (tree == C_API_INVALID_TREE_HANDLE) {
    std::fprintf(stderr, "ocsd_create_dcd_tree failed\n");
    std::exit(1);
  }
  ocsd_err_t err = OCSD_OK;
  for (const ete::SourceSpec& s : f.sources) {
    if (err != OCSD_OK) break;
    // ETE keeps its version in TRCDEVARCH (see RunOpenCsd).
    ocsd_etmv4_cfg cfg = mabutrace::bench::OpenCsdEtmv4Config(s.config, s.arch.ete);
    unsigned char csid = 0;
    err = ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_PACKET_PROC, &cfg, &csid);
    if (err == OCSD_OK)
      err =
          ocsd_dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK, reinterpret_cast<void*>(&OcsdPacket), &c);
  }
  mabutrace::bench::FeedOpenCsd(tree, err, "ETMv4 packet processors", in, chunk);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{"ETE packet decoding: mabutrace vs OpenCSD on the same input"};
  a.AddTo(app);
  app.add_option("--input", a.input, "a raw ETE byte file instead of the snapshots");
  app.add_option("--snapshot", a.snapshot, "a snapshot whose first buffer (framing included) is the input")
      ->check(CLI::ExistingDirectory);
  CLI11_PARSE(app, argc, argv);
  ocsd_def_errlog_init(OCSD_ERR_SEV_NONE, 0);
  Framed framed;
  std::vector<uint8_t> in;
  if (!a.snapshot.empty()) {
    framed = LoadFramed(a.snapshot);
    in = mabutrace::bench::Repeat(framed.unit, a.min_mib);
  } else {
    in = BuildInput(a);
  }
  const bool snap = !a.snapshot.empty();
  Count ours, ocsd;
  const double t_ours = mabutrace::bench::BestSeconds(
      a.repeat, [&] { return snap ? RunOursFramed(framed, in, a.chunk) : RunOurs(in, a.chunk); }, &ours);
  const double t_ocsd = mabutrace::bench::BestSeconds(
      a.repeat, [&] { return snap ? RunOpenCsdFramed(framed, in, a.chunk) : RunOpenCsd(in, a.chunk); }, &ocsd);
  const double mb = static_cast<double>(in.size()) / 1e6;
  const double ours_mbs = mb / t_ours, ocsd_mbs = mb / t_ocsd;
  if (a.json) {
    std::printf(
        "{\"input_bytes\":%zu,\"chunk\":%zu,\"repeat\":%d,\"opencsd_version\":\"%s\","
        "\"mabutrace\":{\"seconds\":%.6f,\"mb_per_s\":%.1f,\"packets\":%" PRIu64
        "},"
        "\"opencsd\":{\"seconds\":%.6f,\"mb_per_s\":%.1f,\"packets\":%" PRIu64 "},\"ratio\":%.2f}\n",
        in.size(), a.chunk, a.repeat, ocsd_get_version_str(), t_ours, ours_mbs, ours.packets, t_ocsd, ocsd_mbs,
        ocsd.packets, ours_mbs / ocsd_mbs);
  } else {
    std::printf("input: %.1f MiB (%zu bytes), chunk %zu, best of %d\n", static_cast<double>(in.size()) / 1048576.0,
                in.size(), a.chunk, a.repeat);
    if (snap) std::printf("input: %s, %zu source(s), first buffer\n", a.snapshot.c_str(), framed.sources.size());
    std::printf("mabutrace %s packets : %8.1f MB/s  (%" PRIu64 " packets)\n", snap ? "ETMv4" : "ETE", ours_mbs,
                ours.packets);
    std::printf("OpenCSD %-6s packets: %8.1f MB/s  (%" PRIu64 " packets)\n", ocsd_get_version_str(), ocsd_mbs,
                ocsd.packets);
    std::printf("ratio: %.2fx\n", ours_mbs / ocsd_mbs);
  }
  return 0;
}
