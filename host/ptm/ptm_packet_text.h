// SPDX-License-Identifier: MIT
// ptm_packet_text.h: text and JSON renderings of PtmPacket.
//
// FormatOcsd() writes the packet as OpenCSD 1.8.0's trc_pkt_lister does
// ("ATOM : Atom packet; ENEEE; "), FormatLine() adds the lister prefix
// ("Idx:25; ID:0; [0xd0 ];\t"), FormatJson() one JSON object with the keys
// of the ETE/ETMv4 listing (source, trace_id, offset, raw, type, ocsd) plus
// the packet's decoded fields.
#ifndef MABUTRACE_HOST_PTM_PTM_PACKET_TEXT_H
#define MABUTRACE_HOST_PTM_PTM_PACKET_TEXT_H

#include <string>
#include <string_view>

#include "ptm/ptm_packet.h"

namespace mabutrace::ptm {

// The Armv7-A exception number of a branch packet as OpenCSD names it
// ("Debug Halt", "IRQ"...; "Unknown" from 16).
const char* ExceptionName(uint16_t number);
void FormatOcsd(const PtmPacket& p, std::string* out);
void FormatLine(const PtmPacket& p, std::string* out);
void FormatJson(const PtmPacket& p, std::string_view source, std::string* out);

}  // namespace mabutrace::ptm

#endif  // MABUTRACE_HOST_PTM_PTM_PACKET_TEXT_H
