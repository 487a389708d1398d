// SPDX-License-Identifier: MIT
// itm_session.cpp: see itm_session.h.
#include "itm/itm_session.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "coresight/deformatter.h"
#include "itm/itm_packet_processor.h"

namespace mabutrace::itm {

namespace fs = std::filesystem;

namespace {

constexpr size_t kRawBlock = 1024;

// ITM_TCR from the device's [regs] (ITMTCR, ITM_TCR or TCR; 0 if none). A
// value wider than the 32-bit register is an error naming the file,
// register and value, not cut to its low half.
bool TcrOf(const snapshot::Device& d, uint32_t* tcr, std::string* error) {
  for (const char* name : {"ITMTCR", "ITM_TCR", "TCR"}) {
    const std::optional<uint64_t> v = d.Reg(name);
    if (!v) continue;
    if (*v > UINT32_MAX) {
      char value[32];
      std::snprintf(value, sizeof value, "0x%" PRIx64, *v);
      *error = d.ini_file.string() + ": [regs] " + name + ": " + value + " does not fit the 32-bit ITM_TCR";
      return false;
    }
    *tcr = static_cast<uint32_t>(*v);
    return true;
  }
  *tcr = 0;
  return true;
}

// One source: packet processor -> (listing) -> element decoder -> sink.
class SourcePipe final : public PacketSink, public ElementSink {
 public:
  SourcePipe(size_t index, const ItmSource& src, bool wait_async, SessionSink* sink, InputStats* stats)
      : index_(index),
        sink_(sink),
        stats_(stats),
        pp_(ProcessorOptions{src.trace_id, wait_async}, this),
        dec_(DecoderOptions{src.config.ts_prescale(), wait_async, src.trace_id}, this) {}
  void OnPacket(const ItmPacket& p) override {
    ++stats_->packets;
    if (p.raw_size) sink_->OnPacket(index_, p);
    dec_.OnPacket(p);
  }
  void OnError(uint64_t offset, const std::string& message) override {
    ++stats_->errors;
    sink_->OnError(index_, offset, message);
  }
  void OnElement(const ItmElement& e) override { sink_->OnElement(index_, e); }
  PacketProcessor& pp() { return pp_; }
  void Finish() {
    pp_.Finish();
    dec_.Finish();
  }

 private:
  size_t index_;
  SessionSink* sink_;
  InputStats* stats_;
  PacketProcessor pp_;
  ElementDecoder dec_;
};

class Router final : public coresight::DeformatterSink {
 public:
  Router(std::vector<std::unique_ptr<SourcePipe>>* pipes, const std::array<int, coresight::kNumTraceIds>* by_id,
         SessionSink* sink, InputStats* stats)
      : pipes_(pipes), by_id_(by_id), sink_(sink), stats_(stats) {}
  void OnData(uint8_t trace_id, uint64_t, uint64_t input_offset, const uint8_t* data, size_t n,
              const uint64_t*) override {
    const int s = (*by_id_)[trace_id & 0x7F];
    if (s >= 0) (*pipes_)[static_cast<size_t>(s)]->pp().Push(input_offset, data, n);
  }
  void OnError(const coresight::DeformatterError& e) override {
    if (e.kind == coresight::DeformatterErrorKind::kUnknownId) return;
    ++stats_->errors;
    sink_->OnError(SIZE_MAX, e.input_offset, e.message);
  }
  void OnReset(uint64_t) override {
    for (auto& p : *pipes_) p->pp().Reset();
  }

 private:
  std::vector<std::unique_ptr<SourcePipe>>* pipes_;
  const std::array<int, coresight::kNumTraceIds>* by_id_;
  SessionSink* sink_;
  InputStats* stats_;
};

}  // namespace

bool IsItmDevice(const snapshot::Device& d) {
  std::string t = d.type;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::toupper(c); });
  return t == "ITM";
}

