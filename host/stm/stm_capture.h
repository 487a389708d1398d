// SPDX-License-Identifier: MIT
// stm_capture.h: feeds an STM capture into the STP decoder.
//
// Accepted inputs (`path`):
//  - a CoreSight snapshot directory (snapshot.ini; host/snapshot): the first
//    device of type STM, its trace buffer; the STM's trace ID from STMTCSR
//    bits[22:16] (CoreSight STM TRACEID) unless `trace_id` is given. Buffer
//    format "coresight"/"dstream_coresight" goes through the CoreSight frame
//    de-formatter (host/coresight), "source_data" is raw STP bytes.
//  - a TI trace-buffer capture: FILE.bin (32-bit words, little-endian, oldest
//    first) with FILE.dcm beside it (or the .dcm path: its .bin missing is
//    an error naming the .bin, never raw STP), as written by the
//    CToolsLib / dsptop tools (ti-cptracer-facts.md §3.2, V). With
//    TWP_Protocol=1 the buffer holds TWP frames, byte-identical to CoreSight
//    formatter frames (§3.3, V); bytes of ATB ID 0x40 (the MIPI STM, V) are
//    kept, others (e.g. the TBR's 0x6F sequence markers) dropped. With
//    TWP_Protocol=0 the words are raw STP bytes. STM_STP_Version must be 2
//    and STM_data_flip 0 (STM 1.0 / STPv1 is not supported: an error).
//  - any other file: raw STP bytes (source_data), a .bin without its .dcm
//    too.
//
// Block indices passed to StpDecoder follow OpenCSD's frame de-formatter
// (one block per ID run in a frame, indexed at the frame start or at the
// ID-change byte pair that opened the run), so packet offsets equal
// OpenCSD's "Idx". Framed input goes in as the de-formatter's blocks
// (StpDecoder::PushBlock: consecutive runs of the STM's ID), which decodes
// the same packets as one Push per run.
//
// Errors (missing files, bad .ini/.dcm, unsupported format) return false with
// a message naming the file; de-formatter problems are appended to
// `warnings` with their byte offset and decoding goes on.
#ifndef MABUTRACE_HOST_STM_STM_CAPTURE_H
#define MABUTRACE_HOST_STM_STM_CAPTURE_H

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "stp_decoder.h"

namespace mabutrace::stm {

constexpr uint8_t kTiStmAtbId = 0x40;  // MIPI STM ATB ID on KeyStone II (facts §3.1, V)

struct CaptureOptions {
  int trace_id = -1;  // -1: from the snapshot / 0x40 for TI captures
  // Stop at the first frame error (reserved trace ID, truncated frame), as
  // OpenCSD 1.8.0's lister does ("Data Path fatal error"). Default: report
  // it as a warning and go on with the next frames.
  bool halt_on_frame_error = false;
};

struct CaptureInfo {
  std::string kind;            // "snapshot", "ti", "raw"
  std::filesystem::path file;  // the trace bytes read
  int trace_id = -1;           // -1 for raw STP
  uint64_t bytes = 0;          // size of the trace file
  bool synchronised = false;   // an ASYNC was found (else a warning says so)
  std::vector<std::string> warnings;
};

// Reads the capture and pushes its STM bytes into `dec`, then dec->Finish().
bool FeedCapture(const std::filesystem::path& path, const CaptureOptions& options, StpDecoder* dec, CaptureInfo* info,
                 std::string* error);

// Pushes already loaded bytes: `framed` selects the frame de-formatter with
// `trace_id`; otherwise raw STP in 16-byte blocks. Calls dec->Finish().
void FeedBytes(const uint8_t* data, size_t n, bool framed, uint8_t trace_id, StpDecoder* dec,
               std::vector<std::string>* warnings, bool halt_on_frame_error = false);

}  // namespace mabutrace::stm

#endif  // MABUTRACE_HOST_STM_STM_CAPTURE_H
