// SPDX-License-Identifier: MIT
// convert.h: binary stream → JSON / Perfetto / text, streaming.
#ifndef MABUTRACE_TOOLS_CONVERT_H
#define MABUTRACE_TOOLS_CONVERT_H

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "command.h"
#include "formats.h"
#include "stream_to_model.h"

namespace mabutrace::cli {

class InputFile;

// Feeds bytes pushed with Feed into `sink` through the stream decoder and
// the Normalizer (host::StreamToModel). Errors go to stderr prefixed with
// `in_name` and the byte offset, passed through `map_error` first when
// given (a raw dump maps stream offsets back to dump offsets).
class TraceFeeder {
 public:
  using ErrorMap = std::function<host::Status(const host::Status&)>;
  // keep_unresolved_links: see host::StreamToModel.
  TraceFeeder(model::EventSink& sink, std::string in_name, ErrorMap map_error = nullptr,
              bool keep_unresolved_links = false);
  // false once the stream is known bad (a fatal decoder error); later bytes
  // are ignored.
  bool Feed(const uint8_t* data, size_t len);
  // Finishes the stream and the sink; returns the exit code (1 if the
  // stream was bad or a record was damaged). sink_ok(): the sink's Finish.
  int Finish();
  bool sink_ok() const { return conv_.write_ok(); }

 private:
  std::string in_name_;
  ErrorMap map_error_;
  host::StreamToModel conv_;
  host::Status fatal_;
};

// Converts bytes pushed with Feed into `out` as `format` (a TraceFeeder
// into the format's writer).
class Converter {
 public:
  using ErrorMap = TraceFeeder::ErrorMap;
  Converter(Format format, FILE* out, std::string in_name, ErrorMap map_error = nullptr);
  bool Feed(const uint8_t* data, size_t len) { return feeder_->Feed(data, len); }
  // Finishes the stream and the output; returns the exit code (1 if the
  // stream was bad, a record was damaged, or the output failed).
  int Finish();

 private:
  FILE* out_;
  std::unique_ptr<model::EventSink> writer_;
  std::unique_ptr<TraceFeeder> feeder_;
};

// Reads a trace input as `convert` does: `fin` is a binary stream, or a raw
// RAM dump of the trace memory (found by its descriptor, or taken as one
// whenever `elf` is given) whose names `elf` ("" = none) resolves. Once the
// input is known usable, `open()` gives the sink its events go into
// (normalized); null stops (exit 1, after its own message), so that a
// fatal problem of the input leaves an existing output as it was.
// Problems go to stderr prefixed with the input's name and offsets.
struct ReadResult {
  int rc = kExitOk;     // 1: the input was bad, a record damaged
  bool opened = false;  // open() gave a sink
  bool sink_ok = true;  // its Finish() returned true
};
using SinkOpener = std::function<model::EventSink*()>;
// keep_unresolved_links (`merge --join-flows`): flow ends of a stream or
// dump that no start of their own took go on with their link
// (model::kUnresolvedLink); a .json/.pftrace has none to give.
ReadResult ReadTrace(InputFile& fin, const std::string& elf, const SinkOpener& open,
                     bool keep_unresolved_links = false);

// `mabutrace convert`: reads `in` ("-": stdin) and writes `out` ("-":
// stdout). `in` is a binary stream, or a raw RAM dump of the trace memory
// (found by its descriptor) whose names `elf` ("" = none) resolves.
int RunConvert(const std::string& in, const std::string& out, Format format, const std::string& elf = "");

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_CONVERT_H
