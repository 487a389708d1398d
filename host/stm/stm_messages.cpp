// SPDX-License-Identifier: MIT
// stm_messages.cpp: see stm_messages.h.
#include "stm_messages.h"

namespace mabutrace::stm {

const char* StmMessageKindName(StmMessageKind k) {
  switch (k) {
    case StmMessageKind::kData: return "data";
    case StmMessageKind::kFlag: return "flag";
    case StmMessageKind::kTrigger: return "trigger";
    case StmMessageKind::kFreq: return "freq";
    case StmMessageKind::kMasterError: return "master_error";
    case StmMessageKind::kGlobalError: return "global_error";
    case StmMessageKind::kNullTs: return "null_ts";
  }
  return "?";
}

size_t StmMessageDecoder::Flush(size_t n) {
  if (n == 0) return 0;
  messages_ += n;
  sink_->OnMessages(batch_, n);
  return 0;
}

// Packet: StpPacket or StpPacketRecord (the fields read here are in both).
// A message goes to batch_[*k]; *k is the caller's local count (stores into
// the batch would make a member reload per packet).
template <typename Packet>
void StmMessageDecoder::Decode(const Packet& p, size_t* k) {
  StmMessageKind kind = StmMessageKind::kData;
  if (p.type < StpType::kD4 || p.type > StpType::kD64) [[unlikely]] {
    switch (p.type) {
      case StpType::kNotSync:
      case StpType::kBadSequence:
      case StpType::kReserved:
        id_valid_ = false;
        *k = Flush(*k);
        sink_->OnSyncLost(p.offset);
        return;
      case StpType::kAsync:
      case StpType::kVersion:
        *k = Flush(*k);
        sink_->OnResync(p.offset, p.type);
        return;
      case StpType::kM8:
      case StpType::kM16: id_valid_ = true; return;
      case StpType::kGerr:
        id_valid_ = false;
        kind = StmMessageKind::kGlobalError;
        break;
      case StpType::kMerr: kind = StmMessageKind::kMasterError; break;
      case StpType::kFreq:
        kind = StmMessageKind::kFreq;
        ts_freq_hz_ = p.payload;
        break;
      case StpType::kTrig: kind = StmMessageKind::kTrigger; break;
      case StpType::kFlag: kind = StmMessageKind::kFlag; break;
      case StpType::kNull:
        if (!p.has_ts) return;
        kind = StmMessageKind::kNullTs;
        break;
      default: return;  // C8/C16, USER, TIME, XSYNC, INCOMPLETE_EOT
    }
  }
  // Written in place in the batch (every field).
  StmMessage& m = batch_[*k];
  m.offset = p.offset;
  m.kind = kind;
  m.id_valid = id_valid_;
  m.master = p.master;
  m.channel = p.channel;
  const bool sized = kind != StmMessageKind::kFlag && kind != StmMessageKind::kNullTs;
  m.data = sized ? p.payload : 0;
  m.size_bits = sized ? p.payload_bits : 0;
  m.marker = p.marker || kind == StmMessageKind::kFlag;
  m.has_ts = p.has_ts;
  m.timestamp = p.timestamp;
  if (++*k == kBatchMessages) *k = Flush(*k);
}

void StmMessageDecoder::OnPacket(const StpPacket& p) {
  size_t k = 0;
  Decode(p, &k);
  Flush(k);
}

void StmMessageDecoder::OnPackets(const StpPacketRecord* records, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) Decode(records[i], &k);
  Flush(k);
}

}  // namespace mabutrace::stm
