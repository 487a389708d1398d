// SPDX-License-Identifier: MIT
// convert.cpp: see convert.h.
#include "convert.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include "cli_io.h"
#include "format/stream_format.h"
#include "import_trace.h"
#include "raw_dump.h"

namespace mabutrace::cli {

TraceFeeder::TraceFeeder(model::EventSink& sink, std::string in_name, ErrorMap map_error, bool keep_unresolved_links)
    : in_name_(std::move(in_name)), map_error_(std::move(map_error)), conv_(sink, keep_unresolved_links) {}

bool TraceFeeder::Feed(const uint8_t* data, size_t len) {
  if (!fatal_.ok) return false;
  fatal_ = conv_.Feed(data, len);
  return fatal_.ok;
}

int TraceFeeder::Finish() {
  host::Status s = conv_.Finish();
  if (fatal_.ok) fatal_ = s;
  int rc = kExitOk;
  auto shown = [&](const host::Status& st) { return map_error_ ? map_error_(st) : st; };
  if (!fatal_.ok) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", in_name_.c_str(), shown(fatal_).message.c_str());
    rc = kExitBadInput;
  }
  const auto& errs = conv_.decoder().record_errors();
  for (size_t i = 0; i < errs.size() && i < 20; ++i)
    std::fprintf(stderr, "mabutrace: %s: damaged record skipped: %s\n", in_name_.c_str(),
                 shown(errs[i]).message.c_str());
  if (errs.size() > 20)
    std::fprintf(stderr, "mabutrace: %s: %zu more damaged records\n", in_name_.c_str(), errs.size() - 20);
  if (!errs.empty()) rc = kExitBadInput;
  return rc;
}

Converter::Converter(Format format, FILE* out, std::string in_name, ErrorMap map_error) : out_(out) {
  writer_ = MakeWriter(format, exporter::FileWriter(out));
  feeder_ = std::make_unique<TraceFeeder>(*writer_, std::move(in_name), std::move(map_error));
}

