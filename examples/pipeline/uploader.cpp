// SPDX-License-Identifier: MIT
// uploader.cpp: ships batches over a simulated uplink. The link drops now
// and then (uplink_down) and comes back a while later (uplink_up); batches
// sent while it is down wait in a backlog that goes out on reconnect, so the
// "send" slices after an uplink_up are visibly longer.
#include <stdint.h>

#include "mabutrace/mabutrace.h"
#include "pipeline.h"
#include "prng.h"
#include "thread_util.h"

namespace {

constexpr int64_t kSendNsPerBatch = 300000;  // 0.3 ms on the wire
constexpr uint32_t kMaxBacklog = 64;

class Uplink {
 public:
  // Moves the link state machine one batch forward.
  void Step() {
    if (up_) {
      if (prng_.Next() % 150 == 0) {  // ~ one outage per 1.5 s of batches
        up_ = false;
        outage_left_ = uint32_t(prng_.Between(20, 60));
        TRACE_INSTANT("uplink_down", COLOR_DARK_RED);
      }
    } else if (--outage_left_ == 0) {
      up_ = true;
      TRACE_INSTANT("uplink_up", COLOR_GREEN);
    }
  }

  // Sends one encoded batch, or keeps it for later while the link is down.
  void Send() {
    if (!up_) {
      if (backlog_ < kMaxBacklog) ++backlog_;
      return;
    }
    SleepNs(kSendNsPerBatch * int64_t(1 + backlog_));
    backlog_ = 0;
  }

 private:
  Prng prng_{0x0F1A7E57u};
  bool up_ = true;
  uint32_t outage_left_ = 0;
  uint32_t backlog_ = 0;
};

// A CRC-32 of the batch: stands in for the real encoding work.
uint32_t Encode(const Batch& b) {
  uint32_t crc = 0xFFFFFFFFu;
  for (int32_t v : b.millivolts) {
    for (int i = 0; i < 32; i += 8) {
      crc ^= uint32_t(v >> i) & 0xFF;
      for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
    }
  }
  return ~crc;
}

void upload(Uplink& link, const Batch& b) {
  TRACE_SCOPE("upload", COLOR_BLUE);
  TRACE_FLOW_IN(b.link);
  link.Step();
  volatile uint32_t crc;  // keep the encoding from being optimised away
  {
    TRACE_SCOPE("encode", COLOR_PURPLE);
    crc = Encode(b);
  }
  (void)crc;
  {
    TRACE_SCOPE("send", COLOR_DARK_BLUE);
    link.Send();
  }
}

}  // namespace

void RunUploader(Pipeline& p) {
  NameThisThread("uploader");
  Uplink link;
  while (const std::optional<Batch> b = p.batches.pop()) {
    upload(link, *b);
    p.uploaded.fetch_add(1, std::memory_order_relaxed);
  }
}
