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

#include "format/chrome_colors.h"
#include "format/chrome_json_writer.h"
#include "format/clock_map.h"
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

// ---- JSON primitives (json_out.h) ----------------------------------------------

// The output of `write` through a JsonOut with a staging buffer of `cap`
// bytes (a small one makes every number and string take the slow path).
template <class Write>
std::string Through(uint32_t cap, Write&& write) {
  std::string text;
  std::vector<char> buf(cap);
  mabutrace::JsonOut out(
      buf.data(), cap,
      [](void* u, const char* d, size_t n) {
        static_cast<std::string*>(u)->append(d, n);
        return 0;
      },
      &text);
  write(out);
  out.Flush();
  return text;
}

TEST(JsonOut, StringsTakeTheFastPathOnlyWhereTheEscaperWouldCopy) {
  // Bytes drawn from every class the escaper treats apart, in strings of
  // every length around the 8-byte words and the fast path's limit.
  const char kBytes[] = {'a', 'Z', ' ', '~', '"', '\\', '\x01', '\x1f', '\x7f', '\x80', '\xC3', '\xA9', '\xff', '/'};
  uint32_t seed = 12345;
  for (size_t len = 0; len <= 300; ++len) {
    for (int round = 0; round < 6; ++round) {
      std::string s(len, 'x');
      // Round 0 is all plain; the others put 1..3 special bytes anywhere.
      for (int k = 0; round && k < round % 3 + 1 && len; ++k) {
        seed = seed * 1103515245u + 12345u;
        s[(seed >> 8) % len] = kBytes[(seed >> 20) % sizeof kBytes];
      }
      const std::string want = Escape(s);
      EXPECT_EQ(Through(4096, [&](mabutrace::JsonOut& o) { o.String(s.data(), s.size()); }), want) << len;
      EXPECT_EQ(Through(3, [&](mabutrace::JsonOut& o) { o.String(s.data(), s.size()); }), want) << len;
    }
  }
}

TEST(JsonOut, NumbersAndMicrosecondsAreExactAtEveryDigitCount) {
  std::vector<uint64_t> values = {0, UINT64_MAX, UINT64_MAX - 1};
  for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10) {
    values.insert(values.end(), {p - 1, p, p + 1, p * 10 - 1});
  }
  for (uint32_t cap : {3u, 4096u}) {
    for (uint64_t v : values) {
      EXPECT_EQ(Through(cap, [&](mabutrace::JsonOut& o) { o.U64(v); }), std::to_string(v)) << cap;
      char micros[32];
      snprintf(micros, sizeof micros, "%llu.%03llu", (unsigned long long)(v / 1000), (unsigned long long)(v % 1000));
      EXPECT_EQ(Through(cap, [&](mabutrace::JsonOut& o) { o.Micros(v); }), micros) << cap;
      const int64_t i = int64_t(v);
      EXPECT_EQ(Through(cap, [&](mabutrace::JsonOut& o) { o.I64(i); }), std::to_string(i)) << cap;
    }
  }
}

// ---- ClockCursor (clock_map.h) -------------------------------------------------

