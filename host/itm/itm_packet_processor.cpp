// SPDX-License-Identifier: MIT
// itm_packet_processor.cpp: see itm_packet_processor.h.
#include "itm/itm_packet_processor.h"

#include <cinttypes>
#include <cstdio>

namespace mabutrace::itm {

namespace {
// Payload limits (header included) of the continuation-coded packets.
constexpr size_t kLocalTsMax = 5;
constexpr size_t kGts1Max = 5;
constexpr size_t kGts2Max = 7;
constexpr size_t kExtensionMax = 5;
constexpr size_t kAsyncZeros = 5;  // 0x00 bytes before the 0x80 may come
constexpr size_t kUnsyncedRun = 8;

std::string At(uint64_t offset, const char* what) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "byte %" PRIu64 ": %s", offset, what);
  return buf;
}
}  // namespace

const char* PacketTypeName(PacketType t) {
  switch (t) {
    case PacketType::kNotSync: return "ITM_NOTSYNC";
    case PacketType::kIncompleteEot: return "ITM_INCOMPLETE_EOT";
    case PacketType::kAsync: return "ITM_ASYNC";
    case PacketType::kOverflow: return "ITM_OVERFLOW";
    case PacketType::kSwit: return "ITM_SWIT";
    case PacketType::kDwt: return "ITM_DWT";
    case PacketType::kTsLocal: return "ITM_TS_LOCAL";
    case PacketType::kGts1: return "ITM_GTS_1";
    case PacketType::kGts2: return "ITM_GTS_2";
    case PacketType::kExtension: return "ITM_EXTENSION";
    case PacketType::kBadSequence: return "ITM_BAD_SEQUENCE";
    case PacketType::kReserved: return "ITM_RESERVED";
  }
  return "ITM_UNKNOWN";
}

const char* PacketTypeDescription(PacketType t) {
  switch (t) {
    case PacketType::kNotSync: return "ITM data stream not synchronised";
    case PacketType::kIncompleteEot: return "Incomplete packet flushed at end of trace";
    case PacketType::kAsync: return "Alignment synchronisation packet";
    case PacketType::kOverflow: return "ITM overflow packet";
    case PacketType::kSwit: return "Software Stimulus write packet";
    case PacketType::kDwt: return "DWT hardware stimulus write";
    case PacketType::kTsLocal: return "Local Timestamp";
    case PacketType::kGts1: return "Global Timestamp [25:0]";
    case PacketType::kGts2: return "Global Timestamp [{63|42}:26]";
    case PacketType::kExtension: return "Extension packet";
    case PacketType::kBadSequence: return "Invalid sequence in packet";
    case PacketType::kReserved: return "Reserved Packet Header";
  }
  return "ERROR: unknown packet type";
}

PacketProcessor::PacketProcessor(const ProcessorOptions& options, PacketSink* sink)
    : options_(options), sink_(sink), state_(options.wait_for_async ? State::kWaitSync : State::kHeader) {
  buf_.reserve(64);
}

void PacketProcessor::Reset() {
  state_ = options_.wait_for_async ? State::kWaitSync : State::kHeader;
  buf_.clear();
  sync_start_ = false;
  dump_ = 0;
  sent_notsync_ = false;
}

void PacketProcessor::Emit(PacketType type) {
  pkt_.type = type;
  pkt_.trace_id = options_.trace_id;
  pkt_.index = index_;
  pkt_.raw = buf_.data();
  pkt_.raw_size = buf_.size();
  pkt_.decoded = true;
  ++stats_.packets;
  sink_->OnPacket(pkt_);
  buf_.clear();
  pkt_ = ItmPacket{};
  state_ = State::kHeader;
}

void PacketProcessor::BadSequence(const char* why) {
  pkt_.err_type = kind_;
  ++stats_.errors;
  sink_->OnError(index_, At(index_, why));
  Emit(PacketType::kBadSequence);
}

uint64_t PacketProcessor::ContValue(size_t first, size_t last) const {
  uint64_t v = 0;
  for (size_t i = first, shift = 0; i <= last; ++i, shift += 7) v |= static_cast<uint64_t>(buf_[i] & 0x7F) << shift;
  return v;
}

void PacketProcessor::FlushUnsynced() {
  if (dump_ > 0 || !sent_notsync_) {
    pkt_ = ItmPacket{};
    pkt_.type = PacketType::kNotSync;
    pkt_.trace_id = options_.trace_id;
    pkt_.index = index_;
    pkt_.raw = buf_.data();
    pkt_.raw_size = dump_ < buf_.size() ? dump_ : buf_.size();
    pkt_.decoded = !sent_notsync_;
    stats_.unsynced_bytes += pkt_.raw_size;
    ++stats_.packets;
    sink_->OnPacket(pkt_);
    pkt_ = ItmPacket{};
    sent_notsync_ = true;
  }
  buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(dump_ < buf_.size() ? dump_ : buf_.size()));
  dump_ = 0;
}

