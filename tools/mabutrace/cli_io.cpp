// SPDX-License-Identifier: MIT
// cli_io.cpp: see cli_io.h.
#include "cli_io.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <istream>

namespace mabutrace::cli {

// ---- files ------------------------------------------------------------------

namespace {

void Fail(const std::string& name, const char* what, int err) {
  std::fprintf(stderr, "mabutrace: %s: %s: %s\n", name.c_str(), what, std::strerror(err));
}

// Appends the rest of `f` to *out in 64 KiB reads, up to kMaxReadWhole
// bytes: what is read whole (a raw RAM dump, a raw SWO file, a memory image)
// is smaller; an endless input (/dev/zero, a pipe) gets an error, not all of
// the memory.
template <class Bytes>
bool ReadRest(FILE* f, const std::string& name, Bytes* out) {
  char buf[64 * 1024];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (out->size() + n > kMaxReadWhole) {
      std::fprintf(stderr, "mabutrace: %s: larger than %llu MiB, which is read whole only up to that size\n",
                   name.c_str(), static_cast<unsigned long long>(kMaxReadWhole >> 20));
      return false;
    }
    out->insert(out->end(), buf, buf + n);
  }
  if (!std::ferror(f)) return true;
  Fail(name, "read error", errno ? errno : EIO);
  return false;
}

template <class Bytes>
bool ReadWhole(const std::string& path, Bytes* out) {
  out->clear();
  auto in = InputFile::Open(path);
  return in && in->ReadAll(out);
}

}  // namespace

void CliFile::Close::operator()(FILE* f) const {
  if (f != stdin && f != stdout) std::fclose(f);
}

FILE* CliFile::OpenPath(const std::string& path, const char* mode, FILE* std_file, const char* failed) {
  if (path == "-") return std_file;
  FILE* f = std::fopen(path.c_str(), mode);
  if (!f) Fail(path, failed, errno);
  return f;
}

std::optional<InputFile> InputFile::Open(const std::string& path) {
  FILE* f = OpenPath(path, "rb", stdin, "cannot open");
  if (!f) return std::nullopt;
  InputFile in(f, f == stdin ? "<stdin>" : path);
  // fopen opens a directory for reading; its first read would fail.
  struct stat st;
  if (::fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    Fail(path, "cannot open", EISDIR);
    return std::nullopt;
  }
  return in;
}

bool InputFile::ReadAll(std::string* out) { return ReadRest(get(), name(), out); }
bool InputFile::ReadAll(std::vector<uint8_t>* out) { return ReadRest(get(), name(), out); }

std::optional<OutputFile> OutputFile::Create(const std::string& path) {
  FILE* f = OpenPath(path, "wb", stdout, "cannot create");
  if (!f) return std::nullopt;
  return OutputFile(f, f == stdout ? "<stdout>" : path);
}

std::optional<OutputFile> OutputFile::CreateStaged(const std::string& out) {
  if (out == "-") return Create(out);
  FILE* f = std::fopen(StagingPath(out).c_str(), "wb");
  if (!f) {
    Fail(out, "cannot create", errno);
    return std::nullopt;
  }
  return OutputFile(f, out);
}

bool OutputFile::Write(const void* data, size_t len) {
  if (std::fwrite(data, 1, len, get()) == len) return true;
  if (!write_errno_) write_errno_ = errno ? errno : EIO;
  return false;
}

namespace {

// What OUT names in the end: a symbolic link's target, so that the rename
// replaces the file it points at and leaves the link a link.
std::string Destination(const std::string& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(out, ec))) return out;
  const fs::path target = fs::weakly_canonical(out, ec);
  return ec ? out : target.string();
}

// A rename replaces whatever the destination is: stage only where that is a
// regular file or nothing. A device, FIFO or socket (/dev/full, a pipe to a
// viewer) is written in place, as `> OUT` would.
bool Staged(const std::string& dest) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(dest, ec);
  return !std::filesystem::exists(st) || std::filesystem::is_regular_file(st);
}

}  // namespace

std::string StagingPath(const std::string& out) {
  if (out == "-") return out;
  const std::string dest = Destination(out);
  return Staged(dest) ? dest + ".tmp" : dest;
}

