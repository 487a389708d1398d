// SPDX-License-Identifier: MIT
// import_errors_test.cpp: what the readers of host/import do with files
// that are not what they should be: the first bytes that tell the kinds
// apart, µs text, the wire reader's bounds, a cut or damaged .pftrace
// (offsets, and everything else kept), and JSON that does not parse.
#include <gtest/gtest.h>
#include <algorithm>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "chrome_json_reader.h"
#include "format/stream_format.h"
#include "import_trace.h"
#include "perfetto_reader.h"
#include "perfetto_writer.h"
#include "proto_in.h"
#include "recorder.h"

namespace {

using mabutrace::host::ImportKind;
using mabutrace::host::SniffImport;
using mabutrace::test::Recorder;

size_t Count(const std::vector<std::string>& lines, const std::string& prefix) {
  size_t n = 0;
  for (const auto& l : lines) n += l.rfind(prefix, 0) == 0;
  return n;
}

mabutrace::host::ImportResult Import(const std::string& bytes, Recorder& rec) {
  std::FILE* f = fmemopen(const_cast<char*>(bytes.data()), bytes.size(), "rb");
  const std::string head = bytes.substr(0, 8);
  std::fseek(f, long(head.size()), SEEK_SET);
  const auto r = mabutrace::host::ImportTrace(SniffImport(head), f, head, rec);
  std::fclose(f);
  return r;
}

// The .json reader alone, without the Normalizer ImportTrace puts after it
// (which cuts names at format::kMaxNameBytes): for names that straddle the
// reader's 64 KiB buffer.
mabutrace::host::ChromeJsonResult ReadJson(const std::string& bytes, Recorder& rec) {
  std::FILE* f = fmemopen(const_cast<char*>(bytes.data()), bytes.size(), "rb");
  const std::string head = bytes.substr(0, 8);
  std::fseek(f, long(head.size()), SEEK_SET);
  const auto r = mabutrace::host::ReadChromeJson(f, head, rec);
  std::fclose(f);
  return r;
}

TEST(SniffImport, TellsTheKindsApart) {
  EXPECT_EQ(SniffImport("{\"traceEvents\""), ImportKind::kChromeJson);
  EXPECT_EQ(SniffImport("  \n[{\"ph\""), ImportKind::kChromeJson);
  EXPECT_EQ(SniffImport("[]"), ImportKind::kChromeJson);
  EXPECT_EQ(SniffImport("{\x01\x02zzzz"), ImportKind::kNone);  // a binary file starting with a brace
  EXPECT_EQ(SniffImport(std::string("\x0a\x05\x50\x01", 4)), ImportKind::kPerfetto);  // packet { sequence id }
  EXPECT_EQ(SniffImport(std::string("\x0a\x05\x99\x01", 4)), ImportKind::kNone);      // field 19 first: not ours
  EXPECT_EQ(SniffImport(std::string(reinterpret_cast<const char*>(mabutrace::stream::kMagic), 8)), ImportKind::kNone);
  EXPECT_EQ(SniffImport("MABUDMP\x1a"), ImportKind::kNone);
  EXPECT_EQ(SniffImport(""), ImportKind::kNone);
}

TEST(MicrosTextToNs, ExactForDecimals) {
  using mabutrace::host::MicrosTextToNs;
  EXPECT_EQ(MicrosTextToNs("12.345"), 12345u);
  EXPECT_EQ(MicrosTextToNs("0.001"), 1u);
  EXPECT_EQ(MicrosTextToNs("7"), 7000u);
  EXPECT_EQ(MicrosTextToNs("7.5"), 7500u);
  EXPECT_EQ(MicrosTextToNs("1.23456"), 1234u);  // below a ns: cut
  // 2^53 ns and more stay exact (a double would not).
  EXPECT_EQ(MicrosTextToNs("9007199254740.993"), 9007199254740993u);
  EXPECT_EQ(MicrosTextToNs("1e3"), 1000000u);
  EXPECT_EQ(MicrosTextToNs("-1"), std::nullopt);
  EXPECT_EQ(MicrosTextToNs("."), std::nullopt);
  EXPECT_EQ(MicrosTextToNs("99999999999999999999"), std::nullopt);
}

TEST(ProtoIn, NeverReadsPastTheMessage) {
  using mabutrace::host::ProtoIn;
  // field 1 LEN of 5 bytes, but only 2 follow.
  const uint8_t cut[] = {0x0a, 0x05, 0x01, 0x02};
  ProtoIn p(cut, sizeof cut);
  EXPECT_FALSE(p.Next());
  EXPECT_TRUE(p.error());
  EXPECT_EQ(p.offset(), 0u);
  // An 11-byte varint.
  const uint8_t long_varint[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  ProtoIn q(long_varint, sizeof long_varint);
  EXPECT_FALSE(q.Next());
  EXPECT_TRUE(q.error());
  // A group (wire type 3) is refused.
  const uint8_t group[] = {0x0b, 0x0c};
  ProtoIn g(group, sizeof group);
  EXPECT_FALSE(g.Next());
  EXPECT_TRUE(g.error());
  // Good fields: varint, fixed64, LEN.
  const uint8_t good[] = {0x08, 0x96, 0x01, 0x11, 1, 0, 0, 0, 0, 0, 0, 0x80, 0x1a, 0x02, 'h', 'i'};
  ProtoIn ok(good, sizeof good);
  ASSERT_TRUE(ok.Next());
  EXPECT_EQ(ok.u64(), 150u);
  ASSERT_TRUE(ok.Next());
  EXPECT_EQ(ok.u64(), 0x8000000000000001ull);
  ASSERT_TRUE(ok.Next());
  EXPECT_EQ(ok.bytes(), "hi");
  EXPECT_FALSE(ok.Next());
  EXPECT_FALSE(ok.error());
}

// A small .pftrace: a thread with three slices.
std::string SmallTrace() {
  std::string bytes;
  mabutrace::exporter::PerfettoWriter w([&](const char* d, size_t n) {
    bytes.append(d, n);
    return true;
  });
  const mabutrace::format::Track t{1, 2};
  w.OnThread(t, "main");
  for (uint64_t i = 0; i < 3; ++i) {
    w.OnBegin(t, "work", 100 + 10 * i, 0, 0);
    w.OnEnd(t, "work", 105 + 10 * i, "");
  }
  w.OnMetadata("events_written", 6);
  w.Finish();
  return bytes;
}

// The byte offset of the n-th packet (0-based) of a .pftrace.
size_t PacketOffset(const std::string& bytes, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t len = 0;
    const size_t k = mabutrace::host::ReadVarint(reinterpret_cast<const uint8_t*>(bytes.data()) + at + 1,
                                                 bytes.size() - at - 1, &len);
    at += 1 + k + len;
  }
  return at;
}

TEST(PerfettoReader, CutFileIsFatalWithItsOffsetAndKeepsWhatCameBefore) {
  const std::string whole = SmallTrace();
  Recorder all;
  ASSERT_TRUE(Import(whole, all).fatal.ok);
  ASSERT_EQ(Count(all.lines, "B "), 3u);
  const std::string cut = whole.substr(0, whole.size() - 3);  // inside the metadata packet
  Recorder rec;
  const auto r = Import(cut, rec);
  ASSERT_FALSE(r.fatal.ok);
  EXPECT_EQ(r.fatal.offset, cut.size());
  EXPECT_NE(r.fatal.message.find("ends inside a packet"), std::string::npos) << r.fatal.message;
  EXPECT_EQ(Count(rec.lines, "B "), 3u);  // every slice before the cut
  EXPECT_EQ(Count(rec.lines, "E "), 3u);
}

TEST(PerfettoReader, DamagedPacketIsSkippedWithItsOffsetAndTheNextOnesKept) {
  std::string bytes = SmallTrace();
  // Packets: 0 process, 1 thread descriptor, 2 clearing packet, 3.. events.
  // Damage the first begin (packet 3): its first field key becomes a group.
  const size_t at = PacketOffset(bytes, 3);
  uint64_t len = 0;
  const size_t k = mabutrace::host::ReadVarint(reinterpret_cast<const uint8_t*>(bytes.data()) + at + 1, 8, &len);
  const size_t body = at + 1 + k;
  bytes[body] = 0x0b;
  Recorder rec;
  const auto r = Import(bytes, rec);
  EXPECT_TRUE(r.fatal.ok) << r.fatal.message;
  // The begin's packet is skipped; the two after it lost their interned
  // name with it, and are kept, named so.
  EXPECT_EQ(r.damaged, 3u);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].offset, body);
  EXPECT_NE(r.errors[0].message.find("packet skipped"), std::string::npos) << r.errors[0].message;
  EXPECT_NE(r.errors[1].message.find("never interned"), std::string::npos) << r.errors[1].message;
  EXPECT_EQ(Count(rec.lines, "B 1/2 <unknown name> "), 2u);
  EXPECT_EQ(Count(rec.lines, "E 1/2 <unknown name> "), 2u);
  EXPECT_EQ(Count(rec.lines, "M orphan_scope_ends 1"), 1u);  // the damaged begin's end is an orphan now
  EXPECT_EQ(Count(rec.lines, "M import_skipped 1"), 1u);
  EXPECT_EQ(Count(rec.lines, "M import_names_lost 2"), 1u);
}

