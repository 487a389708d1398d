// SPDX-License-Identifier: MIT
// trbe_roundtrip_test.cpp: real ETE captures (shared data/ete-snapshots,
// raw source_data .bin) written through the TRBU model, dumped and
// linearized (reference/arm-trace-facts.md §1.9, §2).
//
// Circular mode: the capture is written twice in a row (two trace sessions;
// each starts with an A-Sync) into a buffer larger than one copy and smaller
// than two, so the buffer wraps and keeps the tail of the first session and
// all of the second. The linearized dump must be byte-for-byte the last
// buffer-size bytes of the stream; with --head pad the partial packet data
// before the second session's A-Sync becomes 0x70 Ignore packets, and with
// padding stripped the result is exactly the capture again.
//
// This is the byte-exact form of the round trip; trbe_ete_roundtrip_test.cpp
// is the packet-level form (decoded with host/ete, built when it is).
#include <gtest/gtest.h>

#include "shared_data.h"

#include <cstdio>
#include <string>
#include <vector>

#include "trbe_linearize.h"
#include "trbe_model.h"

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

constexpr uint64_t kBase = 0x80000000;

std::vector<uint8_t> ReadCapture(const std::string& rel) {
  const std::string path = std::string(MABUTRACE_ETE_SNAPSHOTS) + "/" + rel;
  std::vector<uint8_t> v;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return v;
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) v.insert(v.end(), buf, buf + n);
  std::fclose(f);
  return v;
}

// Runs `stream` through the model in `fm` with a buffer of `size` bytes and
// returns the buffer memory; *ptr / *status get the final registers.
std::vector<uint8_t> Capture(const std::vector<uint8_t>& stream, FillMode fm, uint64_t size, uint64_t* ptr,
                             Status* status) {
  FlatMemory mem(kBase, size, 0xA5);
  TraceBufferUnit tbu(&mem);
  Limitr l;
  l.limit = kBase + size;
  l.fm = fm;
  l.tm = TriggerMode::kIgnore;
  EXPECT_EQ(tbu.WriteRegister(Reg::kTrbbaserEl1, kBase), WriteResult::kOk);
  EXPECT_EQ(tbu.WriteRegister(Reg::kTrbptrEl1, kBase), WriteResult::kOk);
  l.e = true;
  EXPECT_EQ(tbu.WriteRegister(Reg::kTrblimitrEl1, l.Encode()), WriteResult::kOk);
  tbu.Collect(stream);
  *ptr = tbu.ReadRegister(Reg::kTrbptrEl1);
  *status = Status::Decode(tbu.ReadRegister(Reg::kTrbsrEl1));
  return mem.bytes();
}

class RoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(RoundTrip, CircularWrapThenLinearize) {
  MABUTRACE_NEEDS_SHARED(std::string(MABUTRACE_ETE_SNAPSHOTS) + "/" + GetParam());
  const auto capture = ReadCapture(GetParam());
  ASSERT_GT(capture.size(), 2048u) << "capture missing or too small: " << GetParam();
  ASSERT_EQ(FindAsync(capture), 0u) << "capture should start with an A-Sync";
  const uint64_t n = capture.size();
  const uint64_t size = (n + 4095) / 4096 * 4096 + (n % 4096 == 0 ? 4096 : 0);  // one copy < size
  ASSERT_LT(size, 2 * n) << "two copies must wrap the buffer";
  std::vector<uint8_t> stream = capture;
  stream.insert(stream.end(), capture.begin(), capture.end());

  uint64_t ptr;
  Status st;
  const auto dump = Capture(stream, FillMode::kCircular, size, &ptr, &st);
  // §1.9 Circular: wrapped, no management event, still collecting.
  EXPECT_TRUE(st.wrap);
  EXPECT_FALSE(st.irq);
  EXPECT_FALSE(st.s);
  EXPECT_EQ(ptr, kBase + (2 * n) % size);