void PacketProcessor::HuntByte(uint8_t b, uint64_t at) {
  buf_.push_back(b);
  if (sync_start_) {
    // buf_ = [0x00 ... b]: the possible A-Sync (after dump_ leftover bytes, none here).
    const size_t pos = buf_.size();
    const bool zero_part = pos <= kAsyncZeros;
    if (!zero_part && b == 0x80) {
      sync_start_ = false;
      Emit(PacketType::kAsync);
      return;
    }
    if (b != 0x00) {  // not an A-Sync: its bytes are unsynchronised too
      sync_start_ = false;
      dump_ = buf_.size();
    }
    return;
  }
  if (b == 0x00) {
    sync_start_ = true;
    buf_.pop_back();
    FlushUnsynced();
    buf_.push_back(b);
    index_ = at;
    return;
  }
  if (++dump_ >= kUnsyncedRun) FlushUnsynced();
}

void PacketProcessor::Header(uint8_t b) {
  if (b & 0x03) {
    kind_ = (b & 0x04) ? PacketType::kDwt : PacketType::kSwit;
    pkt_.src_id = static_cast<uint8_t>(b >> 3);
    need_ = (b & 0x03) == 3 ? 4 : (b & 0x03);
    state_ = State::kData;
  } else if ((b & 0x0F) == 0x00) {
    if (b == 0x00) {
      kind_ = PacketType::kAsync;
      state_ = State::kData;
    } else if (b == 0x70) {
      Emit(PacketType::kOverflow);
    } else if (b & 0x80) {
      kind_ = PacketType::kTsLocal;
      pkt_.src_id = (b >> 4) & 0x3;
      state_ = State::kData;
    } else {  // local timestamp form 2: the delta in the header, TC = 0
      pkt_.src_id = 0;
      pkt_.value = (b >> 4) & 0x7;
      pkt_.size = 1;
      Emit(PacketType::kTsLocal);
    }
  } else if ((b & 0x0B) == 0x08) {
    kind_ = PacketType::kExtension;
    if (b & 0x80) {
      state_ = State::kData;
    } else {
      pkt_.src_id = static_cast<uint8_t>(2 | ((b & 0x04) ? 0x80 : 0));
      pkt_.value = (b >> 4) & 0x7;
      pkt_.size = 4;
      Emit(PacketType::kExtension);
    }
  } else if ((b & 0xDF) == 0x94) {
    kind_ = (b & 0x20) ? PacketType::kGts2 : PacketType::kGts1;
    state_ = State::kData;
  } else {
    char why[64];
    std::snprintf(why, sizeof why, "reserved ITM header 0x%02x", b);
    ++stats_.errors;
    sink_->OnError(index_, At(index_, why));
    Emit(PacketType::kReserved);
  }
}

void PacketProcessor::DataByte(uint8_t b) {
  const size_t n = buf_.size();  // b included
  switch (kind_) {
    case PacketType::kSwit:
    case PacketType::kDwt:
      if (n == 1 + need_) {
        uint64_t v = 0;
        for (size_t i = 0; i < need_; ++i) v |= static_cast<uint64_t>(buf_[1 + i]) << (8 * i);
        pkt_.value = v;
        pkt_.size = static_cast<uint8_t>(need_);
        Emit(kind_);
      }
      return;
    case PacketType::kAsync:
      if (n <= kAsyncZeros) {
        if (b != 0x00) BadSequence("A-Sync broken by a non-zero byte in its first 5");
      } else if (b == 0x80) {
        Emit(PacketType::kAsync);
      } else if (b != 0x00) {
        BadSequence("A-Sync broken by a byte other than 0x00 / 0x80");
      }
      return;
    case PacketType::kTsLocal:
      if (!(b & 0x80)) {
        pkt_.value = ContValue(1, n - 1);
        pkt_.size = static_cast<uint8_t>(n - 1);
        Emit(kind_);
      } else if (n == kLocalTsMax) {
        BadSequence("local timestamp: payload continues past 4 bytes");
      }
      return;
    case PacketType::kGts1:
      if (!(b & 0x80)) {
        if (n == kGts1Max) {  // 4th payload byte: bit5 ClkCh, bit6 Wrap
          pkt_.src_id = (buf_[4] >> 5) & 0x3;
          buf_[4] &= 0x1F;  // as OpenCSD, whose listing then shows the byte without them
        }
        pkt_.value = ContValue(1, n - 1);
        pkt_.size = static_cast<uint8_t>(n - 1);
        Emit(kind_);
      } else if (n == kGts1Max) {
        BadSequence("GTS1: payload continues past 4 bytes");
      }
      return;
    case PacketType::kGts2:
      if (!(b & 0x80)) {
        const uint64_t v = ContValue(1, n - 1);
        if (n <= 5) {
          pkt_.value = v & 0xFFFFFFFFu;
          pkt_.size = static_cast<uint8_t>(n - 1);
        } else {  // OpenCSD keeps 40 bits (value + an 8-bit extension)
          pkt_.value = v & 0xFFFFFFFFFFull;
          pkt_.size = 5;
        }
        Emit(kind_);
      } else if (n == kGts2Max) {
        BadSequence("GTS2: payload continues past 6 bytes");
      }
      return;
    case PacketType::kExtension:
      if (!(b & 0x80)) {
        static constexpr uint8_t kTopBit[] = {2, 9, 16, 23, 31};
        pkt_.src_id = static_cast<uint8_t>(kTopBit[n - 1] | ((buf_[0] & 0x04) ? 0x80 : 0));
        pkt_.value = ((ContValue(1, n - 1) << 3) | ((buf_[0] >> 4) & 0x7)) & 0xFFFFFFFFu;
        pkt_.size = 4;
        Emit(kind_);
      } else if (n == kExtensionMax) {
        BadSequence("extension: payload continues past 4 bytes");
      }
      return;
    default: return;
  }
}