// Protobuf wire format by hand, for packets another producer writes.
std::string Varint(uint64_t v) {
  std::string out;
  do {
    out += char((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return out;
}
std::string VarintField(uint32_t field, uint64_t v) { return Varint(uint64_t(field) << 3) + Varint(v); }
std::string LenField(uint32_t field, const std::string& body) {
  return Varint((uint64_t(field) << 3) | 2) + Varint(body.size()) + body;
}
std::string Fixed64Field(uint32_t field, uint64_t v) {
  std::string out = Varint((uint64_t(field) << 3) | 1);
  for (int i = 0; i < 8; ++i) out += char(v >> (8 * i));
  return out;
}
std::string Packet(const std::string& body) { return LenField(1, body); }

// A producer other than the toolkit (the SDK, the JSON importer): arrows on
// slices, old-style flow ids, categories, a double counter. Arrows on a
// slice begin are bound to that slice; what the model cannot hold (an arrow
// id on a slice end, a second id of one direction, a field not read, a
// counter value with a fraction) is counted.
TEST(PerfettoReader, AnotherProducersArrowsBindToSlicesAndWhatCannotBeHeldIsCounted) {
  const std::string seq = VarintField(10, 1);            // trusted_packet_sequence_id
  std::string bytes = Packet(seq + VarintField(13, 1) +  // SEQ_INCREMENTAL_STATE_CLEARED
                             LenField(60, VarintField(1, 10) + LenField(4, VarintField(1, 7) + VarintField(2, 8))));
  bytes += Packet(seq + LenField(60, VarintField(1, 11) + VarintField(5, 10) + LenField(2, "load") + LenField(8, "")));
  auto event = [&](uint64_t ts, const std::string& fields) {
    bytes += Packet(seq + VarintField(8, ts) + LenField(11, fields));
  };
  event(1000, VarintField(9, 1) + LenField(23, "a") + VarintField(11, 10) + Fixed64Field(47, 5) + LenField(22, "cat"));
  event(2000, VarintField(9, 2) + VarintField(11, 10) + VarintField(42, 9));  // an arrow id on an end
  event(3000, VarintField(9, 1) + LenField(23, "b") + VarintField(11, 10) + Fixed64Field(48, 5) + VarintField(36, 6) +
                  Fixed64Field(47, 7));  // 7: a second start
  event(3500, VarintField(9, 2) + VarintField(11, 10));
  double half = 2.5;
  uint64_t bits;
  std::memcpy(&bits, &half, sizeof bits);
  event(4000, VarintField(9, 4) + VarintField(11, 11) + Fixed64Field(44, bits));
  Recorder rec;
  const auto r = Import(bytes, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(r.damaged, 0u) << all;
  EXPECT_EQ(Count(rec.lines, "B 7/8 a 1000 "), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "s 7/8 id5 1000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "B 7/8 b 3000 "), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "f 7/8 id5 3000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "s 7/8 id6 3000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "s 7/8 id7"), 0u) << all;
  EXPECT_EQ(Count(rec.lines, "C 7/7 load 4000 2"), 1u) << all;          // the process's: no default track
  EXPECT_EQ(Count(rec.lines, "M import_fields_ignored 1"), 1u) << all;  // the category
  EXPECT_EQ(Count(rec.lines, "M import_flows_dropped 2"), 1u) << all;   // 9 on the end, 7
  EXPECT_EQ(Count(rec.lines, "M import_counters_rounded 1"), 1u) << all;
}

// The metadata instant of a trace with no events names no track (the
// writer has no process track to put it on) and is read; an event that
// names a track never described is still a damaged packet, metadata or
// not, and so is a slice or instant on no track.
// Another producer's async tracks (a name and a parent only: the Perfetto
// SDK's and Chrome's) become thread tracks of their own in their parent's
// process (0 without one), named as the track, counted; described again,
// a track keeps its tid. On one thread 0/0 their slices would be merged.
TEST(PerfettoReader, AsyncTracksBecomeThreadsOfTheirOwnAndAreCounted) {
  const std::string seq = VarintField(10, 1);  // trusted_packet_sequence_id
  const std::string requests = LenField(60, VarintField(1, 20) + LenField(2, "requests") + VarintField(5, 10));
  std::string bytes =
      Packet(seq + VarintField(13, 1) + LenField(60, VarintField(1, 10) + LenField(3, VarintField(1, 7))));
  bytes += Packet(seq + requests);
  bytes += Packet(seq + LenField(60, VarintField(1, 21) + LenField(2, "global")));
  auto event = [&](uint64_t ts, uint64_t type, uint64_t track, const std::string& name) {
    bytes +=
        Packet(seq + VarintField(8, ts) +
               LenField(11, VarintField(9, type) + (name.empty() ? "" : LenField(23, name)) + VarintField(11, track)));
  };
  event(1000, 1, 20, "GET /a");
  event(1500, 1, 21, "gc");
  event(2000, 1, 20, "db");
  bytes += Packet(seq + requests);
  event(2500, 2, 20, "");
  event(3000, 2, 21, "");
  event(4000, 2, 20, "");
  Recorder rec;
  const auto r = Import(bytes, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(r.damaged, 0u) << all;
  EXPECT_EQ(Count(rec.lines, "T 7/4294967295 requests"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "T 0/4294967294 global"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "B 7/4294967295 GET /a 1000 "), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "E 7/4294967295 db 2500 "), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "E 7/4294967295 GET /a 4000 "), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "E 0/4294967294 gc 3000 "), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_async_tracks 2"), 1u) << all;
}

TEST(PerfettoReader, MetadataOnNoTrackIsReadAndEventsOnUndescribedTracksAreNot) {
  const std::string seq = VarintField(10, 1) + VarintField(8, 1000);
  auto metadata = [&](const std::string& track, const std::string& key) {
    return Packet(seq + LenField(11, VarintField(9, 3) + LenField(23, "mabutrace metadata") + track +
                                         LenField(4, LenField(10, key) + VarintField(4, 7))));
  };
  const std::string bytes = Packet(VarintField(10, 1) + VarintField(13, 1) + LenField(6, "")) +  // clears sequence 1
                            metadata("", "kept") +
                            metadata(VarintField(11, 5), "on_track_5") +  // uuid 5: never described
                            Packet(seq + LenField(11, VarintField(9, 3) + LenField(23, "lost")));  // no track
  Recorder rec;
  const auto r = Import(bytes, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(Count(rec.lines, "M kept 7"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M on_track_5"), 0u) << all;
  EXPECT_EQ(Count(rec.lines, "I "), 0u) << all;
  EXPECT_EQ(r.damaged, 2u) << all;
  ASSERT_EQ(r.errors.size(), 2u) << all;
  EXPECT_NE(r.errors[0].message.find("track uuid 5 never described"), std::string::npos) << r.errors[0].message;
  EXPECT_NE(r.errors[1].message.find("track uuid 0 never described"), std::string::npos) << r.errors[1].message;
}

TEST(PerfettoReader, NotATraceIsFatalAtOffsetZero) {
  Recorder rec;
  mabutrace::host::PerfettoReader reader(rec);
  const uint8_t varint_field[] = {0x08, 0x01};  // top-level field 1 as a varint
  const auto s = reader.Feed(varint_field, sizeof varint_field);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.offset, 0u);
}

TEST(ChromeJsonReader, SyntaxErrorGivesItsOffsetAndKeepsTheEventsBefore) {
  const std::string text =
      "{\"traceEvents\":[\n"
      "{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1.000},\n"
      "{\"ph\":\"E\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":2.000},\n"
      "{\"ph\":\"i\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":3.000,,}\n";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_FALSE(r.fatal.ok);
  EXPECT_EQ(r.fatal.offset, text.find(",,") + 1);
  EXPECT_EQ(Count(rec.lines, "B 1/1 a 1000"), 1u);
  EXPECT_EQ(Count(rec.lines, "E 1/1 a 2000"), 1u);
  EXPECT_EQ(Count(rec.lines, "M import_error '" + r.fatal.message + "'"), 1u) << "the output says the read ended early";
}

TEST(ChromeJsonReader, OtherProducersCompleteEventsAndCounters) {
  // "X" events nest by time; a counter with two series.
  const std::string text =
      "[{\"ph\":\"X\",\"name\":\"outer\",\"pid\":3,\"tid\":4,\"ts\":10,\"dur\":100},"
      "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":3,\"tid\":4,\"ts\":20,\"dur\":30},"
      "{\"ph\":\"i\",\"name\":\"after\",\"pid\":3,\"tid\":4,\"ts\":60},"
      "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":3,\"tid\":4,\"ts\":70,\"args\":{\"rss\":5,\"heap\":2.6}},"
      "{\"ph\":\"q\",\"name\":\"unknown\",\"pid\":3,\"tid\":4,\"ts\":80}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::vector<std::string> want = {
      "P 3 ",
      "T 3/4 ",
      "B 3/4 outer 10000 cpu0 c0",
      "B 3/4 inner 20000 cpu0 c0",
      "E 3/4 inner 50000 ",
      "I 3/4 after 60000 cpu0 c0",
      "C 3/4 mem.heap 70000 3",
      "C 3/4 mem.rss 70000 5",
      "E 3/4 outer 110000 ",
      "M import_skipped 1",
      "M import_counters_rounded 1",  // heap 2.6
  };
  std::vector<std::string> got;
  for (const auto& l : rec.lines) {
    if (l.rfind("M orphan", 0) == 0 || l.rfind("M open", 0) == 0 || l.rfind("M flow", 0) == 0 ||
        l.rfind("M clock", 0) == 0 || l == "finish")
      continue;
    got.push_back(l);
  }
  EXPECT_EQ(got, want);
}

// Events of a track out of time order in the file (clang's -ftime-trace
// writes a slice after the ones it holds): the file is sorted, each event
// earlier than one before it on its track counted; other tracks keep their
// own order, and an event skipped (a phase not read) is not counted.
TEST(ChromeJsonReader, EventsOutOfTimeOrderOnATrackAreSortedAndCounted) {
  const std::string text =
      "[{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5},"
      "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
      "{\"ph\":\"i\",\"name\":\"i\",\"pid\":1,\"tid\":1,\"ts\":5},"
      "{\"ph\":\"i\",\"name\":\"j\",\"pid\":1,\"tid\":2,\"ts\":1},"
      "{\"ph\":\"n\",\"name\":\"skipped\",\"pid\":1,\"tid\":1,\"ts\":2},"
      "{\"ph\":\"i\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":30}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  EXPECT_EQ(r.out_of_order, 0u);
  EXPECT_EQ(Count(rec.lines, "M import_reordered 2"), 1u) << ::testing::PrintToString(rec.lines);
  EXPECT_EQ(Count(rec.lines, "M import_out_of_order"), 0u);
  EXPECT_EQ(Count(rec.lines, "I 1/2 j 1000"), 1u);
  std::vector<std::string> track;
  for (const auto& l : rec.lines)
    if (l.find(" 1/1 ") == 1 && l[0] != 'T') track.push_back(l.substr(0, l.find(' ', l.find(' ', 6) + 1)));
  EXPECT_EQ(track, (std::vector<std::string>{"I 1/1 i 5000", "B 1/1 a 10000", "E 1/1 a 15000", "B 1/1 b 20000",
                                             "E 1/1 b 25000", "I 1/1 k 30000"}))
      << ::testing::PrintToString(rec.lines);
}

// Ids past 32 bits (64-bit thread ids) or negative would wrap onto other
// tracks: each distinct number gets an id of its own from 2^32 - 1 down,
// counted. The model's counters are int64: a fraction is rounded and a
// number past int64 saturates, each counted; integral values are exact.
TEST(ChromeJsonReader, WideIdsGetTracksOfTheirOwnAndRoundedCountersAreCounted) {
  const std::string text =
      "[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"tid\":1099511627776,\"ts\":1},"
      "{\"ph\":\"i\",\"name\":\"b\",\"pid\":1,\"tid\":1099511627777,\"ts\":2},"
      "{\"ph\":\"i\",\"name\":\"c\",\"pid\":1,\"tid\":1099511627776,\"ts\":3},"
      "{\"ph\":\"i\",\"name\":\"d\",\"pid\":-5,\"tid\":0,\"ts\":4},"
      "{\"ph\":\"i\",\"name\":\"e\",\"pid\":1,\"tid\":0,\"ts\":5},"
      "{\"ph\":\"C\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":6,"
      "\"args\":{\"exact\":7,\"float\":1e3,\"half\":2.5,\"huge\":1e30,\"big\":18446744073709551615}}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(Count(rec.lines, "I 1/4294967295 a 1000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "I 1/4294967294 b 2000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "I 1/4294967295 c 3000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "I 4294967293/0 d 4000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "I 1/0 e 5000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_ids_remapped 3"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "C 1/1 k.exact 6000 7"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "C 1/1 k.float 6000 1000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "C 1/1 k.half 6000 2"), 1u) << all;  // to even
  EXPECT_EQ(Count(rec.lines, "C 1/1 k.huge 6000 9223372036854775807"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "C 1/1 k.big 6000 9223372036854775807"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_counters_rounded 3"), 1u) << all;
}

// Names that are not UTF-8 (Latin-1 "\xe9", a cut 3-byte character) are
// read as '?' and counted instead of ending the read; a valid character
// that straddles the reader's 64 KiB buffers is kept whole.
TEST(ChromeJsonReader, BytesThatAreNotUtf8ReadAsQuestionMarksAndTheReadGoesOn) {
  std::string text =
      "[{\"ph\":\"i\",\"name\":\"caf\xe9\",\"pid\":1,\"tid\":1,\"ts\":1},"
      "{\"ph\":\"i\",\"name\":\"cut\xe8\xaf\",\"pid\":1,\"tid\":1,\"ts\":2},";
  // Pad so that the 3 bytes of U+8BFB start 2 bytes before the 64 KiB mark
  // (the head of 8 bytes goes first, as ImportTrace reads it).
  const std::string pad_head = "{\"ph\":\"i\",\"name\":\"";
  const size_t mark = 64 * 1024 - 2;
  text += pad_head + std::string(mark - text.size() - pad_head.size(), 'x') +
          "\xe8\xaf\xbb\",\"pid\":1,\"tid\":1,\"ts\":3},"
          "{\"ph\":\"i\",\"name\":\"after\",\"pid\":1,\"tid\":1,\"ts\":4}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  EXPECT_EQ(Count(rec.lines, "I 1/1 caf? 1000"), 1u);
  EXPECT_EQ(Count(rec.lines, "I 1/1 cut?? 2000"), 1u);
  size_t straddling = 0;
  for (const auto& l : rec.lines) straddling += l.find("x\xe8\xaf\xbb 3000") != std::string::npos;
  EXPECT_EQ(straddling, 0u);  // the model keeps 1024 bytes of a name
  Recorder reader;
  const auto j = ReadJson(text, reader);
  for (const auto& l : reader.lines) straddling += l.find("x\xe8\xaf\xbb 3000") != std::string::npos;
  EXPECT_EQ(straddling, 1u);
  EXPECT_EQ(j.utf8_repaired, 3u);
  EXPECT_EQ(Count(rec.lines, "I 1/1 after 4000"), 1u);
  EXPECT_EQ(Count(rec.lines, "M import_utf8_repaired 3"), 1u);
}

// JavaScript producers cut strings between the halves of a surrogate pair
// ("\ud83d" alone): the parser would end the read there. A lone half reads
// as U+FFFD, counted; a whole pair, an escaped backslash before "ud800"
// and a pair straddling the reader's 64 KiB buffers are left as they are.
TEST(ChromeJsonReader, LoneSurrogateEscapesReadAsReplacementCharacters) {
  std::string text =
      "[{\"ph\":\"i\",\"name\":\"a\\ud83db\",\"pid\":1,\"tid\":1,\"ts\":1},"
      "{\"ph\":\"i\",\"name\":\"c\\uDC00\",\"pid\":1,\"tid\":1,\"ts\":2},"
      "{\"ph\":\"i\",\"name\":\"\\ud83d\\ude00\",\"pid\":1,\"tid\":1,\"ts\":3},"
      "{\"ph\":\"i\",\"name\":\"\\\\ud800\",\"pid\":1,\"tid\":1,\"ts\":4},"
      "{\"ph\":\"i\",\"name\":\"\\ud800\\u0041\",\"pid\":1,\"tid\":1,\"ts\":5},";
  // The pair of ts 6 starts 8 bytes before the 64 KiB mark: the read cuts
  // its low half after "\u".
  const std::string pad_head = "{\"ph\":\"i\",\"name\":\"";
  const size_t mark = 64 * 1024 - 8;
  text += pad_head + std::string(mark - text.size() - pad_head.size(), 'x') +
          "\\ud83d\\ude00\",\"pid\":1,\"tid\":1,\"ts\":6},"
          "{\"ph\":\"i\",\"name\":\"after\",\"pid\":1,\"tid\":1,\"ts\":7}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(Count(rec.lines,
                  "I 1/1 a\xEF\xBF\xBD"
                  "b 1000"),
            1u)
      << all;
  EXPECT_EQ(Count(rec.lines, "I 1/1 c\xEF\xBF\xBD 2000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "I 1/1 \xF0\x9F\x98\x80 3000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "I 1/1 \\ud800 4000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines,
                  "I 1/1 \xEF\xBF\xBD"
                  "A 5000"),
            1u)
      << all;
  size_t straddling = 0;
  for (const auto& l : rec.lines) straddling += l.find("x\xF0\x9F\x98\x80 6000") != std::string::npos;
  EXPECT_EQ(straddling, 0u) << all;  // the model keeps 1024 bytes of a name
  Recorder reader;
  const auto j = ReadJson(text, reader);
  for (const auto& l : reader.lines) straddling += l.find("x\xF0\x9F\x98\x80 6000") != std::string::npos;
  EXPECT_EQ(straddling, 1u) << all;
  EXPECT_EQ(j.utf8_repaired, 3u);
  EXPECT_EQ(Count(rec.lines, "I 1/1 after 7000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_utf8_repaired 3"), 1u) << all;
}