TEST(ClockCursor, EqualsTheMapOnEveryTickOfAWalk) {
  using mabutrace::format::ClockMap;
  using mabutrace::format::ClockSync;
  // Maps as the runtime makes them: rate only, one sample, two samples (a
  // counter slower and faster than its nominal rate), and one whose slope
  // is so steep that long steps carry a product past 2^64.
  std::vector<ClockMap> maps(5);
  maps[0].hz = 2'600'000'000u;
  maps[0].origin = 1000;
  maps[1] = maps[0];
  maps[1].first = ClockSync{5000, 7'000'000'000u, 9'000'000'000u};
  maps[2] = maps[1];
  maps[2].last = ClockSync{5000 + 26'000'000'000ull, 7'000'000'000u + 9'999'999'937ull, 1};
  maps[3] = maps[2];
  maps[3].last.monotonic_ns = 7'000'000'000u + 10'000'000'123ull;
  maps[4] = maps[2];
  maps[4].last = ClockSync{6000, 7'000'000'000u + (uint64_t(1) << 40), 1};
  uint64_t seed = 99;
  auto next = [&] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull; };
  for (const ClockMap& m : maps) {
    mabutrace::format::ClockCursor cursor(m);
    uint64_t ticks = 0;
    for (int i = 0; i < 200000; ++i) {
      const uint64_t r = next();
      // Mostly small steps forward; sometimes a jump, a step back, or a
      // tick before the origin or the first sample.
      switch (r % 16) {
        case 0: ticks = r >> 24; break;
        case 1: ticks -= ticks > 4096 ? (r >> 40) % 4096 : 0; break;
        case 2: ticks = (r >> 8) % 8000; break;
        case 3: ticks += uint64_t(1) << 32; break;
        default: ticks += (r >> 32) % 100000;
      }
      ASSERT_EQ(cursor.NsSinceOrigin(ticks), m.NsSinceOrigin(ticks))
          << "map " << (&m - maps.data()) << " tick " << ticks;
    }
  }
}

// The multiply that replaces the walk's division gives the quotient and
// remainder of a division, for divisors at the edges of the 64 bits (1,
// powers of two and their neighbours, the largest) and for dividends at
// and around their multiples.
TEST(ClockCursor, DividesByTheSlopesDenominatorExactly) {
  using mabutrace::format::ClockMap;
  using mabutrace::format::ClockSync;
  const uint64_t kMax = ~uint64_t(0);
  std::vector<uint64_t> dens = {1,
                                2,
                                3,
                                7,
                                1000,
                                999'999'937,
                                2'600'000'000u,
                                26'000'000'000ull,
                                (uint64_t(1) << 32) - 1,
                                uint64_t(1) << 32,
                                (uint64_t(1) << 32) + 1,
                                (uint64_t(1) << 63) - 1,
                                uint64_t(1) << 63,
                                (uint64_t(1) << 63) + 1,
                                kMax - 1,
                                kMax};
  uint64_t seed = 7;
  auto next = [&] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull; };
  for (int i = 0; i < 64; ++i) dens.push_back(next() >> (next() % 64) | 1);
  for (const uint64_t den : dens) {
    ClockMap m;
    m.first = ClockSync{0, 1, 1};
    m.last = ClockSync{den, 2, 2};  // the line's denominator: last.ticks - first.ticks
    const mabutrace::format::ClockCursor cursor(m);
    std::vector<uint64_t> xs = {0, 1, den - 1, den, kMax, kMax - 1, kMax - den, kMax / den * den, kMax / den * den - 1};
    for (int i = 0; i < 2000; ++i) {
      const uint64_t q = next() % (kMax / den);  // q * den + den - 1 <= kMax
      xs.push_back(q * den);
      xs.push_back(q * den + (next() % den));
      if (q) xs.push_back(q * den - 1);
      xs.push_back(next());
    }
    for (const uint64_t x : xs) {
      uint64_t rem = 0;
      const uint64_t q = cursor.DivideByDen(x, &rem);
      ASSERT_EQ(q, x / den) << x << " / " << den;
      ASSERT_EQ(rem, x % den) << x << " % " << den;
    }
  }
}
TEST(JsonOut, ACursorWritesNumbersAsTheCheckedPathDoes) {
  // The cursor stores whole words of digits (JsonOut::PutU64): every
  // digit count, each side of every 10^8 split, and runs of small values
  // and of values of random length.
  std::vector<uint64_t> values = {0,        UINT64_MAX,           UINT64_MAX - 1,     100000000,
                                  99999999, 10000000000000000ull, 9999999999999999ull};
  for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10) {
    values.insert(values.end(), {p - 1, p, p + 1, p * 10 - 1, p * 3 + 7});
  }
  for (uint64_t v = 0; v < 200000; ++v) values.push_back(v * 7);
  uint64_t seed = 42;
  for (int k = 0; k < 200000; ++k) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    values.push_back(seed >> (seed & 63));
  }
  char buf[64];
  std::string want, got;
  for (uint64_t v : values) {
    const std::string text = Through(4096, [&](mabutrace::JsonOut& o) {
      mabutrace::JsonOut::Cursor c(o, o.Room(2 * mabutrace::JsonOut::kMaxMicrosChars));
      c.U64(v);
      c.Char(' ');
      c.Micros(v);
      c.Done();
    });
    snprintf(buf, sizeof buf, "%llu %llu.%03llu", (unsigned long long)v, (unsigned long long)(v / 1000),
             (unsigned long long)(v % 1000));
    if (text != buf) ADD_FAILURE() << text << " != " << buf;
  }
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

