// SPDX-License-Identifier: MIT
// itm_packet_text.h: text and JSON renderings of ItmPacket.
//
// FormatOcsd() writes the packet as OpenCSD 1.8.0's trc_pkt_lister does
// ("ITM_SWIT: {src id: 0x03}  0xbb; 'Software Stimulus write packet'"),
// FormatLine() adds the lister's prefix ("Idx:23; ID:0; [0x19 0xbb ];\t"),
// so a listing compares line by line with the oracle files. FormatJson()
// writes one JSON object (no newline) with the keys every packet listing of
// the toolkit has (source, trace_id, offset, raw, type) and the decoded
// fields of that type (docs/itm.md).
#ifndef MABUTRACE_HOST_ITM_ITM_PACKET_TEXT_H
#define MABUTRACE_HOST_ITM_ITM_PACKET_TEXT_H

#include <string>
#include <string_view>

#include "itm/itm_packet.h"

namespace mabutrace::itm {

void FormatOcsd(const ItmPacket& p, std::string* out);
void FormatLine(const ItmPacket& p, std::string* out);
void FormatJson(const ItmPacket& p, std::string_view source, std::string* out);

}  // namespace mabutrace::itm

#endif  // MABUTRACE_HOST_ITM_ITM_PACKET_TEXT_H
