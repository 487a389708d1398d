// SPDX-License-Identifier: MIT
// cli_io.h: how every `mabutrace` command opens its files and reads its
// numbers, so that "-", the error messages and the number syntax are the
// same in every command (docs/cli.md).
//
// Files: "-" is stdin for an input and stdout for an output; stdin and
// stdout are never closed. A failure prints one line on stderr naming the
// file,
//   mabutrace: FILE: cannot open: No such file or directory
//   mabutrace: FILE: write error: No space left on device
// and the call returns nullopt / false (a command then exits with
// kExitBadInput); nothing throws.
//
// Numbers: decimal or 0x hex, no sign (a leading zero is still decimal:
// there is no octal), 64 bits at most; a size may end in K/KiB or M/MiB
// (x 1024). Ranges: "A-B" or "A:B", two such numbers, both ends inclusive.
// Register values: "NAME=VALUE" (--decode TRCCONFIGR=0x18C1).
// As CLI11 options the syntax errors name the option and exit 2:
//   cmd->add_option("--base", o.base, "...")->transform(cli::Number());
//   cmd->add_option("--include", o.ranges, "...")->check(cli::RangeCheck());
#ifndef MABUTRACE_TOOLS_CLI_IO_H
#define MABUTRACE_TOOLS_CLI_IO_H

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mabutrace::cli {

// ---- files ------------------------------------------------------------------

// What InputFile and OutputFile share: the FILE, closed on destruction
// unless it is stdin or stdout, and the name messages give it.
class CliFile {
 public:
  FILE* get() const { return f_.get(); }
  // The path as given; "<stdin>" / "<stdout>" for "-".
  const std::string& name() const { return name_; }

 protected:
  CliFile(FILE* f, std::string name) : f_(f), name_(std::move(name)) {}
  // Opens `path` with `mode`, or takes `std_file` for "-"; nullptr after
  // "mabutrace: PATH: FAILED: REASON".
  static FILE* OpenPath(const std::string& path, const char* mode, FILE* std_file, const char* failed);
  FILE* release() { return f_.release(); }

 private:
  struct Close {
    void operator()(FILE* f) const;
  };
  std::unique_ptr<FILE, Close> f_;
  std::string name_;
};

// A file to read: `path`, or stdin for "-".
// What ReadAll reads at most (a file read whole: a raw dump, a raw SWO
// capture): 2 GiB.
constexpr size_t kMaxReadWhole = size_t(2) << 30;

class InputFile : public CliFile {
 public:
  // nullopt after "mabutrace: PATH: cannot open: REASON" (also when PATH is
  // a directory).
  static std::optional<InputFile> Open(const std::string& path);

  bool is_stdin() const { return get() == stdin; }
  // Appends everything left to *out; false after "mabutrace: NAME: read
  // error: REASON" or when it is larger than kMaxReadWhole.
  bool ReadAll(std::string* out);
  bool ReadAll(std::vector<uint8_t>* out);

 private:
  using CliFile::CliFile;
};

// A file to write: `path`, created or truncated, or stdout for "-".
// An output file is written beside itself as StagingPath(OUT) = OUT.tmp
// and renamed over OUT by CommitOutput once finished ("-", stdout, is
// written directly): a write that fails, or a reader that gives up after
// opening the output, leaves no half file and keeps an OUT from before.
// A symbolic link OUT stages beside its target and replaces the target; an
// OUT that is a device, FIFO or socket is written in place (StagingPath
// returns OUT itself), never replaced.
std::string StagingPath(const std::string& out);
// Renames OUT.tmp to OUT when `written`; else, or when the rename fails,
// removes OUT.tmp and says "mabutrace: WHO: OUT not written" (after the
// rename's reason). True when OUT is in place. Not for "-".
bool CommitOutput(const char* who, const std::string& out, bool written);

class OutputFile : public CliFile {
 public:
  // nullopt after "mabutrace: PATH: cannot create: REASON".
  static std::optional<OutputFile> Create(const std::string& path);
  // StagingPath(out) created, named `out` in every message (the user gave
  // OUT, not OUT.tmp); nullopt after "mabutrace: OUT: cannot create: REASON".
  static std::optional<OutputFile> CreateStaged(const std::string& out);

  bool is_stdout() const { return get() == stdout; }
  // false (no message yet: Finish reports) when not every byte was written.
  bool Write(const void* data, size_t len);
  bool Write(std::string_view s) { return Write(s.data(), s.size()); }
  // Write as a callback for the streaming writers (exporter::WriteFn), so
  // that their failures keep their reason. Valid while this file lives
  // where it is (not moved).
  std::function<bool(const char*, size_t)> Writer() {
    return [this](const char* p, size_t n) { return Write(p, n); };
  }
  // Flushes, and closes a file: false after "mabutrace: NAME: write error:
  // REASON" if this or any earlier write failed, also one a writer made
  // through get() (its REASON is then lost unless the flush repeats it).
  // Call it once; a file not finished is closed by the destructor without a
  // word.
  bool Finish();

 private:
  using CliFile::CliFile;
  int write_errno_ = 0;  // of the first failed write
};

// The whole of `path` ("-" = stdin) into *out (replaced); false after a
// message.
bool ReadFile(const std::string& path, std::string* out);
bool ReadFile(const std::string& path, std::vector<uint8_t>* out);
// `data` as the whole of `path` ("-" = stdout); false after a message.
bool WriteFile(const std::string& path, std::string_view data);

// Prints the first `limit` of `problems` as "mabutrace: NAME: PROBLEM",
// then "mabutrace: NAME: N more problems".
void ReportProblems(const std::string& name, const std::vector<std::string>& problems, size_t limit = 20);

// ---- numbers and ranges -----------------------------------------------------

enum class Suffix { kNone, kSize };  // kSize: K, KiB, M, MiB (x 1024) allowed

// `text` as a number (see the top of this file); nullopt when it is not
// one or does not fit in 64 bits.
std::optional<uint64_t> ParseNumber(std::string_view text, Suffix suffix = Suffix::kNone);

// An inclusive range of numbers ("A-B" or "A:B").
struct NumberRange {
  uint64_t first = 0;
  uint64_t last = 0;
};
// nullopt unless `text` is two numbers joined by '-' or ':'.
std::optional<NumberRange> ParseRange(std::string_view text);
// Lets CLI11 fill NumberRange options (std::optional, std::vector too):
// sets failbit unless the whole token is a range.
std::istream& operator>>(std::istream& in, NumberRange& r);

// A signed duration in ns: a decimal number with an optional sign and
// fraction, and one of ns, us, ms, s (none = ns): "1.7ms", "-250us", "12".
// nullopt when it is not one or does not fit in int64.
std::optional<int64_t> ParseDuration(std::string_view text);

// A register value as the --decode options take it: "NAME=VALUE".
struct NamedNumber {
  // Not an aggregate: CLI11 would build one from the whole token as `name`.
  NamedNumber() = default;
  NamedNumber(std::string n, uint64_t v) : name(std::move(n)), value(v) {}
  std::string name;
  uint64_t value = 0;
};
// nullopt unless `text` is a non-empty name, '=' and a number.
std::optional<NamedNumber> ParseNamedNumber(std::string_view text);
std::istream& operator>>(std::istream& in, NamedNumber& r);

// CLI11 transform for an unsigned integer option: accepts what ParseNumber
// accepts up to `max` and hands CLI11 the decimal text, so 0x hex works
// and "-1", "010" or an overflow is refused with
//   --base: '-1' is not a number (decimal or 0x hex)
CLI::Validator Number(uint64_t max = UINT64_MAX);
// The same with the K/KiB, M/MiB suffixes.
CLI::Validator Size(uint64_t max = UINT64_MAX);
// CLI11 check for a duration option (ParseDuration): "--link-window: 'x'
// is not a duration (e.g. 1.7ms, 250us, 12ns)".
CLI::Validator DurationCheck();
// CLI11 check for a real option that must be above 0 (a frequency, a
// window): "--ts-hz: '0' is not a number above 0" (CLI11's own
// PositiveNumber would print the whole range up to DBL_MAX).
CLI::Validator PositiveCheck();
// CLI11 check for a clock frequency in Hz (--ts-hz, --clock-hz): a whole
// number from 1 to 10^12. The timelines write it to their metadata as an
// integer ("ete.timestamp_hz", "itm.clock_hz"), and a rate outside that
// range would put every time past 2^62 ns or at 0.
CLI::Validator FrequencyCheck();
// CLI11 check for a NumberRange option: "--include: 'x' is not START:END
// (or START-END; decimal or 0x hex)".
CLI::Validator RangeCheck();
// CLI11 check for a NamedNumber option, values up to `max`: "--decode:
// 'X' is not NAME=VALUE (VALUE decimal or 0x hex, at most 0xffffffff)".
CLI::Validator NamedNumberCheck(uint64_t max = UINT64_MAX);

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_CLI_IO_H
