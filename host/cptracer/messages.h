// SPDX-License-Identifier: MIT
// messages.h: STM messages -> CP_Tracer messages (R-I1), the third decode
// layer: nibbles -> STP packets -> STM messages -> tracer messages.
//
// Words of STM master `layout.hw_master` (0x80, facts §3.1 V) are collected
// per channel until a marked word ends the message (U, layout.h); the word
// count and the type field pick the layout entry, whose fields are then
// extracted. Which tracer sent a statistics message is not in its words: we
// take the STM channel as its tracer id (U; the simulator writes SID as the
// channel, so status/event SIDs and statistics channels agree).
//
// Bad input (a message with a word count no layout entry has, a non-32-bit
// data packet, more words than any message, an unknown type value, a
// message cut off by loss of sync, an ASYNC/VERSION or the end) gives a
// kUnknown message with `error` naming the STM byte offset; nothing throws.
#ifndef MABUTRACE_HOST_CPTRACER_MESSAGES_H
#define MABUTRACE_HOST_CPTRACER_MESSAGES_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "layout.h"
#include "stm_messages.h"

namespace mabutrace::cptracer {

struct TracerMessage {
  uint64_t offset = 0;  // STM byte offset of the first word
  uint16_t stm_master = 0;
  uint16_t stm_channel = 0;
  bool has_ts = false;     // the last word carried an STM timestamp
  uint64_t timestamp = 0;  // STM timestamp units (see ts_freq_hz)
  MsgType type = MsgType::kUnknown;
  uint32_t tracer = 0;  // SID (status/event) or STM channel (statistics)
  // status
  uint32_t sid = 0, group = 0, access_status = 0;
  // event B/C/E
  uint32_t mid = 0, xid = 0, address = 0;
  bool overflow = false, write = false;
  // statistics
  uint32_t throughput0 = 0, throughput1 = 0, wait_cycles = 0, grants = 0;
  std::vector<uint32_t> words;
  std::string error;  // kUnknown only
};

class TracerMessageSink {
 public:
  virtual ~TracerMessageSink() = default;
  virtual void OnTracerMessage(const TracerMessage& m) = 0;
};

class TracerDecoder final : public stm::StmMessageSink {
 public:
  TracerDecoder(Layout layout, TracerMessageSink* sink);
  void OnMessage(const stm::StmMessage& m) override;
  // Words waiting for their marked word are reported as kUnknown.
  void OnSyncLost(uint64_t offset) override;
  // Words waiting for their marked word when an ASYNC or VERSION arrives are
  // reported as kUnknown (naming the offsets); the next message starts anew.
  void OnResync(uint64_t offset, stm::StpType type) override;
  // Reports words still waiting for their marked word as kUnknown.
  void Finish();
  uint64_t ts_freq_hz() const { return ts_freq_hz_; }
  uint64_t unknown() const { return unknown_; }

 private:
  struct Pending {
    uint64_t offset = 0;
    std::vector<uint32_t> words;
  };
  void Complete(uint16_t channel, Pending* p, const stm::StmMessage* last);
  void Bad(uint16_t channel, Pending* p, const std::string& why);

  Layout layout_;
  TracerMessageSink* sink_;
  std::map<uint16_t, Pending> pending_;  // per STM channel
  uint8_t max_words_ = 1;
  uint64_t ts_freq_hz_ = 0;
  uint64_t unknown_ = 0;
};

// A one-line JSON object for `m` (jsonl output of the CLI).
std::string TracerMessageJson(const TracerMessage& m);

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_MESSAGES_H

#include <filesystem>

#include "stm_capture.h"

namespace mabutrace::cptracer {

// Whole pipeline on a capture (stm_capture.h: snapshot dir, TI .bin/.dcm
// or raw STP): every tracer message into `out`; `ts_freq_hz` = last FREQ
// seen (0 = none); STP errors and warnings appended to `warnings`.
bool DecodeTracerCapture(const std::filesystem::path& path, const Layout& layout, const stm::CaptureOptions& options,
                         std::vector<TracerMessage>* out, uint64_t* ts_freq_hz, std::vector<std::string>* warnings,
                         std::string* error);

}  // namespace mabutrace::cptracer
