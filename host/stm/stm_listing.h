// SPDX-License-Identifier: MIT
// stm_listing.h: the listings of `mabutrace stm packets|decode`
// (docs/cptracer.md): one line per STPv2 packet or per STM message, as a
// JSON object (jsonl; strings through format/json_escape.h) or as text in
// the style of OpenCSD's lister ("Idx:N; ...").
//
//   packet:  {"offset":N,"raw":"f0 0a","type":"D8MTS"} plus, by type,
//            "master" | "channel" | "version" | "freq_hz" | "err_type",
//            then "data" (hex string) and "size" (bits) for a payload,
//            "timestamp" and "ts_bits", and "error" for a bad packet.
//   message: {"offset":N,"kind":"data"} plus "master" and "channel" when
//            known, "data" and "size", "marker":true, "timestamp".
#ifndef MABUTRACE_HOST_STM_STM_LISTING_H
#define MABUTRACE_HOST_STM_STM_LISTING_H

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "stm_capture.h"
#include "stm_messages.h"
#include "stp_decoder.h"

namespace mabutrace::stm {

enum class ListingFormat { kJsonl, kText };
enum class ListingLevel { kPackets, kMessages };

// One line, without its '\n'.
std::string PacketLine(const StpPacket& p, ListingFormat format);
std::string MessageLine(const StmMessage& m, ListingFormat format);

struct ListingResult {
  std::vector<std::string> warnings;       // the capture reader's (frames)
  std::vector<std::string> packet_errors;  // bad packets, with their offsets
  bool synchronised = false;               // an ASYNC was found (CaptureInfo)
};

// Lists the capture (stm_capture.h) at `level` into `out`, a line each.
// false + *error when the capture cannot be read (nothing listed then);
// bad packets do not stop the listing, they are in result->packet_errors.
bool ListCapture(const std::filesystem::path& capture, const CaptureOptions& options, ListingLevel level,
                 ListingFormat format, FILE* out, ListingResult* result, std::string* error);

}  // namespace mabutrace::stm

#endif  // MABUTRACE_HOST_STM_STM_LISTING_H
