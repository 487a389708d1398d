// SPDX-License-Identifier: MIT
// itm_element.h: ITM packets -> generic trace elements, as OpenCSD 1.8.0's
// ITM decoder makes them (OCSD_GEN_TRC_ELEM_ITMTRACE with its
// ocsd_swt_itm_info, NO_SYNC, EO_TRACE).
//
// Rules (the observable behaviour of OpenCSD's decoder, checked against the
// itm_only_raw listing):
//  - the first packet of all gives NO_SYNC (reason init-decoder); packets
//    are then ignored up to an A-Sync (unless options.need_async is false,
//    the raw SWO case);
//  - SWIT: channel = port | (stimulus page << 5), value, payload size;
//  - DWT: discriminator, value, payload size (no interpretation here);
//  - local timestamp: the delta x the TS prescaler is added to a running
//    count (reset by an overflow) that becomes the element's timestamp;
//    TC 0-3 give kTsSync, kTsDelay, kTsPktDelay, kTsPktTsDelay;
//  - GTS1 replaces the low bits (7/14/21/26 by payload size), GTS2 bits
//    [63:26]; a timestamp is output from a GTS2 on, and after a GTS1 with
//    Wrap only at the next GTS2. ClkCh is kept until the next output
//    (freq_change);
//  - an overflow sets `overflow` on the next element it outputs;
//  - an extension with S=0 and 3 bits sets the stimulus page;
//  - a reserved / bad packet: the decoder restarts (NO_SYNC with reason
//    bad-packet at the next packet, then waits for an A-Sync);
//  - Finish(): EO_TRACE at the index of the last packet.
#ifndef MABUTRACE_HOST_ITM_ITM_ELEMENT_H
#define MABUTRACE_HOST_ITM_ITM_ELEMENT_H

#include <cstdint>
#include <string>
#include <string_view>

#include "itm/itm_packet.h"

namespace mabutrace::itm {

enum class ElemType : uint8_t { kNoSync, kItmTrace, kEoTrace };
enum class UnsyncReason : uint8_t { kInitDecoder, kBadPacket, kEndOfTrace };
enum class ItmKind : uint8_t { kSwit, kDwt, kTsGlobal, kTsSync, kTsDelay, kTsPktDelay, kTsPktTsDelay };

struct ItmElement {
  ElemType type = ElemType::kItmTrace;
  uint64_t index = 0;  // offset of the packet that made it
  uint8_t trace_id = 0;
  UnsyncReason reason = UnsyncReason::kInitDecoder;  // kNoSync / kEoTrace
  ItmKind kind = ItmKind::kSwit;
  uint16_t src_id = 0;  // SWIT: channel (page << 5 | port); DWT: discriminator
  uint8_t size = 0;     // payload bytes (SWIT, DWT, local TS)
  uint32_t value = 0;   // payload / local TS delta
  bool overflow = false;
  bool freq_change = false;  // global TS: ClkCh seen since the last one
  uint64_t timestamp = 0;    // TS kinds: the running local count / global TS
  bool IsTimestamp() const { return type == ElemType::kItmTrace && kind >= ItmKind::kTsGlobal; }
};

struct DecoderOptions {
  uint32_t ts_prescale = 1;  // ItmConfig::ts_prescale()
  bool need_async = true;    // false: decode from the first packet (raw SWO)
  uint8_t trace_id = 0;      // of NO_SYNC / EO_TRACE before any packet
};

class ElementSink {
 public:
  virtual ~ElementSink() = default;
  virtual void OnElement(const ItmElement& e) = 0;
};

class ElementDecoder {
 public:
  ElementDecoder(const DecoderOptions& options, ElementSink* sink);
  // Packets with decoded = false are skipped.
  void OnPacket(const ItmPacket& p);
  void Finish();

 private:
  enum class State : uint8_t { kNoSync, kWaitSync, kDecode };
  void ResetState();
  void Output(ItmElement& e);

  DecoderOptions options_;
  ElementSink* sink_;
  State state_;
  UnsyncReason reason_ = UnsyncReason::kInitDecoder;
  uint64_t local_ts_ = 0;
  uint64_t global_ts_ = 0;
  uint8_t stim_page_ = 0;
  bool need_gts2_ = true;
  bool overflow_ = false;
  bool freq_change_ = false;
  uint64_t last_index_ = 0;
  uint8_t trace_id_ = 0;
};

// OpenCSD's lister text of an element:
//   "OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_SWIT (ch: 0x3; Data: 0xbb) )"
void FormatElement(const ItmElement& e, std::string* out);
// "Idx:23; ID:0; " + FormatElement.
void FormatElementLine(const ItmElement& e, std::string* out);
// One JSON object: source, trace_id, offset, elem ("ITMTRACE", "NO_SYNC",
// "EO_TRACE") and, for ITMTRACE, itm (swit, dwt, ts_global, ts_local), the
// fields of that kind.
void FormatElementJson(const ItmElement& e, std::string_view source, std::string* out);

}  // namespace mabutrace::itm

#endif  // MABUTRACE_HOST_ITM_ITM_ELEMENT_H