bool OpenItmInput(const fs::path& path, const SessionOptions& options, std::vector<ItmInput>* inputs,
                  std::string* error) {
  inputs->clear();
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::optional<snapshot::Snapshot> read = snapshot::TryReadSnapshot(path, error);
    if (!read) return false;
    const snapshot::Snapshot& snap = *read;
    for (const auto& buf : snap.buffers) {
      if (!options.buffer.empty() && buf.name != options.buffer) continue;
      ItmInput in;
      in.kind = "snapshot";
      in.file = buf.file;
      in.buffer_name = buf.name;
      in.format = buf.format;
      for (const snapshot::Device* d : snap.SourcesOfBuffer(buf.name)) {
        if (!IsItmDevice(*d) || (!options.source.empty() && d->name != options.source)) continue;
        ItmSource s;
        s.name = d->name;
        const snapshot::Device* core = snap.CoreOfSource(d->name);
        s.core = core ? core->name : "";
        uint32_t tcr = 0;
        if (options.tcr)
          tcr = *options.tcr;
        else if (!TcrOf(*d, &tcr, error))
          return false;
        s.config = ItmConfig::FromTcr(tcr);
        s.trace_id = static_cast<uint8_t>(options.trace_id ? *options.trace_id : s.config.trace_id());
        in.sources.push_back(s);
      }
      if (!in.sources.empty()) inputs->push_back(std::move(in));
    }
    if (inputs->empty()) {
      *error = path.string() + ": no ITM trace source" + (options.source.empty() ? "" : " named " + options.source) +
               (options.buffer.empty() ? "" : " in buffer " + options.buffer);
      return false;
    }
    return true;
  }
  if (!fs::exists(path, ec)) {
    *error = path.string() + ": no such file or directory";
    return false;
  }
  ItmInput in;
  in.kind = "swo";
  in.file = path;
  in.buffer_name = "-";
  ItmSource s;
  s.name = "SWO";
  s.config = ItmConfig::FromTcr(options.tcr.value_or(0));
  s.trace_id = static_cast<uint8_t>(options.trace_id.value_or(0));
  if (options.tpiu) {
    in.format = snapshot::BufferFormat::kDstreamCoresight;
    in.hsyncs = true;
    if (!options.trace_id) s.trace_id = s.config.trace_id() ? s.config.trace_id() : 1;
  }
  in.sources.push_back(s);
  inputs->push_back(std::move(in));
  return true;
}

InputStats DecodeItmBytes(const ItmInput& input, const SessionOptions& options, const uint8_t* data, size_t n,
                          SessionSink* sink) {
  InputStats stats;
  stats.bytes = n;
  const bool framed = input.format != snapshot::BufferFormat::kSourceData;
  const bool first_header = options.sync == Sync::kFirstHeader || (options.sync == Sync::kAuto && input.kind == "swo");
  std::vector<std::unique_ptr<SourcePipe>> pipes;
  for (size_t i = 0; i < input.sources.size(); ++i)
    pipes.push_back(std::make_unique<SourcePipe>(i, input.sources[i], !first_header, sink, &stats));
  if (pipes.empty()) return stats;
  if (framed) {
    std::array<int, coresight::kNumTraceIds> by_id;
    by_id.fill(-1);
    for (size_t i = 0; i < input.sources.size(); ++i)
      if (by_id[input.sources[i].trace_id & 0x7F] < 0) by_id[input.sources[i].trace_id & 0x7F] = static_cast<int>(i);
    coresight::DeformatterOptions dopts;
    dopts.has_fsyncs = input.format == snapshot::BufferFormat::kDstreamCoresight;
    dopts.has_hsyncs = input.hsyncs;
    Router router(&pipes, &by_id, sink, &stats);
    coresight::FrameDeformatter dfm(dopts, &router);
    dfm.Push(data, n);
    dfm.Finish();
  } else {
    size_t start = 0;
    if (first_header) {
      bool found = true;
      start = FindSwoStart(data, n, &found);
      stats.skipped_bytes = start;
      if (!found) {
        sink->OnWarning(0, 0,
                        "byte 0: no plausible ITM header in the first 64 bytes (not ITM, or a damaged start): "
                        "decoded from byte 0");
      } else if (start) {
        char msg[128];
        std::snprintf(msg, sizeof msg, "byte 0: skipped %zu byte%s before the first plausible ITM header", start,
                      start == 1 ? "" : "s");
        sink->OnWarning(0, 0, msg);
      }
    }
    for (size_t at = start; at < n; at += kRawBlock) pipes[0]->pp().Push(at, data + at, std::min(kRawBlock, n - at));
  }
  for (auto& p : pipes) p->Finish();
  return stats;
}

static InputStats ReadFailed(const std::string& message, SessionSink* sink) {
  InputStats s;
  s.read_ok = false;
  s.errors = 1;
  sink->OnError(SIZE_MAX, 0, message);
  return s;
}

InputStats DecodeItmInput(const ItmInput& input, const SessionOptions& options, SessionSink* sink) {
  std::vector<uint8_t> bytes;
  try {
    bytes = snapshot::ReadBinaryFile(input.file);
  } catch (const snapshot::SnapshotError& e) {
    // The sink names the file itself: "FILE: message", not "FILE: FILE: message".
    return ReadFailed(e.message(), sink);
  } catch (const std::exception& e) {  // bad_alloc
    return ReadFailed(e.what(), sink);
  }
  return DecodeItmBytes(input, options, bytes.data(), bytes.size(), sink);
}

}  // namespace mabutrace::itm
