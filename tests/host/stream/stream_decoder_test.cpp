// SPDX-License-Identifier: MIT
// stream_decoder_test.cpp: the host decoder on hand-built and damaged
// streams (docs/stream-format.md): forward compatibility, byte order,
// errors with offsets, truncation and random corruption without crashes.
#include <gtest/gtest.h>
#include <stdint.h>

#include <cstring>
#include <map>
#include <random>
#include <string>

#include "format/record_format.h"
#include "format/stream_format.h"
#include "mabutrace/mabutrace.h"
#include "stream_test_util.h"
#include "stream_to_model.h"

namespace {

namespace fmt = mabutrace::stream;
using mabutrace::MakeHeader;
using mabutrace::RecordType;
using mabutrace::host::EventType;
using mt_stream::Decode;
using mt_stream::Decoded;

// Writes a stream by hand, in either byte order.
class Builder {
 public:
  explicit Builder(bool big = false) : big_(big) {}
  std::string bytes;

  void U8(uint8_t v) { bytes.push_back(char(v)); }
  void N(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) {
      const int shift = big_ ? 8 * (n - 1 - i) : 8 * i;
      U8(uint8_t(v >> shift));
    }
  }
  void Header(uint16_t version = fmt::kVersion, uint64_t hz = 1000, uint16_t extra = 0) {
    bytes.append(reinterpret_cast<const char*>(fmt::kMagic), 8);
    N(version, 2);
    N(fmt::kHdrFixedBytes + 4 + extra, 2);
    U8(8);
    U8(big_ ? fmt::kBigEndian : fmt::kLittleEndian);
    U8(8);
    U8(0);
    N(hz, 8);
    N(100, 8);  // origin ticks
    N(42, 4);
    N(4, 2);
    bytes += "proc";
    bytes.append(extra, '\x55');  // fields of a later version
  }
  void Record(uint8_t kind, const std::string& payload) {
    U8(kind);
    N(payload.size(), 4);
    bytes += payload;
  }
  std::string Str(uint64_t ptr, const std::string& s) {
    Builder p(big_);
    p.N(ptr, 8);
    p.N(s.size(), 2);
    p.bytes += s;
    return p.bytes;
  }
  std::string Events(uint32_t key, uint32_t tid, uint64_t base, const std::vector<uint64_t>& w) {
    Builder p(big_);
    p.N(key, 4);
    p.N(tid, 4);
    p.N(1, 8);
    p.N(base, 8);
    p.N(0, 4);
    p.N(w.size(), 4);
    for (uint64_t x : w) p.N(x, 8);
    return p.bytes;
  }

 private:
  bool big_;
};

// A small hand-built stream: every record kind plus an unknown one.
std::string Sample(bool big) {
  Builder b(big);
  b.Header(fmt::kVersion, 1000, /*extra=*/3);
  b.Record(uint8_t(fmt::Kind::kString), b.Str(0x1000, "alpha"));
  b.Record(uint8_t(fmt::Kind::kString), b.Str(0x2000, "beta") + "future");  // trailing bytes
  Builder t(big);
  t.N(7, 4);
  t.N(1234, 4);
  t.N(2, 2);
  t.bytes += "T1";
  b.Record(uint8_t(fmt::Kind::kThread), t.bytes);
  b.Record(200, "unknown kind, skipped");
  b.Record(
      uint8_t(fmt::Kind::kEvents),
      b.Events(7, 1234, 100,
               {MakeHeader(0, RecordType::kScopeBegin, 1), 0x1000,
                MakeHeader(5, RecordType::kCounter, 1) | mabutrace::kHasColor, 0x2000, uint64_t(int64_t{-5}), 0xABCDEF,
                MakeHeader(0, RecordType::kTimeBase, 0), 2100, MakeHeader(1, RecordType::kScopeEnd, 2)}));
  Builder l(big);
  l.N(11, 8);
  l.N(3, 8);
  b.Record(uint8_t(fmt::Kind::kLost), l.bytes);
  return b.bytes;
}

void CheckSample(const Decoded& d) {
  ASSERT_TRUE(d.status.ok) << d.status.message;
  EXPECT_TRUE(d.record_errors.empty());
  EXPECT_EQ(d.info.process_name, "proc");
  EXPECT_EQ(d.info.pid, 42u);
  EXPECT_EQ(d.info.clock_hz, 1000u);
  ASSERT_EQ(d.events.size(), 3u);
  EXPECT_EQ(d.events[0].type, EventType::kScopeBegin);
  EXPECT_EQ(d.events[0].name, "alpha");
  EXPECT_EQ(d.events[0].thread_name, "T1");
  EXPECT_EQ(d.events[0].ns, 0u);
  EXPECT_EQ(d.events[0].cpu, 1u);
  EXPECT_EQ(d.events[1].type, EventType::kCounter);
  EXPECT_EQ(d.events[1].name, "beta");
  EXPECT_EQ(d.events[1].value, -5);
  EXPECT_EQ(d.events[1].color, 0x1ABCDEFu);
  EXPECT_EQ(d.events[1].ns, 5000000u);  // 5 ticks of 1 kHz
  EXPECT_EQ(d.events[2].type, EventType::kScopeEnd);
  EXPECT_EQ(d.events[2].ticks, 2101u);
  EXPECT_EQ(d.events[2].ns, 2001000000u);
  EXPECT_EQ(d.lost, 11u);
  EXPECT_EQ(d.dropped, 3u);
}

