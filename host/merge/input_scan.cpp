// SPDX-License-Identifier: MIT
#include "input_scan.h"

#include <algorithm>
#include <charconv>

#include "format/record_format.h"
#include "trace_model.h"

namespace mabutrace::merge {

std::string_view SyncDomain(std::string_view name) {
  if (name.size() <= kClockSyncPrefix.size() || name.substr(0, kClockSyncPrefix.size()) != kClockSyncPrefix) return {};
  return name.substr(kClockSyncPrefix.size());
}

uint64_t SyncHash(uint64_t v) {  // splitmix64's finalizer
  v ^= v >> 30;
  v *= 0xbf58476d1ce4e5b9ull;
  v ^= v >> 27;
  v *= 0x94d049bb133111ebull;
  return v ^ (v >> 31);
}

void ScanSink::OnClock(uint64_t monotonic_ns, uint64_t boottime_ns) {
  scan_.has_clock = true;
  scan_.monotonic_at_zero = monotonic_ns;
  scan_.boottime_at_zero = boottime_ns;
}

void ScanSink::Saw(uint64_t ns) {
  ++scan_.events;
  scan_.first_ns = std::min(scan_.first_ns, ns);
  scan_.last_ns = std::max(scan_.last_ns, ns);
}

void ScanSink::OnCounter(format::Track, std::string_view name, uint64_t ns, int64_t value) {
  Saw(ns);
  const std::string_view domain = SyncDomain(name);
  if (domain.empty()) return;
  auto it = scan_.sync.find(domain);
  if (it == scan_.sync.end()) it = scan_.sync.emplace(std::string(domain), SyncSeries{}).first;
  SyncSeries& s = it->second;
  ++s.seen;
  const uint64_t v = static_cast<uint64_t>(value);
  if (SyncHash(v) % s.stride != 0) return;
  s.points.push_back({ns, v});
  if (s.points.size() < kMaxSyncPointsPerDomain) return;
  s.stride *= 2;
  std::erase_if(s.points, [&](const SyncPoint& p) { return SyncHash(p.value) % s.stride != 0; });
}

void ScanSink::OnFlowPoint(format::Track, bool start, uint64_t id, std::string_view, uint64_t ns, uint32_t, uint32_t,
                           bool) {
  Saw(ns);
  if (start && id && collect_) scan_.flow_outs[LinkForFlow(uint32_t(id))].push_back({ns, id});
}

void ScanSink::OnFlow(format::Track, bool start, uint64_t id, uint64_t ns) {
  Saw(ns);
  if (start && id && collect_) scan_.flow_outs[LinkForFlow(uint32_t(id))].push_back({ns, id});
  if (!start && (id & model::kUnresolvedLink)) ++scan_.link_ends;
}

void ScanSink::OnMetadata(std::string_view key, int64_t value) {
  if (key == "ete.timestamp_origin_ns" && value >= 0) origin_ns_ = static_cast<uint64_t>(value);
  if (key == "ete.timestamp_hz") hz_ = value;
  if (key == "ete.timestamp_origin" && value >= 0) origin_ = static_cast<uint64_t>(value);  // a reader's int
}

void ScanSink::OnMetadata(std::string_view key, std::string_view value) {
  if (key == "ete.time_base" && value != "timestamp") scan_.not_a_clock = "ete.time_base = " + std::string(value);
  if (key != "ete.timestamp_origin") return;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec == std::errc() && end == value.data() + value.size()) origin_ = v;
}

bool ScanSink::Finish() {
  if (origin_ && origin_ns_) {
    scan_.own_clock_stated = true;
    scan_.own_clock.x0 = static_cast<long double>(*origin_);
    scan_.own_clock.y0 = static_cast<long double>(*origin_ns_);
    scan_.own_clock.slope = hz_ > 0 ? 1e9L / static_cast<long double>(hz_) : 1;
  }
  return true;
}

}  // namespace mabutrace::merge
