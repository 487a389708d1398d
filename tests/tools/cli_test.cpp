// SPDX-License-Identifier: MIT
// cli_test.cpp: drives the `mabutrace` executable as a user would:
// convert of a runtime stream (from examples/uart_stream) to JSON and
// text, bad input (exit 1 with the byte offset), usage errors (exit 2),
// capture --url against a real loopback server, and capture --serial
// through a socat pty pair.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <csignal>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tool_process.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr int kItems = 50;

using mt_tools::ReadFile;
using mt_tools::Result;
using mt_tools::RunProgram;
using mt_tools::TempDir;

Result Cli(const std::vector<std::string>& args) { return RunProgram(MABUTRACE_CLI_PATH, args); }

// Makes a stream file with the runtime (examples/uart_stream into a file).
fs::path MakeStream(const TempDir& dir) {
  const fs::path p = dir.path / "trace.bin";
  const Result r = RunProgram(UART_STREAM_PATH, {p.string(), "--items", std::to_string(kItems)});
  EXPECT_EQ(r.rc, 0) << r.err;
  return p;
}

// The uart_stream workload's checks on a Chrome JSON trace: strict parse,
// balanced B/E with equal names per tid, times not backwards, exact
// counters, both flow ends, thread names.
void CheckWorkloadJson(const std::string& text) {
  json doc;
  ASSERT_NO_THROW(doc = json::parse(text)) << text.substr(0, 200);
  ASSERT_TRUE(doc.contains("traceEvents"));
  std::map<int64_t, std::vector<std::string>> stacks;
  std::map<int64_t, double> last_ts;
  std::map<int64_t, std::string> names;
  std::vector<int64_t> counters;
  std::multiset<uint64_t> starts, ends;
  int produce = 0, consume = 0;
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e.at("ph");
    const int64_t tid = e.at("tid");
    if (ph == "M") {
      if (e.at("name") == "thread_name") names[tid] = e["args"]["name"];
      continue;
    }
    const double ts = e.at("ts");
    if (ph != "f") {  // a resolved flow end may be written late
      EXPECT_GE(ts, last_ts[tid]) << e.dump();
      last_ts[tid] = ts;
    }
    if (ph == "B") {
      stacks[tid].push_back(e.at("name"));
      produce += e["name"] == "produce";
      consume += e["name"] == "consume";
    } else if (ph == "E") {
      ASSERT_FALSE(stacks[tid].empty()) << "E without B: " << e.dump();
      EXPECT_EQ(stacks[tid].back(), e.at("name"));
      stacks[tid].pop_back();
    } else if (ph == "C") {
      EXPECT_EQ(e.at("name"), "produced");
      counters.push_back(e["args"].at("value").get<int64_t>());
    } else if (ph == "s") {
      starts.insert(e.at("id").get<uint64_t>());
    } else if (ph == "f") {
      EXPECT_EQ(e.at("bp"), "e");
      ends.insert(e.at("id").get<uint64_t>());
    } else if (ph == "i") {
      EXPECT_EQ(e.at("s"), "t");
    }
  }
  for (const auto& [tid, st] : stacks) EXPECT_TRUE(st.empty()) << "open slices on " << tid;
  EXPECT_EQ(produce, kItems);
  EXPECT_EQ(consume, kItems);
  ASSERT_EQ(counters.size(), size_t(kItems));
  for (int i = 0; i < kItems; ++i) EXPECT_EQ(counters[size_t(i)], i);
  EXPECT_EQ(starts.size(), size_t(kItems));
  EXPECT_EQ(starts, ends);
  std::set<std::string> thread_names;
  for (const auto& [tid, n] : names) thread_names.insert(n);
  EXPECT_TRUE(thread_names.count("main"));
  EXPECT_TRUE(thread_names.count("worker \xe2\x9c\x93"));
  EXPECT_EQ(doc["metadata"].at("lost_records"), 0);
  EXPECT_EQ(doc["metadata"].at("orphan_scope_ends"), 0);
}

