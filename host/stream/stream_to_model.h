// SPDX-License-Identifier: MIT
// stream_to_model.h: feeds a binary stream (docs/stream-format.md) into
// the host trace model (host/model/trace_model.h) through a Normalizer, so
// any writer can export a captured stream.
//
// Flows: the stream carries 16-bit links. A TRACE_FLOW_OUT carries its flow
// number; a TRACE_FLOW_IN carries its link and the newest flow number at
// that time, so its arrow starts at the newest FLOW_OUT with the same link
// and a number <= that one. Chunks of different threads arrive out of time
// order, so an end whose start has not arrived yet is kept (small: link,
// number, time) and resolved in Finish(). If an older FLOW_OUT with that
// link (65,535 flows earlier) is there too and has no end yet, the link was
// possibly held while the id came round again: the end is drawn as a point
// without an arrow and counted (flow_ends_ambiguous), as the device's
// exporter does when both starts are in its buffer.
#ifndef MABUTRACE_HOST_STREAM_STREAM_TO_MODEL_H
#define MABUTRACE_HOST_STREAM_STREAM_TO_MODEL_H

#include <array>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "stream_decoder.h"
#include "trace_model.h"

namespace mabutrace::host {

class StreamToModel {
 public:
  // keep_unresolved_links: an end no start resolved goes on with its link
  // (model::kUnresolvedLink) instead of being counted as without start.
  explicit StreamToModel(model::EventSink& out, bool keep_unresolved_links = false);

  // As StreamDecoder::Feed / Finish (fatal errors only; damaged records
  // are in decoder().record_errors()). Finish also finishes the sink; a
  // failed write is reported through write_ok().
  Status Feed(const uint8_t* data, size_t len) { return dec_.Feed(data, len); }
  Status Finish();
  bool write_ok() const { return write_ok_; }
  const StreamDecoder& decoder() const { return dec_; }

 private:
  void OnEvent(const Event& e);
  // The flow number of the FLOW_OUT an arrow ending with (link, newest)
  // starts at, or 0 if it has not been seen or is ambiguous (*ambiguous;
  // counted). Marks that FLOW_OUT ended.
  uint32_t Resolve(uint16_t link, uint32_t newest, bool* ambiguous);
  struct Out;
  void BindPending(uint16_t link, Out& out);

  struct PendingEnd {
    model::Track t;
    uint16_t link;
    uint32_t newest;
    uint64_t ns;
  };

  model::Normalizer norm_;
  StreamDecoder dec_;
  bool process_done_ = false;
  std::unordered_set<uint32_t> threads_;
  // Per link, its last few FLOW_OUTs (a link is reused only after 65535
  // others, so a few suffice): the flow number, and whether an end took it.
  struct Out {
    uint32_t flow = 0;  // 0: an empty place
    bool ended = false;
  };
  // Four places per link (a fixed array, not a deque: 65,535 links).
  using Outs = std::array<Out, 4>;
  std::unordered_map<uint16_t, Outs> outs_;
  // Flow ends read before their FLOW_OUT (another thread's chunk came
  // later), per link: bound when that out arrives (OnFlow), else at Finish.
  std::unordered_map<uint16_t, std::vector<PendingEnd>> pending_;
  uint64_t flow_ends_ambiguous_ = 0;
  bool keep_unresolved_links_ = false;
  bool write_ok_ = true;
};

}  // namespace mabutrace::host

#endif  // MABUTRACE_HOST_STREAM_STREAM_TO_MODEL_H
