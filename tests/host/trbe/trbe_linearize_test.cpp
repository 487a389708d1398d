// SPDX-License-Identifier: MIT
// trbe_linearize_test.cpp: buffer dump -> oldest-to-newest stream
// (reference/arm-trace-facts.md §2), including the 0x70 padding rules.
#include <gtest/gtest.h>

#include <vector>

#include "trbe_linearize.h"

namespace {

using namespace mabutrace::trbe;

LinearizeOptions Opt(uint64_t base, uint64_t limit, uint64_t ptr, bool wrapped = false,
                     FillMode fm = FillMode::kCircular) {
  LinearizeOptions o;
  o.base = base;
  o.limit = limit;
  o.ptr = ptr;
  o.wrapped = wrapped;
  o.fill_mode = fm;
  return o;
}

constexpr uint64_t kBase = 0x10000;

std::vector<uint8_t> Dump(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i % 251 + 1);
  return v;
}

std::vector<uint8_t> Slice(const std::vector<uint8_t>& v, size_t b, size_t e) {
  return {v.begin() + static_cast<long>(b), v.begin() + static_cast<long>(e)};
}

TEST(TrbeLinearize, NotWrappedIsStartToPtr) {  // §2 WRAP=0
  const auto d = Dump(4096);
  LinearizeOptions o = Opt(kBase, kBase + 4096, kBase + 1000);
  o.start = kBase + 100;
  LinearizeResult r;
  std::string err;
  ASSERT_TRUE(Linearize(d, o, &r, &err)) << err;
  EXPECT_EQ(r.bytes, Slice(d, 100, 1000));
  ASSERT_EQ(r.segments.size(), 1u);
  EXPECT_FALSE(r.overwritten);
}

TEST(TrbeLinearize, WrappedCircularIsPtrToLimitThenBaseToPtr) {  // §2 WRAP=1 circular
  const auto d = Dump(4096);
  LinearizeOptions o = Opt(kBase, kBase + 4096, kBase + 1000, true);
  LinearizeResult r;
  std::string err;
  ASSERT_TRUE(Linearize(d, o, &r, &err)) << err;
  auto expect = Slice(d, 1000, 4096);
  const auto tail = Slice(d, 0, 1000);
  expect.insert(expect.end(), tail.begin(), tail.end());
  EXPECT_EQ(r.bytes, expect);
  ASSERT_EQ(r.segments.size(), 2u);
  EXPECT_EQ(r.segments[0].begin, kBase + 1000);
  EXPECT_EQ(r.segments[1].end, kBase + 1000);
  EXPECT_TRUE(r.overwritten);
  EXPECT_FALSE(r.async_found);
  EXPECT_EQ(r.head_bytes, 4096u);
}

TEST(TrbeLinearize, WrappedFillModeIsStartToLimit) {  // §2 WRAP=1 Fill, BSC=FILLED
  const auto d = Dump(8192);
  LinearizeOptions o = Opt(kBase, kBase + 8192, kBase, true, FillMode::kFill);
  o.start = kBase + 512;
  LinearizeResult r;
  std::string err;
  ASSERT_TRUE(Linearize(d, o, &r, &err)) << err;
  EXPECT_EQ(r.bytes, Slice(d, 512, 8192));
  EXPECT_FALSE(r.overwritten);
}

TEST(TrbeLinearize, HeadBeforeAsyncPadDropKeep) {  // §2 resync rule
  auto d = Dump(4096);
  // An A-Sync 300 bytes after PTR (=1000): 11 x 0x00 then 0x80.
  for (int i = 0; i < 11; ++i) d[1300 + i] = 0;
  d[1311] = 0x80;
  LinearizeOptions o = Opt(kBase, kBase + 4096, kBase + 1000, true);
  LinearizeResult keep, pad, drop;
  std::string err;
  ASSERT_TRUE(Linearize(d, o, &keep, &err));
  o.head = HeadPolicy::kPad;
  ASSERT_TRUE(Linearize(d, o, &pad, &err));
  o.head = HeadPolicy::kDrop;
  ASSERT_TRUE(Linearize(d, o, &drop, &err));
  EXPECT_TRUE(keep.async_found);
  EXPECT_EQ(keep.head_bytes, 300u);
  ASSERT_EQ(pad.bytes.size(), keep.bytes.size());
  for (size_t i = 0; i < 300; ++i) ASSERT_EQ(pad.bytes[i], kEteIgnoreByte) << i;
  EXPECT_TRUE(std::equal(pad.bytes.begin() + 300, pad.bytes.end(), keep.bytes.begin() + 300));
  EXPECT_EQ(drop.bytes, Slice(keep.bytes, 300, keep.bytes.size()));
  EXPECT_EQ(drop.bytes[0], 0x00);
  // pad + strip-padding == drop.
  o.head = HeadPolicy::kPad;
  o.strip_padding = true;
  LinearizeResult stripped;
  ASSERT_TRUE(Linearize(d, o, &stripped, &err));
  EXPECT_EQ(stripped.bytes, drop.bytes);
  EXPECT_EQ(stripped.padding_stripped, 300u);
}