// Every kind of event, with names that need escaping and names that do
// not, colors, flags, negative counters and flows.
void WriteEveryEventKind(mabutrace::format::ChromeJsonWriter& w) {
  const Track t{7, 4242};
  w.OnProcess(7, "proc \"p\"");
  w.OnThread(t, "worker");
  w.OnThread({7, 9}, "");
  for (uint64_t i = 0; i < 40; ++i) {
    const std::string plain = "Renderer::DrawFrame#" + std::to_string(i);
    const std::string odd = "tab\there \xE2\x9C\x93 \xff" + std::string(i, 'q');
    const std::string& name = i % 3 ? plain : odd;
    const uint64_t ns = i * 123456789ull + i;
    w.OnBegin(t, name, ns, uint32_t(i % 4), i % 2 ? 0 : 0x1000000u | uint32_t(i * 0x10203u));
    w.OnInstant(t, name, ns + 1, 3, i % 5 ? 0 : 0x1FF0000u);
    w.OnCounter(t, name, ns + 2, i % 2 ? -int64_t(i) * 1000003 : int64_t(i));
    w.OnFlowPoint(t, true, i, i % 4 ? "handoff" : "", ns + 3, 1, 0, i % 2 == 0);
    w.OnFlowPoint(t, false, i + 1, "", ns + 4, 1, 0x1000000u | 0x336699u, true);
    w.OnFlow(t, false, i + 100, ns + 5);
    w.OnEnd(t, name, ns + 6, i % 7 ? "" : "open_at_end");
  }
  w.OnMetadata("k", -5);
  w.OnMetadata("s", "v\"");
  ASSERT_TRUE(w.Finish());
}

TEST(ChromeJsonWriter, EventsWrittenInOnePieceEqualThoseWrittenPieceByPiece) {
  // A large staging buffer takes each event's one-check path, a small one
  // the piece-by-piece path: the text must be the same, and valid JSON.
  const std::string big = Through(1 << 16, [](mabutrace::JsonOut& o) {
    mabutrace::format::ChromeJsonWriter w(o);
    WriteEveryEventKind(w);
  });
  const std::string small = Through(16, [](mabutrace::JsonOut& o) {
    mabutrace::format::ChromeJsonWriter w(o);
    WriteEveryEventKind(w);
  });
  EXPECT_EQ(big, small);
  const json doc = json::parse(big);
  size_t counters = 0, escaped = 0;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "C") ++counters;
    if (e["ph"] == "B" && e["name"].get<std::string>().rfind("tab\there \xE2\x9C\x93 \xEF\xBF\xBD", 0) == 0) ++escaped;
  }
  EXPECT_EQ(counters, 40u);
  EXPECT_EQ(escaped, 14u);  // i % 3 == 0 for i < 40
}

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

