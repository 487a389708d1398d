// SPDX-License-Identifier: MIT
// trace_protocol.h: which trace protocol a snapshot's trace-source device
// speaks, and which of them `mabutrace arm` decodes (the protocol
// registry). The device type is what the snapshot's [device] type says
// (arm-trace-facts.md §7.3): "ETE", "ETM4" / "ETM4.1" / "ETMv4.2", "ETM3" /
// "ETM3.5", "PTM1.0" / "PFT1.1", "ITM", "STM".
//
// A new decoder plugs in here: give its row a `decoder` name and teach
// the `arm` commands (tools/mabutrace/cmd_ete.cpp, cmd_ete_decode.cpp) to route its sources to
// it. Until then its sources are named once, per source, as not decoded,
// and every other source of the snapshot is still decoded.
#ifndef MABUTRACE_HOST_ETE_TRACE_PROTOCOL_H
#define MABUTRACE_HOST_ETE_TRACE_PROTOCOL_H

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mabutrace::snapshot {
struct Device;
struct Snapshot;
struct TraceBuffer;
}  // namespace mabutrace::snapshot

namespace mabutrace::ete {

enum class TraceProtocol : uint8_t { kEte, kEtmV4, kEtmV3, kPtm, kItm, kStm, kUnknown };

struct TraceProtocolInfo {
  TraceProtocol protocol;
  const char* name;       // "ETE", "ETMv4", "ETMv3", "PTM", "ITM", "STM", "unknown"
  const char* types;      // the device types that select it, for messages
  const char* decoder;    // what decodes it ("ete": host/ete + host/ete_decode, "etm3": host/etm3), or nullptr
  const char* elsewhere;  // another command that decodes it ("mabutrace stm"), or nullptr
  bool arm_decodes;       // `mabutrace arm` decodes it (ITM: through host/itm, beside the decoders above)
};

// Every protocol, one row each, in TraceProtocol order.
std::span<const TraceProtocolInfo> TraceProtocols();
const TraceProtocolInfo& InfoOf(TraceProtocol protocol);

// The protocol of a trace-source device, from its [device] type. ETE and
// ETMv4 share a decoder; which of the two a unit really is comes from its
// registers (TraceUnitArch, ete_config.h).
TraceProtocol ProtocolOfType(const std::string& device_type);

// A trace source of a buffer that no decoder of this build handles.
struct UndecodedSource {
  std::string name;  // device name
  std::string type;  // [device] type
  TraceProtocol protocol;
  // "source ITM_0 (ITM, buffer ETB_0): ITM trace is not decoded by `mabutrace arm` (it decodes ETE, ETMv4);
  // skipped" (+ " - see `mabutrace stm`" where another command does)
  std::string Message(const std::string& buffer) const;
};

// The sources attached to `buffer` whose protocol has no decoder, in
// [source_buffers] order (for source_data buffers: none unless the first
// source is one, as only that one is decoded).
std::vector<UndecodedSource> UndecodedSources(const snapshot::Snapshot& snap, const snapshot::TraceBuffer& buffer);

}  // namespace mabutrace::ete

#endif  // MABUTRACE_HOST_ETE_TRACE_PROTOCOL_H
