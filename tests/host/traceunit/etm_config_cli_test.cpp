// SPDX-License-Identifier: MIT
// etm_config_cli_test.cpp: `mabutrace etm-config` run as a process.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "json_fields.h"
#include "run_cli.h"

namespace {

using namespace mt_cli;  // RunCli, RunCliJson, RunCliOut, ExpectExitCodes
using mt_json::ExpectFields;

TEST(EtmConfigCli, DecodeConfigrJson) {
  const auto j = RunCliJson("etm-config --decode TRCCONFIGR=0x18C1 --format json");
  EXPECT_EQ(j["register"], "TRCCONFIGR");
  ExpectFields(j, {{"RS", 1}, {"TS", 1}, {"VMID", 1}, {"CID", 1}, {"CCI", 0}, {"BB", 0}});
  EXPECT_TRUE(j["summary"].is_string());
}

TEST(EtmConfigCli, DecodeVictlrJson) {
  ExpectFields(RunCliJson("etm-config --decode TRCVICTLR=0x006F0201 --format json"),
               {{"EXLEVEL_NS_EL0", 0}, {"EXLEVEL_NS_EL1", 1}, {"EXLEVEL_S_EL0", 1}, {"EVENT_SEL", 1}, {"SSSTATUS", 1}});
}

TEST(EtmConfigCli, ConfigFileAndFlags) {
  auto j =
      RunCliJson(std::string("etm-config --config '") + MABUTRACE_EXAMPLES_DIR + "/ns-el0-process.toml' --format json");
  EXPECT_EQ(j["registers"]["TRCCONFIGR"]["value"], "0x000018c1");
  EXPECT_EQ(j["registers"]["TRCVICTLR"]["value"], "0x006f0201");
  j = RunCliJson(
      "etm-config --el el0 --return-stack --timestamps --context-id --vmid --include 0x8000:0x8fff "
      "--format json");
  EXPECT_EQ(j["registers"]["TRCCONFIGR"]["value"], "0x000018c1");
  EXPECT_EQ(j["registers"]["TRCVIIECTLR"]["value"], "0x00000001");
  EXPECT_EQ(j["registers"]["TRCACVR1"]["value"], "0x00008fff");
  // The same range written START-END, and the config from stdin.
  j = RunCliJson(std::string("etm-config --config - --include 0x8000-0x8fff --format json < '") +
                 MABUTRACE_EXAMPLES_DIR + "/ns-el0-process.toml'");
  EXPECT_EQ(j["registers"]["TRCACVR1"]["value"], "0x00008fff");
  const std::string text = RunCliOut("etm-config --el el0");
  for (const char* part :
       {"Sequence: enable", "TSB CSYNC", "static inline void mbt_ete_disable(void)", "Context save/restore list"})
    EXPECT_NE(text.find(part), std::string::npos) << part;
}

TEST(EtmConfigCli, ExitCodes) {
  ExpectExitCodes({{"etm-config --help", 0},
                   {"etm-config --decode TRCNOPE=1", 2},
                   {"etm-config --decode TRCCONFIGR", 2},
                   {"etm-config --decode TRCCONFIGR=xyz", 2},
                   {"etm-config --include 0x8000", 2},
                   {"etm-config --trace-id -1", 2},
                   {"etm-config --el el9", 2},
                   {"etm-config --format yaml", 2},
                   {"etm-config --config /nonexistent.toml", 1}});
  const std::string bad = ::testing::TempDir() + "/bad_etm.toml";
  std::ofstream(bad) << "sync_period = 1000\n";
  EXPECT_EQ(RunCli("etm-config --config '" + bad + "'").code, 1);  // impossible config: bad input
  std::ofstream(bad) << "no_such_key = 1\n";
  EXPECT_EQ(RunCli("etm-config --config '" + bad + "'").code, 1);
}

}  // namespace