TEST(ChromeJsonWriter, AFlowPointAfterMetadataIsCountedOnce) {
  // A point outside every slice is a carrier begin, an arrow end and a
  // carrier end: dropped after metadata, it counts as one event.
  JsonCapture c;
  mabutrace::format::ChromeJsonWriter w(c.out);
  w.OnInstant({1, 2}, "a", 1000, 0, 0);
  w.OnMetadata("k", 7);
  w.OnFlowPoint({1, 2}, true, 5, "late", 2000, 0, 0, false);
  ASSERT_TRUE(w.Finish());
  const json doc = json::parse(c.text);
  EXPECT_EQ(doc["traceEvents"].size(), 1u);
  EXPECT_EQ(doc["metadata"][mabutrace::format::stat::kEventsAfterMetadata], 1);
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

TEST(ChromeJsonWriter, EveryEventHasItsOwnTrackAndColour) {
  // The writer keeps the last track's ids and a few colours as text:
  // events that switch tracks at every step, and more colours than it
  // keeps (slots shared), must each still carry their own.
  JsonCapture c;
  mabutrace::format::ChromeJsonWriter w(c.out);
  const Track tracks[] = {{7, 7}, {7, 123456789}, {4294967295u, 0}, {12, 4294967295u}, {100000000, 99999999}};
  struct Want {
    Track t;
    uint32_t rgb;
    bool colored;
  };
  std::vector<Want> want;
  for (uint32_t i = 0; i < 200; ++i) {
    const Track t = tracks[(i * 3 + i / 7) % 5];
    const uint32_t rgb = (i * 0x2F1D3Bu) & 0xFFFFFF;
    w.OnInstant(t, "x", i * 1000, 1, i % 9 == 8 ? 0 : 0x1000000u | rgb);
    want.push_back({t, rgb, i % 9 != 8});
  }
  ASSERT_TRUE(w.Finish());
  const json evs = json::parse(c.text)["traceEvents"];
  ASSERT_EQ(evs.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(evs[i]["pid"], want[i].t.pid) << i;
    EXPECT_EQ(evs[i]["tid"], want[i].t.tid) << i;
    if (!want[i].colored) {
      EXPECT_FALSE(evs[i].contains("cname")) << i;
      continue;
    }
    char hex[8];
    snprintf(hex, sizeof hex, "#%06x", want[i].rgb);
    EXPECT_EQ(evs[i]["args"]["color"], hex) << i;
    EXPECT_EQ(evs[i]["cname"], mabutrace::NearestReservedColor(want[i].rgb)) << i;
  }
}

TEST(ChromeJsonWriter, ANameMemoChangesNoByte) {
  // Names met again under one address, views of one buffer with other
  // lengths, names that need escaping, and more names than a small memo
  // holds (slots shared): with a memo of any size the text is the same.
  const std::string text = "Renderer::DrawFrame \"quoted\" tab\t \xff end";
  std::vector<std::string> names;
  for (int i = 0; i < 24; ++i) names.push_back("name_" + std::to_string(i) + (i % 5 ? "" : "\\"));
  const auto write = [&](mabutrace::format::JsonNameMemo memo) {
    return Through(1 << 16, [&](mabutrace::JsonOut& o) {
      mabutrace::format::ChromeJsonWriter w(o, memo);
      const Track t{3, 4};
      for (uint64_t i = 0; i < 300; ++i) {
        const std::string& n = names[(i * 7) % names.size()];
        const std::string_view cut(text.data(), (i * 5) % (text.size() + 1));  // one address, many lengths
        w.OnBegin(t, n, i * 10, 0, 0);
        w.OnInstant(t, cut, i * 10 + 1, 0, 0);
        w.OnCounter(t, i % 2 ? cut : std::string_view(n), i * 10 + 2, int64_t(i));
        w.OnEnd(t, n, i * 10 + 3, "");
      }
      ASSERT_TRUE(w.Finish());
    });
  };
  const std::string without = write({});
  for (uint32_t count : {1u, 4u, 512u}) {
    std::vector<mabutrace::format::JsonNameMemo::Entry> entries(count);
    EXPECT_EQ(write({entries.data(), count}), without) << count;
  }
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