// A file saved with a UTF-8 byte order mark is still a .json trace.
TEST(ChromeJsonReader, AByteOrderMarkIsSkipped) {
  EXPECT_EQ(SniffImport("\xEF\xBB\xBF[{\"ph\""), ImportKind::kChromeJson);
  EXPECT_EQ(SniffImport("\xEF\xBB\xBF{\"traceEvents\""), ImportKind::kChromeJson);
  // A byte order mark says text: whatever follows is the JSON parser's to
  // judge (a BOM alone was "not a mabutrace stream (bad magic)").
  EXPECT_EQ(SniffImport("\xEF\xBB\xBF\x01\x02zzzz"), ImportKind::kChromeJson);
  EXPECT_EQ(SniffImport("\xEF\xBB\xBF"), ImportKind::kChromeJson);
  EXPECT_EQ(SniffImport("\xEF\xBB\xBF  \n"), ImportKind::kChromeJson);
  Recorder rec;
  const auto r = Import("\xEF\xBB\xBF[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1}]", rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  EXPECT_EQ(Count(rec.lines, "I 1/1 a 1000"), 1u) << ::testing::PrintToString(rec.lines);
}

// A pid or tid that is a name ("GPU"), a fraction or a bool would all
// share track 0: each distinct value gets an id of its own, counted; a
// number as a string is that number.
TEST(ChromeJsonReader, PidsAndTidsThatAreNotNumbersGetTracksOfTheirOwnNamedByTheirValue) {
  const std::string text =
      "[{\"ph\":\"i\",\"name\":\"a\",\"pid\":\"GPU\",\"tid\":\"31\",\"ts\":1},"
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":\"Render\",\"args\":{\"name\":\"renderer\"}},"
      "{\"ph\":\"i\",\"name\":\"b\",\"pid\":\"Render\",\"tid\":\"0x1f\",\"ts\":2},"
      "{\"ph\":\"i\",\"name\":\"c\",\"pid\":\"GPU\",\"tid\":1.5,\"ts\":3},"
      "{\"ph\":\"i\",\"name\":\"d\",\"pid\":1,\"tid\":true,\"ts\":4},"
      "{\"ph\":\"i\",\"name\":\"e\",\"ts\":5}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(Count(rec.lines, "I 4294967295/31 a 1000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "I 4294967294/31 b 2000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "I 4294967295/4294967293 c 3000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "I 1/4294967292 d 4000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "I 0/0 e 5000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_ids_remapped 4"), 1u) << all;
  // Named by the value they stand for, unless the file named them first.
  EXPECT_EQ(Count(rec.lines, "P 4294967295 GPU"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "P 4294967294 renderer"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "P 4294967294 Render"), 0u) << all;
  EXPECT_EQ(Count(rec.lines, "T 4294967295/4294967293 1.5"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "T 1/4294967292 true"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_names_late"), 0u) << all;
}

// The model names a track when it first appears: a thread_name or
// process_name after the track's first event is not shown, and counted.
// A name before the first event, or after events that were not passed on
// (a "P" sample), is shown.
TEST(ChromeJsonReader, NamesAfterTheTracksFirstEventAreCounted) {
  const std::string text =
      "[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"early\"}},"
      "{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"late\"}},"
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"proc\"}},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"fresh\"}},"
      "{\"ph\":\"P\",\"pid\":2,\"tid\":3,\"ts\":2},"
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"proc2\"}},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2,\"tid\":3,\"args\":{\"name\":\"t3\"}}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(Count(rec.lines, "T 1/1 early"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "T 1/2 fresh"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "P 2 proc2"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "T 2/3 t3"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_names_late 2"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_skipped 1"), 1u) << all;
  EXPECT_EQ(r.skipped, 1u);
}

// Flow v2 (Perfetto's JSON importer): "bind_id" with "flow_out" / "flow_in"
// on a slice are the ends of its arrows, bound to it. Args the model has no
// room for (anything but cpu, color, an end's flag) are counted.
TEST(ChromeJsonReader, FlowV2ArrowsBindToTheirSlicesAndOtherArgsAreCounted) {
  const std::string text =
      "[{\"ph\":\"X\",\"name\":\"send\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,"
      "\"bind_id\":\"0x2a\",\"flow_out\":true,\"args\":{\"bytes\":64,\"cpu\":1}},"
      "{\"ph\":\"B\",\"name\":\"recv\",\"pid\":1,\"tid\":2,\"ts\":20,\"bind_id\":42,\"flow_in\":true},"
      "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":30,\"args\":{\"late\":true,\"note\":\"x\"}},"
      "{\"ph\":\"i\",\"name\":\"tick\",\"pid\":1,\"tid\":1,\"ts\":40,\"args\":{\"n\":1,\"m\":2}}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(Count(rec.lines, "B 1/1 send 10000 cpu1"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "s 1/1 id42 10000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "f 1/2 id42 20000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "E 1/2 recv 30000 late"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_args_ignored 4"), 1u) << all;  // bytes, note, n, m
}

// An "X" that would outlast the "X" it starts in cannot nest on one track:
// it ends with the outer one (counted), so the outer keeps its own end
// instead of being stretched to the inner's.
TEST(ChromeJsonReader, AnXOutlastingTheXItStartsInEndsWithItAndIsCounted) {
  const std::string text =
      "[{\"ph\":\"X\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":10},"
      "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":15,\"dur\":10},"
      "{\"ph\":\"X\",\"name\":\"nested\",\"pid\":1,\"tid\":1,\"ts\":16,\"dur\":2},"
      "{\"ph\":\"i\",\"name\":\"after\",\"pid\":1,\"tid\":1,\"ts\":30}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  EXPECT_EQ(r.x_clipped, 1u);
  EXPECT_EQ(r.out_of_order, 0u);
  EXPECT_EQ(Count(rec.lines, "M import_x_clipped 1"), 1u);
  std::vector<std::string> ends;
  for (const auto& l : rec.lines)
    if (l.rfind("E 1/1", 0) == 0) ends.push_back(l.substr(0, l.rfind(' ')));
  EXPECT_EQ(ends, (std::vector<std::string>{"E 1/1 nested 18000", "E 1/1 inner 20000", "E 1/1 outer 20000"}))
      << ::testing::PrintToString(rec.lines);
}

}  // namespace

