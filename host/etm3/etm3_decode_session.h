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

class Etm3BufferElementDecoder {
 public:
  Etm3BufferElementDecoder(const Etm3DecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                           ete_decode::SourceDecodeErrorCallback on_error, void* ctx);
  ~Etm3BufferElementDecoder();
  Etm3BufferElementDecoder(const Etm3BufferElementDecoder&) = delete;
  Etm3BufferElementDecoder& operator=(const Etm3BufferElementDecoder&) = delete;

  void Push(const uint8_t* data, size_t n) { packets_->Push(data, n); }
  void Finish();
  const ete_decode::DecodeStats& stats(size_t source) const { return decoders_[source]->stats(); }

 private:
  struct Sink {
    Etm3BufferElementDecoder* owner;
    size_t source;
  };
  ete_decode::SourceElementCallback on_element_;
  ete_decode::SourceDecodeErrorCallback on_error_;
  void* ctx_;
  std::vector<std::unique_ptr<Sink>> sinks_;
  std::vector<std::unique_ptr<Etm3ElementDecoder>> decoders_;
  std::unique_ptr<Etm3BufferDecoder> packets_;
};

// Decodes a whole buffer file; false (on_error with the file name) when it
// cannot be read.
bool DecodeEtm3BufferFile(const Etm3DecodeBuffer& buffer, ete_decode::SourceElementCallback on_element,
                          ete_decode::SourceDecodeErrorCallback on_error, void* ctx);

}  // namespace mabutrace::etm3

#endif  // MABUTRACE_HOST_ETM3_ETM3_DECODE_SESSION_H
