// SPDX-License-Identifier: MIT
// simulator.h: CP_Tracer workload simulator (R-I4).
//
// Turns a workload description (masters with rates, sizes, address ranges,
// read share and wait/contention) into what one CP_Tracer would export:
// statistics messages per sliding window and event B messages, through a
// message FIFO of `fifo_depth` messages that drains one 32-bit word every
// `drain_cycles` tracer cycles into the STM. An event arriving at a full
// FIFO is lost, and the next event message that gets in carries O = 1
// (seed 002 §2.3.2: "events lost since the last event message"; U).
// Statistics messages are never lost (design assumption: they have their
// own latch and wait for FIFO room).
//
// The messages are packed with the layout table (layout.h), written as
// STPv2 by STM hardware master 0x80 on channel = SID (FREQ first, ASYNC +
// VERSION + M8 + C8 again every `async_every` messages; each word one D32,
// the last word of a message D32MTS with the tracer-cycle timestamp), then
// framed as 16-byte CoreSight/TWP frames with ATB ID 0x40 (facts §3.3).
// Output files: stm.bin + stm.dcm (TI capture), snapshot.ini, trace.ini,
// stm_device.ini (CoreSight snapshot of the same bytes), truth.json.
//
// Ground truth: per window the counters (throughput 0/1, wait, grants) and,
// per exported event message in order, its fields and O bit.
//
// Workload file (INI): see docs/cptracer.md and examples/cptracer/*.ini.
// Numbers have no sign and each key has a range (a value outside it is an
// error naming the key, never wrapped): windows <= kMaxWindows, fifo_depth
// <= kMaxFifoDepth, read_percent 0..100, and the whole run at most
// kMaxTransactions expected transactions (windows x the masters' rates),
// so a workload file cannot ask for unbounded time or memory.
// Deterministic for a given seed. Errors: false + message naming the key.
#ifndef MABUTRACE_HOST_CPTRACER_SIMULATOR_H
#define MABUTRACE_HOST_CPTRACER_SIMULATOR_H

#include <cstdint>
#include <string>
#include <vector>

#include "layout.h"

namespace mabutrace::cptracer {

constexpr uint32_t kMaxWindows = 1000000;
constexpr uint32_t kMaxFifoDepth = 65536;  // messages
constexpr double kMaxTransactions = 1e8;

struct SimMaster {
  std::string name;
  uint32_t mid = 0;
  double rate_per_window = 0;  // mean transactions per window
  uint32_t size_bytes = 64;    // bytes per transaction
  uint64_t address_start = 0, address_end = 0xFFFF;
  double read_percent = 50;
  double wait_cycles = 0;  // mean wait per transaction (contention)
  bool counter1 = false;   // also counted by throughput counter 1
};

struct Workload {
  uint32_t sid = 0;
  double clock_hz = 200e6;
  uint64_t window_cycles = 1000000;
  uint32_t windows = 4;
  uint32_t fifo_depth = 8;     // messages
  uint32_t drain_cycles = 16;  // cycles per 32-bit word into the STM
  bool export_events = true;   // event B messages
  uint32_t address_export_shift = 0;
  uint32_t async_every = 64;  // messages between ASYNC re-syncs
  uint64_t seed = 1;
  std::vector<SimMaster> masters;
};

struct SimWindow {
  uint32_t throughput0 = 0, throughput1 = 0, wait_cycles = 0, grants = 0;
  uint64_t end_cycle = 0;
};
struct SimEvent {
  uint32_t mid = 0, xid = 0, address = 0;
  bool write = false, overflow = false;
  uint64_t cycle = 0;  // when the message left the FIFO
};

struct SimResult {
  std::vector<SimWindow> windows;
  std::vector<SimEvent> events;  // exported event messages, in stream order
  uint64_t events_lost = 0;
  std::vector<uint8_t> stp;     // the STPv2 byte stream
  std::vector<uint8_t> framed;  // stp in 16-byte frames, ATB ID 0x40
};

bool LoadWorkload(const std::string& path, Workload* w, std::string* error);
bool Simulate(const Workload& w, const Layout& layout, SimResult* out, std::string* error);
// Writes the output files into `dir` (created if missing).
bool WriteSimulation(const std::string& dir, const Workload& w, const SimResult& r, std::string* error);
std::string TruthJson(const Workload& w, const SimResult& r);
// "N windows, N event messages (N with O=1), N events lost, N STP bytes in
// N framed bytes", for the command's report.
std::string SimulationSummary(const SimResult& r);

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_SIMULATOR_H
