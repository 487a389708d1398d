// SPDX-License-Identifier: MIT
// stm_capture.cpp: see stm_capture.h.
#include "stm_capture.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "deformatter.h"
#include "snapshot.h"

namespace mabutrace::stm {
namespace {

namespace fs = std::filesystem;

// CoreSight STM STMTCSR.TRACEID, bits[22:16].
constexpr unsigned kStmtcsrTraceIdShift = 16;
constexpr uint64_t kTraceIdMask = 0x7F;

class BlockFeeder final : public coresight::DeformatterSink {
 public:
  BlockFeeder(uint8_t id, StpDecoder* dec, std::vector<std::string>* warnings, bool halt)
      : id_(id), dec_(dec), warnings_(warnings), halt_(halt) {}
  void OnData(uint8_t trace_id, uint64_t, uint64_t input_offset, const uint8_t* data, size_t n,
              const uint64_t*) override {
    if (trace_id != id_ || halted_) return;
    // input_offset is the index OpenCSD gives the run (deformatter.h).
    dec_->Push(input_offset, data, n);
  }
  // A single-ID stream's frames arrive as one block: decoded across runs.
  void OnBlock(uint8_t trace_id, uint64_t, const uint8_t* data, size_t n, const coresight::DataRun* runs,
               size_t nruns) override {
    if (trace_id != id_ || halted_) return;
    dec_->PushBlock(data, n, runs, nruns);
  }
  void OnError(const coresight::DeformatterError& e) override {
    if (e.kind == coresight::DeformatterErrorKind::kUnknownId || halted_) return;
    if (warnings_) warnings_->push_back(e.message + (halt_ ? " (decoding stopped)" : ""));
    halted_ = halt_;
  }

