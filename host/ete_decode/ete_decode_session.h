// SPDX-License-Identifier: MIT
// ete_decode_session.h: full ETE decode of a snapshot directory: trace
// buffers -> (deformatter) -> packets -> elements, per trace source, with
// each source's core memory images (R-F2, R-F3, R-F5).
//
//   LoadedSnapshot snap = LoadSnapshotForDecode("captures/001-ack_test");
//   for (auto& buf : snap.buffers) {
//     BufferElementDecoder dec(buf, &OnElement, &OnError, ctx);
//     dec.Push(bytes, n); ... dec.Finish();
//   }
//
// The memory images are the [dumpN] sections of the core that each trace
// source feeds ([core_trace_sources], arm-trace-facts.md §7); a dump whose
// file is missing is skipped with a warning (the decode then reports
// ADDR_NACC where it would have been needed).
#ifndef MABUTRACE_HOST_ETE_DECODE_ETE_DECODE_SESSION_H
#define MABUTRACE_HOST_ETE_DECODE_ETE_DECODE_SESSION_H

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "buffer_element_session.h"
#include "ete/ete_source.h"
#include "ete_element.h"
#include "ete_element_decoder.h"
#include "memory_image.h"
#include "snapshot/snapshot.h"

namespace mabutrace::ete_decode {

struct DecodeBuffer {
  snapshot::TraceBuffer buffer;
  std::vector<ete::SourceSpec> sources;
  std::vector<const armisa::MemoryImage*> images;  // per source (never null)
  std::vector<std::string> cores;                  // per source: core device name ("" if none)
};

struct LoadedSnapshot {
  snapshot::Snapshot snap;
  std::vector<std::unique_ptr<armisa::MemoryImage>> images;  // one per core (+ one empty)
  std::vector<DecodeBuffer> buffers;                         // buffers with ETE / ETMv4 sources
  std::vector<std::string> warnings;                         // e.g. missing dump files
  // Trace sources no decoder of this build handles (ITM, PTM, ETMv3...:
  // ete/trace_protocol.h), one message each; their data is skipped.
  std::vector<std::string> undecoded;
  std::map<std::string, const armisa::MemoryImage*> image_of_core;  // CoreImage's cache, by core name
};

// The memory image of `core`'s [dumpN] sections, read once per core and
// kept in `snap` (a missing or bad dump adds a warning); the empty image
// for nullptr. For the decoders of other protocols (host/etm3).
const armisa::MemoryImage* CoreImage(LoadedSnapshot* snap, const snapshot::Device* core);
// The core `source` traces ([core_trace_sources]); nullptr, with a warning
// in `snap`, when the snapshot names none: no memory image, so its
// instruction ranges cannot be walked (ADDR_NACC).
const snapshot::Device* CoreOfSource(LoadedSnapshot* snap, const std::string& source);

// The buffers of `snap` that have sources of one protocol, for that
// protocol's decoder (host/ptm, host/etm3): sources_of(snapshot, buffer)
// gives them (an empty vector: the buffer is left out); each source's core
// image is loaded into `snap` (CoreImage). Buffer: `buffer`, `sources`
// (each with `name`), `images`.
template <typename Buffer, typename SourcesOf>
std::vector<Buffer> BuffersWithSources(LoadedSnapshot* snap, SourcesOf sources_of) {
  std::vector<Buffer> out;
  for (const snapshot::TraceBuffer& buf : snap->snap.buffers) {
    auto sources = sources_of(snap->snap, buf);
    if (sources.empty()) continue;
    Buffer b;
    b.buffer = buf;
    for (const auto& s : sources) b.images.push_back(CoreImage(snap, CoreOfSource(snap, s.name)));
    b.sources = std::move(sources);
    out.push_back(std::move(b));
  }
  return out;
}

// Reads the snapshot, its ETE and ETMv4 sources and their cores' memory
// images (and names the sources of other protocols in `undecoded`).
// Throws snapshot::SnapshotError (message names the file and key).
LoadedSnapshot LoadSnapshotForDecode(const std::filesystem::path& dir);

// Decodes one trace buffer: frame deformatter (if any), one packet
// processor and one element decoder per source (buffer_element_session.h:
// errors, no-sync report). The packet layer runs with
// ete::ErrorPolicy::kOpenCsd (bad packets are passed on; the element
// decoder then resynchronises, as OpenCSD does).
class BufferElementDecoder : public BufferElementSession<ete::BufferDecoder, EteElementDecoder, DecodeBuffer> {
 public:
  BufferElementDecoder(const DecodeBuffer& buffer, SourceElementCallback on_element, SourceDecodeErrorCallback on_error,
                       void* ctx)
      : BufferElementSession(buffer, on_element, on_error, ctx, ete::ErrorPolicy::kOpenCsd) {}
};

// Convenience: decode a whole buffer file. Returns false (and calls
// on_error, source SIZE_MAX) when the file cannot be read.
bool DecodeBufferFile(const DecodeBuffer& buffer, SourceElementCallback on_element, SourceDecodeErrorCallback on_error,
                      void* ctx);

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_ETE_DECODE_SESSION_H
