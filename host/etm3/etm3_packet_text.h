// SPDX-License-Identifier: MIT
// etm3_packet_text.h: text and JSON renderings of Etm3Packet.
//
// FormatOcsd() writes the packet as OpenCSD 1.8.0's trc_pkt_lister does
// ("P_HDR : Atom P-header.; WEN; Cycles=1"); FormatLine() adds the lister
// prefix "Idx:N; ID:x; [0x.. ];\t". FormatJson() writes one JSON object
// (no newline) with the keys the ETE/ETMv4 listing uses (source, trace_id,
// offset, raw, type, ocsd) plus the fields of the packet type.
#ifndef MABUTRACE_HOST_ETM3_ETM3_PACKET_TEXT_H
#define MABUTRACE_HOST_ETM3_ETM3_PACKET_TEXT_H

#include <string>
#include <string_view>

#include "etm3/etm3_packet.h"

namespace mabutrace::etm3 {

// "ARM(32)", "Thumb2", "ThumbEE", "Jazelle", "Unknown" (OpenCSD's ISA names).
const char* IsaText(Isa isa);
// The A/R-profile exception number (0-15) as OpenCSD names it ("IRQ", "SVC"...).
const char* ExceptionName(uint16_t number);
void FormatOcsd(const Etm3Packet& p, std::string* out);
void FormatLine(const Etm3Packet& p, std::string* out);
void FormatJson(const Etm3Packet& p, std::string_view source, std::string* out);

}  // namespace mabutrace::etm3

#endif  // MABUTRACE_HOST_ETM3_ETM3_PACKET_TEXT_H
