// SPDX-License-Identifier: MIT
// itm_timeline.cpp: see itm_timeline.h.
#include "itm/itm_timeline.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace mabutrace::itm {

namespace {
constexpr uint32_t kColorIsr = 0x1000000 | 0xd0021b;
constexpr uint32_t kColorStim = 0x1000000 | 0x4a90d9;
constexpr uint32_t kColorDwt = 0x1000000 | 0x7ed321;
constexpr size_t kMaxPending = 1 << 16;  // placed 1 ns apart when no timestamp comes
constexpr size_t kMaxTextLine = 256;
constexpr size_t kPcSampleKeys = 64;
const char* const kEventFlags[] = {"CPI", "EXC", "SLEEP", "LSU", "FOLD", "CYC"};

model::Track StimTrack(uint32_t pid, size_t s) { return {pid, static_cast<uint32_t>(3 * s + 1)}; }
model::Track IsrTrack(uint32_t pid, size_t s) { return {pid, static_cast<uint32_t>(3 * s + 2)}; }
model::Track DwtTrack(uint32_t pid, size_t s) { return {pid, static_cast<uint32_t>(3 * s + 3)}; }
}  // namespace

std::optional<std::pair<unsigned, PortMapping>> ParsePortMapping(std::string_view text, std::string* error) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    *error = "expected N=instant|counter|text[:NAME], got '" + std::string(text) + "'";
    return std::nullopt;
  }
  const std::string num(text.substr(0, eq));
  char* end = nullptr;
  const unsigned long n = std::strtoul(num.c_str(), &end, 0);
  if (!end || *end || n > 255) {
    *error = "bad stimulus channel '" + num + "' (0-255)";
    return std::nullopt;
  }
  std::string_view rest = text.substr(eq + 1);
  const size_t colon = rest.find(':');
  const std::string_view kind = rest.substr(0, colon);
  PortMapping m;
  if (kind == "instant")
    m.kind = PortMapping::Kind::kInstant;
  else if (kind == "counter")
    m.kind = PortMapping::Kind::kCounter;
  else if (kind == "text")
    m.kind = PortMapping::Kind::kText;
  else {
    *error = "bad port kind '" + std::string(kind) + "' (instant, counter or text)";
    return std::nullopt;
  }
  m.name = colon == std::string_view::npos ? "" : std::string(rest.substr(colon + 1));
  if (m.name.empty()) m.name = "ITM port " + std::to_string(n);
  return std::make_pair(static_cast<unsigned>(n), m);
}

std::string ExceptionName(unsigned n) {
  switch (n) {
    case 0: return "Thread";
    case 1: return "Reset";
    case 2: return "NMI";
    case 3: return "HardFault";
    case 4: return "MemManage";
    case 5: return "BusFault";
    case 6: return "UsageFault";
    case 7: return "SecureFault";
    case 11: return "SVCall";
    case 12: return "DebugMonitor";
    case 14: return "PendSV";
    case 15: return "SysTick";
    default: break;
  }
  if (n >= 16) return "IRQ" + std::to_string(n - 16);
  return "Exception " + std::to_string(n);
}

ItmTimeline::ItmTimeline(model::EventSink* sink, TimelineOptions options, std::vector<std::string> sources)
    : norm_(*sink), options_(std::move(options)), sources_(sources.size()) {
  norm_.OnProcess(options_.pid, options_.process_name);
  for (size_t s = 0; s < sources.size(); ++s) {
    sources_[s].name = sources[s];
    norm_.OnThread(StimTrack(options_.pid, s), sources[s] + " stimulus");
    norm_.OnThread(IsrTrack(options_.pid, s), sources[s] + " ISR (cpu " + std::to_string(s) + ")");
    norm_.OnThread(DwtTrack(options_.pid, s), sources[s] + " DWT");
  }
}

uint64_t ItmTimeline::ToNs(uint64_t ticks) const {
  // Capped at 2^62 ns (146 years) so that the cursor arithmetic never wraps:
  // a 64-bit global timestamp x 1e9 / Hz may not fit.
  constexpr uint64_t kMaxNs = uint64_t{1} << 62;
  if (options_.clock_hz <= 0) return std::min(ticks, kMaxNs);
  const long double ns = static_cast<long double>(ticks) * 1e9L / static_cast<long double>(options_.clock_hz);
  return ns >= static_cast<long double>(kMaxNs) ? kMaxNs : static_cast<uint64_t>(ns);
}

std::string ItmTimeline::HandlerName(unsigned n) const {
  if (options_.elf && n > 0)
    if (const std::string* h = options_.elf->Handler(n)) return *h;
  return ExceptionName(n);
}

