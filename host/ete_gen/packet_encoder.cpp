// SPDX-License-Identifier: MIT
// packet_encoder.cpp: see packet_encoder.h.
#include "packet_encoder.h"

namespace mabutrace::ete_gen {

void PacketEncoder::ASync() {
  out_->insert(out_->end(), 11, 0x00);
  out_->push_back(0x80);
}

void PacketEncoder::TraceInfo() {
  out_->push_back(0x01);
  out_->push_back(0x00);  // PLCTL: no INFO/KEY/SPEC/CYCT section
  last_ts_ = 0;
}

void PacketEncoder::TraceOn() { out_->push_back(0x04); }

void PacketEncoder::Timestamp(uint64_t value) {
  out_->push_back(0x02);
  const uint64_t cover = value | last_ts_;
  unsigned groups = 1;
  while (groups < 9 && (groups * 7 >= 64 ? 0 : cover >> (groups * 7)) != 0) ++groups;
  for (unsigned i = 0; i < groups && i < 8; ++i) {
    const uint8_t bits = static_cast<uint8_t>((value >> (7 * i)) & 0x7F);
    out_->push_back(static_cast<uint8_t>(bits | (i + 1 < groups ? 0x80 : 0)));
  }
  if (groups == 9) out_->push_back(static_cast<uint8_t>(value >> 56));
  last_ts_ = value;
}

void PacketEncoder::Atoms(const bool* taken, unsigned n) {
  if (n == 1) {
    out_->push_back(taken[0] ? 0xF7 : 0xF6);
  } else if (n == 2) {
    out_->push_back(static_cast<uint8_t>(0xD8 | (taken[0] ? 1 : 0) | (taken[1] ? 2 : 0)));
  } else {
    out_->push_back(static_cast<uint8_t>(0xF8 | (taken[0] ? 1 : 0) | (taken[1] ? 2 : 0) | (taken[2] ? 4 : 0)));
  }
}

void PacketEncoder::AddressBytes(uint64_t a) {
  out_->push_back(static_cast<uint8_t>((a >> 2) & 0x7F));  // (0)A[8:2]
  out_->push_back(static_cast<uint8_t>((a >> 9) & 0x7F));  // (0)A[15:9]
  for (unsigned shift = 16; shift < 64; shift += 8) out_->push_back(static_cast<uint8_t>(a >> shift));
}

void PacketEncoder::LongAddress(uint64_t address) {
  out_->push_back(0x9D);
  AddressBytes(address);
}

void PacketEncoder::AddressWithContext(uint64_t address, uint8_t el) {
  out_->push_back(0x85);
  AddressBytes(address);
  out_->push_back(static_cast<uint8_t>((el & 3) | 0x10 /* SF */ | 0x20 /* NS */));
}

void PacketEncoder::Exception(uint8_t type, uint64_t preferred_return) {
  out_->push_back(0x06);
  out_->push_back(static_cast<uint8_t>(((type & 0x1F) << 1) | 1));  // E[1:0] = 01, bit7 = 0
  LongAddress(preferred_return);
}

}  // namespace mabutrace::ete_gen