TEST(StreamDecoder, HandBuiltLittleEndian) { CheckSample(Decode(Sample(false))); }
TEST(StreamDecoder, HandBuiltBigEndianIsSwapped) {
  const Decoded d = Decode(Sample(true));
  CheckSample(d);
  EXPECT_TRUE(d.info.big_endian);
}
TEST(StreamDecoder, AnyPieceSize) {
  const std::string s = Sample(false);
  for (size_t piece : {1, 2, 3, 5, 13, 64}) CheckSample(Decode(s, piece));
}

TEST(StreamDecoder, HeaderErrorsNameTheOffset) {
  std::string s = Sample(false);
  s[0] = 'X';
  Decoded d = Decode(s);
  EXPECT_FALSE(d.status.ok);
  EXPECT_EQ(d.status.offset, 0u);
  EXPECT_NE(d.status.message.find("magic"), std::string::npos);

  Builder v;
  v.Header(2);
  d = Decode(v.bytes);
  EXPECT_FALSE(d.status.ok);
  EXPECT_EQ(d.status.offset, fmt::kHdrVersion);
  EXPECT_NE(d.status.message.find("version 2"), std::string::npos) << d.status.message;

  Builder z;
  z.Header(fmt::kVersion, 0);
  d = Decode(z.bytes);
  EXPECT_EQ(d.status.offset, fmt::kHdrClockHz);

  s = Sample(false);
  s[fmt::kHdrWordSize] = 4;
  d = Decode(s);
  EXPECT_EQ(d.status.offset, fmt::kHdrWordSize);
  EXPECT_EQ(d.status.message.rfind("offset 14: ", 0), 0u) << d.status.message;
}

TEST(StreamDecoder, CorruptLengthIsFatalWithOffset) {
  Builder b;
  b.Header();
  const size_t at = b.bytes.size();
  b.U8(uint8_t(fmt::Kind::kEvents));
  b.N(0xFFFFFFF0u, 4);
  const Decoded d = Decode(b.bytes);
  EXPECT_FALSE(d.status.ok);
  EXPECT_EQ(d.status.offset, at);
}

// A damaged EVENTS record in the middle: reported, the records around it kept.
TEST(StreamDecoder, DamagedRecordIsSkippedOthersKept) {
  Builder b;
  b.Header();
  b.Record(uint8_t(fmt::Kind::kString), b.Str(0x10, "n"));
  b.Record(uint8_t(fmt::Kind::kEvents), b.Events(1, 1, 100, {MakeHeader(1, RecordType::kInstant, 0), 0x10}));
  const size_t bad = b.bytes.size();
  b.Record(uint8_t(fmt::Kind::kEvents),
           b.Events(1, 1, 100, {MakeHeader(2, RecordType::kInstant, 0), 0x10, uint64_t{15} << 40}));
  b.Record(uint8_t(fmt::Kind::kEvents), b.Events(1, 1, 100, {MakeHeader(3, RecordType::kInstant, 0), 0x99}));
  b.Record(uint8_t(fmt::Kind::kEvents), b.Events(1, 1, 100, {MakeHeader(4, RecordType::kInstant, 0), 0x10}));
  b.Record(uint8_t(fmt::Kind::kEvents), b.Events(1, 1, 100, {MakeHeader(5, RecordType::kInstant, 0), 0x99}));
  const Decoded d = Decode(b.bytes);
  ASSERT_TRUE(d.status.ok) << d.status.message;
  ASSERT_EQ(d.events.size(), 5u);  // 1, 2 (before the bad word), 3 (unknown name), 4, 5
  EXPECT_EQ(d.events[3].ticks, 104u);
  EXPECT_FALSE(d.events[2].name_known);
  EXPECT_EQ(d.events[2].name, "<0x99>");
  EXPECT_EQ(d.events[4].name, "<0x99>");  // the same pointer again: same name, no new error
  ASSERT_EQ(d.record_errors.size(), 2u);
  EXPECT_EQ(d.record_errors[0].offset, bad + fmt::kRecordHeaderBytes + fmt::kEventsWords + 16);
  EXPECT_NE(d.record_errors[1].message.find("name pointer 0x99 never described"), std::string::npos)
      << d.record_errors[1].message;
}

// A stream from the real writer, for truncation and mutation.
std::string RealStream() {
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  EXPECT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  mt_stream::g_bytes.clear();
  EXPECT_EQ(mabutrace_set_output_callback(mt_stream::Capture), MABUTRACE_OK);
  mabutrace_set_thread_name("mut");
  uint16_t link = 0;
  for (int i = 0; i < 6; ++i) {
    TRACE_SCOPE("s", COLOR_GREEN);
    TRACE_COUNTER("c", INT32_MIN + i);
    TRACE_FLOW_OUT(&link, "f");
    TRACE_FLOW_IN(link, "g");
    if (i % 2) {
      EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
    }
  }
  EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  mabutrace_deinit();
  return mt_stream::g_bytes;
}

