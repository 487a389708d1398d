// SPDX-License-Identifier: MIT
// etm3_source.cpp: the ETMv3 sources of a snapshot's buffer.
#include "etm3/etm3_source.h"

#include "ete/trace_protocol.h"

namespace mabutrace::etm3 {

std::vector<Etm3SourceSpec> SnapshotEtm3Sources(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buffer) {
  std::vector<Etm3SourceSpec> out;
  for (const snapshot::Device* d : snap.SourcesOfBuffer(buffer.name)) {
    const bool etm3 = ete::ProtocolOfType(d->type) == ete::TraceProtocol::kEtmV3;
    if (etm3) out.push_back({d->name, Etm3Config::FromDevice(*d, snap.CoreOfSource(d->name))});
    if (buffer.format == snapshot::BufferFormat::kSourceData) break;  // only the first source is decoded
  }
  return out;
}

}  // namespace mabutrace::etm3
