// SPDX-License-Identifier: MIT
// ptm_decode_session.cpp: snapshot PTM sources -> packets -> elements.
#include "ptm/ptm_decode_session.h"

namespace mabutrace::ptm {

std::vector<PtmDecodeBuffer> PtmBuffers(ete_decode::LoadedSnapshot* snap) {
  std::vector<PtmDecodeBuffer> out;
  for (const snapshot::TraceBuffer& buf : snap->snap.buffers) {
    std::vector<PtmSource> sources = SnapshotPtmSources(snap->snap, buf);
    if (sources.empty()) continue;
    PtmDecodeBuffer b;
    b.buffer = buf;
    for (const PtmSource& s : sources) b.images.push_back(ete_decode::CoreImage(snap, snap->snap.CoreOfSource(s.name)));
    b.sources = std::move(sources);
    out.push_back(std::move(b));
  }
  return out;
}

bool DecodePtmBufferFile(const PtmDecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                         ete_decode::SourceDecodeErrorCallback on_error, void* ctx) {
  return ete_decode::DecodeBufferFileWith<PtmBufferDecoder, PtmElementDecoder>(buffer, on_element, on_error, ctx,
                                                                               ErrorPolicy::kOpenCsd);
}

}  // namespace mabutrace::ptm
