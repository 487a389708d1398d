// SPDX-License-Identifier: MIT
// trace_protocol.cpp: the protocol registry (see trace_protocol.h).
#include "ete/trace_protocol.h"

#include <array>
#include <cctype>

#include "snapshot/snapshot.h"

namespace mabutrace::ete {
namespace {

constexpr std::array<TraceProtocolInfo, 7> kProtocols = {{
    {TraceProtocol::kEte, "ETE", "ETE", "ete", nullptr, true},
    {TraceProtocol::kEtmV4, "ETMv4", "ETM4, ETM4.m, ETMv4.m", "ete", nullptr, true},
    {TraceProtocol::kEtmV3, "ETMv3", "ETM3, ETM3.m, ETMv3.m", "etm3", nullptr, true},  // host/etm3
    {TraceProtocol::kPtm, "PTM", "PTM1.m, PFT1.m", "ptm", nullptr, true},              // host/ptm
    {TraceProtocol::kItm, "ITM", "ITM", nullptr, "mabutrace itm", true},               // host/itm
    {TraceProtocol::kStm, "STM", "STM", nullptr, "mabutrace stm", false},
    {TraceProtocol::kUnknown, "unknown", "-", nullptr, nullptr, false},
}};

std::string Upper(const std::string& s) {
  std::string t;
  for (char c : s) t += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return t;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::span<const TraceProtocolInfo> TraceProtocols() { return kProtocols; }

const TraceProtocolInfo& InfoOf(TraceProtocol protocol) {
  const size_t i = static_cast<size_t>(protocol);
  return kProtocols[i < kProtocols.size() ? i : kProtocols.size() - 1];
}

TraceProtocol ProtocolOfType(const std::string& device_type) {
  const std::string t = Upper(device_type);
  if (t == "ETE") return TraceProtocol::kEte;
  if (StartsWith(t, "ETM4") || StartsWith(t, "ETMV4")) return TraceProtocol::kEtmV4;
  if (StartsWith(t, "ETM3") || StartsWith(t, "ETMV3")) return TraceProtocol::kEtmV3;
  if (StartsWith(t, "PTM") || StartsWith(t, "PFT")) return TraceProtocol::kPtm;
  if (t == "ITM") return TraceProtocol::kItm;
  if (t == "STM") return TraceProtocol::kStm;
  return TraceProtocol::kUnknown;
}

std::string UndecodedSource::Message(const std::string& buffer) const {
  std::string decoded;
  // An ITM source's own message is for the places that do not route it to
  // host/itm: it does not name ITM among what they decode.
  for (const TraceProtocolInfo& p : kProtocols)
    if (p.arm_decodes && p.protocol != protocol) decoded += (decoded.empty() ? "" : ", ") + std::string(p.name);
  const TraceProtocolInfo& info = InfoOf(protocol);
  const std::string what =
      protocol == TraceProtocol::kUnknown ? "trace of device type '" + type + "'" : std::string(info.name) + " trace";
  std::string m = "source " + name + " (" + type + ", buffer " + buffer + "): " + what +
                  " is not decoded by `mabutrace arm` (it decodes " + decoded + "); skipped";
  if (info.elsewhere) m += std::string(" - see `") + info.elsewhere + "`";
  return m;
}

std::vector<UndecodedSource> UndecodedSources(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buffer) {
  std::vector<UndecodedSource> out;
  for (const snapshot::Device* d : snap.SourcesOfBuffer(buffer.name)) {
    const TraceProtocol p = ProtocolOfType(d->type);
    if (!InfoOf(p).decoder) out.push_back({d->name, d->type, p});
    if (buffer.format == snapshot::BufferFormat::kSourceData) break;  // only the first source is decoded
  }
  return out;
}

}  // namespace mabutrace::ete
