// SPDX-License-Identifier: MIT
// Tests of the snapshot reader (arm-trace-facts.md §7): every shared capture
// (ETE and STM) reads, and bad snapshots fail with the file and key named.
#include <gtest/gtest.h>

#include "shared_data.h"

#include <fstream>
#include <string>

#include <unistd.h>

#include "snapshot/snapshot.h"

namespace fs = std::filesystem;
namespace ss = mabutrace::snapshot;

namespace {

const fs::path kData = fs::path(MABUTRACE_SHARED_DIR) / "data";

std::vector<fs::path> SnapshotDirs() {
  std::vector<fs::path> out;
  for (const char* set : {"ete-snapshots", "stm-snapshots"})
    for (const auto& e : fs::directory_iterator(kData / set))
      if (fs::exists(e.path() / "snapshot.ini")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Snapshot, EverySharedCaptureReads) {
  MABUTRACE_NEEDS_SHARED(kData / "ete-snapshots");
  MABUTRACE_NEEDS_SHARED(kData / "stm-snapshots");
  auto dirs = SnapshotDirs();
  ASSERT_GE(dirs.size(), 24u);
  for (const auto& dir : dirs) {
    SCOPED_TRACE(dir.string());
    ss::Snapshot s = ss::ReadSnapshot(dir);
    EXPECT_FALSE(s.devices.empty());
    ASSERT_FALSE(s.buffers.empty());
    for (const auto& b : s.buffers) {
      EXPECT_FALSE(b.name.empty());
      EXPECT_TRUE(fs::exists(b.file)) << b.file;
    }
    // every source -> buffer pair names an existing buffer; each trace
    // source device has registers
    for (const auto& [src, buf] : s.source_buffers) {
      EXPECT_NE(s.FindBuffer(buf), nullptr) << buf;
      if (const ss::Device* d = s.FindDevice(src)) {
        EXPECT_FALSE(d->regs.empty()) << src;
      }
    }
    // (dump files are not checked: event_test's memory images are absent,
    // as the OpenCSD oracle of that capture also reports)
  }
}

TEST(Snapshot, EteTraceUnitRegistersAndMaps) {
  MABUTRACE_NEEDS_SHARED(kData / "ete-snapshots" / "infrastructure");
  ss::Snapshot s = ss::ReadSnapshot(kData / "ete-snapshots" / "infrastructure");
  const ss::Device* etm0 = s.FindDevice("ETM_0");
  ASSERT_NE(etm0, nullptr);
  EXPECT_EQ(etm0->type, "ETE");
  EXPECT_EQ(etm0->device_class, "trace_source");
  // "TRCIDR0(0x078)=..." is found by name, case-insensitively
  ASSERT_TRUE(etm0->Reg("TRCIDR0").has_value());
  EXPECT_EQ(etm0->Reg("trcidr0"), etm0->Reg("TRCIDR0(0x078)"));
  EXPECT_EQ(etm0->RegOr("NOSUCHREG", 77), 77u);
  const ss::TraceBuffer* etb0 = s.BufferOfSource("ETM_0");
  ASSERT_NE(etb0, nullptr);
  EXPECT_EQ(etb0->format, ss::BufferFormat::kCoresight);
  EXPECT_EQ(s.SourcesOfBuffer(etb0->name).size(), 6u);
  ASSERT_NE(s.CoreOfSource("ETM_0"), nullptr);
  EXPECT_EQ(s.CoreOfSource("ETM_0")->device_class, "core");
}

TEST(Snapshot, BuffersKeepTraceIniSectionOrder) {
  MABUTRACE_NEEDS_SHARED(kData / "ete-snapshots" / "q_elem");
  // q_elem lists "buffers=buffer2,buffer1" and defines [buffer2] first.
  ss::Snapshot s = ss::ReadSnapshot(kData / "ete-snapshots" / "q_elem");
  ASSERT_EQ(s.buffers.size(), 2u);
  EXPECT_EQ(s.buffers[0].section, "buffer2");
  // one core with two sources: repeated keys are kept
  EXPECT_EQ(s.core_sources.size(), 2u);
}

TEST(Snapshot, CoreDumpsHaveFileAddressAndLength) {
  MABUTRACE_NEEDS_SHARED(kData / "ete-snapshots" / "001-ack_test");
  ss::Snapshot s = ss::ReadSnapshot(kData / "ete-snapshots" / "001-ack_test");
  const ss::Device* cpu = s.FindDevice("cpu_0");
  ASSERT_NE(cpu, nullptr);
  ASSERT_FALSE(cpu->dumps.empty());
  const ss::MemoryDump& d = cpu->dumps[0];
  EXPECT_GT(d.length, 0u);
  auto bytes = ss::ReadDump(d);
  EXPECT_EQ(bytes.size(), d.length);
  // "PC(size:64)" keys (':' inside the key) parse
  EXPECT_TRUE(cpu->Reg("PC").has_value());
}

TEST(Snapshot, ParseUnsigned) {
  EXPECT_EQ(ss::ParseUnsigned("0x1F"), 0x1Fu);
  EXPECT_EQ(ss::ParseUnsigned("0X1f"), 0x1Fu);
  EXPECT_EQ(ss::ParseUnsigned("12"), 12u);
  EXPECT_EQ(ss::ParseUnsigned("017"), 15u);
  EXPECT_EQ(ss::ParseUnsigned(" 0 "), 0u);
  EXPECT_EQ(ss::ParseUnsigned("0xFFFFFFFFFFFFFFFF"), ~0ull);
  EXPECT_FALSE(ss::ParseUnsigned("0x1FFFFFFFFFFFFFFFF").has_value());
  EXPECT_FALSE(ss::ParseUnsigned("zz").has_value());
  EXPECT_FALSE(ss::ParseUnsigned("").has_value());
  EXPECT_FALSE(ss::ParseUnsigned("09").has_value());
}

// ---- bad snapshots ----

class BadSnapshot : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mabutrace_snap_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    Write("snapshot.ini", "[snapshot]\nversion=1.0\n[device_list]\ndevice0=ete.ini\n[trace]\nmetadata=trace.ini\n");
    Write("ete.ini", "[device]\nname=ETE_0\nclass=trace_source\ntype=ETE\n[regs]\nTRCIDR0=0x28000EA1\n");
    Write("trace.ini",
          "[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=ETB_0\nfile=t.bin\nformat=source_data\n"
          "[source_buffers]\nETE_0=ETB_0\n");
    Write("t.bin", "x");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  // Expects ReadSnapshot to fail naming `file` and `key`.
  void ExpectError(const std::string& file, const std::string& key) {
    try {
      ss::ReadSnapshot(dir_);
      FAIL() << "no error";
    } catch (const ss::SnapshotError& e) {
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
      EXPECT_NE(e.file().find(file), std::string::npos);
    }
  }
  fs::path dir_;
};

TEST_F(BadSnapshot, GoodBaselineReads) { EXPECT_EQ(ss::ReadSnapshot(dir_).buffers.size(), 1u); }

TEST_F(BadSnapshot, MissingSnapshotIni) {
  fs::remove(dir_ / "snapshot.ini");
  ExpectError("snapshot.ini", "");
}

TEST_F(BadSnapshot, UnsupportedVersion) {
  Write("snapshot.ini", "[snapshot]\nversion=2.0\n");
  ExpectError("snapshot.ini", "[snapshot] version");
}

TEST_F(BadSnapshot, BadRegisterValueNamesTheRegister) {
  Write("ete.ini", "[device]\nname=ETE_0\n[regs]\nTRCIDR0=0xZZ\n");
  ExpectError("ete.ini", "TRCIDR0");
}

TEST_F(BadSnapshot, DuplicateRegister) {
  Write("ete.ini", "[device]\nname=ETE_0\n[regs]\nTRCIDR0=1\ntrcidr0(0x78)=2\n");
  ExpectError("ete.ini", "trcidr0");
}

// A trace buffer that is a directory: an error naming it, not an attempt
// to allocate the directory stream's huge end offset (every reader of a
// buffer file goes through ReadBinaryFile: arm, stm, cptracer).
TEST_F(BadSnapshot, BufferFileThatIsADirectoryIsAnErrorNamingIt) {
  fs::remove(dir_ / "t.bin");
  fs::create_directory(dir_ / "t.bin");
  try {
    ss::ReadBinaryFile(dir_ / "t.bin");
    FAIL() << "no error";
  } catch (const ss::SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find("t.bin"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Is a directory"), std::string::npos) << e.what();
    // The bare text, for callers that name the file themselves (DecodeItmInput).
    EXPECT_EQ(e.message(), "Is a directory");
  }
}

// message() is the text without "<file>: [section] key: ".
TEST(SnapshotErrorTest, MessageIsTheBareText) {
  const ss::SnapshotError e("d/trace.ini", "[buffer0] format", "unknown format 'zip'");
  EXPECT_STREQ(e.what(), "d/trace.ini: [buffer0] format: unknown format 'zip'");
  EXPECT_EQ(e.message(), "unknown format 'zip'");
  EXPECT_EQ(ss::SnapshotError("f.bin", "", "cannot open").message(), "cannot open");
}

// DS-5's "[timestamp] frequency=HZ" in trace.ini is read, with where it came from.
TEST_F(BadSnapshot, TimestampFrequencyIsRead) {
  EXPECT_EQ(ss::ReadSnapshot(dir_).timestamp_frequency, 0u);
  Write("trace.ini",
        "[timestamp]\nfrequency=25000000\n[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=ETB_0\nfile=t.bin\n"
        "format=source_data\n");
  const ss::Snapshot s = ss::ReadSnapshot(dir_);
  EXPECT_EQ(s.timestamp_frequency, 25000000u);
  EXPECT_NE(s.timestamp_frequency_source.find("trace.ini [timestamp] frequency"), std::string::npos)
      << s.timestamp_frequency_source;
}

TEST_F(BadSnapshot, BadTimestampFrequencyNamesTheKey) {
  Write("trace.ini",
        "[timestamp]\nfrequency=25MHz\n[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=ETB_0\nfile=t.bin\n"
        "format=source_data\n");
  ExpectError("trace.ini", "[timestamp] frequency");
}

TEST_F(BadSnapshot, MissingDeviceFile) {
  fs::remove(dir_ / "ete.ini");
  ExpectError("ete.ini", "");
}

TEST_F(BadSnapshot, DeviceWithoutName) {
  Write("ete.ini", "[device]\nclass=trace_source\n");
  ExpectError("ete.ini", "[device] name");
}

TEST_F(BadSnapshot, UnknownBufferFormat) {
  Write("trace.ini", "[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=ETB_0\nfile=t.bin\nformat=zip\n");
  ExpectError("trace.ini", "[buffer0] format");
}

TEST_F(BadSnapshot, ListedBufferWithoutSection) {
  Write("trace.ini",
        "[trace_buffers]\nbuffers=buffer0,buffer9\n[buffer0]\nname=ETB_0\nfile=t.bin\nformat="
        "coresight\n");
  ExpectError("trace.ini", "buffers");
}

TEST_F(BadSnapshot, SourceOfUnknownBuffer) {
  Write("trace.ini",
        "[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=ETB_0\nfile=t.bin\nformat=coresight\n"
        "[source_buffers]\nETE_0=ETB_7\n");
  ExpectError("trace.ini", "[source_buffers] ETE_0");
}

TEST_F(BadSnapshot, DumpWithoutAddress) {
  Write("ete.ini", "[device]\nname=cpu\nclass=core\n[dump1]\nfile=t.bin\n");
  ExpectError("ete.ini", "[dump1] address");
}

TEST_F(BadSnapshot, DumpLongerThanItsFile) {
  Write("ete.ini", "[device]\nname=cpu\nclass=core\n[dump1]\nfile=t.bin\naddress=0x1000\nlength=0x10\n");
  ss::Snapshot s = ss::ReadSnapshot(dir_);
  try {
    ss::ReadDump(s.devices[0].dumps[0]);
    FAIL() << "no error";
  } catch (const ss::SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find("t.bin"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("length"), std::string::npos);
  }
}

TEST_F(BadSnapshot, SyntaxErrorNamesTheLine) {
  Write("ete.ini", "[device]\nname=ETE_0\n[regs\nTRCIDR0=1\n");
  ExpectError("ete.ini", "line 3");
}

// RequireReg: a register a decoder needs. Missing, or a value with a bit
// outside the register's valid bits, is an error naming the .ini, the key
// and the value; never a masked value (ETMTRACEIDR 0x90 taken for 0x10).
TEST(DeviceRequireReg, ValueInsideTheValidBits) {
  ss::Device d;
  d.ini_file = "snap/ETM_0.ini";
  d.regs = {{"ETMTRACEIDR", 0x10}, {"ETMCR", 0xC000D000}};
  EXPECT_EQ(d.RequireReg("ETMTRACEIDR", 0x7F), 0x10u);
  EXPECT_EQ(d.RequireReg("etmcr(0x0)"), 0xC000D000u);
}

TEST(DeviceRequireReg, BitsOutsideTheValidOnesAreAnErrorNamingFileKeyAndValue) {
  ss::Device d;
  d.ini_file = "snap/ETM_0.ini";
  d.regs = {{"ETMTRACEIDR", 0x90}, {"ETMCR", 0x100000000}};
  try {
    d.RequireReg("ETMTRACEIDR", 0x7F);
    FAIL() << "0x90 accepted as a 7-bit trace ID";
  } catch (const ss::SnapshotError& e) {
    EXPECT_STREQ(e.what(), "snap/ETM_0.ini: [regs] ETMTRACEIDR: 0x90 sets bits outside 0x7f");
    EXPECT_EQ(e.key(), "[regs] ETMTRACEIDR");
  }
  // A 32-bit register by default: a wider value is not cut to its low half.
  EXPECT_THROW(d.RequireReg("ETMCR"), ss::SnapshotError);
}

TEST(DeviceRequireReg, MissingIsAnErrorNamingFileAndKey) {
  ss::Device d;
  d.ini_file = "snap/ETM_0.ini";
  try {
    d.RequireReg("ETMCR");
    FAIL() << "no error";
  } catch (const ss::SnapshotError& e) {
    EXPECT_STREQ(e.what(), "snap/ETM_0.ini: [regs] ETMCR: missing register");
  }
}

// Reg32Or: an optional register; absent gives the fallback, present is
// checked like RequireReg (ETMIDR 0x1411CF300 is not read as 0x411CF300).
TEST(DeviceReg32Or, FallbackWhenAbsentCheckedWhenPresent) {
  ss::Device d;
  d.ini_file = "snap/PTM_0.ini";
  d.regs = {{"ETMCCER", 0x34C01AC2}, {"ETMIDR", 0x1411CF300}};
  EXPECT_EQ(d.Reg32Or("ETMCCER", 0), 0x34C01AC2u);
  EXPECT_EQ(d.Reg32Or("ETMTRACEIDR", 0x10, 0x7F), 0x10u);
  try {
    d.Reg32Or("ETMIDR", 0);
    FAIL() << "a 33-bit ETMIDR cut to 32 bits";
  } catch (const ss::SnapshotError& e) {
    EXPECT_STREQ(e.what(), "snap/PTM_0.ini: [regs] ETMIDR: 0x1411cf300 sets bits outside 0xffffffff");
  }
}

}  // namespace
