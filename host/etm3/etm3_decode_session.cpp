// SPDX-License-Identifier: MIT
// etm3_decode_session.cpp: snapshot ETMv3 sources -> packets -> elements.
#include "etm3/etm3_decode_session.h"

namespace mabutrace::etm3 {

std::vector<Etm3DecodeBuffer> Etm3Buffers(ete_decode::LoadedSnapshot* snap) {
  return ete_decode::BuffersWithSources<Etm3DecodeBuffer>(snap, &SnapshotEtm3Sources);
}

bool DecodeEtm3BufferFile(const Etm3DecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                          ete_decode::SourceDecodeErrorCallback on_error, void* ctx) {
  return ete_decode::DecodeBufferFileWith<Etm3BufferDecoder, Etm3ElementDecoder>(buffer, on_element, on_error, ctx,
                                                                                 ErrorPolicy::kOpenCsd);
}

}  // namespace mabutrace::etm3
