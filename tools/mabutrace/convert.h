// convert.h: binary stream → JSON / Perfetto / text, streaming.
#ifndef MABUTRACE_TOOLS_CONVERT_H
#define MABUTRACE_TOOLS_CONVERT_H

#include <cstdio>
#include <functional>
#include <string>

#include "command.h"
#include "formats.h"
#include "stream_to_model.h"

namespace mabutrace::cli {

// Converts bytes pushed with Feed into `out` as `format`. Errors go to
// stderr prefixed with `in_name` and the byte offset, passed through
// `map_error` first when given (a raw dump maps stream offsets back to
// dump offsets).
class Converter {
 public:
  using ErrorMap = std::function<host::Status(const host::Status&)>;
  Converter(Format format, FILE* out, std::string in_name, ErrorMap map_error = nullptr);
  // false once the stream is known bad (a fatal decoder error); later bytes
  // are ignored.
  bool Feed(const uint8_t* data, size_t len);
  // Finishes the stream and the output; returns the exit code (1 if the
  // stream was bad, a record was damaged, or the output failed).
  int Finish();

 private:
  std::string in_name_;
  ErrorMap map_error_;
  FILE* out_;
  std::unique_ptr<model::EventSink> writer_;
  std::unique_ptr<host::StreamToModel> conv_;
  host::Status fatal_;
};

// `mabutrace convert`: reads `in` ("-": stdin) and writes `out` ("-":
// stdout). `in` is a binary stream, or a raw RAM dump of the trace memory
// (found by its descriptor) whose names `elf` ("" = none) resolves.
int RunConvert(const std::string& in, const std::string& out, Format format, const std::string& elf = "");

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_CONVERT_H
