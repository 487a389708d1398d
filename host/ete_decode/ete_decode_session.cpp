// SPDX-License-Identifier: MIT
// ete_decode_session.cpp: snapshot -> buffers -> packets -> elements.
#include "ete_decode_session.h"

#include <map>

#include "ete/trace_protocol.h"

namespace mabutrace::ete_decode {

const armisa::MemoryImage* CoreImage(LoadedSnapshot* snap, const snapshot::Device* core) {
  LoadedSnapshot& out = *snap;
  if (out.images.empty()) out.images.push_back(std::make_unique<armisa::MemoryImage>());  // [0]: empty
  if (!core) return out.images[0].get();
  if (auto it = out.image_of_core.find(core->name); it != out.image_of_core.end()) return it->second;
  auto img = std::make_unique<armisa::MemoryImage>();
  for (const snapshot::MemoryDump& d : core->dumps) {
    std::error_code ec;
    if (!std::filesystem::exists(d.file, ec)) {
      out.warnings.push_back(core->ini_file.string() + ": [" + d.section + "] file " + d.file.string() +
                             " not found; its addresses will be reported as not accessible");
      continue;
    }
    uint8_t space = armisa::kMemAny;
    if (!d.space.empty()) {
      auto s = armisa::ParseMemSpace(d.space);
      if (!s) {
        out.warnings.push_back(core->ini_file.string() + ": [" + d.section + "] unknown space '" + d.space +
                               "', using ANY");
      } else {
        space = *s;
      }
    }
    std::string error;
    if (!img->AddFile(d.file.string(), d.address, space, &error, d.offset, d.length))
      out.warnings.push_back(core->ini_file.string() + ": [" + d.section + "] " + error);
  }
  const armisa::MemoryImage* p = img.get();
  out.images.push_back(std::move(img));
  out.image_of_core[core->name] = p;
  return p;
}

const snapshot::Device* CoreOfSource(LoadedSnapshot* snap, const std::string& source) {
  const snapshot::Device* core = snap->snap.CoreOfSource(source);
  if (!core)
    snap->warnings.push_back("source " + source +
                             ": no core in [core_trace_sources] of trace.ini: no memory image, its instruction "
                             "ranges are not walked (ADDR_NACC)");
  return core;
}

LoadedSnapshot LoadSnapshotForDecode(const std::filesystem::path& dir) {
  LoadedSnapshot out;
  out.snap = snapshot::ReadSnapshot(dir);
  out.images.push_back(std::make_unique<armisa::MemoryImage>());  // [0]: empty, for sources without a core
  auto image_of = [&](const snapshot::Device* core) { return CoreImage(&out, core); };
  for (const snapshot::TraceBuffer& buf : out.snap.buffers) {
    for (const ete::UndecodedSource& u : ete::UndecodedSources(out.snap, buf))
      out.undecoded.push_back(u.Message(buf.name));
    std::vector<ete::SourceSpec> sources = ete::SnapshotSources(out.snap, buf);
    if (sources.empty()) continue;
    DecodeBuffer db;
    db.buffer = buf;
    for (const ete::SourceSpec& s : sources) {
      const snapshot::Device* core = CoreOfSource(&out, s.name);
      db.images.push_back(image_of(core));
      db.cores.push_back(core ? core->name : std::string());
    }
    db.sources = std::move(sources);
    out.buffers.push_back(std::move(db));
  }
  return out;
}

bool DecodeBufferFile(const DecodeBuffer& buffer, SourceElementCallback on_element, SourceDecodeErrorCallback on_error,
                      void* ctx) {
  return DecodeBufferFileWith<ete::BufferDecoder, EteElementDecoder>(buffer, on_element, on_error, ctx,
                                                                     ete::ErrorPolicy::kOpenCsd);
}

}  // namespace mabutrace::ete_decode
