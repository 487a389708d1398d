// SPDX-License-Identifier: MIT
// cmd_ete.cpp: `mabutrace arm packets SNAPSHOT_DIR|FILE.bin [options]`,
// and the same as `mabutrace ete packets` (SPEC §4 R-F1/R-F5): list the
// packets of a snapshot's trace buffers, or of a raw trace file described by
// a trace-unit .ini (--config). The protocol is chosen per trace unit
// (ete/trace_protocol.h): ETE and ETMv4 units are decoded by the ETE/ETMv4
// packet processor, ETMv3 units by host/etm3, PTM units by host/ptm
// (cmd_ptm.cpp) and ITM units by host/itm (cmd_itm.cpp), listed in that
// order after the buffer's ETE/ETMv4 sources; a source of another protocol
// (STM) is named on stderr as not decoded (exit code 1) and the others are
// listed.
//
//   text:  OpenCSD-lister lines, "Idx:12; ID:0; [0x01 0x00 ];\tI_TRACE_INFO : ..."
//          with a "# source ..." line before each source's packets
//   jsonl: one JSON object per packet: source, trace_id, offset, raw, type,
//          ocsd and the decoded fields (docs/ete.md)
// Decode errors go to stderr as "FILE: byte N (trace ID 0xI): ..."; the exit
// code is then 1, but every packet before and after the error is listed.
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_io.h"
#include "command.h"
#include "ete/ete_packet_text.h"
#include "ete/ete_source.h"
#include "ete/trace_protocol.h"
#include "etm3/etm3_packet_text.h"
#include "etm3/etm3_source.h"
#include "itm_cli.h"
#include "ptm_cli.h"
#include "snapshot/snapshot.h"

namespace mabutrace::cli {
namespace {

struct EteOptions {
  std::string input;
  std::string source;
  std::string buffer;
  std::string format = "text";
  std::string config;
  std::string input_format = "source_data";
  std::string output = "-";
  bool opencsd = false;
};

struct Output {
  FILE* f = stdout;
  std::string buf;
  bool jsonl = false;
  std::vector<std::string> source_names;
  std::string file;  // for error messages
  uint64_t errors = 0;
  void Flush() {
    if (!buf.empty()) std::fwrite(buf.data(), 1, buf.size(), f);
    buf.clear();
  }
};

void OnPacket(void* c, size_t source, const ete::EtePacket& p) {
  auto* o = static_cast<Output*>(c);
  if (o->jsonl)
    ete::FormatJson(p, o->source_names[source], &o->buf);
  else
    ete::FormatLine(p, &o->buf);
  o->buf.push_back('\n');
  if (o->buf.size() > (1u << 16)) o->Flush();
}

void OnEtm3Packet(void* c, size_t source, const etm3::Etm3Packet& p) {
  auto* o = static_cast<Output*>(c);
  if (o->jsonl)
    etm3::FormatJson(p, o->source_names[source], &o->buf);
  else
    etm3::FormatLine(p, &o->buf);
  o->buf.push_back('\n');
  if (o->buf.size() > (1u << 16)) o->Flush();
}

void OnError(void* c, size_t source, uint64_t, const std::string& message) {
  auto* o = static_cast<Output*>(c);
  ++o->errors;
  o->Flush();
  std::fflush(o->f);
  std::fprintf(stderr, "%s: %s%s\n", o->file.c_str(),
               source == SIZE_MAX ? "" : (o->source_names[source] + ": ").c_str(), message.c_str());
}

// Streams `path` ('-' = stdin) through `dec` in 1 MiB chunks.
template <typename Decoder>
bool Feed(const std::string& path, Decoder* dec) {
  std::optional<InputFile> in = InputFile::Open(path);
  if (!in) return false;
  std::vector<uint8_t> chunk(1 << 20);
  size_t n;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), in->get())) > 0) dec->Push(chunk.data(), n);
  const bool ok = !std::ferror(in->get());
  if (!ok) std::fprintf(stderr, "mabutrace: %s: read error: %s\n", in->name().c_str(), std::strerror(errno));
  dec->Finish();
  return ok;
}

int DecodeBuffer(const snapshot::BufferFormat format, std::vector<ete::SourceSpec> sources, const std::string& file,
                 const std::string& buffer_name, const EteOptions& opt, Output* out) {
  out->source_names.clear();
  for (const auto& s : sources) out->source_names.push_back(s.name);
  out->file = file;
  if (!out->jsonl) {
    for (const auto& s : sources)
      out->buf += "# source " + s.name + " buffer " + buffer_name + " (" + file + ", " +
                  snapshot::BufferFormatName(format) + "): " + s.Describe() + "\n";
  }
  ete::BufferDecoder dec(format, std::move(sources), &OnPacket, &OnError, out,
                         opt.opencsd ? ete::ErrorPolicy::kOpenCsd : ete::ErrorPolicy::kResync);
  bool ok = Feed(file, &dec);
  out->Flush();
  return ok ? kExitOk : kExitBadInput;
}