  LinearizeOptions o = Opt(kBase, kBase + size, ptr, st.wrap);
  LinearizeResult keep;
  std::string err;
  ASSERT_TRUE(Linearize(dump, o, &keep, &err)) << err;
  const std::vector<uint8_t> tail(stream.end() - static_cast<long>(size), stream.end());
  EXPECT_TRUE(keep.bytes == tail) << "linearized dump != last " << size << " bytes of the stream";
  ASSERT_TRUE(keep.async_found);
  EXPECT_EQ(keep.head_bytes, size - n);  // the second session's A-Sync

  o.head = HeadPolicy::kPad;
  LinearizeResult pad;
  ASSERT_TRUE(Linearize(dump, o, &pad, &err)) << err;
  ASSERT_EQ(pad.bytes.size(), size);
  for (uint64_t i = 0; i < size - n; ++i) ASSERT_EQ(pad.bytes[i], kEteIgnoreByte) << "offset " << i;
  EXPECT_TRUE(std::equal(pad.bytes.begin() + static_cast<long>(size - n), pad.bytes.end(), capture.begin()));

  o.strip_padding = true;
  LinearizeResult stripped;
  ASSERT_TRUE(Linearize(dump, o, &stripped, &err)) << err;
  EXPECT_TRUE(stripped.bytes == capture);
}

TEST_P(RoundTrip, FillModeStopsAtTheWrapAndKeepsTheStart) {  // §1.9 Fill, §2 Fill row
  MABUTRACE_NEEDS_SHARED(std::string(MABUTRACE_ETE_SNAPSHOTS) + "/" + GetParam());
  const auto capture = ReadCapture(GetParam());
  ASSERT_GT(capture.size(), 4096u);
  const uint64_t size = capture.size() / 4096 * 4096;  // smaller than the capture
  uint64_t ptr;
  Status st;
  const auto dump = Capture(capture, FillMode::kFill, size, &ptr, &st);
  EXPECT_TRUE(st.wrap && st.s && st.irq);
  EXPECT_EQ(st.bsc(), kBscFilled);
  EXPECT_EQ(ptr, kBase);
  LinearizeOptions o = Opt(kBase, kBase + size, ptr, true, FillMode::kFill);
  LinearizeResult r;
  std::string err;
  ASSERT_TRUE(Linearize(dump, o, &r, &err)) << err;
  EXPECT_TRUE(std::equal(r.bytes.begin(), r.bytes.end(), capture.begin()));
  EXPECT_EQ(r.bytes.size(), size);
}

TEST_P(RoundTrip, NoWrapIsTheWholeCapture) {  // §2 WRAP=0
  MABUTRACE_NEEDS_SHARED(std::string(MABUTRACE_ETE_SNAPSHOTS) + "/" + GetParam());
  const auto capture = ReadCapture(GetParam());
  ASSERT_FALSE(capture.empty());
  const uint64_t size = (capture.size() / 4096 + 1) * 4096;
  uint64_t ptr;
  Status st;
  const auto dump = Capture(capture, FillMode::kFill, size, &ptr, &st);
  EXPECT_FALSE(st.wrap);
  LinearizeResult r;
  std::string err;
  ASSERT_TRUE(Linearize(dump, Opt(kBase, kBase + size, ptr, st.wrap), &r, &err)) << err;
  EXPECT_TRUE(r.bytes == capture);
}

INSTANTIATE_TEST_SUITE_P(Snapshots, RoundTrip,
                         ::testing::Values("001-ack_test/session1.bin", "tme_test/session1.bin",
                                           "texit-poe2/session1.bin", "maxspec78_commopt0/session1.bin",
                                           "trace_file_cid_vmid/session1.bin"),
                         [](const auto& info) {
                           const std::string s = info.param;
                           return mabutrace_tests::CaptureTestName(s.substr(0, s.find('/')));
                         });

}  // namespace
