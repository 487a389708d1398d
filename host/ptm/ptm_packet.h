// SPDX-License-Identifier: MIT
// ptm_packet.h: one PTM (Program Flow Trace, PFT 1.0/1.1; Cortex-A9/A15)
// packet and the trace-unit configuration its decoding needs.
//
// Encodings: the PFT architecture specification (IHI0035B) chapter 4
// "Packet descriptions"; the names and the printed fields follow OpenCSD
// 1.8.0's PTM packet printer so the listings compare line by line
// (ptm_packet_text.h).
#ifndef MABUTRACE_HOST_PTM_PTM_PACKET_H
#define MABUTRACE_HOST_PTM_PTM_PACKET_H

#include <cstdint>
#include <string>

namespace mabutrace::snapshot {
struct Device;
}

namespace mabutrace::ptm {

enum class PtmPacketType : uint8_t {
  kNotSync,         // bytes before the first A-sync
  kAsync,           // 00 x5 (or more) then 80
  kIsync,           // 08: address, info byte, [cycle count], [context ID]
  kTrigger,         // 0C
  kWaypointUpdate,  // 72: address (branch-address layout, no exception)
  kIgnore,          // 66
  kContextId,       // 6E + CONTEXTIDR bytes
  kVmid,            // 3C + 1 byte
  kAtom,            // 1xxxxxx0
  kTimestamp,       // 42 / 46 + 7-bit groups [+ cycle count]
  kExceptionRet,    // 76
  kBranchAddress,   // xxxxxxx1
  kReserved,        // any other header
  kBadSequence,     // malformed payload (bad A-sync, ...)
  kIncompleteEot,   // input ended inside a packet
};

// ISA as the packets name it (OpenCSD ocsd_isa order is not needed).
enum class PtmIsa : uint8_t { kUnknown, kArm, kThumb2, kThumbEE, kJazelle };

// Registers of a PTM trace unit ([regs] of its snapshot .ini).
struct PtmConfig {
  static constexpr uint32_t kTraceIdBits = 0x7F;  // ETMTRACEIDR [6:0]; the rest is reserved

  uint32_t etmcr = 0;        // ETMCR: cycle accurate [12], CONTEXTIDR size [15:14], TS enable [28]
  uint32_t etmidr = 0;       // ETMIDR: minor revision [7:4] (PFT 1.0 = 0, 1.1 = 1)
  uint32_t etmccer = 0;      // ETMCCER: TS natural binary [28], 64-bit TS [29]
  uint32_t etmtraceidr = 0;  // ETMTRACEIDR: trace ID [6:0]

  bool cycle_accurate() const { return etmcr & (1u << 12); }
  int context_id_bytes() const {
    static constexpr int kBytes[4] = {0, 1, 2, 4};
    return kBytes[(etmcr >> 14) & 3];
  }
  int minor_rev() const { return (etmidr >> 4) & 0xF; }
  bool ts_64bit() const { return minor_rev() > 0 && (etmccer & (1u << 29)); }
  bool ts_binary() const { return minor_rev() > 0 && (etmccer & (1u << 28)); }
  uint8_t trace_id() const { return etmtraceidr & kTraceIdBits; }
  // "PTM 1.0 trace_id=0x10 cycle_accurate=1 ctxid_bytes=0 ts=48-bit gray"
  std::string Describe() const;
  // From ETMCR, ETMIDR, ETMCCER, ETMTRACEIDR; throws snapshot::SnapshotError
  // when ETMCR or ETMTRACEIDR is missing, or ETMTRACEIDR sets a bit
  // above the trace ID (not masked: 0x90 is not taken for ID 0x10), or a
  // register is wider than 32 bits (snapshot::Device::RequireReg, Reg32Or).
  static PtmConfig FromDevice(const snapshot::Device& device);
};

// The packet; fields that persist between packets (address, ISA, security,
// context ID, timestamp) hold their current value, the `*_updated` flags say
// what this packet changed (the printer shows those).
struct PtmPacket {
  PtmPacketType type = PtmPacketType::kNotSync;
  PtmPacketType err_type = PtmPacketType::kNotSync;  // kBadSequence: the packet that was bad
  uint8_t trace_id = 0;
  uint64_t index = 0;  // byte index of the first byte (OpenCSD "Idx")
  const uint8_t* raw = nullptr;
  uint8_t raw_len = 0;

  uint32_t addr = 0;       // current address (updated low bits from this packet)
  uint8_t addr_valid = 0;  // address bits known so far
  uint8_t addr_bits = 0;   // address bits this packet carried
  PtmIsa isa = PtmIsa::kUnknown, prev_isa = PtmIsa::kUnknown;
  bool ns = false, hyp = false, alt_isa = false;
  bool context_updated = false;  // NS/Hyp/AltISA given by this packet
  uint32_t context_id = 0;
  bool context_id_updated = false;
  uint8_t vmid = 0;
  uint8_t isync_reason = 0;  // 0 periodic, 1 trace enable, 2 restart overflow, 3 debug exit
  bool has_exception = false;
  uint16_t exception_number = 0;
  uint8_t atom_count = 0;
  uint8_t atom_bits = 0;  // bit i = atom i (oldest first), 1 = E
  bool has_cc = false;
  uint32_t cycle_count = 0;
  uint64_t timestamp = 0;
  uint8_t ts_bits = 0;  // timestamp bits this packet carried
};

const char* PacketTypeName(PtmPacketType t);

}  // namespace mabutrace::ptm

#endif  // MABUTRACE_HOST_PTM_PTM_PACKET_H
