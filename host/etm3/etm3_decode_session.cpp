// SPDX-License-Identifier: MIT
// etm3_decode_session.cpp: snapshot ETMv3 sources -> packets -> elements.
#include "etm3/etm3_decode_session.h"

namespace mabutrace::etm3 {

std::vector<Etm3DecodeBuffer> Etm3Buffers(ete_decode::LoadedSnapshot* snap) {
  std::vector<Etm3DecodeBuffer> out;
  for (const snapshot::TraceBuffer& buf : snap->snap.buffers) {
    std::vector<Etm3SourceSpec> sources = SnapshotEtm3Sources(snap->snap, buf);
    if (sources.empty()) continue;
    Etm3DecodeBuffer b;
    b.buffer = buf;
    for (const Etm3SourceSpec& s : sources)
      b.images.push_back(ete_decode::CoreImage(snap, snap->snap.CoreOfSource(s.name)));
    b.sources = std::move(sources);
    out.push_back(std::move(b));
  }
  return out;
}

bool DecodeEtm3BufferFile(const Etm3DecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                          ete_decode::SourceDecodeErrorCallback on_error, void* ctx) {
  return ete_decode::DecodeBufferFileWith<Etm3BufferDecoder, Etm3ElementDecoder>(buffer, on_element, on_error, ctx,
                                                                                 ErrorPolicy::kOpenCsd);
}

}  // namespace mabutrace::etm3
