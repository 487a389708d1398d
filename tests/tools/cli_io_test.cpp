// SPDX-License-Identifier: MIT
// cli_io_test.cpp: the CLI's file and number helpers (tools/mabutrace/cli_io.h):
// the number and range syntax, the CLI11 validators' messages, and files
// with their error lines (stderr captured).
#include "cli_io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {

using namespace mabutrace::cli;
namespace fs = std::filesystem;

TEST(CliNumber, DecimalAndHex) {
  EXPECT_EQ(ParseNumber("0"), 0u);
  EXPECT_EQ(ParseNumber("4096"), 4096u);
  EXPECT_EQ(ParseNumber("0x1000"), 0x1000u);
  EXPECT_EQ(ParseNumber("0XfF"), 0xFFu);
  EXPECT_EQ(ParseNumber("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(ParseNumber("0xffffffffffffffff"), UINT64_MAX);
}

TEST(CliNumber, NoOctalNoSignNoJunk) {
  EXPECT_EQ(ParseNumber("010"), 10u);  // strtoull would say 8
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "0x", "0x-1", "1.5", "12abc", "banana", "18446744073709551616",
                          "0x10000000000000000", "4K"})
    EXPECT_FALSE(ParseNumber(bad)) << bad;
}

TEST(CliNumber, SizeSuffixes) {
  EXPECT_EQ(ParseNumber("4K", Suffix::kSize), 4096u);
  EXPECT_EQ(ParseNumber("4k", Suffix::kSize), 4096u);
  EXPECT_EQ(ParseNumber("1MiB", Suffix::kSize), 1u << 20);
  EXPECT_EQ(ParseNumber("0x10KiB", Suffix::kSize), 16u * 1024);  // B is a hex digit
  EXPECT_EQ(ParseNumber("0x1b", Suffix::kSize), 0x1Bu);
  EXPECT_EQ(ParseNumber("4096", Suffix::kSize), 4096u);
  EXPECT_FALSE(ParseNumber("K", Suffix::kSize));
  EXPECT_FALSE(ParseNumber("4G", Suffix::kSize));
  EXPECT_FALSE(ParseNumber("17592186044416M", Suffix::kSize));  // 2^64 bytes
  EXPECT_EQ(ParseNumber("17592186044415M", Suffix::kSize), UINT64_MAX - 1024 * 1024 + 1);
}

TEST(CliDuration, UnitsSignsAndJunk) {
  EXPECT_EQ(ParseDuration("1.7ms"), 1'700'000);
  EXPECT_EQ(ParseDuration("-250us"), -250'000);
  EXPECT_EQ(ParseDuration("+3s"), 3'000'000'000);
  EXPECT_EQ(ParseDuration("12"), 12);
  EXPECT_EQ(ParseDuration("12ns"), 12);
  EXPECT_EQ(ParseDuration("0.5ns"), 1);  // rounded to the nearest ns
  for (const char* bad : {"", "ms", "1.7 ms", "1.7m", "1..2", "x", "-", "1e3", "99999999999s"})
    EXPECT_FALSE(ParseDuration(bad)) << bad;
}

TEST(CliRange, DashOrColon) {
  auto r = ParseRange("0x8000:0x8fff");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 0x8000u);
  EXPECT_EQ(r->last, 0x8FFFu);
  r = ParseRange("16-32");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 16u);
  EXPECT_EQ(r->last, 32u);
  for (const char* bad : {"", "16", "16-", "-16", ":", "1:2:3", "a-b", "1--2"}) EXPECT_FALSE(ParseRange(bad)) << bad;
}

TEST(CliNamedNumber, NameEqualsValue) {
  auto v = ParseNamedNumber("TRCCONFIGR=0x18C1");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->name, "TRCCONFIGR");
  EXPECT_EQ(v->value, 0x18C1u);
  for (const char* bad : {"", "TRCCONFIGR", "=1", "TRCCONFIGR=", "TRCCONFIGR=xyz", "A=1=2"})
    EXPECT_FALSE(ParseNamedNumber(bad)) << bad;
}

// Parses `args` into a fresh app with `add`; the error text ("" = parsed).
template <class Add>
std::string ParseArgs(std::vector<std::string> args, Add add) {
  CLI::App app;
  add(app);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(CliValidators, NumberOptionNamesTheOption) {
  uint64_t v = 0;
  auto add = [&](CLI::App& app) { app.add_option("--base", v)->transform(Number()); };
  EXPECT_EQ(ParseArgs({"--base", "0x80000000"}, add), "");
  EXPECT_EQ(v, 0x80000000u);
  EXPECT_EQ(ParseArgs({"--base", "010"}, add), "");
  EXPECT_EQ(v, 10u);
  EXPECT_EQ(ParseArgs({"--base", "-1"}, add), "--base: '-1' is not a number (decimal or 0x hex)");
  uint32_t small = 0;
  auto add32 = [&](CLI::App& app) { app.add_option("--trace-id", small)->transform(Number(UINT32_MAX)); };
  EXPECT_EQ(ParseArgs({"--trace-id", "0xffffffff"}, add32), "");
  EXPECT_EQ(small, UINT32_MAX);
  EXPECT_EQ(ParseArgs({"--trace-id", "0x100000000"}, add32),
            "--trace-id: '0x100000000' is above the largest value, 4294967295");
}

TEST(CliValidators, SizeAndOptionalNumbers) {
  std::optional<uint64_t> size;
  auto add = [&](CLI::App& app) { app.add_option("--size", size)->transform(Size()); };
  EXPECT_EQ(ParseArgs({}, add), "");
  EXPECT_FALSE(size);
  EXPECT_EQ(ParseArgs({"--size", "8K"}, add), "");
  EXPECT_EQ(size, 8192u);
  EXPECT_EQ(ParseArgs({"--size", "8X"}, add), "--size: '8X' is not a number (decimal or 0x hex, optional K/M)");
}

TEST(CliValidators, RangeOptions) {
  std::vector<NumberRange> ranges;
  auto add = [&](CLI::App& app) { app.add_option("--include", ranges)->check(RangeCheck()); };
  EXPECT_EQ(ParseArgs({"--include", "0x8000:0x8fff", "--include", "1-2"}, add), "");
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].last, 0x8FFFu);
  EXPECT_EQ(ranges[1].first, 1u);
  EXPECT_EQ(ParseArgs({"--include", "0x8000"}, add),
            "--include: '0x8000' is not START:END (or START-END; decimal or 0x hex)");
}

