// SPDX-License-Identifier: MIT
// ete_decode_bench: full ETE decode throughput, mabutrace vs OpenCSD.
//
// Input: the raw trace buffer of one shared capture (--capture, default
// 001-ack_test: 16 KB, 23k elements, A64 code in 125 memory dumps) repeated
// until it is at least --min-mib MiB; each copy starts with an A-Sync.
// In one process, over the same bytes and the same memory image:
//   - mabutrace: ete::BufferDecoder -> ete_decode::EteElementDecoder
//     (instruction following through armisa's cached follower), elements
//     to a counting callback;
//   - OpenCSD (Debian libopencsd, C API): a decode tree with the "ETE"
//     decoder created with OCSD_CREATE_FLG_FULL_DECODER, the capture's
//     dumps added with ocsd_dt_add_buffer_mem_acc, generic elements to a
//     counting callback.
// Both get the capture's trace-unit registers and the same chunking. The
// best of --repeat runs is reported: MB/s (10^6 bytes of trace input per
// second of the thread's CPU time), element and instruction-range counts,
// and the ratio.
#include <opencsd/c_api/opencsd_c_api.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "ete_bench.h"
#include "ete_decode/ete_decode_session.h"

namespace fs = std::filesystem;
namespace ed = mabutrace::ete_decode;

namespace {

struct Args : mabutrace::bench::CommonArgs {
  Args() : CommonArgs(3) {}
  std::string capture = "001-ack_test";
  bool ours_only = false;  // for profiling
};

struct Count {
  uint64_t elements = 0;
  uint64_t ranges = 0;
  uint64_t instructions = 0;
  uint64_t check = 0;
};

void OurElement(void* c, size_t, const ed::EteElement& e) {
  auto* k = static_cast<Count*>(c);
  ++k->elements;
  if (e.type == ed::ElemType::kInstrRange) {
    ++k->ranges;
    k->instructions += e.num_instr;
    k->check += e.start;
  }
}
void OurError(void*, size_t, uint64_t, const std::string&) {}

Count RunOurs(const ed::DecodeBuffer& buf, const std::vector<uint8_t>& in, size_t chunk) {
  Count c;
  ed::BufferElementDecoder dec(buf, &OurElement, &OurError, &c);
  for (size_t i = 0; i < in.size(); i += chunk) dec.Push(in.data() + i, std::min(chunk, in.size() - i));
  dec.Finish();
  return c;
}

ocsd_datapath_resp_t OcsdElement(const void* ctx, const ocsd_trc_index_t, const uint8_t,
                                 const ocsd_generic_trace_elem* e) {
  auto* k = static_cast<Count*>(const_cast<void*>(ctx));
  ++k->elements;
  if (e->elem_type == OCSD_GEN_TRC_ELEM_INSTR_RANGE) {
    ++k->ranges;
    k->instructions += e->num_instr_range;
    k->check += e->st_addr;
  }
  return OCSD_RESP_CONT;
}

struct Dump {
  uint64_t address;
  std::vector<uint8_t> bytes;
};

// One full decoder: "ETE" for an ETE unit, "ETMV4I" for an ETMv4 one.
ocsd_err_t AddOpenCsdDecoder(dcd_tree_handle_t tree, const mabutrace::ete::SourceSpec& s) {
  const mabutrace::ete::EteConfig& e = s.config;
  unsigned char csid = 0;
  if (s.arch.ete) {
    ocsd_ete_cfg cfg{};
    cfg.reg_idr0 = e.trcidr0;
    cfg.reg_idr1 = e.trcidr1;
    cfg.reg_idr2 = e.trcidr2;
    cfg.reg_idr8 = e.trcidr8;
    cfg.reg_devarch = e.trcdevarch;
    cfg.reg_configr = e.trcconfigr;
    cfg.reg_traceidr = e.trctraceidr;
    cfg.arch_ver = ARCH_AA64;
    cfg.core_prof = profile_CortexA;
    return ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETE, OCSD_CREATE_FLG_FULL_DECODER, &cfg, &csid);
  }
  ocsd_etmv4_cfg cfg = mabutrace::bench::OpenCsdEtmv4Config(e, /*ete_version_in_idr1=*/false);
  return ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_FULL_DECODER, &cfg, &csid);
}

