// SPDX-License-Identifier: MIT
// cmd_ptm.cpp: the PTM sources of `mabutrace arm packets` (ptm_cli.h).
// Built with host/ptm; it registers no command of its own.
#include <cstring>
#include <vector>

#include "ptm/ptm_packet_text.h"
#include "ptm/ptm_source.h"
#include "ptm_cli.h"

namespace mabutrace::cli {
namespace {

struct PtmOut {
  FILE* f;
  bool jsonl;
  std::string buf;
  std::string file;
  const std::vector<ptm::PtmSource>* sources;
  uint64_t* errors;
  void Flush() {
    if (!buf.empty()) std::fwrite(buf.data(), 1, buf.size(), f);
    buf.clear();
  }
};

}  // namespace

size_t ListPtmPackets(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buf, const PtmListOptions& opt,
                      FILE* out, uint64_t* errors, bool* read_ok) {
  std::vector<ptm::PtmSource> sources;
  for (ptm::PtmSource& s : ptm::SnapshotPtmSources(snap, buf))
    if (opt.source.empty() || s.name == opt.source) sources.push_back(std::move(s));
  if (sources.empty()) return 0;
  ListPtmFile(buf.file.string(), buf.name, buf.format, sources, opt, out, errors, read_ok);
  return sources.size();
}

void ListPtmFile(const std::string& file, const std::string& buffer_name, snapshot::BufferFormat format,
                 const std::vector<ptm::PtmSource>& sources, const PtmListOptions& opt, FILE* out, uint64_t* errors,
                 bool* read_ok) {
  PtmOut o{out, opt.jsonl, {}, file, &sources, errors};
  if (!o.jsonl)
    for (const auto& s : sources)
      o.buf += "# source " + s.name + " buffer " + buffer_name + " (" + o.file + ", " +
               snapshot::BufferFormatName(format) + "): " + s.config.Describe() + "\n";
  auto on_packet = [](void* c, size_t source, const ptm::PtmPacket& p) {
    auto* w = static_cast<PtmOut*>(c);
    if (w->jsonl)
      ptm::FormatJson(p, (*w->sources)[source].name, &w->buf);
    else
      ptm::FormatLine(p, &w->buf);
    w->buf.push_back('\n');
    if (w->buf.size() > (1u << 16)) w->Flush();
  };
  auto on_error = [](void* c, size_t source, uint64_t, const std::string& message) {
    auto* w = static_cast<PtmOut*>(c);
    ++*w->errors;
    w->Flush();
    std::fflush(w->f);
    std::fprintf(stderr, "%s: %s%s\n", w->file.c_str(),
                 source == SIZE_MAX ? "" : ((*w->sources)[source].name + ": ").c_str(), message.c_str());
  };
  ptm::PtmBufferDecoder dec(format, sources, on_packet, on_error, &o,
                            opt.opencsd ? ptm::ErrorPolicy::kOpenCsd : ptm::ErrorPolicy::kResync);
  const bool is_stdin = file == "-";
  FILE* in = is_stdin ? stdin : std::fopen(file.c_str(), "rb");
  if (!in) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", file.c_str(), std::strerror(errno));
    *read_ok = false;
    return;
  }
  std::vector<uint8_t> chunk(1 << 20);
  size_t n;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), in)) > 0) dec.Push(chunk.data(), n);
  if (std::ferror(in)) *read_ok = false;
  if (!is_stdin) std::fclose(in);
  dec.Finish();
  o.Flush();
}

}  // namespace mabutrace::cli
