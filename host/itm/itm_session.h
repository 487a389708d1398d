// SPDX-License-Identifier: MIT
// itm_session.h: decode an ITM capture - a CoreSight snapshot's ITM sources
// or a raw SWO byte stream - into packets and elements (docs/itm.md). The
// library entry point of `mabutrace itm ...`, for any command that decodes
// ITM (e.g. a generic `mabutrace arm`).
//
//   std::vector<ItmInput> inputs;
//   if (!OpenItmInput(path, options, &inputs, &error)) ...;
//   for (const ItmInput& in : inputs) DecodeItmInput(in, options, &sink);
//
// Inputs:
//  - a snapshot directory (snapshot/snapshot.h): every trace buffer with a
//    source of device type ITM (or only options.buffer), its ITM sources
//    configured from [regs] ITMTCR (ITM_TCR: trace ID bits[22:16],
//    TSPrescale, SWOENA; itm_packet.h). "coresight" / "dstream_coresight"
//    buffers go through the frame de-formatter (coresight/deformatter.h) and
//    each source gets the bytes of its trace ID; "source_data" is the ITM
//    stream itself. Packets wait for the first A-Sync, as OpenCSD.
//  - any other file: a raw SWO capture (the ITM stream as a USB-UART adapter
//    records the SWO pin in UART/NRZ mode, e.g. `mabutrace capture --serial`).
//    One source "SWO" with options.tcr. By default (Sync::kAuto) decoding
//    starts at the first plausible header (FindSwoStart; the bytes before it
//    are counted in InputStats::skipped_bytes) and does not wait for an
//    A-Sync, which SWO setups often never send. With options.tpiu the file
//    holds TPIU formatter frames (FSYNC / HSYNC removed, the ITM's trace ID
//    kept); the ITM bytes are then decoded from their first byte on.
//
// Raw bytes are pushed in 1024-byte blocks (OpenCSD's lister reads its
// input so; the block start matters only for NOTSYNC offsets).
//
// Errors: OpenItmInput returns false with a message naming the file
// (snapshot problems, no ITM source, unreadable file). Decoding problems go
// to SessionSink::OnError with the byte offset, and decoding goes on.
#ifndef MABUTRACE_HOST_ITM_ITM_SESSION_H
#define MABUTRACE_HOST_ITM_ITM_SESSION_H

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "itm/itm_element.h"
#include "itm/itm_packet.h"
#include "snapshot/snapshot.h"

namespace mabutrace::itm {

enum class Sync : uint8_t {
  kAuto,         // snapshot: kAsync; raw SWO file: kFirstHeader
  kAsync,        // wait for an A-Sync (OpenCSD)
  kFirstHeader,  // start at the first plausible header, never wait
};

struct SessionOptions {
  std::string buffer;           // snapshot: only this buffer (name in trace.ini)
  std::string source;           // snapshot: only this ITM source (device name)
  std::optional<uint32_t> tcr;  // raw file: ITM_TCR (default 0); snapshot: override
  std::optional<int> trace_id;  // framed: override the TCR's trace ID
  Sync sync = Sync::kAuto;
  // Raw file: the SWO carries TPIU formatter frames (TPIU_FFCR.EnFCont = 1)
  // with FSYNC / HSYNC patterns instead of the bare ITM stream; the ITM's
  // bytes are those of trace_id (default: the TCR's TraceBusID, else 1).
  bool tpiu = false;
};

struct ItmSource {
  std::string name;  // device name ("ITM_0"), "SWO" for a raw file
  std::string core;  // the core it feeds in [core_trace_sources], or ""
  ItmConfig config;
  uint8_t trace_id = 0;  // the ID its bytes carry in frames (0: unframed)
};

struct ItmInput {
  std::string kind;            // "snapshot" or "swo"
  std::filesystem::path file;  // the trace bytes
  std::string buffer_name;     // trace.ini buffer name, "-" for a raw file
  snapshot::BufferFormat format = snapshot::BufferFormat::kSourceData;
  bool hsyncs = false;  // framed with HSYNC patterns too (TPIU-formatted SWO)
  std::vector<ItmSource> sources;
};

class SessionSink {
 public:
  virtual ~SessionSink() = default;
  virtual void OnPacket(size_t /*source*/, const ItmPacket& /*p*/) {}
  virtual void OnElement(size_t /*source*/, const ItmElement& /*e*/) {}
  // source = SIZE_MAX: the input itself (framing).
  virtual void OnError(size_t source, uint64_t offset, const std::string& message) = 0;
  // Not an error: e.g. the bytes a raw SWO capture starts with before its
  // first plausible header.
  virtual void OnWarning(size_t /*source*/, uint64_t /*offset*/, const std::string& /*message*/) {}
};

struct InputStats {
  uint64_t bytes = 0;          // size of the trace file
  uint64_t skipped_bytes = 0;  // raw SWO: bytes before the first plausible header
  uint64_t packets = 0;
  uint64_t errors = 0;  // reported through OnError (warnings not counted)
  bool read_ok = true;
};

// Whether a snapshot device is an ITM trace source ([device] type "ITM",
// any case).
bool IsItmDevice(const snapshot::Device& d);

// Opens `path` (see the file comment). Snapshot errors, a snapshot with no
// ITM source and a missing file give false and *error.
bool OpenItmInput(const std::filesystem::path& path, const SessionOptions& options, std::vector<ItmInput>* inputs,
                  std::string* error);

// Reads the input's file and decodes it (DecodeItmBytes).
InputStats DecodeItmInput(const ItmInput& input, const SessionOptions& options, SessionSink* sink);
// Decodes `n` bytes as the content of `input`'s file.
InputStats DecodeItmBytes(const ItmInput& input, const SessionOptions& options, const uint8_t* data, size_t n,
                          SessionSink* sink);

}  // namespace mabutrace::itm

#endif  // MABUTRACE_HOST_ITM_ITM_SESSION_H