// Writers put a thread_name before its process_name as often as after: both
// are shown when they come before the process's first event. A name read
// after its track was announced (by an event, or a thread's name that an
// event of another process let out) is counted.
TEST(ChromeJsonReader, AThreadNameBeforeItsProcessNameLeavesBothShown) {
  const std::string text =
      "[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":5,\"tid\":6,\"args\":{\"name\":\"T6\"}},"
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":5,\"args\":{\"name\":\"P5\"}},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":8,\"args\":{\"name\":\"T8\"}},"
      "{\"ph\":\"B\",\"name\":\"a\",\"pid\":5,\"tid\":6,\"ts\":1},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":5,\"tid\":9,\"args\":{\"name\":\"T9\"}},"
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"args\":{\"name\":\"P7\"}},"
      "{\"ph\":\"E\",\"pid\":5,\"tid\":6,\"ts\":2}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(Count(rec.lines, "P 5 P5"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "T 5/6 T6"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "T 5/9 T9"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "T 7/8 T8"), 1u) << all;  // let out by the first event, its process unnamed
  EXPECT_EQ(Count(rec.lines, "P 7 P7"), 0u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_names_late 1"), 1u) << all;
}

// An s/f after an "X" of its track that has ended comes after that end
// (as an instant does): before, the arrow end was inside a slice that
// was over.
TEST(ChromeJsonReader, AFlowAfterAnXThatEndedComesAfterItsEnd) {
  const std::string text =
      "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
      "{\"ph\":\"s\",\"name\":\"m\",\"id\":8,\"pid\":1,\"tid\":1,\"ts\":50},"
      "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":55,\"dur\":5},"
      "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"m\",\"id\":8,\"pid\":1,\"tid\":2,\"ts\":57}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  const auto at = [&](const std::string& prefix) {
    return std::find_if(rec.lines.begin(), rec.lines.end(),
                        [&](const std::string& l) { return l.starts_with(prefix); }) -
           rec.lines.begin();
  };
  ASSERT_LT(at("E 1/1 a 15000"), std::ptrdiff_t(rec.lines.size())) << all;
  EXPECT_LT(at("E 1/1 a 15000"), at("s 1/1 id8 50000")) << all;
  EXPECT_LT(at("f 1/2 id8 57000"), at("E 1/2 b 60000")) << all;
}

