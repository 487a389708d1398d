// SPDX-License-Identifier: MIT
// The register calculator's description file (LoadTracerConfig): every
// number is checked against its key's range as it is read, and an error
// names the file, the key and the value. Before: clock_hz = 1e400 was read
// as inf (the later error named no key) and stm_channel =
// 99999999999999999999 was cut to 0xFFFFFFFF without a word.
#include <gtest/gtest.h>

#include <string>

#include "ini_edit.h"
#include "registers.h"

namespace mabutrace::cptracer {
namespace {

const std::string kExample = std::string(MABUTRACE_SOURCE_DIR) + "/examples/cptracer/dma_write_bandwidth.ini";

// The example with `line` added at the end of `section` (ini_edit.h).
std::string ExampleWith(const std::string& section, const std::string& line) {
  return ini_test::ExampleWithLines(kExample, {{section, line}}, "config_file_test.ini");
}

// LoadTracerConfig then ComputeConfig; "" when both succeed, else the error.
std::string LoadAndCompute(const std::string& section, const std::string& line, ConfigResult* r = nullptr) {
  TracerConfig cfg;
  ConfigResult unused;
  std::string err;
  if (!LoadTracerConfig(ExampleWith(section, line), &cfg, &err)) return err;
  if (!ComputeConfig(cfg, r ? r : &unused, &err)) return err;
  return "";
}

TEST(ConfigFile, TheExampleComputes) { EXPECT_EQ(LoadAndCompute("tracer", "name = MSMC_0"), ""); }

TEST(ConfigFile, ANumberOutOfItsRangeIsAnErrorNamingFileKeyAndValue) {
  const struct {
    const char* section;
    const char* line;
  } cases[] = {
      {"tracer", "clock_hz = 1e400"},  // inf
      {"tracer", "clock_hz = inf"},
      {"tracer", "clock_hz = nan"},
      {"tracer", "clock_hz = -200000000"},
      {"tracer", "clock_hz = 0"},
      {"tracer", "clock_hz ="},
      {"tracer", "stm_channel = 99999999999999999999"},  // was cut to 0xFFFFFFFF
      {"tracer", "stm_channel = 256"},                   // 256 stimulus channels
      {"tracer", "stm_channel = -1"},
      {"tracer", "sid = 32"},
      {"tracer", "sid = -1"},
      {"tracer", "window_ms = 0"},
      {"tracer", "window_ms = -10"},
      {"tracer", "window_ms = 1e400"},
      {"tracer", "window_cycles = 0x100000000"},
      {"tracer", "window_cycles = 0"},
      {"tracer", "window_cycles = 12abc"},
      {"tracer", "wait_and_grant = maybe"},
      {"filter", "address_start = 0x1000000000000"},  // 49 bits
      {"filter", "address_end = 99999999999999999999"},
      {"filter", "address_export_shift = 64"},
  };
  for (const auto& c : cases) {
    const std::string err = LoadAndCompute(c.section, c.line);
    const std::string line = c.line;
    EXPECT_NE(err.find("config_file_test.ini:"), std::string::npos) << c.line << ": " << err;
    EXPECT_NE(err.find("[" + std::string(c.section) + "] " + line), std::string::npos) << c.line << ": " << err;
    EXPECT_NE(err.find(": expected "), std::string::npos) << c.line << ": " << err;
  }
}

TEST(ConfigFile, TheRangesEndsAreAccepted) {
  ConfigResult r;
  ASSERT_EQ(LoadAndCompute("tracer", "stm_channel = 255", &r), "");
  EXPECT_EQ(r.tracer.back().name, "DESTINATION_ADDRESS");
  EXPECT_EQ(r.tracer.back().value, 0x200FF000u);  // 0x2000_0000 + 255 x 0x1000
  EXPECT_EQ(LoadAndCompute("tracer", "sid = 31"), "");
  EXPECT_EQ(LoadAndCompute("tracer", "window_cycles = 0xFFFFFFFF"), "");
  EXPECT_EQ(LoadAndCompute("tracer", "wait_and_grant = off"), "");
  EXPECT_EQ(LoadAndCompute("filter", "address_end = 0x8000FFFFFFFF"), "");
}

}  // namespace
}  // namespace mabutrace::cptracer
