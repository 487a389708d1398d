// SPDX-License-Identifier: MIT
// json_fields.h: checks a JSON object's integer fields against a list, for
// the register explanations (`trbe status`, `etm-config --decode`, and the
// library renderings behind them): one line per field instead of an
// EXPECT_EQ each, and the field named when it differs.
#ifndef MABUTRACE_TESTS_COMMON_JSON_FIELDS_H
#define MABUTRACE_TESTS_COMMON_JSON_FIELDS_H

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <utility>

namespace mt_json {

inline void ExpectFields(const nlohmann::json& j, std::initializer_list<std::pair<const char*, int64_t>> fields) {
  for (const auto& [name, value] : fields) {
    ASSERT_TRUE(j.contains(name)) << name << " missing in " << j.dump();
    EXPECT_EQ(j[name], value) << name;
  }
}

}  // namespace mt_json

#endif  // MABUTRACE_TESTS_COMMON_JSON_FIELDS_H
