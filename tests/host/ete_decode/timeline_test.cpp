// timeline_test.cpp: ETE elements -> host model -> JSON / Perfetto.
//
// The JSON timeline must parse strictly (nlohmann) and say what was decoded:
// one slice per executed range, on the core's track, time never going
// backwards, exceptions as instants, the time base in the metadata. The
// .pftrace must decode with protoc against the shared perfetto_trace.proto.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

#include "ete_decode/ete_decode_session.h"
#include "ete_decode/ete_timeline.h"
#include "json_writer.h"
#include "perfetto_writer.h"

namespace mabutrace::ete_decode {
namespace {

namespace fs = std::filesystem;
const fs::path kShared = MABUTRACE_SHARED_DIR;
const fs::path kSnapshots = kShared / "data" / "ete-snapshots";

struct Pass {
  TimeSources* times = nullptr;
  TimelineBuilder* timeline = nullptr;
  uint64_t ranges = 0, exceptions = 0;
};
void OnElement(void* c, size_t source, const EteElement& e) {
  auto* p = static_cast<Pass*>(c);
  if (p->times) p->times->Add(e);
  if (p->timeline) p->timeline->OnElement(source, e);
  p->ranges += e.type == ElemType::kInstrRange || e.type == ElemType::kInstrRangeNoPath;
  p->exceptions += e.type == ElemType::kException;
}
void OnError(void*, size_t, uint64_t, const std::string&) {}

// Decodes the capture's first buffer twice (time base, then timeline) into `sink`.
Pass Export(const std::string& capture, model::EventSink* sink, TimeBase* base) {
  LoadedSnapshot snap = LoadSnapshotForDecode(kSnapshots / capture);
  EXPECT_FALSE(snap.buffers.empty());
  const DecodeBuffer& b = snap.buffers.front();
  TimeSources times;
  Pass first;
  first.times = &times;
  EXPECT_TRUE(DecodeBufferFile(b, &OnElement, &OnError, &first));
  *base = times.Choose();
  model::Normalizer norm(*sink);
  std::vector<std::string> tracks;
  for (const auto& s : b.sources) tracks.push_back(s.name);
  TimelineBuilder tl(&norm, "ETE " + capture, tracks, *base);
  Pass second;
  second.timeline = &tl;
  EXPECT_TRUE(DecodeBufferFile(b, &OnElement, &OnError, &second));
  EXPECT_TRUE(tl.Finish());
  EXPECT_EQ(tl.slices(), second.ranges);
  return second;
}

struct JsonCase {
  const char* capture;
  const char* base;
};

class TimelineJson : public ::testing::TestWithParam<JsonCase> {};

TEST_P(TimelineJson, ParsesAndDescribesTheExecution) {
  std::string out;
  exporter::JsonWriter writer([&out](const char* d, size_t n) {
    out.append(d, n);
    return true;
  });
  TimeBase base;
  const Pass p = Export(GetParam().capture, &writer, &base);
  EXPECT_STREQ(TimeBaseName(base), GetParam().base);

  const nlohmann::json j = nlohmann::json::parse(out);  // throws on invalid JSON
  ASSERT_TRUE(j.contains("traceEvents"));
  EXPECT_EQ(j["metadata"]["ete.time_base"], GetParam().base);
  uint64_t begins = 0, ends = 0, exceptions = 0;
  std::map<int, double> last_ts;
  bool named_thread = false;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M") {
      if (e["name"] == "thread_name") named_thread = true;
      continue;
    }
    const int tid = e["tid"];
    const double ts = e["ts"];
    EXPECT_GE(ts, last_ts[tid]) << e.dump();
    last_ts[tid] = ts;
    if (ph == "B") {
      ++begins;
      EXPECT_EQ(e["name"].get<std::string>().rfind("0x", 0), 0u) << e.dump();
    }
    if (ph == "E") ++ends;
    if (ph == "i" && e["name"].get<std::string>().rfind("exception 0x", 0) == 0) ++exceptions;
  }
  EXPECT_TRUE(named_thread);
  EXPECT_EQ(begins, p.ranges);
  EXPECT_EQ(ends, p.ranges);
  EXPECT_EQ(exceptions, p.exceptions);
  EXPECT_GT(begins, 0u);
}

INSTANTIATE_TEST_SUITE_P(Captures, TimelineJson,
                         ::testing::Values(JsonCase{"001-ack_test", "element_order"},
                                           JsonCase{"ts_marker", "timestamp"},
                                           JsonCase{"maxspec0_commopt1", "cycle_count"}),
                         [](const auto& info) {
                           std::string n = info.param.capture;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(TimelinePerfetto, DecodesWithProtoc) {
  const fs::path proto_dir = kShared / "reference" / "perfetto";
  if (std::system("protoc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "protoc not installed";
  const fs::path out_file = fs::temp_directory_path() / ("ete_decode_timeline_" + std::to_string(::getpid()) + ".pftrace");
  {
    FILE* f = std::fopen(out_file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    exporter::PerfettoWriter writer([f](const char* d, size_t n) { return std::fwrite(d, 1, n, f) == n; });
    TimeBase base;
    Export("ts_marker", &writer, &base);
    std::fclose(f);
  }
  const fs::path txt = out_file.string() + ".txt";
  const std::string cmd = "protoc --decode=perfetto.protos.Trace -I " + proto_dir.string() +
                          " perfetto_trace.proto < " + out_file.string() + " > " + txt.string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(txt);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("TYPE_SLICE_BEGIN"), std::string::npos);
  EXPECT_NE(text.find("ETE_0_s1"), std::string::npos);
  fs::remove(out_file);
  fs::remove(txt);
}

}  // namespace
}  // namespace mabutrace::ete_decode
