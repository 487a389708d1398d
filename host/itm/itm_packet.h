// SPDX-License-Identifier: MIT
// itm_packet.h: ITM / DWT packets and the ITM configuration (docs/itm.md).
//
// The ITM byte stream (Armv7-M ARM, Appendix D "Debug ITM and DWT Packet
// Protocol"; Armv8-M ARM, "ITM and DWT packet protocol"). A packet is a
// header byte and 0-6 payload bytes:
//
//   header          kind                          payload
//   0000 0000       synchronisation (A-Sync)      >= 4 more 0x00, then 0x80
//                                                 (at least 47 zero bits, a 1)
//   0111 0000       overflow                      none
//   0TTT 0000       local timestamp, form 2       none; TTT = 1..6 is the delta
//   1xCC 0000       local timestamp, form 1       1-4 bytes, bit7 = continue;
//                                                 CC = TC (timing relation)
//   1001 0100       global timestamp 1 (GTS1)     1-4 bytes, bits[25:0]; the
//                                                 4th byte: bit5 ClkCh, bit6 Wrap
//   1011 0100       global timestamp 2 (GTS2)     1-6 bytes, bits[63:26] (or 47:26)
//   CNNN 1S00       extension                     0-4 bytes (C = continue);
//                                                 S=0 N=page: stimulus port page
//   AAAA A0SS       software stimulus (SWIT)      SS = 01/10/11: 1/2/4 bytes LE,
//                                                 AAAAA = port (0-31 in the page)
//   AAAA A1SS       hardware source (DWT)         as SWIT; AAAAA = discriminator
//   others (xxxx 0100 but 0x94/0xB4)  reserved
//
// DWT discriminators (the hardware source packets): 0 event counter wrap
// (payload bit0 CPI, 1 EXC, 2 SLEEP, 3 LSU, 4 FOLD, 5 CYC); 1 exception trace
// (2 bytes: bits[8:0] exception number, bits[13:12] FN: 1 entered, 2 exited,
// 3 returned to); 2 PC sample (4 bytes PC, or 1 byte 0x00: the core sleeps);
// 8 + 2n data trace PC value (4 bytes), 9 + 2n data address offset (2 bytes),
// 16 + 2n data value read, 17 + 2n data value write (comparator n = 0..3).
//
// Field meanings follow OpenCSD 1.8.0's ocsd_itm_pkt so that the listing
// equals its lister's (src_id holds the port / discriminator / TC / flags).
#ifndef MABUTRACE_HOST_ITM_ITM_PACKET_H
#define MABUTRACE_HOST_ITM_ITM_PACKET_H

#include <cstddef>
#include <cstdint>

namespace mabutrace::itm {

enum class PacketType : uint8_t {
  kNotSync,        // bytes before the first A-Sync
  kIncompleteEot,  // a packet cut by the end of the trace (err_type = its kind)
  kAsync,
  kOverflow,
  kSwit,
  kDwt,
  kTsLocal,
  kGts1,
  kGts2,
  kExtension,
  kBadSequence,  // a payload that breaks the rules (err_type = its kind)
  kReserved,     // a reserved header byte
};

// OpenCSD's name of the type ("ITM_SWIT") and its description.
const char* PacketTypeName(PacketType t);
const char* PacketTypeDescription(PacketType t);

// DWT discriminators with a meaning of their own.
constexpr uint8_t kDwtEventCounter = 0;
constexpr uint8_t kDwtException = 1;
constexpr uint8_t kDwtPcSample = 2;

struct ItmPacket {
  PacketType type = PacketType::kReserved;
  PacketType err_type = PacketType::kReserved;  // kIncompleteEot / kBadSequence: what it was
  uint8_t trace_id = 0;
  // kSwit: port (0-31); kDwt: discriminator; kTsLocal: TC (0-3);
  // kGts1: bit0 ClkCh, bit1 Wrap; kExtension: bit7 S (hardware), bits[4:0]
  // the index of the payload's top bit (2, 9, 16, 23, 31).
  uint8_t src_id = 0;
  // Payload bytes the value came from (1, 2, 4; kTsLocal / kGts1 / kGts2
  // 1-4; 5 for a GTS2 of 5-6 bytes, whose value then has 40 bits).
  uint8_t size = 0;
  uint64_t value = 0;
  uint64_t index = 0;  // byte offset of the header (OpenCSD's "Idx")
  // The packet's bytes; valid only during the callback.
  const uint8_t* raw = nullptr;
  size_t raw_size = 0;
  // Whether the element decoder sees it: OpenCSD lists every run of
  // unsynchronised bytes but decodes only the first NOTSYNC.
  bool decoded = true;
};

// ITM configuration from its Trace Control Register (ITM_TCR, Armv7-M ARM
// C1.7.6): bit0 ITMENA, bit1 TSENA, bit2 SYNCENA, bit4 SWOENA, bits[9:8]
// TSPrescale (local timestamp clock / 1, 4, 16, 64 when SWOENA), bits[11:10]
// GTSFREQ, bits[22:16] TraceBusID.
struct ItmConfig {
  uint32_t tcr = 0;

  static ItmConfig FromTcr(uint32_t tcr) { return ItmConfig{tcr}; }
  uint8_t trace_id() const { return static_cast<uint8_t>((tcr >> 16) & 0x7F); }
  bool timestamps() const { return tcr & 0x2; }
  bool sync_packets() const { return tcr & 0x4; }
  bool swo_clock() const { return tcr & 0x10; }
  unsigned gts_freq() const { return (tcr >> 10) & 0x3; }
  // Local timestamp ticks per delta unit; as OpenCSD, the prescaler counts
  // only when the timestamps use the TPIU clock (SWOENA).
  uint32_t ts_prescale() const {
    static constexpr uint32_t kScale[] = {1, 4, 16, 64};
    return swo_clock() ? kScale[(tcr >> 8) & 0x3] : 1;
  }
};

}  // namespace mabutrace::itm

#endif  // MABUTRACE_HOST_ITM_ITM_PACKET_H
