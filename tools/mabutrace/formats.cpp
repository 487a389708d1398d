// SPDX-License-Identifier: MIT
// formats.cpp: see formats.h.
#include "formats.h"

#include <cctype>
#include <cstdio>

#include "json_writer.h"
#include "perfetto_writer.h"
#include "text_writer.h"

namespace mabutrace::cli {

namespace {
std::string Lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

std::optional<Format> ParseFormat(const std::string& flag) {
  const std::string s = Lower(flag);
  if (s == "json") return Format::kJson;
  if (s == "pftrace" || s == "perfetto") return Format::kPftrace;
  if (s == "text" || s == "txt") return Format::kText;
  if (s == "raw") return Format::kRaw;
  return std::nullopt;
}

std::optional<Format> FormatFromPath(const std::string& given) {
  const std::string path = Lower(given);
  auto ends = [&](const char* ext) {
    const std::string e(ext);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".json")) return Format::kJson;
  if (ends(".pftrace") || ends(".perfetto-trace")) return Format::kPftrace;
  if (ends(".txt") || ends(".text")) return Format::kText;
  if (ends(".bin") || ends(".mtrace") || ends(".stream")) return Format::kRaw;
  return std::nullopt;
}

std::unique_ptr<model::EventSink> MakeWriter(Format f, exporter::WriteFn write) {
  switch (f) {
    case Format::kJson: return std::make_unique<exporter::JsonWriter>(std::move(write));
    case Format::kPftrace: return std::make_unique<exporter::PerfettoWriter>(std::move(write));
    case Format::kText: return std::make_unique<exporter::TextWriter>(std::move(write));
    default: return nullptr;
  }
}

std::optional<Format> PickFormat(const std::string& flag, const std::string& out, std::optional<Format> fallback) {
  if (!flag.empty()) {
    auto f = ParseFormat(flag);
    if (!f) std::fprintf(stderr, "mabutrace: unknown --format '%s' (json, pftrace, text or raw)\n", flag.c_str());
    return f;
  }
  if (auto f = FormatFromPath(out)) return f;
  if (fallback) return fallback;
  std::fprintf(stderr, "mabutrace: cannot tell the format of '%s': use --format\n", out.c_str());
  return std::nullopt;
}

}  // namespace mabutrace::cli