// `in` converts (exit 0) to JSON holding the uart_stream workload.
void ConvertsToTheWorkload(const fs::path& in, const TempDir& dir) {
  const fs::path out = dir.path / "trace.json";
  const Result r = Cli({"convert", in.string(), "-o", out.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  CheckWorkloadJson(ReadFile(out));
}

TEST(CliConvert, StreamToJson) {
  TempDir dir;
  const fs::path in = MakeStream(dir);
  ConvertsToTheWorkload(in, dir);
}

TEST(CliConvert, StdinToStdoutWithFormat) {
  TempDir dir;
  const fs::path in = MakeStream(dir);
  // stdin through a shell redirection would need a shell: use /bin/sh.
  const Result r = RunProgram("/bin/sh", {"-c", std::string("exec '") + MABUTRACE_CLI_PATH +
                                                    "' convert - -o - --format json < '" + in.string() + "'"});
  ASSERT_EQ(r.rc, 0) << r.err;
  CheckWorkloadJson(r.out);
}

TEST(CliConvert, StreamToText) {
  TempDir dir;
  const fs::path in = MakeStream(dir);
  const fs::path out = dir.path / "trace.txt";
  const Result r = Cli({"convert", in.string(), "-o", out.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string text = ReadFile(out);
  EXPECT_NE(text.find("C    produced = 49\n"), std::string::npos) << text.substr(0, 400);
  EXPECT_NE(text.find("worker \xe2\x9c\x93\n"), std::string::npos);
  size_t lines = 0, begins = 0, ends = 0;
  std::istringstream s(text);
  for (std::string line; std::getline(s, line);) {
    ++lines;
    begins += line.find(" B    ") != std::string::npos;
    ends += line.find(" E    ") != std::string::npos;
  }
  EXPECT_EQ(begins, ends);
  EXPECT_EQ(begins, size_t(2 * kItems));
}

TEST(CliConvert, TruncatedStreamIsExit1WithOffset) {
  TempDir dir;
  const std::string bytes = ReadFile(MakeStream(dir));
  ASSERT_GT(bytes.size(), 100u);
  const fs::path cut = dir.path / "cut.bin";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  const Result r = Cli({"convert", cut.string(), "-o", (dir.path / "o.json").string()});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find(cut.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("offset"), std::string::npos) << r.err;
  // What came before the cut is still a valid JSON trace.
  json partial;
  EXPECT_NO_THROW(partial = json::parse(ReadFile(dir.path / "o.json")));
}

TEST(CliConvert, BadMagicIsExit1AtOffset0) {
  TempDir dir;
  std::string bytes = ReadFile(MakeStream(dir));
  bytes[0] = char(bytes[0] ^ 0x55);
  const fs::path bad = dir.path / "bad.bin";
  std::ofstream(bad, std::ios::binary) << bytes;
  const Result r = Cli({"convert", bad.string(), "-o", (dir.path / "o.txt").string()});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("offset 0"), std::string::npos) << r.err;
}

// A number past double's range (1e400) in a .json input ends the read with
// an error naming the file, the byte offset and the number: never a silent
// stop, a zero or an infinity (the JSON library reports the overflow, the
// reader turns it into the offset).
TEST(CliConvert, NumberPastDoubleRangeIsExit1WithFileAndOffset) {
  TempDir dir;
  const fs::path in = dir.path / "huge.json";
  std::ofstream(in) << "[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":1e400,\"pid\":1,\"tid\":1}]";
  const Result r = Cli({"convert", in.string(), "-o", (dir.path / "o.json").string()});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("huge.json: offset 39: not valid JSON: number overflow parsing '1e400'"), std::string::npos)
      << r.err;
}

// Another producer's .json with what the model cannot hold as written (an
// arg it keeps no room for, a fractional counter): converted, exit 0, and
// both stderr and the output's metadata name the counts.
TEST(CliConvert, WhatTheModelCannotHoldIsSaidAndCounted) {
  TempDir dir;
  const fs::path in = dir.path / "other.json";
  std::ofstream(in) << "[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"n\":3}},"
                       "{\"ph\":\"C\",\"name\":\"load\",\"pid\":1,\"tid\":1,\"ts\":2,\"args\":{\"value\":0.5}}]";
  const fs::path out = dir.path / "out.json";
  const Result r = Cli({"convert", in.string(), "-o", out.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("counted in the metadata: import_counters_rounded 1, import_args_ignored 1"), std::string::npos)
      << r.err;
  const auto doc = nlohmann::json::parse(ReadFile(out));
  EXPECT_EQ(doc["metadata"].value("import_args_ignored", 0), 1);
  EXPECT_EQ(doc["metadata"].value("import_counters_rounded", 0), 1);
}

TEST(CliConvert, MissingInputIsExit1) {
  const Result r = Cli({"convert", "/nonexistent/x.bin", "-o", "/tmp/never.json"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("/nonexistent/x.bin"), std::string::npos);
}

// A convert whose writing fails half-way (here a 1-block file size limit,
// SIGXFSZ ignored so write() fails with EFBIG) leaves neither OUT nor its
// OUT.tmp behind, and an OUT from before stays as it was.
TEST(CliConvert, FailedWriteLeavesNoPartialOutput) {
  TempDir dir;
  const fs::path in = MakeStream(dir);
  const fs::path out = dir.path / "o.json";
  std::ofstream(out) << "before";
  const Result r = RunProgram("/bin/sh", {"-c", std::string("trap '' XFSZ; ulimit -f 1; exec '") + MABUTRACE_CLI_PATH +
                                                    "' convert '" + in.string() + "' -o '" + out.string() + "'"});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("not written"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("o.json: write error"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(".tmp"), std::string::npos) << r.err;  // the user named o.json
  EXPECT_EQ(ReadFile(out), "before");
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
  // Without the limit the same convert replaces it.
  ConvertsToTheWorkload(in, dir);
}

// Staging renames over OUT, which would replace whatever OUT is: a link
// must stay a link (its target gets the trace) and a device must stay the
// device (written in place, its errors reported), as with `> OUT`.
TEST(CliConvert, OutputThroughALinkOrIntoADeviceKeepsWhatOutIs) {
  TempDir dir;
  const fs::path in = MakeStream(dir);
  const fs::path target = dir.path / "target.json";
  std::ofstream(target) << "before";
  const fs::path link = dir.path / "link.json";
  fs::create_symlink(target, link);
  const Result r = Cli({"convert", in.string(), "-o", link.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  CheckWorkloadJson(ReadFile(target));
  EXPECT_FALSE(fs::exists(target.string() + ".tmp"));
  EXPECT_FALSE(fs::exists(link.string() + ".tmp"));

  // Devices like /dev/null (1,3) and /dev/full (1,7), made in the test's
  // own folder: only root may.
  const fs::path null_dev = dir.path / "null";
  const fs::path full_dev = dir.path / "full";
  if (mknod(null_dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      mknod(full_dev.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) {
    GTEST_SKIP() << "mknod needs root: the device half is not run";
  }
  const Result to_null = Cli({"convert", in.string(), "-o", null_dev.string(), "--format", "json"});
  EXPECT_EQ(to_null.rc, 0) << to_null.err;
  EXPECT_TRUE(fs::is_character_file(null_dev));
  const Result to_full = Cli({"convert", in.string(), "-o", full_dev.string(), "--format", "json"});
  EXPECT_EQ(to_full.rc, 1) << to_full.err;
  EXPECT_NE(to_full.err.find("No space left on device"), std::string::npos) << to_full.err;
  EXPECT_TRUE(fs::is_character_file(full_dev));
}

// A listing that did not reach its reader is not exit 0: every command's
// stdout is checked once it returns (here on the full device).
TEST(CliUsage, AListingThatCannotBeWrittenIsExit1) {
  ASSERT_TRUE(fs::is_character_file("/dev/full"));
  int ran = 0;
  for (const std::string args : {"trbe status 0x00400000 --reg TRBSR_EL1", "etm-config --decode TRCCONFIGR=0x18C1"}) {
    // (A build without the host decoders, as the TSan one, has neither:
    // a command that does not list to /dev/null is not in this build.)
    if (RunProgram("/bin/sh", {"-c", std::string("exec '") + MABUTRACE_CLI_PATH + "' " + args + " > /dev/null"}).rc !=
        0)
      continue;
    ++ran;
    const Result r =
        RunProgram("/bin/sh", {"-c", std::string("exec '") + MABUTRACE_CLI_PATH + "' " + args + " > /dev/full"});
    EXPECT_EQ(r.rc, 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << args << ": " << r.err;
  }
  if (ran == 0) GTEST_SKIP() << "this build has neither trbe nor etm-config";
}

TEST(CliUsage, ErrorsAreExit2AndHelpIs0) {
  EXPECT_EQ(Cli({}).rc, 2);
  EXPECT_EQ(Cli({"frobnicate"}).rc, 2);
  EXPECT_EQ(Cli({"convert", "x.bin"}).rc, 2);                       // no -o
  EXPECT_EQ(Cli({"convert", "x.bin", "-o", "out.unknown"}).rc, 2);  // no format
  EXPECT_EQ(Cli({"convert", "x.bin", "-o", "o", "--format", "xml"}).rc, 2);
  EXPECT_EQ(Cli({"capture", "-o", "o.json"}).rc, 2);  // no source
  EXPECT_EQ(Cli({"capture", "--url", "ftp://x", "-o", "o.json"}).rc, 2);
  EXPECT_EQ(Cli({"capture", "--serial", "/dev/null", "--baud", "12345", "-o", "o.bin"}).rc, 2);
  for (const char* cmd : {"convert", "capture"}) {
    const Result h = Cli({cmd, "--help"});
    EXPECT_EQ(h.rc, 0);
    EXPECT_NE(h.out.find("--output"), std::string::npos) << h.out;
  }
  EXPECT_EQ(Cli({"--help"}).rc, 0);
}

// Where a command belongs, a word that is none is named and the commands
// there are listed (CLI11 alone says "A subcommand is required").
TEST(CliUsage, AnUnknownCommandIsNamedWithTheCommandsThere) {
  const Result top = Cli({"frobnicate"});
  EXPECT_EQ(top.rc, 2);
  EXPECT_NE(top.err.find("unknown command 'frobnicate' (one of: convert,"), std::string::npos) << top.err;
  EXPECT_EQ(Cli({"--version"}).rc, 0);
  // The sanitizer builds leave the decoders (and their commands) out.
  if (top.err.find(" stm,") == std::string::npos || top.err.find(" ete,") == std::string::npos)
    GTEST_SKIP() << "this build has no stm/ete commands (MABUTRACE_BUILD_TOOLS decoders off)";
  const Result r = Cli({"stm", "frob"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown command 'stm frob' (one of: packets, decode;"), std::string::npos) << r.err;
  const Result none = Cli({"ete"});
  EXPECT_EQ(none.rc, 2);
  EXPECT_NE(none.err.find("ete needs a command: one of packets, decode"), std::string::npos) << none.err;
}

// Each command's --format names what that command writes: convert writes no
// raw stream, so its error must not offer "raw".
TEST(CliUsage, AnUnknownFormatIsNamedWithTheCommandsFormats) {
  TempDir dir;
  const std::string out = (dir.path / "x.json").string();
  const Result r = Cli({"convert", "--format", "jsn", "-o", out, "/dev/null"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("jsn not in {json,pftrace,text}"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(Cli({"convert", "--format", "raw", "-o", out, "/dev/null"}).rc, 2);
  const Result merge = Cli({"merge", "--format", "raw", "-o", out, "a=/dev/null"});
  // The TSan build leaves the host decoders (and merge) out.
  if (merge.err.find("unknown command 'merge'") != std::string::npos)
    GTEST_SKIP() << "this build has no merge command (MABUTRACE_BUILD_TOOLS decoders off)";
  EXPECT_EQ(merge.rc, 2);
  EXPECT_NE(merge.err.find("raw not in {json,pftrace,text}"), std::string::npos) << merge.err;
}

TEST(CliCapture, UrlFromLoopbackServer) {
  ChildProcess server(SERVE_HELPER_PATH, {});
  ASSERT_TRUE(server.started());
  const auto line = server.WaitForLine("listening on ", 30s);
  ASSERT_TRUE(line) << server.Stderr();
  const std::string url = line->substr(std::string("listening on ").size());
  TempDir dir;
  const fs::path out = dir.path / "live.json";
  const Result r = Cli({"capture", "--url", url, "-o", out.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  json doc;
  ASSERT_NO_THROW(doc = json::parse(ReadFile(out)));
  int counters = 0;
  for (const json& e : doc["traceEvents"]) counters += e["ph"] == "C" && e["name"] == "served_count";
  EXPECT_EQ(counters, 10);
  const fs::path pf = dir.path / "live.pftrace";
  const Result r2 = Cli({"capture", "--url", url, "-o", pf.string()});
  ASSERT_EQ(r2.rc, 0) << r2.err;
  EXPECT_GT(fs::file_size(pf), 0u);
  // protoc accepts it against Perfetto's schema.
  const Result d =
      RunProgram("/bin/sh", {"-c", std::string("protoc --decode=perfetto.protos.Trace -I '") + PERFETTO_PROTO_DIR +
                                       "' perfetto_trace.proto < '" + pf.string() + "'"});
  EXPECT_EQ(d.rc, 0) << d.err;
  EXPECT_NE(d.out.find("served_count"), std::string::npos);
  // The full URL of the resource, as the capture page shows it, is taken
  // as it is; a path the server does not have is its HTTP status.
  const fs::path named = dir.path / "named.json";
  const Result r3 = Cli({"capture", "--url", url + "/trace.json", "-o", named.string()});
  ASSERT_EQ(r3.rc, 0) << r3.err;
  EXPECT_NO_THROW(json::parse(ReadFile(named)));
  const Result r4 = Cli({"capture", "--url", url + "/no-such-trace.json", "-o", (dir.path / "n.json").string()});
  EXPECT_EQ(r4.rc, 1);
  EXPECT_NE(r4.err.find("/no-such-trace.json: HTTP 404"), std::string::npos) << r4.err;
}

TEST(CliCapture, UrlConnectionRefusedIsExit1) {
  // Port 1 on loopback: nothing listens there in a test environment.
  TempDir dir;
  const fs::path out = dir.path / "x.json";
  { std::ofstream(out) << "earlier capture"; }
  const Result r = Cli({"capture", "--url", "http://127.0.0.1:1", "-o", out.string()});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("127.0.0.1:1/trace.json: cannot connect"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(out), "earlier capture");  // a failed capture leaves it alone
}

// True once process `pid` has `target` open.
bool HasOpen(pid_t pid, const fs::path& target) {
  std::error_code ec;
  const fs::path want = fs::canonical(target, ec);
  if (ec) return false;
  for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code ec2;
    if (fs::read_symlink(e.path(), ec2) == want) return true;
  }
  return false;
}

TEST(CliCapture, SerialThroughPtyPairUntilSigint) {
  TempDir dir;
  const fs::path a = dir.path / "ttyA", b = dir.path / "ttyB";
  ChildProcess socat("/usr/bin/socat",
                     {"-d", "-d", "pty,raw,echo=0,link=" + a.string(), "pty,raw,echo=0,link=" + b.string()});
  ASSERT_TRUE(socat.started()) << "socat missing (scripts/install-deps.sh installs it)";
  for (int i = 0; i < 3000 && !(fs::exists(a) && fs::exists(b)); ++i) usleep(10000);
  ASSERT_TRUE(fs::exists(a) && fs::exists(b)) << socat.Stderr();
  const fs::path raw = dir.path / "serial.bin";
  ChildProcess capture(MABUTRACE_CLI_PATH, {"capture", "--serial", b.string(), "--baud", "115200", "-o", raw.string()});
  ASSERT_TRUE(capture.started());
  // Write only once the capture has the port open (no sleep-and-hope).
  for (int i = 0; i < 3000 && !HasOpen(capture.pid(), b); ++i) usleep(10000);
  ASSERT_TRUE(HasOpen(capture.pid(), b)) << capture.Stderr();
  const fs::path sent = dir.path / "sent.bin";
  const Result w = RunProgram(
      UART_STREAM_PATH, {a.string(), "--baud", "115200", "--items", std::to_string(kItems), "--tee", sent.string()});
  ASSERT_EQ(w.rc, 0) << w.err;
  const uintmax_t want = fs::file_size(sent);
  // The raw capture is flushed per read: wait until every byte is there.
  std::error_code ec;
  for (int i = 0; i < 6000 && fs::file_size(raw, ec) < want; ++i) usleep(10000);
  capture.Signal(SIGINT);
  const auto st = capture.Wait(30s);
  ASSERT_TRUE(st) << "capture did not stop at SIGINT";
  EXPECT_EQ(*st, 0) << capture.Stderr();
  ASSERT_EQ(ReadFile(raw), ReadFile(sent));
  ConvertsToTheWorkload(raw, dir);
}

TEST(CliCapture, SerialConvertsOnTheFlyUntilEof) {
  // A FIFO stands in for a device whose writer goes away: EOF ends the
  // capture, and the .json output is converted while reading.
  TempDir dir;
  const fs::path fifo = dir.path / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string bytes = ReadFile(MakeStream(dir));
  const fs::path out = dir.path / "live.json";
  ChildProcess capture(MABUTRACE_CLI_PATH, {"capture", "--serial", fifo.string(), "-o", out.string()});
  ASSERT_TRUE(capture.started());
  const int fd = ::open(fifo.c_str(), O_WRONLY);  // waits for the capture's open
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), ssize_t(bytes.size()));
  ::close(fd);
  const auto st = capture.Wait(60s);
  ASSERT_TRUE(st) << "capture did not stop at EOF";
  EXPECT_EQ(*st, 0) << capture.Stderr();
  CheckWorkloadJson(ReadFile(out));
}

}  // namespace
