// shared_data.h: the shared captures beside the repository (../shared, or
// -DMABUTRACE_SHARED_DIR: real ETE/STM captures with their OpenCSD 1.8.0
// listings, Perfetto's schema), and what a test does on a clone without
// them: it skips, naming the file it needed. ctest reports such a test as
// skipped, never as passed (mabutrace_discover_tests in tests/CMakeLists.txt
// marks gtest's SKIPPED line).
#ifndef MABUTRACE_TESTS_COMMON_SHARED_DATA_H
#define MABUTRACE_TESTS_COMMON_SHARED_DATA_H

#include <gtest/gtest.h>

#include <filesystem>

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

#endif  // MABUTRACE_TESTS_COMMON_SHARED_DATA_H
