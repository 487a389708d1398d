// SPDX-License-Identifier: MIT
// Unit tests of the format layer (src/format): the one JSON escaper, the
// UTF-8 rules every writer cuts names with, the Chrome JSON writer's
// ordering contract, and the Perfetto writer's behaviour when a device's
// fixed tables are full. The files the writers make are checked end to end
// by check_pftrace.py and trace_equality.py.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "format/chrome_json_writer.h"
#include "format/json_escape.h"
#include "format/perfetto_writer.h"
#include "format/trace_rules.h"
#include "format/trace_vocabulary.h"
#include "format/utf8.h"

namespace {

using mabutrace::format::Track;
using nlohmann::json;

std::string Escape(std::string_view s) {
  std::string out;
  mabutrace::JsonEscape(s.data(), s.size(), [&](const char* p, size_t n) { out.append(p, n); });
  return out;
}

TEST(JsonEscape, EscapesWhatRfc8259Requires) {
  EXPECT_EQ(Escape("plain"), "\"plain\"");
  EXPECT_EQ(Escape("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Escape("\n\t\r\b\f"), "\"\\n\\t\\r\\b\\f\"");
  EXPECT_EQ(Escape(std::string_view("\x01\x1f\0z", 4)), "\"\\u0001\\u001f\\u0000z\"");
  EXPECT_EQ(Escape("\x7f"), "\"\x7f\"");  // DEL needs no escape
}

TEST(JsonEscape, KeepsValidUtf8AndReplacesEachInvalidByte) {
  EXPECT_EQ(Escape("\xE2\x9C\x93 \xF0\x9F\x98\x80"), "\"\xE2\x9C\x93 \xF0\x9F\x98\x80\"");
  EXPECT_EQ(Escape("a\xff"
                   "b"),
            "\"a\xEF\xBF\xBD"
            "b\"");
  EXPECT_EQ(Escape("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");                  // overlong: two bytes, two U+FFFD
  EXPECT_EQ(Escape("\xED\xA0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // surrogate
  // A sequence cut by the end of the input is invalid, and nothing past
  // the end is read (the view ends before the continuation bytes).
  EXPECT_EQ(Escape(std::string_view("x\xE2\x9C\x93", 3)), "\"x\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

TEST(JsonEscape, EveryOutputParsesBackToTheSameValidText) {
  std::string all;
  for (int c = 1; c < 256; ++c) all.push_back(char(c));
  const json v = json::parse(Escape(all));
  const std::string back = v.get<std::string>();
  EXPECT_EQ(back.substr(0, 0x7f), all.substr(0, 0x7f));
  EXPECT_NE(back.find("\xEF\xBF\xBD"), std::string::npos);
}

TEST(Utf8Prefix, CutsAtACharacterAndCountsReplacements) {
  const std::string check = "ab\xE2\x9C\x93";  // 2 + 3 bytes
  EXPECT_EQ(mabutrace::Utf8Prefix(check.data(), check.size(), 5), 5u);
  EXPECT_EQ(mabutrace::Utf8Prefix(check.data(), check.size(), 4), 2u);  // never half a character
  const std::string bad = "\xff\xff";                                   // each becomes 3 bytes of U+FFFD
  EXPECT_EQ(mabutrace::Utf8Prefix(bad.data(), bad.size(), 5), 1u);
  EXPECT_EQ(mabutrace::Utf8Prefix(bad.data(), bad.size(), 6), 2u);
}

// ---- Chrome JSON writer -------------------------------------------------------

struct JsonCapture {
  std::string text;
  char buf[64];  // small: every event crosses a flush
  mabutrace::JsonOut out{buf, sizeof buf, &Append, this};
  static int Append(void* u, const char* d, size_t n) {
    static_cast<JsonCapture*>(u)->text.append(d, n);
    return 0;
  }
};

TEST(ChromeJsonWriter, EventsAfterMetadataAreCountedNotWritten) {
  JsonCapture c;
  mabutrace::format::ChromeJsonWriter w(c.out);
  const Track t{1, 2};
  w.OnBegin(t, "a", 1000, 0, 0);
  w.OnEnd(t, "a", 2000, "");
  w.OnMetadata("k", 7);
  w.OnInstant(t, "late", 3000, 0, 0);  // breaks the contract: dropped, counted
  ASSERT_TRUE(w.Finish());
  const json doc = json::parse(c.text);
  EXPECT_EQ(doc["traceEvents"].size(), 2u);
  EXPECT_EQ(doc["metadata"]["k"], 7);
  EXPECT_EQ(doc["metadata"][mabutrace::format::stat::kEventsAfterMetadata], 1);
  EXPECT_EQ(doc["metadata"]["producer"], "mabutrace");
}

TEST(ChromeJsonWriter, AnEmptyTraceIsStillAValidObject) {
  JsonCapture c;
  mabutrace::format::ChromeJsonWriter w(c.out);
  ASSERT_TRUE(w.Finish());
  const json doc = json::parse(c.text);
  EXPECT_TRUE(doc["traceEvents"].empty());
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
}

TEST(ChromeJsonWriter, NamesAreCutAtTheSameLimitInEveryFormat) {
  JsonCapture c;
  mabutrace::format::ChromeJsonWriter w(c.out);
  const std::string name = std::string(mabutrace::format::kMaxNameBytes - 1, 'n') + "\xE2\x9C\x93";
  w.OnInstant({1, 1}, name, 0, 0, 0);
  ASSERT_TRUE(w.Finish());
  const json doc = json::parse(c.text);
  // The check mark would end past the limit: the name stops before it.
  EXPECT_EQ(doc["traceEvents"][0]["name"].get<std::string>(), std::string(mabutrace::format::kMaxNameBytes - 1, 'n'));
}

TEST(ChromeJsonWriter, AFlowPointOutsideASliceGetsACarrierOf1ns) {
  JsonCapture c;
  mabutrace::format::ChromeJsonWriter w(c.out);
  const Track t{1, 2};
  EXPECT_EQ(mabutrace::format::FlowPoint(w, t, true, 9, {}, 500, 3, 0, false), 501u);
  EXPECT_EQ(mabutrace::format::FlowPoint(w, t, false, 0, "x", 600, 3, 0, true), 600u);
  ASSERT_TRUE(w.Finish());
  const json evs = json::parse(c.text)["traceEvents"];
  ASSERT_EQ(evs.size(), 4u);  // B flow_out, s, E flow_out, i x (id 0: no arrow end)
  EXPECT_EQ(evs[0]["name"], "flow_out");
  EXPECT_EQ(evs[1]["ph"], "s");
  EXPECT_EQ(evs[2]["ts"], 0.501);
  EXPECT_EQ(evs[3]["ph"], "i");
  EXPECT_EQ(mabutrace::format::EndTime(10, 10), 11u);
  EXPECT_EQ(mabutrace::format::EndTime(10, 12), 12u);
}

// ---- Perfetto writer with full tables (a device's fixed tables) --------------------

// A policy with no room at all: every fallback path of the writer.
class FullTables final : public mabutrace::format::PerfettoTables {
 public:
  mabutrace::format::PerfettoSequence* Sequence(Track t) override {
    return t.tid == 1 ? &one_ : nullptr;  // room for one thread only
  }
  uint64_t NameIid(std::string_view) override { return 0; }
  uint64_t CounterTrack(uint32_t, std::string_view, uint64_t, bool* fresh) override {
    *fresh = false;
    return 0;
  }
  uint64_t ProcessTrack(uint32_t, uint64_t, bool* fresh) override {
    *fresh = false;
    return 0;
  }

 private:
  mabutrace::format::PerfettoSequence one_{};
};

std::string Protoc(const std::string& bytes) {
  const std::string in = ::testing::TempDir() + "format_test.pftrace";
  std::ofstream(in, std::ios::binary) << bytes;
  const std::string cmd = "protoc --decode=perfetto.protos.Trace -I " MABUTRACE_PERFETTO_PROTO_DIR
                          " " MABUTRACE_PERFETTO_PROTO " < " +
                          in + " 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char b[4096];
    size_t n;
    while ((n = fread(b, 1, sizeof b, p)) > 0) out.append(b, n);
    pclose(p);
  }
  return out;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(PerfettoWriter, FullTablesWriteInlineAndCountWhatTheyDrop) {
  JsonCapture c;  // its JsonOut serves as the plain byte output
  FullTables tables;
  uint8_t packet[2048];
  mabutrace::format::PerfettoWriter w(tables, packet, sizeof packet, c.out);
  const Track a{5, 1}, b{5, 2};
  w.OnProcess(5, "proc");
  w.OnThread(a, "a");
  w.OnBegin(a, "work", 10, 0, 0x1000000 | 0xFF0000);
  w.OnCounter(a, "level", 11, 42);
  w.OnCounter(a, "level", 12, 43);
  w.OnEnd(a, "work", 13, "");
  w.OnInstant(b, "lost", 14, 0, 0);  // no room for thread b: dropped, counted
  w.OnMetadata("k", 1);
  ASSERT_TRUE(w.Finish());
  const std::string text = Protoc(c.text);
  EXPECT_EQ(Count(text, "name: \"work\""), 1u) << text;  // inline: no iid to intern under
  EXPECT_EQ(Count(text, "event_names"), 0u);
  EXPECT_EQ(Count(text, "name: \"level\""), 2u);  // described at every use
  EXPECT_EQ(Count(text, "counter_value: 42"), 1u);
  EXPECT_EQ(Count(text, "parent_uuid"), 0u);  // no process track to hang on
  EXPECT_EQ(Count(text, "\"lost\""), 0u);
  EXPECT_NE(text.find("int_value: 1\n      name: \"packets_dropped\""), std::string::npos) << text;
}

}  // namespace
