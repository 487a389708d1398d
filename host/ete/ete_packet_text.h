// SPDX-License-Identifier: MIT
// ete_packet_text.h: text and JSON renderings of EtePacket.
//
// FormatOcsd() writes the packet the way OpenCSD 1.8.0's trc_pkt_lister does
// ("I_ATOM_F3 : Atom format 3.; EEN"), so our listing can be compared with
// the oracle files line by line. FormatLine() adds the lister's prefix
// ("Idx:12; ID:0; [0x01 0x00 ];\t"). FormatJson() writes one JSON object
// (no newline) with the common keys source, trace_id, offset, raw, type,
// ocsd and the decoded fields of that packet type.
#ifndef MABUTRACE_HOST_ETE_ETE_PACKET_TEXT_H
#define MABUTRACE_HOST_ETE_ETE_PACKET_TEXT_H

#include <cstdint>
#include <string>
#include <string_view>

#include "ete/ete_packet.h"

namespace mabutrace::ete {

// The exception TYPE (arm-trace-facts.md §4.7) as OpenCSD 1.8.0 names it:
// "PE Reset", "Debug Halt", "Call", "Trap", "System Error", "Inst Debug",
// "Data Debug", "Alignment", "Inst Fault", "Data Fault", "IRQ", "FIQ";
// "Reserved" for the others (IMPLEMENTATION DEFINED 0x10-0x17 included).
const char* ExceptionTypeName(uint16_t type);
// The ETMv4-M exception TYPE (an M-profile exception number) as OpenCSD
// 1.8.0 names it: "PE Reset", "NMI", "HardFault", ... "SysTick", "IRQ0"-
// "IRQ7" (0x10-0x17), "DebugHalt", "LazyFP Push", "Lockup"; 0x208-0x3EF are
// "IRQ<n>" with n = TYPE - 0x200 (written to `buf`, which is returned).
const char* MExceptionTypeName(uint16_t type, char (&buf)[16]);
// OpenCSD's trcPrintableElem::getValStr: "0x8000055C ~[0x5C]" (hex value of
// `valid_bits` of `total_bits`, '?' for unknown digits, "~[..]" the
// `update_bits` this packet carried). Shared by the PTM packet printer.
void FormatOcsdValue(std::string* out, int total_bits, int valid_bits, uint64_t value, int update_bits);
// Appends the description (everything after the tab of a lister line).
void FormatOcsd(const EtePacket& p, std::string* out);
// Appends "Idx:<index>; ID:<hex id>; [0x.. ];\t<description>".
void FormatLine(const EtePacket& p, std::string* out);
// Appends one JSON object describing the packet.
void FormatJson(const EtePacket& p, std::string_view source, std::string* out);

}  // namespace mabutrace::ete

#endif  // MABUTRACE_HOST_ETE_ETE_PACKET_TEXT_H
