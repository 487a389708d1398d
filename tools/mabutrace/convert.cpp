// convert.cpp: see convert.h.
#include "convert.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "cli_io.h"
#include "format/stream_format.h"
#include "raw_dump.h"

namespace mabutrace::cli {

Converter::Converter(Format format, FILE* out, std::string in_name, ErrorMap map_error)
    : in_name_(std::move(in_name)), map_error_(std::move(map_error)), out_(out) {
  writer_ = MakeWriter(format, exporter::FileWriter(out));
  conv_ = std::make_unique<host::StreamToModel>(*writer_);
}

bool Converter::Feed(const uint8_t* data, size_t len) {
  if (!fatal_.ok) return false;
  fatal_ = conv_->Feed(data, len);
  return fatal_.ok;
}

int Converter::Finish() {
  host::Status s = conv_->Finish();
  if (fatal_.ok) fatal_ = s;
  int rc = kExitOk;
  auto shown = [&](const host::Status& st) { return map_error_ ? map_error_(st) : st; };
  if (!fatal_.ok) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", in_name_.c_str(), shown(fatal_).message.c_str());
    rc = kExitBadInput;
  }
  const auto& errs = conv_->decoder().record_errors();
  for (size_t i = 0; i < errs.size() && i < 20; ++i)
    std::fprintf(stderr, "mabutrace: %s: damaged record skipped: %s\n", in_name_.c_str(),
                 shown(errs[i]).message.c_str());
  if (errs.size() > 20)
    std::fprintf(stderr, "mabutrace: %s: %zu more damaged records\n", in_name_.c_str(), errs.size() - 20);
  if (!errs.empty()) rc = kExitBadInput;
  if (!conv_->write_ok() || std::fflush(out_) != 0 || std::ferror(out_)) {
    std::fprintf(stderr, "mabutrace: writing the output failed: %s\n", std::strerror(errno));
    rc = kExitBadInput;
  }
  return rc;
}

namespace {

// A raw RAM dump (docs/raw-dump.md): rebuilt as a stream, then converted.
// The output is opened only once the dump is known usable, so a fatal
// problem leaves an existing OUT as it was.
int ConvertRawDump(const std::string& bytes, const std::string& in_name, const std::string& elf_path,
                   const std::string& out, Format format) {
  std::unique_ptr<host::ElfStrings> elf;
  if (!elf_path.empty()) {
    std::string err;
    elf = host::ElfStrings::Open(elf_path, &err);
    if (!elf) {
      std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
      return kExitBadInput;
    }
  } else {
    std::fprintf(stderr, "mabutrace: %s: a raw dump without --elf: names stay unresolved\n", in_name.c_str());
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  host::RawDumpResult dump = host::RawDumpToStream(data, bytes.size(), elf.get());
  if (!dump.fatal.ok) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", in_name.c_str(), dump.fatal.message.c_str());
    return kExitBadInput;
  }
  for (size_t i = 0; i < dump.errors.size() && i < 20; ++i)
    std::fprintf(stderr, "mabutrace: %s: %s\n", in_name.c_str(), dump.errors[i].message.c_str());
  if (dump.errors.size() > 20)
    std::fprintf(stderr, "mabutrace: %s: %zu more problems\n", in_name.c_str(), dump.errors.size() - 20);
  auto fout = OutputFile::Create(out);
  if (!fout) return kExitBadInput;
  int rc;
  {
    Converter conv(format, fout->get(), in_name, [&dump](const host::Status& s) { return dump.ToDump(s); });
    conv.Feed(reinterpret_cast<const uint8_t*>(dump.stream.data()), dump.stream.size());
    rc = conv.Finish();
  }
  if (!fout->Finish()) rc = kExitBadInput;
  return dump.errors.empty() ? rc : kExitBadInput;
}

bool IsStream(const std::string& head) {
  return head.size() >= sizeof stream::kMagic && std::memcmp(head.data(), stream::kMagic, sizeof stream::kMagic) == 0;
}

}  // namespace

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
  const std::string& in_name = fin->name();
  // The first bytes tell a stream (magic at 0) from a raw dump.
  std::string head(sizeof stream::kMagic, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), fin->get()));
  if (!IsStream(head) && (!elf.empty() || head.size() == sizeof stream::kMagic)) {
    std::string all = head;
    if (!fin->ReadAll(&all)) return kExitBadInput;
    if (!elf.empty() || host::LooksLikeRawDump(reinterpret_cast<const uint8_t*>(all.data()), all.size()))
      return ConvertRawDump(all, in_name, elf, out, format);
    auto fout = OutputFile::Create(out);  // neither: the stream decoder says what is wrong
    if (!fout) return kExitBadInput;
    int rc;
    {
      Converter conv(format, fout->get(), in_name);
      conv.Feed(reinterpret_cast<const uint8_t*>(all.data()), all.size());
      rc = conv.Finish();
    }
    return fout->Finish() ? rc : kExitBadInput;
  }
  auto fout = OutputFile::Create(out);
  if (!fout) return kExitBadInput;
  int rc;
  {
    Converter conv(format, fout->get(), in_name);
    bool fed = conv.Feed(reinterpret_cast<const uint8_t*>(head.data()), head.size());
    std::vector<uint8_t> buf(64 * 1024);
    size_t n;
    while (fed && (n = std::fread(buf.data(), 1, buf.size(), fin->get())) > 0) fed = conv.Feed(buf.data(), n);
    const bool read_failed = std::ferror(fin->get());
    rc = conv.Finish();
    if (read_failed) {
      std::fprintf(stderr, "mabutrace: %s: read error: %s\n", in_name.c_str(), std::strerror(errno));
      rc = kExitBadInput;
    }
  }
  return fout->Finish() ? rc : kExitBadInput;
}

}  // namespace mabutrace::cli
