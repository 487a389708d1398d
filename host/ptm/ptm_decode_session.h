// SPDX-License-Identifier: MIT
// ptm_decode_session.h: full decode of a snapshot's PTM sources:
// buffer -> (deformatter) -> packets -> elements, per source, with the
// memory images of the core each source traces (ete_decode::CoreImage).
//
//   ete_decode::LoadedSnapshot snap = ete_decode::LoadSnapshotForDecode(dir);
//   for (const PtmDecodeBuffer& b : PtmBuffers(&snap))
//     DecodePtmBufferFile(b, on_element, on_error, ctx);
//
// The packet layer runs with ErrorPolicy::kOpenCsd (bad packets are passed
// on and the element decoder resynchronises, as OpenCSD does).
#ifndef MABUTRACE_HOST_PTM_PTM_DECODE_SESSION_H
#define MABUTRACE_HOST_PTM_PTM_DECODE_SESSION_H

#include <memory>
#include <string>
#include <vector>

#include "ete_decode/buffer_element_session.h"
#include "ete_decode/ete_decode_session.h"
#include "ptm/ptm_element_decoder.h"
#include "ptm/ptm_source.h"

namespace mabutrace::ptm {

struct PtmDecodeBuffer {
  snapshot::TraceBuffer buffer;
  std::vector<PtmSource> sources;
  std::vector<const armisa::MemoryImage*> images;  // per source (never null)
};

// The buffers of `snap` with PTM sources (their cores' images loaded into
// `snap`). Throws snapshot::SnapshotError for missing registers.
std::vector<PtmDecodeBuffer> PtmBuffers(ete_decode::LoadedSnapshot* snap);

// One buffer's Ptm sources through the shared session
// (ete_decode/buffer_element_session.h: errors before a source's first sync
// counted, not reported; a buffer without any sync reported).
class PtmBufferElementDecoder
    : public ete_decode::BufferElementSession<PtmBufferDecoder, PtmElementDecoder, PtmDecodeBuffer> {
 public:
  PtmBufferElementDecoder(const PtmDecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                          ete_decode::SourceDecodeErrorCallback on_error, void* ctx)
      : BufferElementSession(buffer, on_element, on_error, ctx, ErrorPolicy::kOpenCsd) {}
};

// Decodes a whole buffer file; false (on_error, source SIZE_MAX) when it
// cannot be read.
bool DecodePtmBufferFile(const PtmDecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                         ete_decode::SourceDecodeErrorCallback on_error, void* ctx);

}  // namespace mabutrace::ptm

#endif  // MABUTRACE_HOST_PTM_PTM_DECODE_SESSION_H
