// SPDX-License-Identifier: MIT
// itm_element.cpp: see itm_element.h.
#include "itm/itm_element.h"

#include <cinttypes>

#include "ete/text_out.h"

namespace mabutrace::itm {

using ete::Appendf;
using ete::JsonObject;

namespace {
constexpr uint64_t kGtsLowMask[] = {0x7F, 0x3FFF, 0x1FFFFF, 0x3FFFFFF};  // GTS1 by payload size
constexpr uint64_t kGtsHighMask = ~kGtsLowMask[3];

const char* ReasonName(UnsyncReason r) {
  switch (r) {
    case UnsyncReason::kInitDecoder: return "init-decoder";
    case UnsyncReason::kBadPacket: return "bad-packet";
    case UnsyncReason::kEndOfTrace: return "end-of-trace";
  }
  return "undefined";
}

const char* LocalTsName(ItmKind k) {
  switch (k) {
    case ItmKind::kTsSync: return "TS Sync";
    case ItmKind::kTsDelay: return "TS Delay";
    case ItmKind::kTsPktDelay: return "Packet Delay";
    case ItmKind::kTsPktTsDelay: return "TS and Packet Delay";
    default: return "";
  }
}
}  // namespace

ElementDecoder::ElementDecoder(const DecoderOptions& options, ElementSink* sink)
    : options_(options),
      sink_(sink),
      state_(options.need_async ? State::kNoSync : State::kDecode),
      trace_id_(options.trace_id) {}

void ElementDecoder::ResetState() {
  state_ = State::kNoSync;
  local_ts_ = 0;
  global_ts_ = 0;
  stim_page_ = 0;
  need_gts2_ = true;
  overflow_ = false;
  freq_change_ = false;
}

void ElementDecoder::Output(ItmElement& e) {
  e.type = ElemType::kItmTrace;
  e.trace_id = trace_id_;
  e.overflow = overflow_;
  overflow_ = false;
  sink_->OnElement(e);
}

void ElementDecoder::OnPacket(const ItmPacket& p) {
  if (!p.decoded) return;
  last_index_ = p.index;
  trace_id_ = p.trace_id;
  if (state_ == State::kNoSync) {
    ItmElement ns;
    ns.type = ElemType::kNoSync;
    ns.index = p.index;
    ns.trace_id = p.trace_id;
    ns.reason = reason_;
    sink_->OnElement(ns);
    state_ = State::kWaitSync;
  }
  if (state_ == State::kWaitSync) {
    if (p.type == PacketType::kAsync) state_ = State::kDecode;
    return;
  }
  ItmElement e;
  e.index = p.index;
  switch (p.type) {
    case PacketType::kReserved:
    case PacketType::kBadSequence:
      reason_ = UnsyncReason::kBadPacket;
      if (options_.need_async) ResetState();  // raw SWO: no A-Sync may ever come, carry on
      return;
    case PacketType::kNotSync:
      if (options_.need_async) ResetState();
      return;
    case PacketType::kAsync:
    case PacketType::kIncompleteEot: return;
    case PacketType::kDwt:
      e.kind = ItmKind::kDwt;
      e.size = p.size;
      e.value = static_cast<uint32_t>(p.value);
      e.src_id = p.src_id;
      Output(e);
      return;
    case PacketType::kSwit:
      e.kind = ItmKind::kSwit;
      e.size = p.size;
      e.value = static_cast<uint32_t>(p.value);
      e.src_id = static_cast<uint16_t>((p.src_id & 0x1F) | (stim_page_ << 5));
      Output(e);
      return;
    case PacketType::kExtension:
      if (!(p.src_id & 0x80) && (p.src_id & 0x1F) == 2) stim_page_ = static_cast<uint8_t>(p.value);
      return;
    case PacketType::kOverflow:
      local_ts_ = 0;
      overflow_ = true;
      return;
    case PacketType::kGts1:
      need_gts2_ = need_gts2_ || (p.src_id & 0x2);
      freq_change_ = freq_change_ || (p.src_id & 0x1);
      global_ts_ = (global_ts_ & ~kGtsLowMask[p.size - 1]) | p.value;
      if (need_gts2_) return;
      e.kind = ItmKind::kTsGlobal;
      e.timestamp = global_ts_;
      e.freq_change = freq_change_;
      freq_change_ = false;
      Output(e);
      return;
    case PacketType::kGts2:
      global_ts_ = (global_ts_ & ~kGtsHighMask) | (p.value << 26);
      e.kind = ItmKind::kTsGlobal;
      e.timestamp = global_ts_;
      e.freq_change = freq_change_;
      freq_change_ = false;
      need_gts2_ = false;
      Output(e);
      return;
    case PacketType::kTsLocal:
      e.kind = static_cast<ItmKind>(static_cast<int>(ItmKind::kTsSync) + (p.src_id & 0x3));
      e.size = p.size;
      e.value = static_cast<uint32_t>(p.value);
      local_ts_ += p.value * options_.ts_prescale;
      e.timestamp = local_ts_;
      Output(e);
      return;
  }
}

void ElementDecoder::Finish() {
  ItmElement e;
  e.type = ElemType::kEoTrace;
  e.index = last_index_;
  e.trace_id = trace_id_;
  e.reason = UnsyncReason::kEndOfTrace;
  sink_->OnElement(e);
}

void FormatElement(const ItmElement& e, std::string* out) {
  switch (e.type) {
    case ElemType::kNoSync: Appendf(out, "OCSD_GEN_TRC_ELEM_NO_SYNC( [%s])", ReasonName(e.reason)); return;
    case ElemType::kEoTrace: Appendf(out, "OCSD_GEN_TRC_ELEM_EO_TRACE( [%s])", ReasonName(e.reason)); return;
    case ElemType::kItmTrace: break;
  }
  out->append("OCSD_GEN_TRC_ELEM_ITMTRACE(");
  if (e.overflow) out->append("ITM_OVERFLOW; ");
  const int width = e.size * 2;
  switch (e.kind) {
    case ItmKind::kSwit: Appendf(out, "ITM_SWIT (ch: 0x%x; Data: 0x%0*x) ", e.src_id, width, e.value); break;
    case ItmKind::kDwt: Appendf(out, "ITM_DWT (desc: 0x%x; Data: 0x%0*x) ", e.src_id, width, e.value); break;
    case ItmKind::kTsGlobal: Appendf(out, "ITM_TS_GLOBAL ( TS: 0x%016" PRIx64 ") ", e.timestamp); break;
    default:
      Appendf(out, "ITM_TS_LOCAL ( TS delta: 0x%08x, { %s}; TS cumulative: 0x%016" PRIx64 ") ", e.value,
              LocalTsName(e.kind), e.timestamp);
      break;
  }
  out->push_back(')');
}

void FormatElementLine(const ItmElement& e, std::string* out) {
  Appendf(out, "Idx:%" PRIu64 "; ID:%x; ", e.index, e.trace_id);
  FormatElement(e, out);
}

void FormatElementJson(const ItmElement& e, std::string_view source, std::string* out) {
  JsonObject o(out);
  o.String("source", source).Unsigned("trace_id", e.trace_id).Unsigned("offset", e.index);
  switch (e.type) {
    case ElemType::kNoSync:
      o.String("elem", "NO_SYNC").String("reason", ReasonName(e.reason));
      o.End();
      return;
    case ElemType::kEoTrace:
      o.String("elem", "EO_TRACE").String("reason", ReasonName(e.reason));
      o.End();
      return;
    case ElemType::kItmTrace: break;
  }
  o.String("elem", "ITMTRACE");
  switch (e.kind) {
    case ItmKind::kSwit:
      o.String("itm", "swit").Unsigned("channel", e.src_id).Unsigned("size", e.size).Hex("value", e.value);
      break;
    case ItmKind::kDwt:
      o.String("itm", "dwt").Unsigned("discriminator", e.src_id).Unsigned("size", e.size).Hex("value", e.value);
      break;
    case ItmKind::kTsGlobal:
      o.String("itm", "ts_global").Hex("timestamp", e.timestamp).Bool("freq_change", e.freq_change);
      break;
    default:
      o.String("itm", "ts_local")
          .String("tc", LocalTsName(e.kind))
          .Unsigned("delta", e.value)
          .Unsigned("timestamp", e.timestamp);
      break;
  }
  o.Bool("overflow", e.overflow);
  o.End();
}

}  // namespace mabutrace::itm