bool CommitOutput(const char* who, const std::string& out, bool written) {
  const std::string tmp = StagingPath(out);
  const std::string dest = Destination(out);
  if (tmp == dest) {  // written in place: nothing to rename or remove
    if (!written) std::fprintf(stderr, "mabutrace: %s: %s not written\n", who, out.c_str());
    return written;
  }
  if (written && std::rename(tmp.c_str(), dest.c_str()) != 0) {
    std::fprintf(stderr, "mabutrace: %s: cannot rename %s to %s: %s\n", who, tmp.c_str(), out.c_str(),
                 std::strerror(errno));
    written = false;
  }
  if (!written) {
    std::remove(tmp.c_str());
    std::fprintf(stderr, "mabutrace: %s: %s not written\n", who, out.c_str());
  }
  return written;
}

bool OutputFile::Finish() {
  FILE* f = release();
  // A writer may have written to get() directly: its failures show only in
  // ferror (their errno is long gone), and a full disk often only at the
  // flush or the close.
  bool failed = write_errno_ != 0;
  int err = write_errno_;
  if (std::fflush(f) != 0) failed = true, err = err ? err : errno;
  failed = failed || std::ferror(f);
  if (f != stdout && std::fclose(f) != 0) failed = true, err = err ? err : errno;
  if (!failed) return true;
  if (err)
    Fail(name(), "write error", err);
  else
    std::fprintf(stderr, "mabutrace: %s: write error\n", name().c_str());
  return false;
}

bool ReadFile(const std::string& path, std::string* out) { return ReadWhole(path, out); }
bool ReadFile(const std::string& path, std::vector<uint8_t>* out) { return ReadWhole(path, out); }

bool WriteFile(const std::string& path, std::string_view data) {
  auto out = OutputFile::Create(path);
  if (!out) return false;
  out->Write(data);
  return out->Finish();
}

void ReportProblems(const std::string& name, const std::vector<std::string>& problems, size_t limit) {
  for (size_t i = 0; i < problems.size() && i < limit; ++i)
    std::fprintf(stderr, "mabutrace: %s: %s\n", name.c_str(), problems[i].c_str());
  if (problems.size() > limit)
    std::fprintf(stderr, "mabutrace: %s: %zu more problem%s\n", name.c_str(), problems.size() - limit,
                 problems.size() - limit == 1 ? "" : "s");
}

// ---- numbers and ranges -----------------------------------------------------

namespace {

bool EndsWith(std::string_view s, std::string_view end) {
  return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

// Removes a K/KiB/M/MiB suffix from *s; its factor (1 when there is none).
uint64_t TakeSizeSuffix(std::string_view* s) {
  // "KiB" before "K": B is a hex digit, so "0x10KiB" must not lose only "K".
  static constexpr struct {
    std::string_view text;
    uint64_t factor;
  } kSuffixes[] = {{"KiB", 1024}, {"MiB", 1024 * 1024}, {"K", 1024},
                   {"k", 1024},   {"M", 1024 * 1024},   {"m", 1024 * 1024}};
  for (const auto& x : kSuffixes) {
    if (!EndsWith(*s, x.text)) continue;
    s->remove_suffix(x.text.size());
    return x.factor;
  }
  return 1;
}

CLI::Validator NumberValidator(Suffix suffix, uint64_t max) {
  const char* what = suffix == Suffix::kSize ? "(decimal or 0x hex, optional K/M)" : "(decimal or 0x hex)";
  return CLI::Validator(
      [suffix, max, what](std::string& text) -> std::string {
        const auto v = ParseNumber(text, suffix);
        if (!v) return "'" + text + "' is not a number " + what;
        if (*v > max) return "'" + text + "' is above the largest value, " + std::to_string(max);
        text = std::to_string(*v);  // CLI11 reads a leading 0 as octal: hand it plain decimal
        return {};
      },
      suffix == Suffix::kSize ? "[K|M]" : "");
}

}  // namespace

std::optional<uint64_t> ParseNumber(std::string_view text, Suffix suffix) {
  const uint64_t factor = suffix == Suffix::kSize ? TakeSizeSuffix(&text) : 1;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  uint64_t v = 0;
  // from_chars takes no sign, no space and no prefix: only digits remain.
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (v > UINT64_MAX / factor) return std::nullopt;
  return v * factor;
}

std::optional<NumberRange> ParseRange(std::string_view text) {
  const size_t sep = text.find_first_of(":-");
  if (sep == std::string_view::npos) return std::nullopt;
  const auto first = ParseNumber(text.substr(0, sep));
  const auto last = ParseNumber(text.substr(sep + 1));
  if (!first || !last) return std::nullopt;
  return NumberRange{*first, *last};
}

std::optional<NamedNumber> ParseNamedNumber(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == 0 || eq == std::string_view::npos) return std::nullopt;
  const auto value = ParseNumber(text.substr(eq + 1));
  if (!value) return std::nullopt;
  return NamedNumber{std::string(text.substr(0, eq)), *value};
}

