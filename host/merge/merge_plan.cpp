// SPDX-License-Identifier: MIT
#include "merge_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace mabutrace::merge {
namespace {

ClockLine FlagLine(const InputSpec& s) {
  ClockLine l;
  if (s.clock_hz) l.slope = 1e9L / static_cast<long double>(*s.clock_hz);
  if (s.offset_ns) l.y0 = static_cast<long double>(*s.offset_ns);
  return l;
}

long double Flag(const ClockLine& f, long double t) { return f.At(t); }

bool Wanted(const std::vector<std::string>& domains, const std::string& d) {
  return domains.empty() || std::find(domains.begin(), domains.end(), d) != domains.end();
}

// Pairs (x on input a's flag space, y on input b's) through one domain.
std::vector<SyncPair> PairsIn(const std::string& d, const InputSpec& sa, const InputScan& a, const ClockLine& fa,
                              const InputSpec& sb, const InputScan& b, const ClockLine& fb) {
  std::vector<SyncPair> pairs;
  const auto ia = a.sync.find(d);
  const auto ib = b.sync.find(d);
  if (sa.clock_domain == d && ib != b.sync.end()) {  // b read a's clock
    for (const SyncPoint& p : ib->second.points)
      pairs.push_back(
          {Flag(fa, a.own_clock.At(static_cast<long double>(p.value))), Flag(fb, static_cast<long double>(p.ns))});
    return pairs;
  }
  if (sb.clock_domain == d && ia != a.sync.end()) {  // a read b's clock
    for (const SyncPoint& p : ia->second.points)
      pairs.push_back(
          {Flag(fa, static_cast<long double>(p.ns)), Flag(fb, b.own_clock.At(static_cast<long double>(p.value)))});
    return pairs;
  }
  if (ia == a.sync.end() || ib == b.sync.end()) return pairs;
  // The same event numbered alike on both sides: pair equal values; a
  // value seen twice on one side pairs with nothing (which would it be?).
  std::unordered_map<uint64_t, uint64_t> at;  // value → b's time; UINT64_MAX: seen twice
  for (const SyncPoint& p : ib->second.points) {
    auto [it, fresh] = at.emplace(p.value, p.ns);
    if (!fresh) it->second = UINT64_MAX;
  }
  std::unordered_map<uint64_t, int> seen_a;
  for (const SyncPoint& p : ia->second.points) ++seen_a[p.value];
  for (const SyncPoint& p : ia->second.points) {
    const auto it = at.find(p.value);
    if (it == at.end() || it->second == UINT64_MAX || seen_a[p.value] != 1) continue;
    pairs.push_back({Flag(fa, static_cast<long double>(p.ns)), Flag(fb, static_cast<long double>(it->second))});
  }
  return pairs;
}

std::vector<std::string> Domains(const std::vector<InputSpec>& specs, const std::vector<InputScan>& scans) {
  std::vector<std::string> all;
  for (const InputScan& s : scans)
    for (const auto& [d, series] : s.sync) all.push_back(d);
  for (const InputSpec& s : specs)
    if (!s.clock_domain.empty()) all.push_back(s.clock_domain);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

std::string Num(long double v, const char* fmt) {
  char b[64];
  std::snprintf(b, sizeof b, fmt, static_cast<double>(v));
  return b;
}

}  // namespace

uint32_t InputClockId(const std::string& name, const std::vector<uint32_t>& taken) {
  uint32_t h = 2166136261u;
  for (const char c : std::string("mabutrace.merge/") + name) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  uint32_t id = std::max<uint32_t>(h & ~127u, 128u);
  while (std::find(taken.begin(), taken.end(), id) != taken.end()) id = id + 128u < 128u ? 128u : id + 128u;
  return id;
}

std::optional<MergePlan> PlanMerge(const std::vector<InputSpec>& specs, const std::vector<InputScan>& scans,
                                   const std::vector<std::string>& sync_domains, std::string* error) {
  MergePlan plan;
  const size_t n = specs.size();
  plan.inputs.resize(n);
  for (size_t i = 0; i < n; ++i) plan.inputs[i].flags = FlagLine(specs[i]);
  const std::vector<std::string> domains = Domains(specs, scans);
  for (const std::string& d : sync_domains) {
    if (std::find(domains.begin(), domains.end(), d) == domains.end()) {
      *error = "sync domain '" + d + "': no input has points in it (TRACE_CLOCK_SYNC(\"" + d +
               "\", ...) or --clock-domain NAME=" + d + ")";
      return std::nullopt;
    }
  }

  for (size_t i = 0; i < n && i < scans.size(); ++i) {
    if (!specs[i].clock_domain.empty() && !scans[i].not_a_clock.empty()) {
      *error = specs[i].name + ": --clock-domain " + specs[i].clock_domain + ": its times are not a clock's (" +
               scans[i].not_a_clock + ")";
      return std::nullopt;
    }
  }
  std::vector<bool> placed(n, false);
  if (n) {
    placed[0] = true;
    plan.inputs[0].placement = Placement::kReference;
    plan.inputs[0].how = "the reference: its own time";
  }
  std::vector<bool> domain_used(domains.size(), false);
  // Outward from the reference: each round places the unplaced input that
  // shares the most pairs with a placed one.
  for (;;) {
    size_t best_i = n, best_j = 0, best_d = 0;
    std::vector<SyncPair> best;
    for (size_t i = 0; i < n; ++i) {
      if (placed[i]) continue;
      for (size_t j = 0; j < n; ++j) {
        if (!placed[j]) continue;
        for (size_t d = 0; d < domains.size(); ++d) {
          if (!Wanted(sync_domains, domains[d])) continue;
          std::vector<SyncPair> p =
              PairsIn(domains[d], specs[i], scans[i], plan.inputs[i].flags, specs[j], scans[j], plan.inputs[j].flags);
          if (p.size() > best.size()) best = std::move(p), best_i = i, best_j = j, best_d = d;
        }
      }
    }
    if (best_i == n) break;
    InputPlan& in = plan.inputs[best_i];
    in.placement = Placement::kSyncPoints;
    in.fit = FitClock(best);
    in.to_ref = Compose(in.fit.line, plan.inputs[best_j].to_ref);
    in.domain = domains[best_d];
    in.via = best_j;
    domain_used[best_d] = true;
    placed[best_i] = true;
    in.how = "sync points in '" + in.domain + "' against " + specs[best_j].name + ": " + std::to_string(in.fit.points) +
             " pairs, offset " + Num(in.fit.line.offset_ns(), "%.1f") + " ns, drift " +
             Num(in.fit.line.drift_ppm(), "%.3f") + " ppm, residual rms " + Num(in.fit.rms_residual_ns, "%.1f") +
             " ns, max " + Num(in.fit.max_residual_ns, "%.1f") + " ns";
    // Crystals are within a few hundred ppm: more is a unit mistake (ticks
    // taken as ns, --clock-hz on times already in ns), said where it is read.
    if (std::fabs(static_cast<double>(in.fit.line.drift_ppm())) > 1000)
      in.how += " - WARNING: a drift over 1000 ppm is no clock's; check --clock-hz and what its times count";
  }
  for (size_t d = 0; d < domains.size(); ++d) {
    if (domain_used[d] || sync_domains.empty() || !Wanted(sync_domains, domains[d])) continue;
    *error = "sync domain '" + domains[d] + "': no two inputs pair through it (points in one input only, or no " +
             "equal values)";
    return std::nullopt;
  }
  for (size_t i = 1; i < n; ++i) {
    if (placed[i]) continue;
    InputPlan& in = plan.inputs[i];
    const bool flagged = specs[i].offset_ns || specs[i].clock_hz;
    if (!flagged && scans[i].has_clock && scans[0].has_clock) {
      in.placement = Placement::kOsClock;
      ClockLine diff;
      diff.y0 =
          static_cast<long double>(scans[i].monotonic_at_zero) - static_cast<long double>(scans[0].monotonic_at_zero);
      // Its own time → the reference's own time → the reference's flags.
      in.to_ref = Compose(diff, plan.inputs[0].flags);
      in.how =
          "CLOCK_MONOTONIC (the same machine as " + specs[0].name + " assumed): offset " + Num(diff.y0, "%.0f") + " ns";
      continue;
    }
    in.placement = Placement::kFlagsOnly;
    in.how = flagged ? "flags only" : "as recorded (no sync points, flags or OS clock)";
  }
  for (size_t i = 0; i < n; ++i) {
    InputPlan& in = plan.inputs[i];
    // The OS clock placement maps the input's own time, not its flag space.
    in.total = in.placement == Placement::kOsClock ? in.to_ref : Compose(in.flags, in.to_ref);
    if (specs[i].offset_ns || specs[i].clock_hz) {
      in.how += " (flags:";
      if (specs[i].clock_hz) in.how += " clock " + Num(*specs[i].clock_hz, "%.0f") + " Hz";
      if (specs[i].offset_ns) in.how += " offset " + std::to_string(*specs[i].offset_ns) + " ns";
      in.how += ")";
    }
  }
  // Nothing before the merged time 0: shift everything by the earliest.
  long double lo = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!scans[i].events) continue;
    const ClockLine& t = plan.inputs[i].total;
    lo = std::min(lo, t.y0 + t.slope * (static_cast<long double>(scans[i].first_ns) - t.x0));
  }
  if (lo < 0) {
    plan.shift_ns = static_cast<uint64_t>(std::ceil(-lo));
    for (InputPlan& in : plan.inputs) {
      in.total.y0 += static_cast<long double>(plan.shift_ns);
      in.to_ref.y0 += static_cast<long double>(plan.shift_ns);
    }
  }
  std::vector<uint32_t> taken;
  for (size_t i = 0; i < n; ++i) taken.push_back(plan.inputs[i].clock_id = InputClockId(specs[i].name, taken));
  return plan;
}

}  // namespace mabutrace::merge
