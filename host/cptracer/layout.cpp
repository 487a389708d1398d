// SPDX-License-Identifier: MIT
// layout.cpp: see layout.h.
#include "layout.h"

#include <ini.h>
#include <cerrno>

#include <cstdlib>
#include <cstring>

namespace mabutrace::cptracer {
namespace {

constexpr const char* kFieldNames[] = {"sid", "group",   "access_status", "mid",         "xid",  "overflow",
                                       "rw",  "address", "throughput0",   "throughput1", "wait", "grants"};
static_assert(sizeof kFieldNames / sizeof *kFieldNames == static_cast<size_t>(Field::kCount));

FieldSpec F(uint8_t word, uint8_t lsb, uint8_t width) { return FieldSpec{true, word, lsb, width}; }

// Seed 002 §2.3 widths, packed from bit 31 down (U).
constexpr uint8_t kTypeLsb = 29, kTypeWidth = 3;
constexpr uint8_t kSidLsb = 24, kSidWidth = 5;
constexpr uint8_t kGroupLsb = 23, kAccessWidth = 23;
constexpr uint8_t kMidLsb = 16, kMidWidth = 8;
constexpr uint8_t kXidLsb = 12, kXidWidth = 4;
constexpr uint8_t kOverflowLsb = 11, kRwLsb = 10, kAddressWidth = 10;
constexpr uint8_t kStatisticsWords = 4;

MessageSpec Event(MsgType t, int type_value) {
  MessageSpec m;
  m.type = t;
  m.type_value = type_value;
  m.f(Field::kSid) = F(0, kSidLsb, kSidWidth);
  m.f(Field::kMid) = F(0, kMidLsb, kMidWidth);
  m.f(Field::kXid) = F(0, kXidLsb, kXidWidth);
  m.f(Field::kOverflow) = F(0, kOverflowLsb, 1);
  m.f(Field::kRw) = F(0, kRwLsb, 1);
  m.f(Field::kAddress) = F(0, 0, kAddressWidth);
  return m;
}

struct LoadCtx {
  Layout* layout;
  std::string error;
};

bool ParseSpec(const char* v, FieldSpec* out) {
  char* end;
  long w = std::strtol(v, &end, 0);
  if (*end != ':') return false;
  long lsb = std::strtol(end + 1, &end, 0);
  if (*end != ':') return false;
  long width = std::strtol(end + 1, &end, 0);
  if (*end != '\0' || w < 0 || w > 15 || lsb < 0 || width < 1 || lsb + width > 32) return false;
  *out = F(static_cast<uint8_t>(w), static_cast<uint8_t>(lsb), static_cast<uint8_t>(width));
  return true;
}

int Handler(void* user, const char* section, const char* name, const char* value) {
  auto* ctx = static_cast<LoadCtx*>(user);
  auto fail = [&](const char* why) {
    ctx->error = std::string("[") + section + "] " + name + " = " + value + ": " + why;
    return 0;
  };
  if (!std::strcmp(section, "stm")) {
    if (std::strcmp(name, "hw_master")) return fail("unknown key");
    ctx->layout->hw_master = static_cast<uint16_t>(std::strtoul(value, nullptr, 0));
    return 1;
  }
  if (!std::strcmp(section, "type")) {
    if (std::strcmp(name, "type")) return fail("unknown key (use type = WORD:LSB:WIDTH)");
    return ParseSpec(value, &ctx->layout->type_field) ? 1 : fail("expected WORD:LSB:WIDTH");
  }
  MessageSpec* m = nullptr;
  for (auto& ms : ctx->layout->messages)
    if (!std::strcmp(MsgTypeName(ms.type), section)) m = &ms;
  if (!m) return fail("unknown section");
  if (!std::strcmp(name, "words")) {
    long n = std::strtol(value, nullptr, 0);
    if (n < 1 || n > 16) return fail("words must be 1..16");
    m->words = static_cast<uint8_t>(n);
    return 1;
  }
  if (!std::strcmp(name, "type")) {
    m->type_value = static_cast<int>(std::strtol(value, nullptr, 0));
    return 1;
  }
  for (int i = 0; i < static_cast<int>(Field::kCount); ++i) {
    if (std::strcmp(name, kFieldNames[i])) continue;
    if (!std::strcmp(value, "none")) {
      m->fields[i] = FieldSpec{};
      return 1;
    }
    return ParseSpec(value, &m->fields[i]) ? 1 : fail("expected WORD:LSB:WIDTH or none");
  }
  return fail("unknown field");
}

}  // namespace

const char* MsgTypeName(MsgType t) {
  switch (t) {
    case MsgType::kStatus: return "status";
    case MsgType::kEventB: return "event_b";
    case MsgType::kEventC: return "event_c";
    case MsgType::kEventE: return "event_e";
    case MsgType::kStatistics: return "statistics";
    case MsgType::kUnknown: break;
  }
  return "unknown";
}

const char* FieldName(Field f) { return kFieldNames[static_cast<int>(f)]; }

uint32_t FieldSpec::Extract(const uint32_t* words, size_t n) const {
  if (!present || word >= n) return 0;
  const uint64_t mask = (1ull << width) - 1;
  return static_cast<uint32_t>((words[word] >> lsb) & mask);
}

uint32_t FieldSpec::Insert(uint32_t word_value, uint32_t v) const {
  if (!present) return word_value;
  const uint64_t mask = ((1ull << width) - 1) << lsb;
  return static_cast<uint32_t>((word_value & ~mask) | ((static_cast<uint64_t>(v) << lsb) & mask));
}

const MessageSpec* Layout::Find(MsgType t) const {
  for (const auto& m : messages)
    if (m.type == t) return &m;
  return nullptr;
}

Layout DefaultLayout() {
  Layout l;
  l.type_field = F(0, kTypeLsb, kTypeWidth);
  MessageSpec status;
  status.type = MsgType::kStatus;
  status.type_value = 0;
  status.f(Field::kSid) = F(0, kSidLsb, kSidWidth);
  status.f(Field::kGroup) = F(0, kGroupLsb, 1);
  status.f(Field::kAccessStatus) = F(0, 0, kAccessWidth);
  l.messages.push_back(status);
  l.messages.push_back(Event(MsgType::kEventB, 1));
  l.messages.push_back(Event(MsgType::kEventC, 2));
  l.messages.push_back(Event(MsgType::kEventE, 3));
  MessageSpec stats;
  stats.type = MsgType::kStatistics;
  stats.words = kStatisticsWords;
  stats.f(Field::kThroughput0) = F(0, 0, 32);
  stats.f(Field::kThroughput1) = F(1, 0, 32);
  stats.f(Field::kWait) = F(2, 0, 32);
  stats.f(Field::kGrants) = F(3, 0, 32);
  l.messages.push_back(stats);
  return l;
}

bool LoadLayout(const std::string& path, Layout* out, std::string* error) {
  *out = DefaultLayout();
  LoadCtx ctx{out, {}};
  int rc = ini_parse(path.c_str(), Handler, &ctx);
  if (rc == -1) {
    *error = path + ": cannot open: " + std::strerror(errno);  // ini_parse keeps fopen's errno
    return false;
  }
  if (rc != 0) {
    *error = path + ":" + std::to_string(rc) + ": " + (ctx.error.empty() ? "syntax error" : ctx.error);
    return false;
  }
  return true;
}

}  // namespace mabutrace::cptracer
