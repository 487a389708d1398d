// etm_config_cli_test.cpp: `mabutrace etm-config` run as a process.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_cli.h"

namespace {

using mt_cli::Result;
using mt_cli::RunCli;

TEST(EtmConfigCli, DecodeConfigrJson) {
  const Result r = RunCli("etm-config --decode TRCCONFIGR=0x18C1 --format json");
  ASSERT_EQ(r.code, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["register"], "TRCCONFIGR");
  EXPECT_EQ(j["RS"], 1);
  EXPECT_EQ(j["TS"], 1);
  EXPECT_EQ(j["VMID"], 1);
  EXPECT_EQ(j["CID"], 1);
  EXPECT_EQ(j["CCI"], 0);
  EXPECT_EQ(j["BB"], 0);
  EXPECT_TRUE(j["summary"].is_string());
}

TEST(EtmConfigCli, DecodeVictlrJson) {
  const Result r = RunCli("etm-config --decode TRCVICTLR=0x006F0201 --format json");
  ASSERT_EQ(r.code, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["EXLEVEL_NS_EL0"], 0);
  EXPECT_EQ(j["EXLEVEL_NS_EL1"], 1);
  EXPECT_EQ(j["EXLEVEL_S_EL0"], 1);
  EXPECT_EQ(j["EVENT_SEL"], 1);
  EXPECT_EQ(j["SSSTATUS"], 1);
}

TEST(EtmConfigCli, ConfigFileAndFlags) {
  Result r = RunCli(std::string("etm-config --config '") + MABUTRACE_EXAMPLES_DIR + "/ns-el0-process.toml' --format json");
  ASSERT_EQ(r.code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["registers"]["TRCCONFIGR"]["value"], "0x000018c1");
  EXPECT_EQ(j["registers"]["TRCVICTLR"]["value"], "0x006f0201");
  r = RunCli("etm-config --el el0 --return-stack --timestamps --context-id --vmid --include 0x8000:0x8fff --format json");
  ASSERT_EQ(r.code, 0);
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["registers"]["TRCCONFIGR"]["value"], "0x000018c1");
  EXPECT_EQ(j["registers"]["TRCVIIECTLR"]["value"], "0x00000001");
  EXPECT_EQ(j["registers"]["TRCACVR1"]["value"], "0x00008fff");
  r = RunCli("etm-config --el el0");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Sequence: enable"), std::string::npos);
  EXPECT_NE(r.out.find("TSB CSYNC"), std::string::npos);
  EXPECT_NE(r.out.find("static inline void mbt_ete_disable(void)"), std::string::npos);
  EXPECT_NE(r.out.find("Context save/restore list"), std::string::npos);
}

TEST(EtmConfigCli, ExitCodes) {
  EXPECT_EQ(RunCli("etm-config --help").code, 0);
  EXPECT_EQ(RunCli("etm-config --decode TRCNOPE=1").code, 2);
  EXPECT_EQ(RunCli("etm-config --decode TRCCONFIGR").code, 2);
  EXPECT_EQ(RunCli("etm-config --decode TRCCONFIGR=xyz").code, 2);
  EXPECT_EQ(RunCli("etm-config --el el9").code, 2);
  EXPECT_EQ(RunCli("etm-config --format yaml").code, 2);
  EXPECT_EQ(RunCli("etm-config --config /nonexistent.toml").code, 1);
  const std::string bad = ::testing::TempDir() + "/bad_etm.toml";
  std::ofstream(bad) << "sync_period = 1000\n";
  EXPECT_EQ(RunCli("etm-config --config '" + bad + "'").code, 1);  // impossible config: bad input
  std::ofstream(bad) << "no_such_key = 1\n";
  EXPECT_EQ(RunCli("etm-config --config '" + bad + "'").code, 1);
}

}  // namespace
