// convert.h: binary stream → JSON / Perfetto / text, streaming.
#ifndef MABUTRACE_TOOLS_CONVERT_H
#define MABUTRACE_TOOLS_CONVERT_H

#include <cstdio>
#include <string>

#include "command.h"
#include "formats.h"
#include "stream_to_model.h"

namespace mabutrace::cli {

// Converts bytes pushed with Feed into `out` as `format`. Errors go to
// stderr prefixed with `in_name` and the stream byte offset.
class Converter {
 public:
  Converter(Format format, FILE* out, std::string in_name);
  // false once the stream is known bad (a fatal decoder error); later bytes
  // are ignored.
  bool Feed(const uint8_t* data, size_t len);
  // Finishes the stream and the output; returns the exit code (1 if the
  // stream was bad, a record was damaged, or the output failed).
  int Finish();

 private:
  std::string in_name_;
  FILE* out_;
  std::unique_ptr<model::EventSink> writer_;
  std::unique_ptr<host::StreamToModel> conv_;
  host::Status fatal_;
};

// `mabutrace convert`: reads `in` ("-": stdin) and writes `out` ("-": stdout).
int RunConvert(const std::string& in, const std::string& out, Format format);

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_CONVERT_H