namespace {
// CLI11 hands a typed option its token through operator>>: the whole token
// must parse.
template <class T, class Parse>
std::istream& ReadToken(std::istream& in, T& out, Parse parse) {
  std::string token;
  in >> token;
  if (const auto parsed = parse(token))
    out = *parsed;
  else
    in.setstate(std::ios::failbit);
  return in;
}
}  // namespace

std::istream& operator>>(std::istream& in, NumberRange& r) { return ReadToken(in, r, ParseRange); }
std::istream& operator>>(std::istream& in, NamedNumber& r) { return ReadToken(in, r, ParseNamedNumber); }

CLI::Validator Number(uint64_t max) { return NumberValidator(Suffix::kNone, max); }
CLI::Validator Size(uint64_t max) { return NumberValidator(Suffix::kSize, max); }

std::optional<int64_t> ParseDuration(std::string_view text) {
  const std::string s(text);
  size_t i = 0;
  const bool neg = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) ++i;
  const size_t digits = i;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == digits) return std::nullopt;
  const std::string number = s.substr(digits, i - digits);
  char* end = nullptr;
  const long double v = std::strtold(number.c_str(), &end);
  if (end != number.c_str() + number.size()) return std::nullopt;
  const std::string unit = s.substr(i);
  long double scale = 0;
  if (unit.empty() || unit == "ns") scale = 1;
  if (unit == "us") scale = 1e3L;
  if (unit == "ms") scale = 1e6L;
  if (unit == "s") scale = 1e9L;
  if (scale == 0 || !(v * scale < 9.2e18L)) return std::nullopt;
  const int64_t ns = static_cast<int64_t>(std::llroundl(v * scale));
  return neg ? -ns : ns;
}

CLI::Validator DurationCheck() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (ParseDuration(text)) return {};
        return "'" + text + "' is not a duration (e.g. 1.7ms, 250us, 12ns)";
      },
      "DURATION");
}

namespace {

// The whole of `text` as a real number (strtod's syntax: 1e6, 0x10, inf,
// nan); nullopt when empty or with anything after the number. The checks
// below add their own range.
std::optional<double> ParseReal(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') return std::nullopt;
  return v;
}

}  // namespace

CLI::Validator PositiveCheck() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<double> v = ParseReal(text);
        if (v && std::isfinite(*v) && *v > 0) return {};
        return "'" + text + "' is not a number above 0";
      },
      "NUMBER>0");
}

CLI::Validator FrequencyCheck() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<double> v = ParseReal(text);
        if (v && *v >= 1 && *v <= 1e12 && *v == std::floor(*v)) return {};
        return "'" + text + "' is not a whole number of Hz from 1 to 1e12";
      },
      "HZ");
}

CLI::Validator RangeCheck() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (ParseRange(text)) return {};
        return "'" + text + "' is not START:END (or START-END; decimal or 0x hex)";
      },
      "START:END");
}

CLI::Validator NamedNumberCheck(uint64_t max) {
  char limit[40] = "";
  if (max != UINT64_MAX) std::snprintf(limit, sizeof limit, ", at most 0x%llx", static_cast<unsigned long long>(max));
  return CLI::Validator(
      [max, limit = std::string(limit)](std::string& text) -> std::string {
        const auto v = ParseNamedNumber(text);
        if (v && v->value <= max) return {};
        return "'" + text + "' is not NAME=VALUE (VALUE decimal or 0x hex" + limit + ")";
      },
      "NAME=VALUE");
}

}  // namespace mabutrace::cli
