// SPDX-License-Identifier: MIT
// simulator.cpp: see simulator.h.
#include "simulator.h"

#include <ini.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <random>

#include "ini_value.h"
#include "stm_capture.h"
#include "stp_encoder.h"

namespace mabutrace::cptracer {
namespace {

constexpr size_t kFrameBytes = 16;
constexpr size_t kFrameDataBytes = 14;  // one ID byte + 14 data bytes + flag byte
constexpr uint8_t kTsNibbles = 16;

struct Txn {
  uint64_t cycle;
  uint32_t master;  // index into masters
  uint32_t size, wait;
  uint64_t address;
  bool write;
};

struct QMsg {
  std::vector<uint32_t> words;
  int event = -1;  // index into SimResult::events, -1 = statistics
};

struct LoadCtx {
  Workload* w;
  std::string error;
};

std::string Num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", x);
  return b;
}

int Handler(void* user, const char* section, const char* name, const char* value) {
  auto* ctx = static_cast<LoadCtx*>(user);
  Workload& w = *ctx->w;
  // Each key's range; a value outside it is an error, never wrapped.
  const IniValue v(section, name, value, &ctx->error);
  const std::string sec = section, key = name;
  if (sec == "tracer") {
    if (key == "events") return v.ReadBoolean(&w.export_events);
    if (key == "sid") return v.ReadUnsigned(0, 31, &w.sid);
    if (key == "clock_hz") return v.ReadReal(1, 4294967295.0, &w.clock_hz);
    if (key == "window_cycles") return v.ReadUnsigned(0, 0xFFFFFFFF, &w.window_cycles);
    if (key == "window_ms") {
      double ms = 0;
      if (!v.ReadReal(0, 1e6, &ms)) return 0;
      w.window_cycles = static_cast<uint64_t>(std::llround(ms * 1e-3 * w.clock_hz));
      return 1;
    }
    if (key == "windows") return v.ReadUnsigned(0, kMaxWindows, &w.windows);
    if (key == "fifo_depth") return v.ReadUnsigned(0, kMaxFifoDepth, &w.fifo_depth);
    if (key == "drain_cycles") return v.ReadUnsigned(0, 1u << 20, &w.drain_cycles);
    if (key == "address_export_shift") return v.ReadUnsigned(0, 31, &w.address_export_shift);
    if (key == "async_every") return v.ReadUnsigned(0, 0xFFFFFFFF, &w.async_every);
    if (key == "seed") return v.ReadUnsigned(0, UINT64_MAX, &w.seed);
    return v.Fail("unknown key");
  }
  if (sec.rfind("master", 0) == 0) {
    std::string mname = sec.size() > 7 ? sec.substr(7) : sec;
    if (w.masters.empty() || w.masters.back().name != mname) {
      w.masters.push_back({});
      w.masters.back().name = mname;
    }
    SimMaster& m = w.masters.back();
    if (key == "counter1") return v.ReadBoolean(&m.counter1);
    if (key == "mid") return v.ReadUnsigned(0, 255, &m.mid);
    if (key == "rate_per_window") return v.ReadReal(0, kMaxTransactions, &m.rate_per_window);
    if (key == "size_bytes") return v.ReadUnsigned(0, 0xFFFFFFFF, &m.size_bytes);
    if (key == "address_start") return v.ReadUnsigned(0, UINT64_MAX, &m.address_start);
    if (key == "address_end") return v.ReadUnsigned(0, UINT64_MAX, &m.address_end);
    if (key == "read_percent") return v.ReadReal(0, 100, &m.read_percent);
    if (key == "wait_cycles") return v.ReadReal(0, 1e9, &m.wait_cycles);
    return v.Fail("unknown key");
  }
  return v.Fail("unknown section (tracer, master <name>)");
}

std::vector<uint32_t> Pack(const MessageSpec& spec, const FieldSpec& type_field,
                           std::initializer_list<std::pair<Field, uint32_t>> values) {
  std::vector<uint32_t> words(spec.words, 0);
  if (spec.type_value >= 0 && type_field.word < words.size())
    words[type_field.word] = type_field.Insert(words[type_field.word], static_cast<uint32_t>(spec.type_value));
  for (const auto& [f, v] : values) {
    const FieldSpec& fs = spec.f(f);
    if (fs.present && fs.word < words.size()) words[fs.word] = fs.Insert(words[fs.word], v);
  }
  return words;
}

uint32_t Mask(const FieldSpec& f, uint64_t v) {
  return f.present ? static_cast<uint32_t>(v & ((1ull << f.width) - 1)) : 0;
}

}  // namespace