// The ETMv3 sources of a buffer (host/etm3), listed like DecodeBuffer's.
int DecodeEtm3Buffer(const snapshot::BufferFormat format, std::vector<etm3::Etm3SourceSpec> sources,
                     const std::string& file, const std::string& buffer_name, const EteOptions& opt, Output* out) {
  out->source_names.clear();
  for (const auto& s : sources) out->source_names.push_back(s.name);
  out->file = file;
  if (!out->jsonl) {
    for (const auto& s : sources)
      out->buf += "# source " + s.name + " buffer " + buffer_name + " (" + file + ", " +
                  snapshot::BufferFormatName(format) + "): " + s.config.Describe() + "\n";
  }
  etm3::Etm3BufferDecoder dec(format, std::move(sources), &OnEtm3Packet, &OnError, out,
                              opt.opencsd ? etm3::ErrorPolicy::kOpenCsd : etm3::ErrorPolicy::kResync);
  bool ok = Feed(file, &dec);
  out->Flush();
  return ok ? kExitOk : kExitBadInput;
}

int RunEtePackets(const EteOptions& opt) {
  Output out;
  out.jsonl = opt.format == "jsonl";
  if (opt.format != "text" && opt.format != "jsonl") {
    std::fprintf(stderr, "ete packets: --format must be text or jsonl\n");
    return kExitUsage;
  }
  std::optional<OutputFile> file = OutputFile::Create(opt.output);
  if (!file) return kExitBadInput;
  out.f = file->get();
  int rc = kExitOk;
  try {
    std::error_code ec;
    if (opt.input != "-" && std::filesystem::is_directory(opt.input, ec)) {
      snapshot::Snapshot snap = snapshot::ReadSnapshot(opt.input);
      bool any = false;
      for (const auto& buf : snap.buffers) {
        if (!opt.buffer.empty() && buf.name != opt.buffer) continue;
        for (const ete::UndecodedSource& u : ete::UndecodedSources(snap, buf)) {
          if (!opt.source.empty() && u.name != opt.source) continue;
          if (u.protocol == ete::TraceProtocol::kItm) continue;  // host/itm lists it below
          std::fprintf(stderr, "%s: %s\n", buf.file.string().c_str(), u.Message(buf.name).c_str());
          ++out.errors;
        }
        std::vector<ete::SourceSpec> sources = ete::SnapshotSources(snap, buf);
        if (!opt.source.empty()) {
          std::vector<ete::SourceSpec> keep;
          for (auto& s : sources)
            if (s.name == opt.source) keep.push_back(s);
          sources.swap(keep);
        }
        if (!sources.empty()) {
          any = true;
          int r = DecodeBuffer(buf.format, std::move(sources), buf.file.string(), buf.name, opt, &out);
          if (r != kExitOk) rc = r;
        }
        std::vector<etm3::Etm3SourceSpec> etm3_sources;
        for (auto& s : etm3::SnapshotEtm3Sources(snap, buf))
          if (opt.source.empty() || s.name == opt.source) etm3_sources.push_back(s);
        if (!etm3_sources.empty()) {
          any = true;
          int r = DecodeEtm3Buffer(buf.format, std::move(etm3_sources), buf.file.string(), buf.name, opt, &out);
          if (r != kExitOk) rc = r;
        }
        out.Flush();  // PTM sources: host/ptm (ptm_cli.h)
        bool read_ok = true;
        if (ListPtmPackets(snap, buf, {out.jsonl, opt.opencsd, opt.source}, out.f, &out.errors, &read_ok)) any = true;
        // ITM sources: host/itm (itm_cli.h), as `mabutrace itm packets` lists them.
        if (ListItmSources(opt.input, buf.name, {false, out.jsonl, opt.source}, out.f, &out.errors, &read_ok))
          any = true;
        if (!read_ok) rc = kExitBadInput;
      }
      if (!any) {
        std::fprintf(stderr, "%s: no ETE, ETMv4, ETMv3, PTM or ITM trace source%s%s%s\n", opt.input.c_str(),
                     opt.source.empty() ? "" : " named ", opt.source.c_str(),
                     opt.buffer.empty() ? "" : (" in buffer " + opt.buffer).c_str());
        rc = kExitBadInput;
      }
    } else {
      if (opt.input != "-" && !std::filesystem::exists(opt.input, ec)) {
        std::fprintf(stderr, "mabutrace: %s: no such file or directory\n", opt.input.c_str());
        return kExitBadInput;
      }
      if (opt.config.empty()) {
        std::fprintf(stderr, "%s: a raw trace file needs --config TRACE_UNIT.ini\n", opt.input.c_str());
        return kExitUsage;
      }
      snapshot::Device dev = snapshot::ReadDeviceIni(opt.config);
      snapshot::BufferFormat fmt;
      if (opt.input_format == "source_data")
        fmt = snapshot::BufferFormat::kSourceData;
      else if (opt.input_format == "coresight")
        fmt = snapshot::BufferFormat::kCoresight;
      else if (opt.input_format == "dstream_coresight")
        fmt = snapshot::BufferFormat::kDstreamCoresight;
      else {
        std::fprintf(stderr, "ete packets: unknown --input-format %s\n", opt.input_format.c_str());
        return kExitUsage;
      }
      const ete::TraceProtocol protocol = ete::ProtocolOfType(dev.type);
      if (protocol == ete::TraceProtocol::kItm) {
        std::fprintf(stderr, "%s: %s is an ITM (%s): list a raw ITM/SWO file with `mabutrace itm packets`\n",
                     opt.config.c_str(), dev.name.c_str(), dev.type.c_str());
        return kExitUsage;
      }
      if (protocol == ete::TraceProtocol::kStm || protocol == ete::TraceProtocol::kUnknown) {
        std::fprintf(stderr, "%s: %s is of type '%s': not an ETE, ETMv4, ETMv3 or PTM trace unit\n", opt.config.c_str(),
                     dev.name.c_str(), dev.type.c_str());
        return kExitUsage;
      }
      if (protocol == ete::TraceProtocol::kEtmV3) {
        std::vector<etm3::Etm3SourceSpec> sources{{dev.name, etm3::Etm3Config::FromDevice(dev)}};
        rc = DecodeEtm3Buffer(fmt, std::move(sources), opt.input, "-", opt, &out);
      } else if (protocol == ete::TraceProtocol::kPtm) {
        const std::vector<ptm::PtmSource> sources{{dev.name, dev.type, ptm::PtmConfig::FromDevice(dev)}};
        bool read_ok = true;
        out.Flush();
        ListPtmFile(opt.input, "-", fmt, sources, {out.jsonl, opt.opencsd, opt.source}, out.f, &out.errors, &read_ok);
        if (!read_ok) rc = kExitBadInput;
      } else {
        std::vector<ete::SourceSpec> sources{ete::SourceOf(dev)};
        rc = DecodeBuffer(fmt, std::move(sources), opt.input, "-", opt, &out);
      }
    }
  } catch (const snapshot::SnapshotError& e) {
    out.Flush();
    std::fprintf(stderr, "%s\n", e.what());
    rc = kExitBadInput;
  }
  out.Flush();
  if (!file->Finish()) rc = kExitBadInput;
  if (rc == kExitOk && out.errors) rc = kExitBadInput;
  return rc;
}

