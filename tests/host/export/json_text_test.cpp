// SPDX-License-Identifier: MIT
// json_text_test.cpp: host/export/json_text.h, the JSON text of every
// listing and report the tools print: laid out as nlohmann's dump, quoted
// by the toolkit's one escaper.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "json_text.h"

namespace {

using mabutrace::exporter::JsonNumber;
using mabutrace::exporter::JsonString;
using mabutrace::exporter::JsonText;
using nlohmann::ordered_json;

TEST(JsonText, LaysOutADocumentAsNlohmannDumpDoes) {
  ordered_json j;
  j["name"] = "TRBLIMITR_EL1";
  j["value"] = 0x1234;
  j["negative"] = -7;
  j["ok"] = true;
  j["none"] = nullptr;
  j["fields"] = ordered_json::array({ordered_json{{"E", 1}, {"FM", "fill"}}, 3});
  j["empty_object"] = ordered_json::object();
  j["empty_array"] = ordered_json::array();
  j["ratio"] = 0.25;
  EXPECT_EQ(JsonText(j), j.dump(2));
  EXPECT_EQ(JsonText(j, 4), j.dump(4));
  EXPECT_EQ(JsonText(j, -1), j.dump());
}

TEST(JsonText, QuotesWhatNlohmannWouldRefuse) {
  ordered_json j;
  j["note"] = std::string("a \"b\"\n\x01 \xff");  // nlohmann's dump throws on the \xff
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);
  const std::string text = JsonText(j, -1);
  EXPECT_EQ(text, "{\"note\":\"a \\\"b\\\"\\n\\u0001 \xEF\xBF\xBD\"}");
  EXPECT_EQ(nlohmann::json::parse(text)["note"], "a \"b\"\n\x01 \xEF\xBF\xBD");
}

TEST(JsonText, NumbersAreShortAndExact) {
  EXPECT_EQ(JsonNumber(3), "3");
  EXPECT_EQ(JsonNumber(0.1), "0.1");
  EXPECT_EQ(JsonNumber(1.0 / 3), "0.3333333333333333");  // 16 digits read back exactly
  EXPECT_EQ(JsonNumber(std::nan("")), "null");
  EXPECT_EQ(JsonString("x"), "\"x\"");
}

}  // namespace