 private:
  uint8_t id_;
  StpDecoder* dec_;
  std::vector<std::string>* warnings_;
  bool halt_;
  bool halted_ = false;
};

// The snapshot reader's (one owner): a directory or an unreadable file is
// an error naming it, not an exception out of a stream iterator.
bool ReadFile(const fs::path& p, std::vector<uint8_t>* out, std::string* error) {
  try {
    *out = snapshot::ReadBinaryFile(p);
    return true;
  } catch (const snapshot::SnapshotError& e) {
    *error = e.what();
    return false;
  }
}

bool ReadDcm(const fs::path& p, std::map<std::string, std::string>* kv, std::string* error) {
  std::ifstream f(p);
  if (!f) {
    *error = p.string() + ": cannot open";
    return false;
  }
  std::string line;
  int lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    line.erase(std::remove_if(line.begin(), line.end(), [](unsigned char c) { return std::isspace(c); }), line.end());
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) {
      *error = p.string() + ":" + std::to_string(lineno) + ": expected key=value";
      return false;
    }
    (*kv)[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return true;
}

}  // namespace

void FeedBytes(const uint8_t* data, size_t n, bool framed, uint8_t trace_id, StpDecoder* dec,
               std::vector<std::string>* warnings, bool halt_on_frame_error) {
  if (framed) {
    BlockFeeder feeder(trace_id, dec, warnings, halt_on_frame_error);
    coresight::FrameDeformatter dfm(coresight::DeformatterOptions{}, &feeder);
    dfm.Push(data, n);
    dfm.Finish();
  } else {
    for (size_t at = 0; at < n; at += coresight::kFrameBytes)
      dec->Push(at, data + at, std::min<size_t>(coresight::kFrameBytes, n - at));
  }
  dec->Finish();
}

bool FeedCapture(const fs::path& path, const CaptureOptions& options, StpDecoder* dec, CaptureInfo* info,
                 std::string* error) {
  std::vector<uint8_t> bytes;
  bool framed = false;
  coresight::DeformatterOptions dopts;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::optional<snapshot::Snapshot> read = snapshot::TryReadSnapshot(path, error);
    if (!read) return false;
    const snapshot::Snapshot& snap = *read;
    const snapshot::Device* stm = nullptr;
    for (const auto& d : snap.devices) {
      std::string t = d.type;
      std::transform(t.begin(), t.end(), t.begin(), ::toupper);
      if (t == "STM") {
        stm = &d;
        break;
      }
    }
    if (!stm) {
      *error = path.string() + ": no device of type STM in the snapshot";
      return false;
    }
    const snapshot::TraceBuffer* buf = snap.BufferOfSource(stm->name);
    if (!buf && !snap.buffers.empty()) buf = &snap.buffers.front();
    if (!buf) {
      *error = path.string() + ": no trace buffer for " + stm->name;
      return false;
    }
    info->kind = "snapshot";
    info->file = buf->file;
    framed = buf->format != snapshot::BufferFormat::kSourceData;
    if (buf->format == snapshot::BufferFormat::kDstreamCoresight) dopts.has_fsyncs = true;
    info->trace_id = options.trace_id >= 0
                         ? options.trace_id
                         : static_cast<int>((stm->RegOr("STMTCSR", 0) >> kStmtcsrTraceIdShift) & kTraceIdMask);
    if (framed && info->trace_id == 0) {
      *error = stm->ini_file.string() + ": [regs] STMTCSR: no trace ID (bits[22:16]); give --trace-id";
      return false;
    }
    if (!ReadFile(buf->file, &bytes, error)) return false;
  } else {
    fs::path bin = path, dcm = path;
    const bool dcm_named = path.extension() == ".dcm";
    if (dcm_named)
      bin.replace_extension(".bin");
    else
      dcm.replace_extension(".dcm");
    // A .dcm is never trace bytes: named, it is a TI capture whose .bin
    // must be there (read below, whose error names it).
    if (dcm_named || (fs::exists(dcm, ec) && fs::exists(bin, ec))) {
      std::map<std::string, std::string> kv;
      if (!ReadDcm(dcm, &kv, error)) return false;
      auto get = [&](const char* k, const char* def) {
        auto it = kv.find(k);
        return it == kv.end() ? std::string(def) : it->second;
      };
      if (get("STM_STP_Version", "2") != "2" || get("STM_data_flip", "0") != "0") {
        *error = dcm.string() + ": STM 1.0 / STPv1 capture (STM_STP_Version != 2 or STM_data_flip=1) is not supported";
        return false;
      }
      info->kind = "ti";
      framed = get("TWP_Protocol", "1") == "1";
      info->trace_id = framed ? (options.trace_id >= 0 ? options.trace_id : kTiStmAtbId) : -1;
      info->file = bin;
    } else {
      info->kind = "raw";
      info->file = path;
      info->trace_id = -1;
    }
    if (!ReadFile(info->file, &bytes, error)) return false;
  }
  info->bytes = bytes.size();
  if (framed) {
    BlockFeeder feeder(static_cast<uint8_t>(info->trace_id), dec, &info->warnings, options.halt_on_frame_error);
    coresight::FrameDeformatter dfm(dopts, &feeder);
    dfm.Push(bytes.data(), bytes.size());
    dfm.Finish();
    dec->Finish();
  } else {
    FeedBytes(bytes.data(), bytes.size(), false, 0, dec, &info->warnings);
  }
  // Without an ASYNC every byte is NOTSYNC: random bytes, another protocol or
  // the wrong trace ID would otherwise pass for a trace with nothing in it.
  info->synchronised = dec->stats().asyncs > 0;
  if (!info->synchronised) {
    char id[64] = "";
    if (framed) std::snprintf(id, sizeof id, ", and is its trace ID 0x%02X (--trace-id)", info->trace_id);
    info->warnings.push_back("no STP ASYNC packet in the " + std::to_string(info->bytes) +
                             " bytes: the stream never synchronised, nothing decoded (is it MIPI STPv2" + id + "?)");
  }
  return true;
}

}  // namespace mabutrace::stm