// `PARENT packets`; PARENT is the parent of `PARENT decode` / `PARENT export`
// (cmd_ete_decode.cpp, registered after it); the runner is `PARENT packets`.
Runner SetupPackets(CLI::App& app, const char* parent_name, const char* parent_help) {
  auto o = std::make_shared<EteOptions>();
  auto* parent = app.add_subcommand(parent_name, parent_help);
  parent->require_subcommand(1);
  auto* pk = parent->add_subcommand(
      "packets", "List the packets, one per line (OpenCSD-lister text or JSON lines); protocol per trace unit");
  pk->add_option("INPUT", o->input, "snapshot directory, or a raw trace file ('-' = stdin) with --config")->required();
  pk->add_option("--source", o->source, "only this trace source (device name in the snapshot)");
  pk->add_option("--buffer", o->buffer, "only this trace buffer (name in trace.ini)");
  pk->add_option("--format", o->format, "text (default) or jsonl")->check(CLI::IsMember({"text", "jsonl"}));
  pk->add_option("--config", o->config, "trace unit .ini ([device] + [regs]) for a raw trace file");
  pk->add_option("--input-format", o->input_format,
                 "raw file format: source_data (default), coresight, dstream_coresight")
      ->check(CLI::IsMember({"source_data", "coresight", "dstream_coresight"}));
  pk->add_option("-o,--output", o->output, "output file ('-' = stdout, default)");
  pk->add_flag("--opencsd", o->opencsd,
               "after a reserved header, carry on at the next byte like OpenCSD 1.8.0 "
               "(default: resynchronise at the next A-Sync)");
  return Runner{pk, [o] { return RunEtePackets(*o); }};
}

// `arm` (orders 36-38) and its alias `ete` (40-42).
Registration reg_arm{"arm",
                     [](CLI::App& app) {
                       return SetupPackets(app, "arm",
                                           "Arm trace units (ETE, ETMv4 A/R and M profile, ETMv3, PTM/PFT, ITM; "
                                           "protocol chosen per trace unit): packets, full decode and timeline "
                                           "export");
                     },
                     36};
Registration reg{"ete",
                 [](CLI::App& app) {
                   return SetupPackets(
                       app, "ete",
                       "Arm ETE, ETMv4, ETMv3, PTM and ITM trace (same as `arm`): packets, full decode and "
                       "timeline export");
                 },
                 40};

}  // namespace
}  // namespace mabutrace::cli
