// SPDX-License-Identifier: MIT
// The CP_Tracer timeline export (host/cptracer/export.h) of a capture with
// no timestamp frequency: refused for `cptracer export`, in ticks for merge
// and stats (ExportOptions::ticks_without_freq), said in the metadata.
#include "export.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "json_writer.h"

namespace mabutrace::cptracer {
namespace {

std::vector<TracerMessage> TwoStatuses() {
  std::vector<TracerMessage> msgs(2);
  for (size_t i = 0; i < msgs.size(); ++i) {
    msgs[i].type = MsgType::kStatus;
    msgs[i].tracer = 1;
    msgs[i].has_ts = true;
    msgs[i].timestamp = 1000 + 250 * i;  // STM timestamp ticks
  }
  return msgs;
}

struct Exported {
  bool ok = false;
  std::string error;
  ExportSummary summary;
  nlohmann::json doc;
};

Exported Export(bool ticks_without_freq) {
  Exported e;
  std::string text;
  {
    exporter::JsonWriter writer([&](const char* d, size_t n) {
      text.append(d, n);
      return true;
    });
    ExportOptions eo;
    eo.ticks_without_freq = ticks_without_freq;
    e.ok = ExportTimeline(TwoStatuses(), /*stream_ts_freq_hz=*/0, TimingOptions{}, &writer, &e.summary, &e.error, eo);
  }
  if (e.ok) e.doc = nlohmann::json::parse(text);
  return e;
}

TEST(CpTracerExport, NoFrequencyIsAnErrorUnlessTicksAreAsked) {
  const Exported refused = Export(false);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("no timestamp frequency"), std::string::npos) << refused.error;

  const Exported ticks = Export(true);
  ASSERT_TRUE(ticks.ok) << ticks.error;
  EXPECT_TRUE(ticks.summary.ticks_as_ns);
  EXPECT_EQ(ticks.doc["metadata"]["cptracer.clock"], "ticks: no timestamp frequency");
  std::vector<double> ts;
  for (const auto& ev : ticks.doc["traceEvents"])
    if (ev["ph"] == "i") ts.push_back(ev["ts"].get<double>());
  EXPECT_EQ(ts, (std::vector<double>{1.0, 1.25})) << "1 tick written as 1 ns (JSON ts in µs)";
}

}  // namespace
}  // namespace mabutrace::cptracer