void ItmTimeline::Place(size_t s, uint64_t until_ns) {
  Source& src = sources_[s];
  const uint64_t from = src.cursor;
  const size_t k = src.pending.size();
  for (size_t i = 0; i < k; ++i) {
    const uint64_t ns =
        until_ns > from ? from + static_cast<uint64_t>(static_cast<unsigned __int128>(until_ns - from) * (i + 1) / k)
                        : from;
    Emit(s, src.pending[i], ns);
  }
  src.pending.clear();
  src.cursor = std::max(src.cursor, until_ns);
}

void ItmTimeline::Emit(size_t s, const ItmElement& e, uint64_t ns) {
  Source& src = sources_[s];
  const auto cpu = static_cast<uint32_t>(s);
  char buf[96];
  if (e.overflow) {
    norm_.OnInstant(StimTrack(options_.pid, s), "ITM overflow", ns, cpu, kColorStim);
    ++stats_.instants;
  }
  if (e.kind == ItmKind::kSwit) {
    auto it = options_.ports.find(e.src_id);
    PortMapping def;
    if (it == options_.ports.end()) def.name = "ITM port " + std::to_string(e.src_id);
    const PortMapping& m = it == options_.ports.end() ? def : it->second;
    switch (m.kind) {
      case PortMapping::Kind::kInstant: {
        std::string name = m.name;
        std::snprintf(buf, sizeof buf, " 0x%0*x", e.size * 2, e.value);
        name += buf;
        norm_.OnInstant(StimTrack(options_.pid, s), name, ns, cpu, kColorStim);
        ++stats_.instants;
        break;
      }
      case PortMapping::Kind::kCounter:
        norm_.OnCounter(StimTrack(options_.pid, s), m.name, ns, e.value);
        ++stats_.counters;
        break;
      case PortMapping::Kind::kText: {
        std::string& line = src.text[e.src_id];
        for (unsigned i = 0; i < e.size; ++i) {
          const char c = static_cast<char>((e.value >> (8 * i)) & 0xFF);
          if (c == '\r') continue;
          if (c != '\n') line.push_back(c);
          if (c == '\n' || line.size() >= kMaxTextLine) {
            norm_.OnInstant(StimTrack(options_.pid, s), m.name + ": " + line, ns, cpu, kColorStim);
            ++stats_.instants;
            line.clear();
          }
        }
        break;
      }
    }
    return;
  }
  if (e.kind != ItmKind::kDwt) return;
  if (e.src_id == kDwtException) {
    const auto n = static_cast<uint16_t>(e.value & 0x1FF);
    const unsigned fn = (e.value >> 12) & 3;
    auto close_to = [&](size_t depth) {
      while (src.isr_stack.size() > depth) {
        norm_.OnEnd(IsrTrack(options_.pid, s), src.isr_names.back(), ns, "");
        src.isr_stack.pop_back();
        src.isr_names.pop_back();
      }
    };
    auto find = [&](uint16_t x) -> long {
      for (size_t i = src.isr_stack.size(); i-- > 0;)
        if (src.isr_stack[i] == x) return static_cast<long>(i);
      return -1;
    };
    if (fn == 1) {  // entered
      src.isr_stack.push_back(n);
      src.isr_names.push_back(HandlerName(n));
      norm_.OnBegin(IsrTrack(options_.pid, s), src.isr_names.back(), ns, cpu, kColorIsr);
      ++stats_.slices;
    } else if (fn == 2) {  // exited
      const long at = find(n);
      if (at < 0)
        ++stats_.unmatched_exits;
      else
        close_to(static_cast<size_t>(at));
    } else if (fn == 3) {  // returned to n: what ran above it is over
      const long at = find(n);
      if (at >= 0)
        close_to(static_cast<size_t>(at) + 1);
      else if (n == 0)
        close_to(0);
    }
    return;
  }
  if (e.src_id == kDwtPcSample) {
    ++stats_.pc_samples;
    if (e.size == 1) {
      ++pc_sleep_;
      return;
    }
    const std::string* fn = options_.elf ? options_.elf->Function(e.value) : nullptr;
    if (fn) {
      ++pc_counts_[*fn];
    } else {
      std::snprintf(buf, sizeof buf, "0x%08x", e.value);
      ++pc_counts_[buf];
    }
    return;
  }
  if (e.src_id == kDwtEventCounter) {
    for (int bit = 0; bit < 6; ++bit) {
      if (!((e.value >> bit) & 1)) continue;
      ++src.event_wraps[bit];
      std::snprintf(buf, sizeof buf, "DWT %s wraps", kEventFlags[bit]);
      norm_.OnCounter(DwtTrack(options_.pid, s), buf, ns, static_cast<int64_t>(src.event_wraps[bit]));
      ++stats_.counters;
    }
    return;
  }
  if (e.src_id >= 8 && e.src_id <= 23) {
    const unsigned comp = (e.src_id >> 1) & 3;
    const char* what = e.src_id < 16 ? ((e.src_id & 1) ? "address" : "PC") : ((e.src_id & 1) ? "write" : "read");
    std::snprintf(buf, sizeof buf, "DWT comp %u %s 0x%0*x", comp, what, e.size * 2, e.value);
    norm_.OnInstant(DwtTrack(options_.pid, s), buf, ns, cpu, kColorDwt);
    ++stats_.instants;
  }
}

