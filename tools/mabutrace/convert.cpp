// convert.cpp: see convert.h.
#include "convert.h"

#include <cerrno>
#include <cstring>
#include <vector>

namespace mabutrace::cli {

Converter::Converter(Format format, FILE* out, std::string in_name)
    : in_name_(std::move(in_name)), out_(out) {
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
  if (!fatal_.ok) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", in_name_.c_str(), fatal_.message.c_str());
    rc = kExitBadInput;
  }
  const auto& errs = conv_->decoder().record_errors();
  for (size_t i = 0; i < errs.size() && i < 20; ++i)
    std::fprintf(stderr, "mabutrace: %s: damaged record skipped: %s\n", in_name_.c_str(),
                 errs[i].message.c_str());
  if (errs.size() > 20)
    std::fprintf(stderr, "mabutrace: %s: %zu more damaged records\n", in_name_.c_str(),
                 errs.size() - 20);
  if (!errs.empty()) rc = kExitBadInput;
  if (!conv_->write_ok() || std::fflush(out_) != 0 || std::ferror(out_)) {
    std::fprintf(stderr, "mabutrace: writing the output failed: %s\n", std::strerror(errno));
    rc = kExitBadInput;
  }
  return rc;
}

int RunConvert(const std::string& in, const std::string& out, Format format) {
  if (format == Format::kRaw) {
    std::fprintf(stderr, "mabutrace: convert: the output format must be json, pftrace or text\n");
    return kExitUsage;
  }
  if (!MakeWriter(format, [](const char*, size_t) { return true; })) {
    std::fprintf(stderr, "mabutrace: convert: this build has no writer for that format\n");
    return kExitUsage;
  }
  FILE* fin = in == "-" ? stdin : std::fopen(in.c_str(), "rb");
  if (!fin) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", in.c_str(), std::strerror(errno));
    return kExitBadInput;
  }
  FILE* fout = out == "-" ? stdout : std::fopen(out.c_str(), "wb");
  if (!fout) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", out.c_str(), std::strerror(errno));
    if (fin != stdin) std::fclose(fin);
    return kExitBadInput;
  }
  int rc;
  {
    Converter conv(format, fout, in == "-" ? "<stdin>" : in);
    std::vector<uint8_t> buf(64 * 1024);
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), fin)) > 0) {
      if (!conv.Feed(buf.data(), n)) break;
    }
    bool read_failed = std::ferror(fin);
    rc = conv.Finish();
    if (read_failed) {
      std::fprintf(stderr, "mabutrace: %s: read error\n", in.c_str());
      rc = kExitBadInput;
    }
  }
  if (fin != stdin) std::fclose(fin);
  if (fout != stdout && std::fclose(fout) != 0) rc = kExitBadInput;
  return rc;
}

}  // namespace mabutrace::cli