Count RunOpenCsd(const ed::DecodeBuffer& buf, const std::vector<Dump>& dumps, const std::vector<uint8_t>& in,
                 size_t chunk) {
  Count c;
  const bool framed = buf.buffer.format == mabutrace::snapshot::BufferFormat::kCoresight;
  dcd_tree_handle_t tree = framed ? ocsd_create_dcd_tree(OCSD_TRC_SRC_FRAME_FORMATTED, OCSD_DFRMTR_FRAME_MEM_ALIGN)
                                  : mabutrace::bench::NewOpenCsdTree();
  if (tree == C_API_INVALID_TREE_HANDLE) {
    std::fprintf(stderr, "ocsd_create_dcd_tree failed\n");
    std::exit(1);
  }
  ocsd_err_t err = OCSD_OK;
  for (const auto& s : buf.sources)
    if (err == OCSD_OK) err = AddOpenCsdDecoder(tree, s);
  if (err == OCSD_OK) err = ocsd_dt_set_gen_elem_outfn(tree, &OcsdElement, &c);
  for (const Dump& d : dumps)
    if (err == OCSD_OK)
      err = ocsd_dt_add_buffer_mem_acc(tree, d.address, OCSD_MEM_SPACE_ANY, d.bytes.data(),
                                       static_cast<uint32_t>(d.bytes.size()));
  mabutrace::bench::FeedOpenCsd(tree, err, "full decoder", in, chunk);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{"Full ETE decode: mabutrace vs OpenCSD on the same input and memory image"};
  a.AddTo(app);
  app.add_option("--capture", a.capture, "snapshot whose trace and memory image are decoded");
  app.add_flag("--ours-only", a.ours_only, "skip OpenCSD (for profiling)");
  std::string snapshot;
  app.add_option("--snapshot", snapshot,
                 "any ETE/ETMv4 snapshot folder instead (its first buffer, raw or CoreSight-framed; every source)")
      ->check(CLI::ExistingDirectory);
  CLI11_PARSE(app, argc, argv);
  ocsd_def_errlog_init(OCSD_ERR_SEV_NONE, 0);
  if (!snapshot.empty()) a.capture = snapshot;

  if (snapshot.empty()) a.RequireDefaultInput((fs::path(a.snapshots) / a.capture).string());
  ed::LoadedSnapshot snap;
  try {
    snap = ed::LoadSnapshotForDecode(snapshot.empty() ? fs::path(a.snapshots) / a.capture : fs::path(snapshot));
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "%s\n", ex.what());
    return 1;
  }
  if (snap.buffers.empty() || (snap.buffers[0].buffer.format != mabutrace::snapshot::BufferFormat::kSourceData &&
                               snap.buffers[0].buffer.format != mabutrace::snapshot::BufferFormat::kCoresight)) {
    std::fprintf(stderr, "%s: needs a raw or CoreSight-framed ETE/ETMv4 buffer\n", a.capture.c_str());
    return 1;
  }
  const ed::DecodeBuffer& buf = snap.buffers[0];
  const std::vector<uint8_t> unit = mabutrace::snapshot::ReadBinaryFile(buf.buffer.file);
  const std::vector<uint8_t> in = mabutrace::bench::Repeat(unit, a.min_mib);

  // OpenCSD's memory accessors belong to the tree, not to a core: the dumps
  // of every traced core, each address once (the cores of one system share
  // their kernel image).
  std::vector<Dump> dumps;
  for (const auto& src : buf.sources)
    if (const auto* core = snap.snap.CoreOfSource(src.name))
      for (const auto& d : core->dumps) {
        const bool seen =
            std::any_of(dumps.begin(), dumps.end(), [&](const Dump& x) { return x.address == d.address; });
        if (!seen && fs::exists(d.file)) dumps.push_back({d.address, mabutrace::snapshot::ReadDump(d)});
      }

  Count ours, ocsd;
  const double t_ours = mabutrace::bench::BestSeconds(
      a.repeat, [&] { return RunOurs(buf, in, a.chunk); }, &ours);
  const double t_ocsd = a.ours_only ? 1e30
                                    : mabutrace::bench::BestSeconds(
                                          a.repeat, [&] { return RunOpenCsd(buf, dumps, in, a.chunk); }, &ocsd);
  const double mb = static_cast<double>(in.size()) / 1e6;
  const double ours_mbs = mb / t_ours, ocsd_mbs = mb / t_ocsd;
  if (a.json) {
    std::printf(
        "{\"capture\":\"%s\",\"input_bytes\":%zu,\"chunk\":%zu,\"repeat\":%d,\"opencsd_version\":"
        "\"%s\","
        "\"mabutrace\":{\"seconds\":%.6f,\"mb_per_s\":%.2f,\"elements\":%" PRIu64 ",\"ranges\":%" PRIu64
        ",\"instructions\":%" PRIu64
        "},"
        "\"opencsd\":{\"seconds\":%.6f,\"mb_per_s\":%.2f,\"elements\":%" PRIu64 ",\"ranges\":%" PRIu64
        ",\"instructions\":%" PRIu64 "},\"ratio\":%.2f}\n",
        a.capture.c_str(), in.size(), a.chunk, a.repeat, ocsd_get_version_str(), t_ours, ours_mbs, ours.elements,
        ours.ranges, ours.instructions, t_ocsd, ocsd_mbs, ocsd.elements, ocsd.ranges, ocsd.instructions,
        ours_mbs / ocsd_mbs);
  } else {
    std::printf("input: %s x %zu = %.1f MiB (%zu bytes), chunk %zu, best of %d\n", a.capture.c_str(),
                in.size() / unit.size(), static_cast<double>(in.size()) / 1048576.0, in.size(), a.chunk, a.repeat);
    std::printf("mabutrace full decode  : %8.2f MB/s  (%" PRIu64 " elements, %" PRIu64 " ranges, %" PRIu64
                " instructions)\n",
                ours_mbs, ours.elements, ours.ranges, ours.instructions);
    std::printf("OpenCSD %-6s full dec.: %8.2f MB/s  (%" PRIu64 " elements, %" PRIu64 " ranges, %" PRIu64
                " instructions)\n",
                ocsd_get_version_str(), ocsd_mbs, ocsd.elements, ocsd.ranges, ocsd.instructions);
    std::printf("ratio: %.2fx\n", ours_mbs / ocsd_mbs);
  }
  return 0;
}