void ItmTimeline::OnElement(size_t s, const ItmElement& e) {
  if (s >= sources_.size() || e.type != ElemType::kItmTrace) return;
  Source& src = sources_[s];
  if (!e.IsTimestamp()) {
    src.pending.push_back(e);
    if (src.pending.size() >= kMaxPending) Place(s, src.cursor + src.pending.size());
    return;
  }
  ++stats_.timestamps;
  const bool global = e.kind == ItmKind::kTsGlobal;
  if (!src.ts_seen) {
    src.ts_seen = true;
    src.global = global;
    src.ts_origin = global ? options_.global_origin.value_or(e.timestamp) : 0;
    src.ticks_ns_base = global && options_.global_origin ? options_.origin_ns : 0;
  }
  if (global != src.global) {  // the other kind of timestamp: not our clock, but its overflow flag counts
    if (e.overflow) {
      norm_.OnInstant(StimTrack(options_.pid, s), "ITM overflow", src.cursor, static_cast<uint32_t>(s), kColorStim);
      ++stats_.instants;
    }
    return;
  }
  if (global) {
    if (e.timestamp >= src.ts_origin) src.ticks = std::max(src.ticks, e.timestamp - src.ts_origin);
  } else {
    // The running local count restarts at an overflow: add what it grew by.
    src.ticks += e.timestamp >= src.last_local ? e.timestamp - src.last_local : e.timestamp;
    src.last_local = e.timestamp;
  }
  Place(s, src.ticks_ns_base + ToNs(src.ticks));
  if (e.overflow) {
    norm_.OnInstant(StimTrack(options_.pid, s), "ITM overflow", src.cursor, static_cast<uint32_t>(s), kColorStim);
    ++stats_.instants;
  }
}

void ItmTimeline::OnDecodeError(const std::string& message) {
  if (!stats_.decode_errors++) first_error_ = message;
}

void ItmTimeline::OnDecodeWarning(const std::string& message) {
  if (!stats_.decode_warnings++) first_warning_ = message;
}

bool ItmTimeline::Finish() {
  bool any_ts = false;
  for (size_t s = 0; s < sources_.size(); ++s) {
    Source& src = sources_[s];
    any_ts = any_ts || src.ts_seen;
    Place(s, src.cursor + src.pending.size());
    for (auto& [ch, line] : src.text) {
      if (line.empty()) continue;
      auto it = options_.ports.find(ch);
      norm_.OnInstant(StimTrack(options_.pid, s), (it == options_.ports.end() ? "" : it->second.name) + ": " + line,
                      src.cursor, static_cast<uint32_t>(s), kColorStim);
      ++stats_.instants;
    }
  }
  norm_.OnMetadata("itm.time_unit", !any_ts                 ? "one ns per event (no timestamps)"
                                    : options_.clock_hz > 0 ? "ns (timestamp ticks / --clock-hz)"
                                                            : "timestamp ticks (as ns), from the first timestamp");
  if (!options_.clock_note.empty()) norm_.OnMetadata("itm.clock", options_.clock_note);
  norm_.OnMetadata("itm.instants", static_cast<int64_t>(stats_.instants));
  norm_.OnMetadata("itm.isr_slices", static_cast<int64_t>(stats_.slices));
  norm_.OnMetadata("itm.counter_values", static_cast<int64_t>(stats_.counters));
  norm_.OnMetadata("itm.timestamps", static_cast<int64_t>(stats_.timestamps));
  norm_.OnMetadata("itm.unmatched_exception_exits", static_cast<int64_t>(stats_.unmatched_exits));
  norm_.OnMetadata("itm.pc_samples", static_cast<int64_t>(stats_.pc_samples));
  norm_.OnMetadata("itm.pc_samples_sleep", static_cast<int64_t>(pc_sleep_));
  if (stats_.decode_errors) {
    norm_.OnMetadata("itm.decode_errors", static_cast<int64_t>(stats_.decode_errors));
    norm_.OnMetadata("itm.decode_error", first_error_);
  }
  if (stats_.decode_warnings) {
    norm_.OnMetadata("itm.decode_warnings", static_cast<int64_t>(stats_.decode_warnings));
    norm_.OnMetadata("itm.decode_warning", first_warning_);
  }
  std::vector<std::pair<std::string, uint64_t>> top(pc_counts_.begin(), pc_counts_.end());
  std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (top.size() > kPcSampleKeys) top.resize(kPcSampleKeys);
  for (const auto& [name, count] : top) norm_.OnMetadata("itm.pc_samples." + name, static_cast<int64_t>(count));
  return norm_.Finish();
}

}  // namespace mabutrace::itm