void PacketProcessor::Push(uint64_t block_index, const uint8_t* data, size_t n) {
  if (state_ == State::kWaitSync && !sync_start_) index_ = block_index;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = data[i];
    switch (state_) {
      case State::kWaitSync: HuntByte(b, block_index + i); break;
      case State::kHeader:
        // Fast path: a SWIT / DWT packet whole in this block is delivered
        // straight from the input (the most common packets by far).
        if ((b & 0x03) && i + ((b & 0x03) == 3 ? 4 : (b & 0x03)) < n) {
          const size_t need = (b & 0x03) == 3 ? 4 : (b & 0x03);
          ItmPacket q;
          q.type = (b & 0x04) ? PacketType::kDwt : PacketType::kSwit;
          q.trace_id = options_.trace_id;
          q.src_id = static_cast<uint8_t>(b >> 3);
          q.size = static_cast<uint8_t>(need);
          uint64_t v = 0;
          for (size_t k = 0; k < need; ++k) v |= static_cast<uint64_t>(data[i + 1 + k]) << (8 * k);
          q.value = v;
          q.index = block_index + i;
          q.raw = data + i;
          q.raw_size = need + 1;
          ++stats_.packets;
          sink_->OnPacket(q);
          i += need;
          break;
        }
        index_ = block_index + i;
        buf_.clear();
        buf_.push_back(b);
        Header(b);
        break;
      case State::kData:
        buf_.push_back(b);
        DataByte(b);
        break;
    }
  }
  if (state_ == State::kWaitSync && !sync_start_) FlushUnsynced();
}

void PacketProcessor::Finish() {
  if (state_ != State::kData) return;
  char why[96];
  std::snprintf(why, sizeof why, "%s packet cut by the end of the trace after %zu byte%s", PacketTypeName(kind_),
                buf_.size(), buf_.size() == 1 ? "" : "s");
  ++stats_.errors;
  sink_->OnError(index_, At(index_, why));
  pkt_.err_type = kind_;
  Emit(PacketType::kIncompleteEot);
}

namespace {
// Counts packets from `at` and whether any was reserved or broken.
class Probe final : public PacketSink {
 public:
  void OnPacket(const ItmPacket& p) override {
    ++packets;
    if (p.type == PacketType::kReserved || p.type == PacketType::kBadSequence) bad = true;
  }
  void OnError(uint64_t, const std::string&) override {}
  uint64_t packets = 0;
  bool bad = false;
};
}  // namespace

size_t FindSwoStart(const uint8_t* data, size_t n, bool* found) {
  constexpr size_t kMaxSkip = 64;
  constexpr uint64_t kPlausible = 8;
  if (found) *found = true;
  for (size_t k = 0; k < n && k < kMaxSkip; ++k) {
    Probe probe;
    ProcessorOptions o;
    o.wait_for_async = false;
    PacketProcessor pp(o, &probe);
    for (size_t i = k; i < n && probe.packets < kPlausible && !probe.bad; ++i) pp.Push(i, data + i, 1);
    if (!probe.bad) return k;
  }
  if (found) *found = n == 0;
  return 0;
}

}  // namespace mabutrace::itm
