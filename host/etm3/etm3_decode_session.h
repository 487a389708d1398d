// SPDX-License-Identifier: MIT
// etm3_decode_session.h: full decode of a snapshot's ETMv3 sources:
// buffer -> (deformatter) -> packets -> elements, per source, with the
// memory images of the core each source traces (ete_decode::CoreImage).
//
//   ete_decode::LoadedSnapshot snap = ete_decode::LoadSnapshotForDecode(dir);
//   for (const Etm3DecodeBuffer& b : Etm3Buffers(&snap))
//     DecodeEtm3BufferFile(b, on_element, on_error, ctx);
//
// The packet layer runs with ErrorPolicy::kOpenCsd (bad packets are passed
// on and the element decoder resynchronises, as OpenCSD does).
#ifndef MABUTRACE_HOST_ETM3_ETM3_DECODE_SESSION_H
#define MABUTRACE_HOST_ETM3_ETM3_DECODE_SESSION_H

#include <memory>
#include <string>
#include <vector>

#include "ete_decode/buffer_element_session.h"
#include "ete_decode/ete_decode_session.h"
#include "etm3/etm3_element_decoder.h"
#include "etm3/etm3_source.h"

namespace mabutrace::etm3 {

struct Etm3DecodeBuffer {
  snapshot::TraceBuffer buffer;
  std::vector<Etm3SourceSpec> sources;
  std::vector<const armisa::MemoryImage*> images;  // per source (never null)
};

// The buffers of `snap` with ETMv3 sources (their cores' images loaded into
// `snap`). Throws snapshot::SnapshotError for missing registers.
std::vector<Etm3DecodeBuffer> Etm3Buffers(ete_decode::LoadedSnapshot* snap);

// One buffer's Etm3 sources through the shared session
// (ete_decode/buffer_element_session.h: errors before a source's first sync
// counted, not reported; a buffer without any sync reported).
class Etm3BufferElementDecoder
    : public ete_decode::BufferElementSession<Etm3BufferDecoder, Etm3ElementDecoder, Etm3DecodeBuffer> {
 public:
  Etm3BufferElementDecoder(const Etm3DecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                           ete_decode::SourceDecodeErrorCallback on_error, void* ctx)
      : BufferElementSession(buffer, on_element, on_error, ctx, ErrorPolicy::kOpenCsd) {}
};

// Decodes a whole buffer file; false (on_error, source SIZE_MAX) when it
// cannot be read.
bool DecodeEtm3BufferFile(const Etm3DecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                          ete_decode::SourceDecodeErrorCallback on_error, void* ctx);

}  // namespace mabutrace::etm3

#endif  // MABUTRACE_HOST_ETM3_ETM3_DECODE_SESSION_H
