// SPDX-License-Identifier: MIT
// ptm_decode_session.cpp: snapshot PTM sources -> packets -> elements.
#include "ptm/ptm_decode_session.h"

namespace mabutrace::ptm {

std::vector<PtmDecodeBuffer> PtmBuffers(ete_decode::LoadedSnapshot* snap) {
  return ete_decode::BuffersWithSources<PtmDecodeBuffer>(snap, &SnapshotPtmSources);
}

bool DecodePtmBufferFile(const PtmDecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                         ete_decode::SourceDecodeErrorCallback on_error, void* ctx) {
  return ete_decode::DecodeBufferFileWith<PtmBufferDecoder, PtmElementDecoder>(buffer, on_element, on_error, ctx,
                                                                               ErrorPolicy::kOpenCsd);
}

}  // namespace mabutrace::ptm
