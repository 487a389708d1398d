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

void StmMessageDecoder::OnPacket(const StpPacket& p) { Decode(p); }

void StmMessageDecoder::OnPackets(const StpPacketRecord* records, size_t n) {
  for (size_t i = 0; i < n; ++i) Decode(records[i]);
}

// Packet: StpPacket or StpPacketRecord (the fields read here are in both).
template <typename Packet>
void StmMessageDecoder::Decode(const Packet& p) {
  StmMessage m;
  m.offset = p.offset;
  switch (p.type) {
    case StpType::kNotSync:
    case StpType::kBadSequence:
    case StpType::kReserved:
      id_valid_ = false;
      sink_->OnSyncLost(p.offset);
      return;
    case StpType::kAsync:
    case StpType::kVersion: sink_->OnResync(p.offset, p.type); return;
    case StpType::kM8:
    case StpType::kM16: id_valid_ = true; return;
    case StpType::kGerr:
      id_valid_ = false;
      m.kind = StmMessageKind::kGlobalError;
      break;
    case StpType::kMerr: m.kind = StmMessageKind::kMasterError; break;
    case StpType::kFreq:
      m.kind = StmMessageKind::kFreq;
      ts_freq_hz_ = p.payload;
      break;
    case StpType::kTrig: m.kind = StmMessageKind::kTrigger; break;
    case StpType::kFlag: m.kind = StmMessageKind::kFlag; break;
    case StpType::kNull:
      if (!p.has_ts) return;
      m.kind = StmMessageKind::kNullTs;
      break;
    case StpType::kD4:
    case StpType::kD8:
    case StpType::kD16:
    case StpType::kD32:
    case StpType::kD64: m.kind = StmMessageKind::kData; break;
    default: return;  // C8/C16, USER, TIME, XSYNC, INCOMPLETE_EOT
  }
  m.id_valid = id_valid_;
  m.master = p.master;
  m.channel = p.channel;
  if (m.kind != StmMessageKind::kFlag && m.kind != StmMessageKind::kNullTs) {
    m.data = p.payload;
    m.size_bits = p.payload_bits;
  }
  m.marker = p.marker || m.kind == StmMessageKind::kFlag;
  m.has_ts = p.has_ts;
  m.timestamp = p.timestamp;
  ++messages_;
  sink_->OnMessage(m);
}

}  // namespace mabutrace::stm
