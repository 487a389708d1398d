// SPDX-License-Identifier: MIT
// timeline_test.cpp: ETE elements -> host model -> JSON / Perfetto
// (ete_export.h, ete_timeline.h).
//
// The JSON timeline must parse strictly (nlohmann) and say what was decoded:
// one slice per executed range, on the core's track, time never going
// backwards, exceptions as instants, the time base in the metadata. The
// .pftrace must decode with protoc against the shared perfetto_trace.proto.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "ete_decode/ete_decode_session.h"
#include "ete_decode/ete_export.h"
#include "json_writer.h"
#include "perfetto_writer.h"
#include "shared_data.h"

namespace mabutrace::ete_decode {
namespace {

namespace fs = std::filesystem;
const fs::path kShared = MABUTRACE_SHARED_DIR;
const fs::path kSnapshots = kShared / "data" / "ete-snapshots";

struct Counts {
  uint64_t ranges = 0, exceptions = 0;
};
void Count(void* c, size_t, const EteElement& e) {
  auto* n = static_cast<Counts*>(c);
  n->ranges += e.type == ElemType::kInstrRange || e.type == ElemType::kInstrRangeNoPath;
  n->exceptions += e.type == ElemType::kException;
}
void OnError(void*, size_t, uint64_t, const std::string&) {}

// Exports the capture into `sink` (ete_export.h); returns what a decode of
// the same buffers gives, to check the timeline against.
Counts Export(const std::string& capture, model::EventSink* sink, TimeBase* base, const fs::path& root = kSnapshots) {
  const LoadedSnapshot snap = LoadSnapshotForDecode(root / capture);
  EXPECT_FALSE(snap.buffers.empty());
  Counts decoded;
  for (const DecodeBuffer& b : snap.buffers) EXPECT_TRUE(DecodeBufferFile(b, &Count, &OnError, &decoded));
  const ExportSummary s = ExportTimeline(snap, capture, sink);
  EXPECT_TRUE(s.read_ok);
  EXPECT_TRUE(s.write_ok);
  EXPECT_EQ(s.range_slices, decoded.ranges);
  *base = s.base;
  return decoded;
}

// `pftrace` decoded by protoc against the Perfetto schema in `proto_dir`, as
// text ("" and a test failure if protoc fails).
std::string ProtocText(const fs::path& pftrace, const fs::path& proto_dir) {
  const fs::path txt = pftrace.string() + ".txt";
  const std::string cmd = "protoc --decode=perfetto.protos.Trace -I " + proto_dir.string() +
                          " perfetto_trace.proto < " + pftrace.string() + " > " + txt.string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
  std::ifstream in(txt);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(txt);
  return rc == 0 ? text : std::string();
}

struct JsonCase {
  const char* capture;
  const char* base;
};

class TimelineJson : public ::testing::TestWithParam<JsonCase> {};

TEST_P(TimelineJson, ParsesAndDescribesTheExecution) {
  MABUTRACE_NEEDS_SHARED(kSnapshots / GetParam().capture);
  std::string out;
  exporter::JsonWriter writer([&out](const char* d, size_t n) {
    out.append(d, n);
    return true;
  });
  TimeBase base;
  const Counts p = Export(GetParam().capture, &writer, &base);
  EXPECT_STREQ(TimeBaseName(base), GetParam().base);

  const nlohmann::json j = nlohmann::json::parse(out);  // throws on invalid JSON
  ASSERT_TRUE(j.contains("traceEvents"));
  EXPECT_EQ(j["metadata"]["ete.time_base"], GetParam().base);
  EXPECT_EQ(j["metadata"]["source"], GetParam().capture);
  uint64_t begins = 0, ends = 0, exceptions = 0;
  std::map<int, double> last_ts;
  bool named_thread = false;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M") {
      if (e["name"] == "process_name") {
        EXPECT_EQ(e["args"]["name"], std::string("ETE ") + GetParam().capture);
      }
      // a track per source, named after its core
      if (e["name"] == "thread_name")
        named_thread = e["args"]["name"].get<std::string>().find(" (ETE_0_s") != std::string::npos;
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
                         [](const auto& info) { return mabutrace_tests::CaptureTestName(info.param.capture); });

TEST(TimelinePerfetto, DecodesWithProtoc) {
  MABUTRACE_NEEDS_SHARED(kSnapshots / "ts_marker");
  const fs::path proto_dir = MABUTRACE_PERFETTO_PROTO_DIR;  // the official schema, or our subset
  if (std::system("protoc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "protoc not installed";
  const fs::path out_file =
      fs::temp_directory_path() / ("ete_decode_timeline_" + std::to_string(::getpid()) + ".pftrace");
  {
    FILE* f = std::fopen(out_file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    exporter::PerfettoWriter writer([f](const char* d, size_t n) { return std::fwrite(d, 1, n, f) == n; });
    TimeBase base;
    Export("ts_marker", &writer, &base);
    std::fclose(f);
  }
  const std::string text = ProtocText(out_file, proto_dir);
  EXPECT_NE(text.find("TYPE_SLICE_BEGIN"), std::string::npos);
  EXPECT_NE(text.find("ETE_0_s1"), std::string::npos);
  fs::remove(out_file);
}

// An ETMv4 capture (Juno, six Cortex-A53/A57 sources) on the timeline: one
// track per source named after its core, a slice per executed range (as
// many as the decode gives), the process named after the protocol, and
// the .pftrace decodes with protoc.
// Mutation: ProcessName always "ETE ..." -> the process-name check fails.
TEST(TimelineEtm4, JunoJsonAndPerfetto) {
  const fs::path root = kShared / "data" / "arm-trace-snapshots";
  MABUTRACE_NEEDS_SHARED(root / "juno_r1_1");
  std::string out;
  exporter::JsonWriter writer([&out](const char* d, size_t n) {
    out.append(d, n);
    return true;
  });
  TimeBase base;
  const Counts p = Export("juno_r1_1", &writer, &base, root);
  EXPECT_GT(p.ranges, 1000u);
  const nlohmann::json j = nlohmann::json::parse(out);
  uint64_t begins = 0;
  std::set<std::string> threads;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      EXPECT_EQ(e["args"]["name"], "ETMv4 juno_r1_1");
    }
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
    begins += e["ph"] == "B";
  }
  EXPECT_EQ(begins, p.ranges);
  EXPECT_TRUE(threads.count("cpu_0 (ETM_0)")) << *threads.begin();
  EXPECT_GE(threads.size(), 6u);

  if (std::system("protoc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "protoc not installed";
  const fs::path out_file = fs::temp_directory_path() / ("etm4_timeline_" + std::to_string(::getpid()) + ".pftrace");
  {
    FILE* f = std::fopen(out_file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    exporter::PerfettoWriter pw([f](const char* d, size_t n) { return std::fwrite(d, 1, n, f) == n; });
    Export("juno_r1_1", &pw, &base, root);
    std::fclose(f);
  }
  const std::string text = ProtocText(out_file, MABUTRACE_PERFETTO_PROTO_DIR);
  EXPECT_NE(text.find("TYPE_SLICE_BEGIN"), std::string::npos);
  EXPECT_NE(text.find("ETM_5"), std::string::npos);
  fs::remove(out_file);
}

// A trace cut inside a packet: the export keeps what decoded, and the file
// itself says it holds less (ete.decode_errors, the first as
// ete.decode_error with its track); the whole capture has neither key.
// Mutation: no decode_errors metadata -> the cut file's checks fail.
TEST(TimelineJson, ACutTraceSaysSoInItsMetadata) {
  MABUTRACE_NEEDS_SHARED(kSnapshots / "ts_marker");
  const fs::path dir = fs::temp_directory_path() / ("cut_ts_marker_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(kSnapshots / "ts_marker", dir, fs::copy_options::recursive);
  fs::resize_file(dir / "session1.bin", 333);  // inside a TIMESTAMP packet
  auto metadata = [](const fs::path& capture, ExportSummary* s) {
    std::string out;
    exporter::JsonWriter writer([&out](const char* d, size_t n) {
      out.append(d, n);
      return true;
    });
    *s = ExportTimeline(LoadSnapshotForDecode(capture), capture.filename().string(), &writer);
    return nlohmann::json::parse(out)["metadata"];
  };
  ExportSummary s;
  const nlohmann::json cut = metadata(dir, &s);
  EXPECT_EQ(s.decode_errors, 1u);
  EXPECT_GT(s.range_slices, 10u);
  EXPECT_EQ(cut.value("ete.decode_errors", 0), 1) << cut.dump();
  const std::string first = cut.value("ete.decode_error", "");
  EXPECT_EQ(first.rfind("cpu_0 (ETE_0_s1): ", 0), 0u) << first;
  EXPECT_NE(first.find("trace ends inside a TIMESTAMP packet"), std::string::npos) << first;
  const nlohmann::json whole = metadata(kSnapshots / "ts_marker", &s);
  EXPECT_EQ(s.decode_errors, 0u);
  EXPECT_FALSE(whole.contains("ete.decode_errors")) << whole.dump();
  EXPECT_FALSE(whole.contains("ete.decode_error"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mabutrace::ete_decode