TEST(TrbeLinearize, StripsDriverPaddingAtTheStart) {  // §1.12 padding with 0x70
  auto d = Dump(4096);
  for (int i = 0; i < 256; ++i) d[i] = kEteIgnoreByte;
  LinearizeOptions o = Opt(kBase, kBase + 4096, kBase + 600);
  o.strip_padding = true;
  LinearizeResult r;
  std::string err;
  ASSERT_TRUE(Linearize(d, o, &r, &err));
  EXPECT_EQ(r.padding_stripped, 256u);
  EXPECT_EQ(r.bytes, Slice(d, 256, 600));
}

TEST(TrbeLinearize, FindAsync) {
  std::vector<uint8_t> v(10, 0);
  v.push_back(0x80);
  EXPECT_FALSE(FindAsync(v).has_value());  // only 10 zeros
  v.insert(v.begin(), 0x00);
  EXPECT_EQ(FindAsync(v), 0u);
  v.insert(v.begin(), {0x05, 0x00});
  EXPECT_EQ(FindAsync(v), 2u);  // 12 zeros: the packet is the last 11 + 0x80
  EXPECT_FALSE(FindAsync(v, 3).has_value());
}

TEST(TrbeLinearize, InconsistentPointersAreErrors) {
  const auto d = Dump(4096);
  LinearizeResult r;
  std::string err;
  EXPECT_FALSE(Linearize(d, Opt(kBase, kBase + 8192, kBase), &r, &err));
  EXPECT_NE(err.find("4096"), std::string::npos);
  EXPECT_FALSE(Linearize(d, Opt(kBase, kBase + 4096, kBase + 5000), &r, &err));
  EXPECT_NE(err.find("ptr"), std::string::npos);
  EXPECT_FALSE(Linearize(d, Opt(kBase, kBase, kBase), &r, &err));
  LinearizeOptions o = Opt(kBase, kBase + 4096, kBase + 10);
  o.start = kBase + 20;
  EXPECT_FALSE(Linearize(d, o, &r, &err));
  EXPECT_NE(err.find("below start"), std::string::npos);
}

TEST(TrbeLinearize, LimitDefaultsToBasePlusDumpSize) {
  const auto d = Dump(4096);
  LinearizeOptions o = Opt(kBase, 0, kBase + 4096, true);
  o.limit.reset();
  LinearizeResult r;
  std::string err;
  ASSERT_TRUE(Linearize(d, o, &r, &err)) << err;
  EXPECT_EQ(r.bytes, d);  // PTR == limit: the oldest byte is at base
}

TEST(TrbeLinearize, SummarySaysWhatHappenedToTheHead) {
  auto d = Dump(4096);
  for (int i = 0; i < 11; ++i) d[1300 + i] = 0;
  d[1311] = 0x80;
  LinearizeOptions o = Opt(kBase, kBase + 4096, kBase + 1000, true);
  o.head = HeadPolicy::kPad;
  o.strip_padding = true;
  LinearizeResult r;
  std::string err;
  ASSERT_TRUE(Linearize(d, o, &r, &err)) << err;
  EXPECT_EQ(LinearizeSummary(r, o.head),
            "3796 bytes from [0x103e8, 0x11000) [0x10000, 0x103e8)\n"
            "  oldest data overwritten: 300 bytes before the first A-Sync (pad)\n"
            "  stripped 300 leading 0x70 padding bytes\n");
  d[1311] = 0x81;  // no A-Sync left
  o.strip_padding = false;
  ASSERT_TRUE(Linearize(d, o, &r, &err)) << err;
  EXPECT_NE(LinearizeSummary(r, o.head).find("no A-Sync in the buffer: not decodable"), std::string::npos);
}

TEST(TrbeLinearize, HeadPolicyNames) {
  for (HeadPolicy h : {HeadPolicy::kKeep, HeadPolicy::kPad, HeadPolicy::kDrop})
    EXPECT_EQ(ParseHeadPolicy(HeadPolicyName(h)), h);
  EXPECT_FALSE(ParseHeadPolicy("Keep"));
}

}  // namespace
