// SPDX-License-Identifier: MIT
// json_writer.h: Chrome trace-event JSON from the host model: the format
// layer's one JSON writer (format/chrome_json_writer.h: the layout, the
// rules, the escaping), written through a 64 KiB staging buffer. The
// device export writes the same bytes for the same events.
#ifndef MABUTRACE_HOST_EXPORT_JSON_WRITER_H
#define MABUTRACE_HOST_EXPORT_JSON_WRITER_H

#include "format/chrome_json_writer.h"
#include "output.h"

namespace mabutrace::exporter {

class JsonWriter final : private StagedOutput, public format::ChromeJsonWriter {
 public:
  explicit JsonWriter(WriteFn write) : StagedOutput(std::move(write), 64 * 1024), ChromeJsonWriter(out()) {}
};

}  // namespace mabutrace::exporter

#endif  // MABUTRACE_HOST_EXPORT_JSON_WRITER_H