TEST(StreamDecoder, EveryTruncationIsAnErrorWithOffset) {
  const std::string s = RealStream();
  const Decoded full = Decode(s);
  ASSERT_TRUE(full.status.ok) << full.status.message;
  ASSERT_EQ(full.events.size(), 6u * 5u);
  size_t clean_cuts = 0;
  for (size_t len = 0; len < s.size(); ++len) {
    const Decoded d = Decode(s.substr(0, len), len % 3 + 1);
    if (d.status.ok) {
      ++clean_cuts;  // cut exactly between records: a shorter valid stream
      continue;
    }
    EXPECT_LE(d.status.offset, len);
    EXPECT_NE(d.status.message.find("ends inside"), std::string::npos) << d.status.message;
  }
  EXPECT_GT(clean_cuts, 2u);
  EXPECT_LT(clean_cuts, 40u);
}

// Random damage: never a crash or an out-of-bounds read (run it under ASan),
// every error names an offset inside the stream.
TEST(StreamDecoder, RandomMutationsNeverCrash) {
  const std::string s = RealStream();
  std::mt19937 rng(12345);
  int fatal = 0, damaged = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string m = s;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % m.size();
      switch (rng() % 4) {
        case 0: m[at] = char(rng()); break;
        case 1: m[at] ^= char(1u << (rng() % 8)); break;
        case 2: m.erase(at, 1 + rng() % 8); break;
        case 3: m.insert(at, 1 + rng() % 8, char(rng())); break;
      }
      if (m.empty()) m = "M";
    }
    const Decoded d = Decode(m, iter % 2 ? 0 : 1 + rng() % 50);
    if (!d.status.ok) {
      ++fatal;
      EXPECT_LE(d.status.offset, m.size());
      EXPECT_EQ(d.status.message.rfind("offset ", 0), 0u);
    }
    if (!d.record_errors.empty()) ++damaged;
  }
  EXPECT_GT(fatal, 100);
  EXPECT_GT(damaged, 10);
}

}  // namespace

namespace {

uint64_t FlowWord(RecordType t, uint64_t delta) { return MakeHeader(delta, t, 0); }

// Flow ends read before their outs (another thread's chunk first), one
// link cycle after the same links were used and ended: each end must wait
// for its own out, not take the older, ended one. Both bugs seen in a
// 1 GiB stream (2 M flows: 32 % ambiguous, 4 % without start) are here:
// mutation (a) Resolve() taking an ended best gives ends 1, 2, 3 again
// (dropped as without start); (b) BindPending() before the out's own
// point is passed on makes the Normalizer drop every late end.
TEST(StreamToModel, EndsReadBeforeTheirOutsOneLinkCycleLaterBindToTheirOwnOuts) {
  Builder b;
  b.Header();
  std::vector<uint64_t> first;  // thread 1: flows 1..3 out and in, in order
  for (uint64_t n = 1; n <= 3; ++n) {
    first.insert(first.end(), {FlowWord(RecordType::kFlowOut, 1), 0, n | n << 16});
    first.insert(first.end(), {FlowWord(RecordType::kFlowIn, 1), 0, n | n << 16});
  }
  b.Record(uint8_t(fmt::Kind::kEvents), b.Events(1, 1, 100, first));
  // Thread 2's ends of flows 65536..65538 (links 1..3 again) come first...
  const uint64_t newest = 65538;
  std::vector<uint64_t> ins;
  for (uint64_t link = 1; link <= 3; ++link)
    ins.insert(ins.end(), {FlowWord(RecordType::kFlowIn, 5), 0, link | newest << 16});
  b.Record(uint8_t(fmt::Kind::kEvents), b.Events(2, 2, 200, ins));
  // ... then thread 1's outs.
  std::vector<uint64_t> outs;
  for (uint64_t n = 65536; n <= 65538; ++n) {
    const uint64_t link = mabutrace::LinkForFlow(uint32_t(n));
    outs.insert(outs.end(), {FlowWord(RecordType::kFlowOut, 1), 0, link | n << 16});
  }
  b.Record(uint8_t(fmt::Kind::kEvents), b.Events(1, 1, 150, outs));
  mt_stream::FlowCounts sink;
  mabutrace::host::StreamToModel conv(sink);
  ASSERT_TRUE(conv.Feed(reinterpret_cast<const uint8_t*>(b.bytes.data()), b.bytes.size()).ok);
  ASSERT_TRUE(conv.Finish().ok);
  EXPECT_EQ(sink.arrow_ends, (std::vector<uint64_t>{1, 2, 3, 65536, 65537, 65538}));
  EXPECT_EQ(sink.meta.at("flow_ends_without_start"), 0);
  EXPECT_EQ(sink.meta.at("flow_ends_ambiguous"), 0);
}

}  // namespace
