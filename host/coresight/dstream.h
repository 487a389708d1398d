// SPDX-License-Identifier: MIT
// dstream.h: the block layout of a DSTREAM probe's trace file (snapshot
// buffer format "dstream_coresight", e.g. a Cortex-A55 traced through a
// TPIU; arm-trace-facts.md §3, §7.4).
//
// A DSTREAM capture is a sequence of 512-byte blocks, each 504 bytes of the
// TPIU's formatted stream followed by an 8-byte footer written by the probe:
//
//   file offset:  0 ............. 503  504 .. 511  512 ............ 1015  1016 .. 1023
//                [ TPIU bytes 0-503 ][ footer  ][ TPIU bytes 504-1007 ][ footer   ] ...
//
// The TPIU bytes are CoreSight formatter frames with FSYNCs (FF FF FF 7F)
// between them (coresight/deformatter.h, has_fsyncs); the footers are not
// trace and are dropped. Byte indexes downstream count TPIU bytes only,
// which is what OpenCSD 1.8.0's lister prints as "Idx" for such captures
// (it reads 504 bytes, feeds them, then skips 8). The last block may be
// short; a partial footer at the end is dropped too.
#ifndef MABUTRACE_HOST_CORESIGHT_DSTREAM_H
#define MABUTRACE_HOST_CORESIGHT_DSTREAM_H

#include <cstddef>
#include <cstdint>

namespace mabutrace::coresight {

inline constexpr size_t kDstreamBlockBytes = 512;
inline constexpr size_t kDstreamFooterBytes = 8;
inline constexpr size_t kDstreamDataBytes = kDstreamBlockBytes - kDstreamFooterBytes;  // 504

// Streams a DSTREAM file (chunks of any size) and hands on its TPIU bytes.
class DstreamBlockReader {
 public:
  // Called with runs of TPIU bytes, in order (never empty).
  using DataFn = void (*)(void* ctx, const uint8_t* data, size_t n);
  DstreamBlockReader(DataFn on_data, void* ctx) : on_data_(on_data), ctx_(ctx) {}

  void Push(const uint8_t* data, size_t n) {
    while (n > 0) {
      const size_t in_block = static_cast<size_t>(file_offset_ % kDstreamBlockBytes);
      size_t take;
      if (in_block < kDstreamDataBytes) {
        take = kDstreamDataBytes - in_block;
        if (take > n) take = n;
        on_data_(ctx_, data, take);
        tpiu_bytes_ += take;
      } else {
        take = kDstreamBlockBytes - in_block;  // (part of) the footer
        if (take > n) take = n;
        footer_bytes_ += take;
      }
      file_offset_ += take;
      data += take;
      n -= take;
    }
  }
  void Reset() { file_offset_ = tpiu_bytes_ = footer_bytes_ = 0; }

  uint64_t tpiu_bytes() const { return tpiu_bytes_; }      // bytes handed on
  uint64_t footer_bytes() const { return footer_bytes_; }  // bytes dropped

 private:
  DataFn on_data_;
  void* ctx_;
  uint64_t file_offset_ = 0;
  uint64_t tpiu_bytes_ = 0;
  uint64_t footer_bytes_ = 0;
};

}  // namespace mabutrace::coresight

#endif  // MABUTRACE_HOST_CORESIGHT_DSTREAM_H
