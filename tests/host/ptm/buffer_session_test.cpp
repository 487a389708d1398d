// SPDX-License-Identifier: MIT
// The shared buffer session (ete_decode/buffer_element_session.h) through
// each protocol's buffer decoder (PTM, ETMv3, ETE/ETMv4): a buffer in which
// no sync is ever found is reported once ("byte 0: no sync found in N
// bytes", counted in buffer_stats().no_sync) instead of decoding to nothing
// silently; packet errors in bytes skipped before the first sync are
// counted, not reported; a missing file's message leaves naming the file to
// the sink. Inputs: the shared captures' sources (trace_cov_a15's PTM, TC2's
// first ETMv3, a57_single_step's ETMv4) over a raw buffer of 4096 x 0x00.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ete_decode/ete_decode_session.h"
#include "etm3/etm3_decode_session.h"
#include "ptm/ptm_decode_session.h"
#include "shared_data.h"

namespace mabutrace {
namespace {

const std::string kSnaps = std::string(MABUTRACE_SHARED_DIR) + "/data/arm-trace-snapshots/";

struct Errors {
  std::vector<std::string> messages;
  std::vector<size_t> sources;
};

void OnElement(void*, size_t, const ete_decode::EteElement&) {}
void OnError(void* c, size_t source, uint64_t, const std::string& message) {
  auto* e = static_cast<Errors*>(c);
  e->messages.push_back(message);
  e->sources.push_back(source);
}

std::filesystem::path ZeroFile(const std::string& name, size_t n) {
  const std::filesystem::path p = std::filesystem::path(testing::TempDir()) / name;
  std::ofstream(p, std::ios::binary).write(std::string(n, '\0').data(), static_cast<std::streamsize>(n));
  return p;
}

// The buffer `b` made a raw stream of 4096 zeros for its first source only.
template <typename Buffer>
void MakeZeroRaw(Buffer* b, const std::string& name) {
  b->sources.resize(1);
  b->images.resize(1);
  b->buffer.format = snapshot::BufferFormat::kSourceData;
  b->buffer.file = ZeroFile(name, 4096);
}

// 4096 zeros through session `s`, then Finish().
template <typename Session>
void PushZeros(Session* s) {
  const std::string zeros(4096, '\0');
  s->Push(reinterpret_cast<const uint8_t*>(zeros.data()), zeros.size());
  s->Finish();
}

template <typename Session, typename Buffer>
void ExpectNoSyncReported(const Buffer& b) {
  Errors errors;
  Session s(b, &OnElement, &OnError, &errors);
  PushZeros(&s);
  ASSERT_EQ(errors.messages.size(), 1u) << (errors.messages.empty() ? "" : errors.messages[0]);
  EXPECT_EQ(errors.messages[0], "byte 0: no sync found in 4096 bytes");
  EXPECT_EQ(errors.sources[0], SIZE_MAX);
  EXPECT_EQ(s.buffer_stats().no_sync, 1u);
  EXPECT_EQ(s.buffer_stats().bytes, 4096u);
}

TEST(BufferSession, PtmWithoutSyncReportedOnceAndPresyncErrorsCounted) {
  MABUTRACE_NEEDS_SHARED(kSnaps + "trace_cov_a15");
  ete_decode::LoadedSnapshot snap = ete_decode::LoadSnapshotForDecode(kSnaps + "trace_cov_a15");
  std::vector<ptm::PtmDecodeBuffer> buffers = ptm::PtmBuffers(&snap);
  ASSERT_FALSE(buffers.empty());
  MakeZeroRaw(&buffers[0], "ptm_zeros.bin");
  ExpectNoSyncReported<ptm::PtmBufferElementDecoder>(buffers[0]);
  // The zero run still pending at the end ("trace ends inside a packet")
  // lies before any sync: counted, not reported.
  ptm::PtmBufferElementDecoder s(buffers[0], &OnElement, nullptr, nullptr);
  PushZeros(&s);
  EXPECT_GE(s.buffer_stats().presync_errors, 1u);
}

TEST(BufferSession, Etm3WithoutSyncReportedOnce) {
  MABUTRACE_NEEDS_SHARED(kSnaps + "TC2");
  ete_decode::LoadedSnapshot snap = ete_decode::LoadSnapshotForDecode(kSnaps + "TC2");
  std::vector<etm3::Etm3DecodeBuffer> buffers = etm3::Etm3Buffers(&snap);
  ASSERT_FALSE(buffers.empty());
  MakeZeroRaw(&buffers[0], "etm3_zeros.bin");
  ExpectNoSyncReported<etm3::Etm3BufferElementDecoder>(buffers[0]);
}

TEST(BufferSession, Etm4WithoutSyncReportedOnce) {
  MABUTRACE_NEEDS_SHARED(kSnaps + "a57_single_step");
  ete_decode::LoadedSnapshot snap = ete_decode::LoadSnapshotForDecode(kSnaps + "a57_single_step");
  ASSERT_FALSE(snap.buffers.empty());
  MakeZeroRaw(&snap.buffers[0], "etm4_zeros.bin");
  ExpectNoSyncReported<ete_decode::BufferElementDecoder>(snap.buffers[0]);
}

TEST(BufferSession, DecodeFileReportsNoSyncAndMissingFileWithoutItsName) {
  MABUTRACE_NEEDS_SHARED(kSnaps + "trace_cov_a15");
  ete_decode::LoadedSnapshot snap = ete_decode::LoadSnapshotForDecode(kSnaps + "trace_cov_a15");
  std::vector<ptm::PtmDecodeBuffer> buffers = ptm::PtmBuffers(&snap);
  ASSERT_FALSE(buffers.empty());
  MakeZeroRaw(&buffers[0], "ptm_zeros_file.bin");
  Errors errors;
  EXPECT_TRUE(ptm::DecodePtmBufferFile(buffers[0], &OnElement, &OnError, &errors));
  ASSERT_EQ(errors.messages.size(), 1u);
  EXPECT_EQ(errors.messages[0], "byte 0: no sync found in 4096 bytes");

  buffers[0].buffer.file = std::filesystem::path(testing::TempDir()) / "no_such_buffer.bin";
  errors = {};
  EXPECT_FALSE(ptm::DecodePtmBufferFile(buffers[0], &OnElement, &OnError, &errors));
  ASSERT_EQ(errors.messages.size(), 1u);
  EXPECT_EQ(errors.messages[0].rfind("cannot open: ", 0), 0u) << errors.messages[0];
  EXPECT_EQ(errors.messages[0].find("no_such_buffer"), std::string::npos) << errors.messages[0];
  EXPECT_EQ(errors.sources[0], SIZE_MAX);
}

}  // namespace
}  // namespace mabutrace
