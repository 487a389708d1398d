// SPDX-License-Identifier: MIT
// Test helper for the CP_Tracer INI readers (description and workload
// files): an example file with lines added, written where a test can load it.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>

namespace mabutrace::cptracer::ini_test {

// `example` with each (section, line) added at the end of its section (the
// last value of a key wins in the INI reader, so it replaces the example's),
// written to TempDir()/<test name>.<suffix>: one file per test, as ctest runs
// a binary's tests as parallel processes. Returns the file's path.
inline std::string ExampleWithLines(const std::string& example,
                                    std::initializer_list<std::pair<std::string, std::string>> edits,
                                    const std::string& suffix) {
  std::ifstream in(example);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& [section, line] : edits) {
    const size_t at = text.find("[" + section + "]");
    size_t end = text.find("\n[", at);
    end = end == std::string::npos ? text.size() : end + 1;
    text.insert(end, line + "\n");
  }
  const auto path = std::filesystem::path(::testing::TempDir()) /
                    (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "." + suffix);
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace mabutrace::cptracer::ini_test
