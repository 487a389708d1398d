// SPDX-License-Identifier: MIT
// itm_packet_processor.h: ITM byte stream -> ItmPacket (itm_packet.h).
//
// Push-style, any chunking; memory bounded by the longest packet (an A-Sync
// may hold any number of 0x00, which are kept for the listing).
//
//   PacketProcessor pp(options, &sink);
//   pp.Push(block_index, data, n);  ...   // block_index: offset of data[0]
//   pp.Finish();                          // end of trace
//
// Offsets: byte k of a block is at block_index + k; a packet's index is the
// offset of its header. Framed input gives one block per de-formatter run
// (coresight/deformatter.h), so indexes equal OpenCSD's "Idx".
//
// Synchronisation (options.wait_for_async, the default, as OpenCSD 1.8.0):
// bytes before the first A-Sync are reported as ITM_NOTSYNC packets the way
// its lister prints them: a run is cut at a 0x00 (a possible A-Sync), after
// 8 bytes, and at the end of each pushed block; a run keeps the offset of the
// last possible A-Sync that failed (or of the block), which OpenCSD does too.
// Only the first NOTSYNC goes to the element decoder (ItmPacket::decoded).
// Without wait_for_async (a raw SWO capture, which often has no A-Sync at
// all: SYNCENA off) the first byte pushed is taken as a header; choose it
// with FindSwoStart().
//
// Errors go to the sink with their byte offset and decoding goes on:
//  - a reserved header: listed as ITM_RESERVED (1 byte), the next byte is a
//    header;
//  - a payload breaking the rules (continuation past the limit, A-Sync
//    broken by a non-zero byte): listed as ITM_BAD_SEQUENCE with the bytes
//    read so far, the next byte is a header;
//  - Finish() inside a packet: ITM_INCOMPLETE_EOT with the bytes read.
#ifndef MABUTRACE_HOST_ITM_ITM_PACKET_PROCESSOR_H
#define MABUTRACE_HOST_ITM_ITM_PACKET_PROCESSOR_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "itm/itm_packet.h"

namespace mabutrace::itm {

class PacketSink {
 public:
  virtual ~PacketSink() = default;
  virtual void OnPacket(const ItmPacket& p) = 0;
  // `offset`: the byte where the problem is; `message` names it.
  virtual void OnError(uint64_t offset, const std::string& message) = 0;
};

struct ProcessorOptions {
  uint8_t trace_id = 0;        // copied into every packet
  bool wait_for_async = true;  // false: the first byte is a header (raw SWO)
};

struct ProcessorStats {
  uint64_t packets = 0;         // every packet delivered (NOTSYNC runs included)
  uint64_t unsynced_bytes = 0;  // bytes in NOTSYNC runs
  uint64_t errors = 0;
};

class PacketProcessor {
 public:
  // `sink` must outlive the processor.
  PacketProcessor(const ProcessorOptions& options, PacketSink* sink);
  PacketProcessor(const PacketProcessor&) = delete;
  PacketProcessor& operator=(const PacketProcessor&) = delete;

  void Push(uint64_t block_index, const uint8_t* data, size_t n);
  void Finish();
  // Forgets the partial packet and the synchronisation (a de-formatter reset).
  void Reset();

  const ProcessorStats& stats() const { return stats_; }

 private:
  enum class State : uint8_t { kWaitSync, kHeader, kData };
  void HuntByte(uint8_t b, uint64_t at);
  void Header(uint8_t b);
  void DataByte(uint8_t b);
  void FlushUnsynced();
  void Emit(PacketType type);
  void BadSequence(const char* why);
  uint64_t ContValue(size_t first, size_t last) const;

  ProcessorOptions options_;
  PacketSink* sink_;
  ProcessorStats stats_;
  State state_;
  PacketType kind_ = PacketType::kReserved;  // the packet being read
  std::vector<uint8_t> buf_;                 // its bytes (header first)
  ItmPacket pkt_;
  uint64_t index_ = 0;  // offset of buf_[0]
  size_t need_ = 0;     // SWIT/DWT: payload bytes
  // Hunting for the first A-Sync.
  bool sync_start_ = false;  // buf_ holds a possible A-Sync
  size_t dump_ = 0;          // leading bytes of buf_ that are not
  bool sent_notsync_ = false;
};

// The offset where a raw SWO capture's first plausible packet starts: the
// first k < min(n, 64) from which 8 packets (or all up to the end) parse
// with no reserved header and no broken payload; 0 if none, and then
// *found (if given) is false: the stream is not ITM, or its start is
// damaged, and decoding from 0 will report errors. A capture that starts
// mid-packet (the adapter was plugged in while the target ran) then skips
// its k leftover payload bytes.
size_t FindSwoStart(const uint8_t* data, size_t n, bool* found = nullptr);

}  // namespace mabutrace::itm

#endif  // MABUTRACE_HOST_ITM_ITM_PACKET_PROCESSOR_H
