// SPDX-License-Identifier: MIT
// import_roundtrip_test.cpp: a trace written as Chrome JSON or Perfetto and
// read back (host/import) gives the same calls, with every argument, as the
// writer was given: random event programs over several threads with nested
// slices, colors, CPUs, counters, flows (named, unnamed, inside and
// outside slices, arrow ends bound late) and metadata.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "import_trace.h"
#include "json_writer.h"
#include "mabutrace/mabutrace.h"
#include "perfetto_writer.h"
#include "recorder.h"
#include "trace_model.h"

namespace {

using mabutrace::format::EventSink;
using mabutrace::format::Track;
using mabutrace::host::ImportKind;
using mabutrace::test::Recorder;

// A valid random program (the rules of format/trace_rules.h hold after the
// Normalizer it goes through).
void Program(uint32_t seed, EventSink& s) {
  std::mt19937 rng(seed);
  auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
  const char* names[] = {"parse", "render \"frame\"", "isr\\tick", "κόσμε", "a/b"};
  const Track tracks[] = {{10, 10}, {10, 11}, {20, 21}};
  s.OnClock(5'000'000'000ull, 7'000'000'000ull);
  s.OnProcess(10, "firmware");
  s.OnProcess(20, "host tool");
  s.OnThread(tracks[0], "main");
  s.OnThread(tracks[1], "");  // unnamed: "thread 11" in the files
  s.OnThread(tracks[2], "worker");
  int depth[3] = {0, 0, 0};
  uint64_t ns = 1000, next_id = 1;
  std::vector<uint64_t> open_flows;
  struct Late {
    Track t;
    uint64_t id, ns;
  };
  std::vector<Late> late;
  for (int step = 0; step < 400; ++step) {
    ns += 1 + (pick(20) == 0 ? pick(2'000'000'000u) : pick(100000));
    const uint32_t k = pick(3);
    const Track t = tracks[k];
    const uint32_t cpu = pick(8);
    const uint32_t color = pick(2) ? 0 : MABUTRACE_COLOR_SET | (rng() & 0xFFFFFF);
    const char* name = names[pick(5)];
    switch (pick(9)) {
      case 0:
      case 1:
        if (depth[k] < 5) {
          s.OnBegin(t, name, ns, cpu, color);
          ++depth[k];
        }
        break;
      case 2:
        if (depth[k] > 0) {
          s.OnEnd(t, "", ns, pick(4) == 0 ? "truncated" : "");
          --depth[k];
        }
        break;
      case 3: s.OnInstant(t, name, ns, cpu, color); break;
      case 4: s.OnCounter(t, pick(2) ? "queue" : "heap", ns, int64_t(rng()) * (pick(2) ? -1 : 1) << pick(30)); break;
      case 5:
        open_flows.push_back(next_id);
        s.OnFlowPoint(t, true, next_id++, pick(2) ? name : "", ns, cpu, color, depth[k] > 0);
        break;
      case 6:
        if (!open_flows.empty()) {
          const size_t i = pick(uint32_t(open_flows.size()));
          s.OnFlowPoint(t, false, open_flows[i], pick(2) ? name : "", ns, cpu, color, depth[k] > 0);
          open_flows.erase(open_flows.begin() + long(i));
        }
        break;
      case 7:  // a flow-in whose arrow end is bound later (OnFlow)
        if (!open_flows.empty()) {
          s.OnFlowPoint(t, false, 0, pick(2) ? name : "", ns, cpu, color, depth[k] > 0);
          late.push_back({t, open_flows.back(), ns});
          open_flows.pop_back();
        }
        break;
      case 8:
        for (const Late& l : late) s.OnFlow(l.t, false, l.id, l.ns);
        late.clear();
        break;
    }
  }
  s.OnMetadata("events_written", 123);
  s.OnMetadata("clock", "tsc");
  s.Finish();
}

using ProgramFn = std::function<void(EventSink&)>;

std::string Write(ImportKind kind, const ProgramFn& program) {
  std::string bytes;
  auto sink = [&](const char* d, size_t n) {
    bytes.append(d, n);
    return true;
  };
  if (kind == ImportKind::kChromeJson) {
    mabutrace::exporter::JsonWriter w(sink);
    mabutrace::model::Normalizer n(w);
    program(n);
  } else {
    mabutrace::exporter::PerfettoWriter w(sink);
    mabutrace::model::Normalizer n(w);
    program(n);
  }
  return bytes;
}

std::string Write(ImportKind kind, uint32_t seed) {
  return Write(kind, [seed](EventSink& s) { Program(seed, s); });
}

std::vector<std::string> Read(const std::string& bytes, mabutrace::host::ImportResult* r = nullptr) {
  Recorder rec;
  std::FILE* f = fmemopen(const_cast<char*>(bytes.data()), bytes.size(), "rb");
  char head[8];
  const size_t n = std::fread(head, 1, sizeof head, f);
  const ImportKind kind = mabutrace::host::SniffImport(std::string_view(head, n));
  EXPECT_NE(kind, ImportKind::kNone);
  const auto res = mabutrace::host::ImportTrace(kind, f, std::string_view(head, n), rec);
  std::fclose(f);
  EXPECT_TRUE(res.fatal.ok) << res.fatal.message;
  EXPECT_EQ(res.damaged, 0u);
  if (r) *r = res;
  return rec.lines;
}

// What the writer was given (after its Normalizer), less what the files
// cannot carry: Chrome JSON has no clock snapshot, and an unnamed flow-in
// inside a slice whose arrow comes later is written by neither writer
// (its arrow end says it all).
std::vector<std::string> Expected(ImportKind kind, const ProgramFn& program) {
  Recorder rec;
  mabutrace::model::Normalizer n(rec);
  program(n);
  std::vector<std::string> out;
  for (const std::string& l : rec.lines) {
    if (kind == ImportKind::kChromeJson && l.rfind("clock ", 0) == 0) continue;
    if (l.rfind("p< ", 0) == 0 && l.find("  id0 ") != std::string::npos && l.size() > 3 &&
        l.compare(l.size() - 3, 3, " in") == 0)
      continue;
    out.push_back(l);
  }
  return out;
}

std::vector<std::string> Expected(ImportKind kind, uint32_t seed) {
  return Expected(kind, [seed](EventSink& s) { Program(seed, s); });
}

void ExpectSameLines(const std::vector<std::string>& want, const std::vector<std::string>& got) {
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    ASSERT_EQ(want[i], got[i]) << "first difference at call " << i;
  }
  ASSERT_EQ(want.size(), got.size());
}

TEST(ImportRoundTrip, ChromeJsonGivesBackWhatWasWritten) {
  for (uint32_t seed = 1; seed <= 25; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ExpectSameLines(Expected(ImportKind::kChromeJson, seed), Read(Write(ImportKind::kChromeJson, seed)));
  }
}

TEST(ImportRoundTrip, PerfettoGivesBackWhatWasWritten) {
  for (uint32_t seed = 1; seed <= 25; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ExpectSameLines(Expected(ImportKind::kPerfetto, seed), Read(Write(ImportKind::kPerfetto, seed)));
  }
}

// A trace with no events (an empty "traceEvents", every event filtered
// out) is its metadata alone: the Perfetto writer then has no process
// track to put it on and writes it on no track (Perfetto's default track).
// Every key comes back, with and without a clock snapshot.
TEST(ImportRoundTrip, MetadataOfATraceWithNoEventsComesBack) {
  for (bool clock : {false, true}) {
    const ProgramFn empty = [clock](EventSink& s) {
      if (clock) s.OnClock(5'000'000'000ull, 7'000'000'000ull);
      s.OnMetadata("clock", "tsc");
      s.OnMetadata("events_written", 0);
      s.Finish();
    };
    for (ImportKind kind : {ImportKind::kChromeJson, ImportKind::kPerfetto}) {
      SCOPED_TRACE(std::string(kind == ImportKind::kChromeJson ? "json" : "pftrace") + (clock ? ", clock" : ""));
      const std::vector<std::string> want = Expected(kind, empty);
      ASSERT_GE(want.size(), 3u);  // the two keys and the Normalizer's repair counts
      ExpectSameLines(want, Read(Write(kind, empty)));
    }
  }
}

// Read and written again, a file is the same bytes: nothing is added or
// lost on the way (the repair counts are summed, not repeated).
TEST(ImportRoundTrip, ReadAndWrittenAgainIsTheSameFile) {
  for (ImportKind kind : {ImportKind::kChromeJson, ImportKind::kPerfetto}) {
    const std::string first = Write(kind, 7);
    std::string second;
    auto sink = [&](const char* d, size_t n) {
      second.append(d, n);
      return true;
    };
    std::FILE* f = fmemopen(const_cast<char*>(first.data()), first.size(), "rb");
    if (kind == ImportKind::kChromeJson) {
      mabutrace::exporter::JsonWriter w(sink);
      mabutrace::host::ImportTrace(kind, f, {}, w);
    } else {
      mabutrace::exporter::PerfettoWriter w(sink);
      mabutrace::host::ImportTrace(kind, f, {}, w);
    }
    std::fclose(f);
    EXPECT_EQ(first, second) << (kind == ImportKind::kChromeJson ? "json" : "pftrace");
  }
}

}  // namespace