TEST(CliValidators, NamedNumberOptions) {
  std::vector<NamedNumber> regs;
  auto add = [&](CLI::App& app) { app.add_option("--decode", regs)->check(NamedNumberCheck(UINT32_MAX)); };
  EXPECT_EQ(ParseArgs({"--decode", "A=1", "--decode", "B=0xffffffff"}, add), "");
  ASSERT_EQ(regs.size(), 2u);
  EXPECT_EQ(regs[1].name, "B");
  EXPECT_EQ(regs[1].value, 0xFFFFFFFFu);
  EXPECT_EQ(ParseArgs({"--decode", "B=0x100000000"}, add),
            "--decode: 'B=0x100000000' is not NAME=VALUE (VALUE decimal or 0x hex, at most 0xffffffff)");
}

// ---- files

struct Temp {
  fs::path dir = fs::path(::testing::TempDir()) / "cli_io_test";
  Temp() { fs::create_directories(dir); }
  std::string operator/(const char* name) const { return (dir / name).string(); }
};

TEST(CliFiles, ReadAndWriteWholeFiles) {
  Temp t;
  const std::string bytes("a\0b\xff", 4);
  ASSERT_TRUE(WriteFile(t / "x.bin", bytes));
  std::string text;
  ASSERT_TRUE(ReadFile(t / "x.bin", &text));
  EXPECT_EQ(text, bytes);
  std::vector<uint8_t> raw;
  ASSERT_TRUE(ReadFile(t / "x.bin", &raw));
  EXPECT_EQ(raw, (std::vector<uint8_t>{'a', 0, 'b', 0xFF}));
}

TEST(CliFiles, ErrorsNameTheFile) {
  Temp t;
  std::string text;
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(ReadFile(t / "missing.bin", &text));
  EXPECT_FALSE(InputFile::Open(t.dir.string()));
  EXPECT_FALSE(OutputFile::Create(t / "no/such/dir/out.bin"));
  EXPECT_FALSE(OutputFile::CreateStaged(t / "no/such/dir/staged.bin"));  // the user's OUT, not OUT.tmp
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("mabutrace: " + (t / "missing.bin") + ": cannot open: No such file or directory\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("mabutrace: " + t.dir.string() + ": cannot open: Is a directory\n"), std::string::npos) << err;
  EXPECT_NE(err.find("out.bin: cannot create: No such file or directory\n"), std::string::npos) << err;
  EXPECT_NE(err.find("/staged.bin: cannot create: No such file or directory\n"), std::string::npos) << err;
  EXPECT_EQ(err.find(".tmp"), std::string::npos) << err;
}

TEST(CliFiles, FullDiskIsAWriteError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(WriteFile("/dev/full", std::string(100000, 'x')));
  auto out = OutputFile::Create("/dev/full");
  ASSERT_TRUE(out);
  std::fputs("written by a writer through get()", out->get());
  EXPECT_FALSE(out->Finish());
  out = OutputFile::Create("/dev/full");
  ASSERT_TRUE(out);
  auto write = out->Writer();
  for (int i = 0; i < 100 && write("through Writer() ", 17); ++i) {
  }
  EXPECT_FALSE(out->Finish());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "mabutrace: /dev/full: write error: No space left on device\n"
            "mabutrace: /dev/full: write error: No space left on device\n"
            "mabutrace: /dev/full: write error: No space left on device\n");
}

TEST(CliFiles, DashIsStdio) {
  auto in = InputFile::Open("-");
  ASSERT_TRUE(in);
  EXPECT_TRUE(in->is_stdin());
  EXPECT_EQ(in->name(), "<stdin>");
  auto out = OutputFile::Create("-");
  ASSERT_TRUE(out);
  EXPECT_TRUE(out->is_stdout());
  EXPECT_TRUE(out->Finish());  // flushes, does not close stdout
  EXPECT_NE(std::fputs("", stdout), EOF);
}

TEST(CliFiles, ReportProblemsStopsAtTheLimit) {
  ::testing::internal::CaptureStderr();
  ReportProblems("cap.bin", {"one", "two", "three"}, 2);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "mabutrace: cap.bin: one\nmabutrace: cap.bin: two\nmabutrace: cap.bin: 1 more problem\n");
}

}  // namespace
