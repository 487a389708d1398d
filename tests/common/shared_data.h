// SPDX-License-Identifier: MIT
// shared_data.h: the shared captures beside the repository (../shared, or
// -DMABUTRACE_SHARED_DIR: real ETE/STM captures with their OpenCSD 1.8.0
// listings, Perfetto's schema), and what a test does on a clone without
// them: it skips, naming the file it needed. ctest reports such a test as
// skipped, never as passed (mabutrace_discover_tests in tests/CMakeLists.txt
// marks gtest's SKIPPED line).
#ifndef MABUTRACE_TESTS_COMMON_SHARED_DATA_H
#define MABUTRACE_TESTS_COMMON_SHARED_DATA_H

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <system_error>
#include <vector>

// Skips the running test when `where` (a std::filesystem::path or string)
// does not exist.
#define MABUTRACE_NEEDS_SHARED(where)                                                       \
  do {                                                                                      \
    const std::filesystem::path mabutrace_needed_(where);                                   \
    if (!std::filesystem::exists(mabutrace_needed_))                                        \
      GTEST_SKIP() << mabutrace_needed_.string()                                            \
                   << " is missing: the shared captures (../shared beside the repository) " \
                      "are not in this clone";                                              \
  } while (0)

namespace mabutrace_tests {

// The capture folders directly under `root` that hold every file of `needed`
// (paths relative to the folder), sorted by name; none when `root` is
// missing. A parameterized oracle over them then instantiates nothing: mark
// its suite GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST and let a count
// test (MABUTRACE_NEEDS_SHARED first) say why.
inline std::vector<std::string> SharedCaptures(const std::filesystem::path& root,
                                               std::initializer_list<const char*> needed) {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    bool complete = it->is_directory();
    for (const char* file : needed) complete = complete && std::filesystem::exists(it->path() / file);
    if (complete) names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A capture's name as a gtest parameter name ("texit-poe2" -> "texit_poe2"):
// gtest accepts only letters, digits and '_'.
inline std::string CaptureTestName(std::string capture) {
  for (char& c : capture)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return capture;
}

// The ETMv4 captures of data/arm-trace-snapshots (its README.md); the
// others there are PTM, ETMv3 and ITM.
inline const std::vector<std::string>& Etm4Captures() {
  static const std::vector<std::string> names = {"a55-test-tpiu",        "a57_single_step", "armv8_1m_branches",
                                                 "juno-ret-stck",        "juno-uname-001",  "juno_r1_1",
                                                 "test-file-mem-offsets"};
  return names;
}

}  // namespace mabutrace_tests

#endif  // MABUTRACE_TESTS_COMMON_SHARED_DATA_H
