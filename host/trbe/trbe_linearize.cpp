// SPDX-License-Identifier: MIT
// trbe_linearize.cpp: buffer dump -> oldest-to-newest stream (sheet §2).
#include "trbe_linearize.h"

#include <algorithm>
#include <cstdio>

namespace mabutrace::trbe {
namespace {

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string_view HeadPolicyName(HeadPolicy h) {
  static constexpr std::string_view kNames[] = {"keep", "pad", "drop"};  // in HeadPolicy order
  return kNames[static_cast<size_t>(h)];
}

std::optional<HeadPolicy> ParseHeadPolicy(std::string_view s) {
  for (HeadPolicy h : {HeadPolicy::kKeep, HeadPolicy::kPad, HeadPolicy::kDrop})
    if (s == HeadPolicyName(h)) return h;
  return std::nullopt;
}

std::optional<size_t> FindAsync(std::span<const uint8_t> bytes, size_t from) {
  size_t zeros = 0;
  for (size_t i = from; i < bytes.size(); ++i) {
    if (bytes[i] == 0x00) {
      ++zeros;
    } else {
      if (bytes[i] == 0x80 && zeros >= 11) return i - 11;
      zeros = 0;
    }
  }
  return std::nullopt;
}

bool Linearize(std::span<const uint8_t> dump, const LinearizeOptions& o, LinearizeResult* out, std::string* error) {
  *out = {};
  const uint64_t limit = o.limit.value_or(o.base + dump.size());
  if (limit <= o.base) {
    *error = "limit " + Hex(limit) + " is not above base " + Hex(o.base);
    return false;
  }
  const uint64_t size = limit - o.base;
  if (dump.size() != size) {
    *error =
        "dump holds " + std::to_string(dump.size()) + " bytes but [base, limit) is " + std::to_string(size) + " bytes";
    return false;
  }
  if (o.ptr < o.base || o.ptr > limit) {
    *error = "ptr " + Hex(o.ptr) + " outside [base " + Hex(o.base) + ", limit " + Hex(limit) + "]";
    return false;
  }
  const uint64_t start = o.start.value_or(o.base);
  if (start < o.base || start >= limit) {
    *error = "start " + Hex(start) + " outside [base " + Hex(o.base) + ", limit " + Hex(limit) + ")";
    return false;
  }
  auto take = [&](uint64_t b, uint64_t e) {
    if (b >= e) return;
    out->segments.push_back({b, e});
    out->bytes.insert(out->bytes.end(), dump.begin() + static_cast<ptrdiff_t>(b - o.base),
                      dump.begin() + static_cast<ptrdiff_t>(e - o.base));
  };
  const uint64_t ptr = o.ptr == limit ? o.base : o.ptr;
  if (!o.wrapped) {
    if (o.ptr < start) {
      *error = "ptr " + Hex(o.ptr) + " is below start " + Hex(start) + " but the buffer did not wrap";
      return false;
    }
    take(start, o.ptr);
  } else if (o.fill_mode == FillMode::kFill) {
    // Fill mode stops at the wrap: PTR == Base, data is [start, Limit)
    // (Linux uses LIMIT as the end, sheet §1.12).
    take(start, limit);
  } else {
    take(ptr, limit);
    take(o.base, ptr);
    out->overwritten = true;
  }
  if (out->overwritten) {
    const auto async = FindAsync(out->bytes);
    out->async_found = async.has_value();
    out->head_bytes = async.value_or(out->bytes.size());
    switch (o.head) {
      case HeadPolicy::kKeep: break;
      case HeadPolicy::kPad:
        std::fill(out->bytes.begin(), out->bytes.begin() + static_cast<ptrdiff_t>(out->head_bytes), kEteIgnoreByte);
        break;
      case HeadPolicy::kDrop:
        out->bytes.erase(out->bytes.begin(), out->bytes.begin() + static_cast<ptrdiff_t>(out->head_bytes));
        break;
    }
  }
  if (o.strip_padding) {
    size_t n = 0;
    while (n < out->bytes.size() && out->bytes[n] == kEteIgnoreByte) ++n;
    out->bytes.erase(out->bytes.begin(), out->bytes.begin() + static_cast<ptrdiff_t>(n));
    out->padding_stripped = n;
  }
  return true;
}

std::string LinearizeSummary(const LinearizeResult& r, HeadPolicy head) {
  std::string s = std::to_string(r.bytes.size()) + " bytes from";
  for (const auto& seg : r.segments) s += " [" + Hex(seg.begin) + ", " + Hex(seg.end) + ")";
  s += "\n";
  if (r.overwritten && r.async_found)
    s += "  oldest data overwritten: " + std::to_string(r.head_bytes) + " bytes before the first A-Sync (" +
         std::string(HeadPolicyName(head)) + ")\n";
  else if (r.overwritten)
    s += "  warning: oldest data overwritten and no A-Sync in the buffer: not decodable\n";
  if (r.padding_stripped) s += "  stripped " + std::to_string(r.padding_stripped) + " leading 0x70 padding bytes\n";
  return s;
}

}  // namespace mabutrace::trbe