bool LoadWorkload(const std::string& path, Workload* w, std::string* error) {
  LoadCtx ctx{w, {}};
  const int rc = ini_parse(path.c_str(), Handler, &ctx);
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

bool Simulate(const Workload& w, const Layout& layout, SimResult* out, std::string* error) {
  *out = {};
  const MessageSpec* ev = layout.Find(MsgType::kEventB);
  const MessageSpec* st = layout.Find(MsgType::kStatistics);
  if (!ev || !st) {
    *error = "the layout has no event_b or statistics message";
    return false;
  }
  if (w.window_cycles == 0 || w.windows == 0 || w.fifo_depth == 0 || w.drain_cycles == 0 || w.masters.empty() ||
      !(w.clock_hz > 0) || w.clock_hz > 4294967295.0) {
    *error =
        "workload needs window_cycles, windows, fifo_depth, drain_cycles > 0, clock_hz "
        "in 1..2^32-1 and at least one [master ...]";
    return false;
  }
  double transactions = 0;
  for (const SimMaster& m : w.masters) {
    if (m.address_end < m.address_start) {
      *error = "[master " + m.name + "] address_end is below address_start";
      return false;
    }
    transactions += m.rate_per_window * w.windows;
  }
  if (transactions > kMaxTransactions) {
    *error = "workload asks for " + Num(transactions) + " transactions (windows x rate_per_window); at most " +
             Num(kMaxTransactions);
    return false;
  }
  std::mt19937_64 rng(w.seed);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  std::vector<uint32_t> xid(w.masters.size(), 0);
  std::deque<QMsg> fifo;
  uint64_t head_start = 0;
  bool overflow_pending = false;
  std::vector<std::pair<uint64_t, QMsg>> emitted;  // (cycle the last word left, message)

  auto advance = [&](uint64_t to) {
    while (!fifo.empty()) {
      const uint64_t done = head_start + fifo.front().words.size() * w.drain_cycles;
      if (done > to) break;
      emitted.emplace_back(done, std::move(fifo.front()));
      fifo.pop_front();
      head_start = done;
    }
  };
  auto enqueue = [&](QMsg m, uint64_t now) {
    if (fifo.empty()) head_start = now;
    fifo.push_back(std::move(m));
  };

  for (uint32_t wi = 0; wi < w.windows; ++wi) {
    const uint64_t start = static_cast<uint64_t>(wi) * w.window_cycles;
    std::vector<Txn> txns;
    for (uint32_t mi = 0; mi < w.masters.size(); ++mi) {
      const SimMaster& m = w.masters[mi];
      const long n = std::lround(m.rate_per_window * (0.75 + 0.5 * u01(rng)));
      for (long k = 0; k < n; ++k) {
        Txn t;
        t.cycle = start + static_cast<uint64_t>(u01(rng) * static_cast<double>(w.window_cycles));
        t.master = mi;
        t.size = m.size_bytes;
        t.wait = static_cast<uint32_t>(std::lround(2.0 * m.wait_cycles * u01(rng)));
        const uint64_t span = m.address_end >= m.address_start ? m.address_end - m.address_start : 0;
        t.address = m.address_start + static_cast<uint64_t>(u01(rng) * static_cast<double>(span));
        t.write = u01(rng) * 100.0 >= m.read_percent;
        txns.push_back(t);
      }
    }
    std::stable_sort(txns.begin(), txns.end(), [](const Txn& a, const Txn& b) { return a.cycle < b.cycle; });
    SimWindow win;
    win.end_cycle = start + w.window_cycles;
    for (const Txn& t : txns) {
      const SimMaster& m = w.masters[t.master];
      win.throughput0 += t.size;
      if (m.counter1) win.throughput1 += t.size;
      win.wait_cycles += t.wait;
      ++win.grants;
      if (!w.export_events) continue;
      advance(t.cycle);
      if (fifo.size() >= w.fifo_depth) {
        ++out->events_lost;
        overflow_pending = true;
        continue;
      }
      SimEvent e;
      e.mid = Mask(ev->f(Field::kMid), m.mid);
      e.xid = Mask(ev->f(Field::kXid), xid[t.master]++);
      e.address = Mask(ev->f(Field::kAddress), t.address >> w.address_export_shift);
      e.write = t.write;
      e.overflow = overflow_pending;
      overflow_pending = false;
      QMsg q;
      q.words = Pack(*ev, layout.type_field,
                     {{Field::kSid, w.sid},
                      {Field::kMid, e.mid},
                      {Field::kXid, e.xid},
                      {Field::kOverflow, e.overflow},
                      {Field::kRw, e.write},
                      {Field::kAddress, e.address}});
      q.event = static_cast<int>(out->events.size());
      out->events.push_back(e);
      enqueue(std::move(q), t.cycle);
    }
    advance(win.end_cycle);
    QMsg s;
    s.words = Pack(*st, layout.type_field,
                   {{Field::kSid, w.sid},
                    {Field::kThroughput0, win.throughput0},
                    {Field::kThroughput1, win.throughput1},
                    {Field::kWait, win.wait_cycles},
                    {Field::kGrants, win.grants}});
    enqueue(std::move(s), win.end_cycle);
    out->windows.push_back(win);
  }
  advance(~0ull);

  stm::StpEncoder enc;
  enc.set_ts_nibbles(kTsNibbles);
  auto resync = [&] {
    enc.Async();
    enc.Version(3);
    if (layout.hw_master > 0xFF)
      enc.Master16(layout.hw_master);
    else
      enc.Master8(static_cast<uint8_t>(layout.hw_master));
    enc.Channel8(static_cast<uint8_t>(w.sid));
  };
  enc.Async();
  enc.Version(3);
  enc.Freq(static_cast<uint32_t>(w.clock_hz));
  resync();
  for (size_t i = 0; i < emitted.size(); ++i) {
    if (i > 0 && w.async_every && i % w.async_every == 0) resync();
    const auto& [cycle, m] = emitted[i];
    if (m.event >= 0) out->events[static_cast<size_t>(m.event)].cycle = cycle;
    for (size_t k = 0; k < m.words.size(); ++k) {
      const bool last = k + 1 == m.words.size();
      enc.Data(32, m.words[k], last, last, cycle);
    }
  }
  out->stp = enc.Bytes();
  // Pad with NULL packets to whole frames, then frame (facts §3.3 / CoreSight).
  std::vector<uint8_t> d = out->stp;
  d.resize((d.size() + kFrameDataBytes - 1) / kFrameDataBytes * kFrameDataBytes, 0);
  for (size_t at = 0; at < d.size(); at += kFrameDataBytes) {
    uint8_t f[kFrameBytes] = {};
    uint8_t flags = 0;
    f[0] = static_cast<uint8_t>((stm::kTiStmAtbId << 1) | 1);  // ID byte; flag bit0 = 0: f[1] is new-ID data
    f[1] = d[at];
    for (int k = 1; k < 7; ++k) {
      const uint8_t b = d[at + 2 * k - 1];
      f[2 * k] = b & 0xFE;
      flags |= static_cast<uint8_t>((b & 1) << k);
      f[2 * k + 1] = d[at + 2 * k];
    }
    f[14] = d[at + 13] & 0xFE;
    flags |= static_cast<uint8_t>((d[at + 13] & 1) << 7);
    f[15] = flags;
    out->framed.insert(out->framed.end(), f, f + kFrameBytes);
  }
  return true;
}

std::string TruthJson(const Workload& w, const SimResult& r) {
  std::string s = "{\"sid\":" + std::to_string(w.sid) +
                  ",\"clock_hz\":" + std::to_string(static_cast<uint64_t>(w.clock_hz)) +
                  ",\"window_cycles\":" + std::to_string(w.window_cycles) +
                  ",\"events_lost\":" + std::to_string(r.events_lost) + ",\"windows\":[";
  for (size_t i = 0; i < r.windows.size(); ++i) {
    const auto& x = r.windows[i];
    s += (i ? "," : "") + std::string("{\"throughput0\":") + std::to_string(x.throughput0) +
         ",\"throughput1\":" + std::to_string(x.throughput1) + ",\"wait_cycles\":" + std::to_string(x.wait_cycles) +
         ",\"grants\":" + std::to_string(x.grants) + "}";
  }
  s += "],\"events\":[";
  for (size_t i = 0; i < r.events.size(); ++i) {
    const auto& e = r.events[i];
    s += (i ? "," : "") + std::string("{\"mid\":") + std::to_string(e.mid) + ",\"xid\":" + std::to_string(e.xid) +
         ",\"address\":" + std::to_string(e.address) + ",\"write\":" + (e.write ? "true" : "false") +
         ",\"overflow\":" + (e.overflow ? "true" : "false") + ",\"cycle\":" + std::to_string(e.cycle) + "}";
  }
  return s + "]}\n";
}

bool WriteSimulation(const std::string& dir, const Workload& w, const SimResult& r, std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  auto write = [&](const char* name, const void* data, size_t n) {
    std::ofstream f(fs::path(dir) / name, std::ios::binary);
    f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
    if (!f) *error = (fs::path(dir) / name).string() + ": cannot write";
    return static_cast<bool>(f);
  };
  auto text = [&](const char* name, const std::string& s) { return write(name, s.data(), s.size()); };
  char dev[160];
  std::snprintf(dev, sizeof dev,
                "[device]\nname=STM_0\nclass=trace_source\ntype=STM\n\n[regs]\nSTMTCSR(0x3A0)=0x%08X\n",
                (static_cast<unsigned>(stm::kTiStmAtbId) << 16) | 0x7u);
  return write("stm.bin", r.framed.data(), r.framed.size()) &&
         text("stm.dcm",
              "STM_data_flip=0\nSTM_Buffer_Wrapped=0\nHEAD_Present_0=0\nHEAD_Pointer_0=0\n"
              "HEAD_Present_1=0\nHEAD_Pointer_1=0\nSTM_STP_Version=2\nTWP_Protocol=1\n") &&
         text("snapshot.ini",
              "[snapshot]\nversion=1.0\ndescription=mabutrace cptracer simulate\n\n[device_list]\n"
              "device0=stm_device.ini\n\n[trace]\nmetadata=trace.ini\n") &&
         text("trace.ini",
              "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=TBR\nfile=stm.bin\nformat="
              "coresight\n\n"
              "[source_buffers]\nSTM_0=TBR\n\n[core_trace_sources]\n") &&
         text("stm_device.ini", dev) && text("truth.json", TruthJson(w, r));
}

std::string SimulationSummary(const SimResult& r) {
  uint64_t overflow = 0;
  for (const auto& e : r.events) overflow += e.overflow;
  return std::to_string(r.windows.size()) + " windows, " + std::to_string(r.events.size()) + " event messages (" +
         std::to_string(overflow) + " with O=1), " + std::to_string(r.events_lost) + " events lost, " +
         std::to_string(r.stp.size()) + " STP bytes in " + std::to_string(r.framed.size()) + " framed bytes";
}

}  // namespace mabutrace::cptracer