namespace {

// "writing the output failed" after a writer's Finish or the flush failed.
int OutputCheck(bool sink_ok, FILE* out) {
  if (!sink_ok || std::fflush(out) != 0 || std::ferror(out)) {
    std::fprintf(stderr, "mabutrace: writing the output failed: %s\n", std::strerror(errno));
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

int Converter::Finish() {
  int rc = feeder_->Finish();
  if (OutputCheck(feeder_->sink_ok(), out_) != kExitOk) rc = kExitBadInput;
  return rc;
}

namespace {

// open()'s sink, with `res` marked opened; nullptr (res->rc: bad input)
// when it gave none (it said why).
model::EventSink* OpenSink(const SinkOpener& open, ReadResult* res) {
  model::EventSink* sink = open();
  if (!sink) {
    res->rc = kExitBadInput;
    return nullptr;
  }
  res->opened = true;
  return sink;
}

// A raw RAM dump (docs/raw-dump.md): rebuilt as a stream, then read.
ReadResult ReadRawDump(const std::string& bytes, const std::string& in_name, const std::string& elf_path,
                       const SinkOpener& open, bool keep_links) {
  ReadResult res;
  res.rc = kExitBadInput;
  std::unique_ptr<host::ElfStrings> elf;
  if (!elf_path.empty()) {
    std::string err;
    elf = host::ElfStrings::Open(elf_path, &err);
    if (!elf) {
      std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
      return res;
    }
  } else {
    std::fprintf(stderr, "mabutrace: %s: a raw dump without --elf: names stay unresolved\n", in_name.c_str());
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  host::RawDumpResult dump = host::RawDumpToStream(data, bytes.size(), elf.get());
  if (!dump.fatal.ok) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", in_name.c_str(), dump.fatal.message.c_str());
    return res;
  }
  for (size_t i = 0; i < dump.errors.size() && i < 20; ++i)
    std::fprintf(stderr, "mabutrace: %s: %s\n", in_name.c_str(), dump.errors[i].message.c_str());
  if (dump.errors.size() > 20)
    std::fprintf(stderr, "mabutrace: %s: %zu more problems\n", in_name.c_str(), dump.errors.size() - 20);
  model::EventSink* sink = OpenSink(open, &res);
  if (!sink) return res;
  TraceFeeder feeder(
      *sink, in_name, [&dump](const host::Status& s) { return dump.ToDump(s); }, keep_links);
  feeder.Feed(reinterpret_cast<const uint8_t*>(dump.stream.data()), dump.stream.size());
  res.rc = feeder.Finish();
  res.sink_ok = feeder.sink_ok();
  if (!dump.errors.empty()) res.rc = kExitBadInput;
  return res;
}

// A .json or .pftrace the toolkit wrote (host/import).
ReadResult ReadImported(InputFile& fin, const std::string& head, host::ImportKind kind, const SinkOpener& open) {
  ReadResult res;
  model::EventSink* sink = OpenSink(open, &res);
  if (!sink) return res;
  const host::ImportResult r = host::ImportTrace(kind, fin.get(), head, *sink);
  const char* in_name = fin.name().c_str();
  for (const host::Status& e : r.errors) std::fprintf(stderr, "mabutrace: %s: %s\n", in_name, e.message.c_str());
  if (r.damaged > r.errors.size())
    std::fprintf(stderr, "mabutrace: %s: %llu more damaged packets\n", in_name,
                 static_cast<unsigned long long>(r.damaged - r.errors.size()));
  if (r.skipped)
    std::fprintf(stderr,
                 "mabutrace: %s: %llu events were not passed on: phases the trace model has no place for (such as "
                 "\"P\" samples), no \"ph\", or no \"ts\" that is a time (absent, negative, past 2^64 ns) "
                 "(import_skipped in the metadata)\n",
                 in_name, static_cast<unsigned long long>(r.skipped));
  if (r.out_of_order)
    std::fprintf(stderr,
                 "mabutrace: %s: %llu events are earlier than an event before them on their track; drawn at that "
                 "earlier time (import_out_of_order in the metadata)\n",
                 in_name, static_cast<unsigned long long>(r.out_of_order));
  if (r.x_clipped)
    std::fprintf(stderr,
                 "mabutrace: %s: %llu \"X\" events would end after the \"X\" they start in; ended with it "
                 "(import_x_clipped in the metadata)\n",
                 in_name, static_cast<unsigned long long>(r.x_clipped));
  if (!r.adapted.empty()) {
    std::string counts;
    for (const auto& [key, n] : r.adapted)
      counts += (counts.empty() ? "" : ", ") + std::string(key) + " " + std::to_string(n);
    std::fprintf(stderr,
                 "mabutrace: %s: what the trace model cannot hold as written was adapted, counted in the metadata: %s "
                 "(docs/format.md)\n",
                 in_name, counts.c_str());
  }
  if (!r.fatal.ok) std::fprintf(stderr, "mabutrace: %s: %s\n", in_name, r.fatal.message.c_str());
  if (std::ferror(fin.get())) std::fprintf(stderr, "mabutrace: %s: read error: %s\n", in_name, std::strerror(errno));
  res.rc = !r.fatal.ok || r.damaged || std::ferror(fin.get()) ? kExitBadInput : kExitOk;
  res.sink_ok = r.sink_ok;
  return res;
}

bool IsStream(const std::string& head) {
  return head.size() >= sizeof stream::kMagic && std::memcmp(head.data(), stream::kMagic, sizeof stream::kMagic) == 0;
}

}  // namespace

ReadResult ReadTrace(InputFile& fin, const std::string& elf, const SinkOpener& open, bool keep_links) {
  const std::string& in_name = fin.name();
  ReadResult res;
  // The first bytes tell a stream (magic at 0) from a raw dump.
  std::string head(sizeof stream::kMagic, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), fin.get()));
  // Our own .json / .pftrace (a raw dump with --elf is never one).
  // (named .json / .pftrace, it is ours even with --elf: stats of a
  // snapshot with --elf against a baseline that is its export).
  const std::string ext = std::filesystem::path(in_name).extension().string();
  const bool ours_by_name = ext == ".json" || ext == ".pftrace";
  if (const host::ImportKind kind = elf.empty() || ours_by_name ? host::SniffImport(head) : host::ImportKind::kNone;
      kind != host::ImportKind::kNone) {
    return ReadImported(fin, head, kind, open);
  }
  if (!IsStream(head) && (!elf.empty() || head.size() == sizeof stream::kMagic)) {
    std::string all = head;
    if (!fin.ReadAll(&all)) {
      res.rc = kExitBadInput;
      return res;
    }
    if (!elf.empty() || host::LooksLikeRawDump(reinterpret_cast<const uint8_t*>(all.data()), all.size()))
      return ReadRawDump(all, in_name, elf, open, keep_links);
    model::EventSink* sink = OpenSink(open, &res);  // neither: the stream decoder says what is wrong
    if (!sink) return res;
    TraceFeeder feeder(*sink, in_name, nullptr, keep_links);
    feeder.Feed(reinterpret_cast<const uint8_t*>(all.data()), all.size());
    res.rc = feeder.Finish();
    res.sink_ok = feeder.sink_ok();
    return res;
  }
  model::EventSink* sink = OpenSink(open, &res);
  if (!sink) return res;
  TraceFeeder feeder(*sink, in_name, nullptr, keep_links);
  bool fed = feeder.Feed(reinterpret_cast<const uint8_t*>(head.data()), head.size());
  std::vector<uint8_t> buf(64 * 1024);
  size_t n;
  while (fed && (n = std::fread(buf.data(), 1, buf.size(), fin.get())) > 0) fed = feeder.Feed(buf.data(), n);
  const bool read_failed = std::ferror(fin.get());
  res.rc = feeder.Finish();
  res.sink_ok = feeder.sink_ok();
  if (read_failed) {
    std::fprintf(stderr, "mabutrace: %s: read error: %s\n", in_name.c_str(), std::strerror(errno));
    res.rc = kExitBadInput;
  }
  return res;
}

int RunConvert(const std::string& in, const std::string& out, Format format, const std::string& elf) {
  if (format == Format::kRaw) {
    std::fprintf(stderr, "mabutrace: convert: the output format must be json, pftrace or text\n");
    return kExitUsage;
  }
  if (!MakeWriter(format, [](const char*, size_t) { return true; })) {
    std::fprintf(stderr, "mabutrace: convert: this build has no writer for that format\n");
    return kExitUsage;
  }
  auto fin = InputFile::Open(in);
  if (!fin) return kExitBadInput;
  // Refuse to write over the input (opening OUT would empty it first).
  struct stat si, so;
  if (!fin->is_stdin() && out != "-" && ::fstat(fileno(fin->get()), &si) == 0 && ::stat(out.c_str(), &so) == 0 &&
      si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
    std::fprintf(stderr, "mabutrace: convert: %s is both the input and the output\n", in.c_str());
    return kExitUsage;
  }
  // Staged and committed (cli_io.h): a conversion whose writing fails (a
  // full disk, a size limit) leaves no partial OUT behind, and an OUT from
  // before stays as it was. An input that stops early (truncated, damaged)
  // still gives exit 1 with a complete trace of what came before it.
  std::optional<OutputFile> fout;
  std::unique_ptr<model::EventSink> writer;
  const ReadResult r = ReadTrace(*fin, elf, [&]() -> model::EventSink* {
    fout = OutputFile::CreateStaged(out);
    if (!fout) return nullptr;
    writer = MakeWriter(format, exporter::FileWriter(fout->get()));
    return writer.get();
  });
  if (!r.opened) return r.rc;
  bool written = OutputCheck(r.sink_ok, fout->get()) == kExitOk;
  writer.reset();
  written = fout->Finish() && written;
  if (out == "-") return written ? r.rc : kExitBadInput;
  return CommitOutput("convert", out, written) ? r.rc : kExitBadInput;
}

}  // namespace mabutrace::cli