// The model's flow ids are numbers from 1 up: an arrow end with id 0 or a
// name is dropped and counted (import_flows_dropped), not said to be a
// skipped event; a counter value that is not a number is an arg counted.
TEST(ChromeJsonReader, FlowsWithoutANumberIdAndCountersThatAreNotNumbersAreCounted) {
  const std::string text =
      "[{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1},"
      "{\"ph\":\"s\",\"name\":\"m\",\"id\":0,\"pid\":1,\"tid\":1,\"ts\":2},"
      "{\"ph\":\"f\",\"name\":\"m\",\"id\":\"abc\",\"pid\":1,\"tid\":1,\"ts\":3},"
      "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1,\"bind_id\":0,\"flow_out\":true},"
      "{\"ph\":\"C\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":6,\"args\":{\"a\":\"12\",\"b\":null,\"t\":true,\"n\":5}}"
      ","
      "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":9}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(Count(rec.lines, "M import_flows_dropped 3"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_args_ignored 3"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "C 1/1 c.n 6000 5"), 1u) << all;
  EXPECT_EQ(r.skipped, 0u);
}

// The array form may end without its "]", also after a last ',' (a trace
// written as it goes; the Trace Event Format allows it): the file is
// whole. A file cut inside an event is still an error.
TEST(ChromeJsonReader, AnArrayWithoutItsClosingBracketIsWhole) {
  const std::string events =
      "[{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1},"
      "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":2}";
  for (const std::string& tail : {std::string(), std::string(","), std::string(",\n ")}) {
    Recorder rec;
    const auto r = Import(events + tail, rec);
    EXPECT_TRUE(r.fatal.ok) << "tail '" << tail << "': " << r.fatal.message;
    EXPECT_EQ(Count(rec.lines, "E 1/1 a 2000"), 1u) << ::testing::PrintToString(rec.lines);
    EXPECT_EQ(Count(rec.lines, "M import_error"), 0u) << ::testing::PrintToString(rec.lines);
  }
  Recorder rec;
  const auto r = Import(events + ",{\"ph\":\"i\"", rec);
  EXPECT_FALSE(r.fatal.ok);
  EXPECT_EQ(Count(rec.lines, "M import_error"), 1u) << ::testing::PrintToString(rec.lines);
}

// A pid or tid written as a whole number in float form (1.0, 1e3) is that
// number: the same track as 1 and 1000, not an id of its own.
TEST(ChromeJsonReader, WholeNumbersInFloatFormAreTheirNumbers) {
  const std::string text =
      "[{\"ph\":\"B\",\"name\":\"a\",\"pid\":1.0,\"tid\":2e0,\"ts\":1},"
      "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":2},"
      "{\"ph\":\"i\",\"name\":\"k\",\"pid\":1e3,\"tid\":2.5,\"ts\":3}]";
  Recorder rec;
  const auto r = Import(text, rec);
  ASSERT_TRUE(r.fatal.ok) << r.fatal.message;
  const std::string all = ::testing::PrintToString(rec.lines);
  EXPECT_EQ(Count(rec.lines, "E 1/2 a 2000"), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "P 1000 "), 1u) << all;
  EXPECT_EQ(Count(rec.lines, "M import_ids_remapped 1"), 1u) << all;  // the tid 2.5
}
