// SPDX-License-Identifier: MIT
// trbe_simulate.h: run the TRBU model over a trace the way a driver would
// program it, and report how pointers, status and interrupts change
// (`mabutrace trbe simulate`; R-G2).
//
// Programming (the order Linux uses, sheet §1.12): TRBLIMITR_EL1.E=0, clear
// TRBSR_EL1, write TRBBASER_EL1, TRBPTR_EL1, TRBTRG_EL1 (and TRBMAR_EL1),
// then TRBLIMITR_EL1 with E=1. Then every byte of the trace is collected;
// a Detected Trigger arrives before byte `trigger_at` (an index into the
// trace) if set. When `auto_restart` is set the simulation acts like a
// driver in a loop: after each interrupt it reads TRBSR, clears it and
// re-enables from Base (as Linux does for buffer-full).
#ifndef MABUTRACE_HOST_TRBE_TRBE_SIMULATE_H
#define MABUTRACE_HOST_TRBE_TRBE_SIMULATE_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trbe_model.h"

namespace mabutrace::trbe {

struct SimulationConfig {
  FillMode fill_mode = FillMode::kCircular;
  TriggerMode trigger_mode = TriggerMode::kIgnore;
  uint64_t base = 0x80000000;            // 4 KB aligned
  uint64_t size = 4096;                  // bytes, multiple of 4096
  uint64_t start_offset = 0;             // TRBPTR_EL1 = base + start_offset
  std::optional<uint64_t> trigger_at;    // trace byte index of the Detected Trigger
  uint32_t trigger_count = 0;            // TRBTRG_EL1
  uint64_t flush_latency = 0;            // ModelOptions::flush_latency_bytes
  uint64_t trbidr = 0x20;                // TRBIDR_EL1
  std::optional<uint64_t> fault_offset;  // buffer offset from which writes fault (translation fault, stage 1)
  uint8_t fill_byte = 0;                 // initial memory contents
  bool nvm = false;                      // TRBLIMITR_EL1.nVM
};

struct SimulationResult {
  std::vector<ModelEvent> events;  // everything the model did, in order
  uint64_t trbptr = 0, trbsr = 0, trblimitr = 0, trbbaser = 0, trbtrg = 0;
  bool irq = false;
  uint64_t bytes_in = 0, bytes_written = 0, bytes_discarded = 0;
  uint64_t trb_wrap = 0, trb_trig = 0;
  std::vector<uint8_t> memory;  // [base, base+size) after the run
  std::string linux_class;      // ClassifyLikeLinux of the final TRBSR when IRQ is set, else ""
};

// Returns false and sets *error for an invalid config (base/size alignment,
// start or fault offset outside the buffer).
bool Simulate(std::span<const uint8_t> trace, const SimulationConfig& config, SimulationResult* out,
              std::string* error);

// Human-readable report: one line per event that changes what software sees
// (wrap, trigger, flush, management event, stop, fault, IRQ), then the final
// registers explained.
std::string SimulationToText(const SimulationConfig& config, const SimulationResult& r);
// JSON: {"config":{...},
// "events":[{"byte":N,"event":"wrap","TRBPTR_EL1":"0x..","TRBSR_EL1":"0x..","detail":".."}],
//        "final":{"TRBPTR_EL1":..., "TRBSR_EL1":..., "IRQ":0|1, "status": {fields}},
//        "counters":{...}}
std::string SimulationToJson(const SimulationConfig& config, const SimulationResult& r);

}  // namespace mabutrace::trbe

#endif  // MABUTRACE_HOST_TRBE_TRBE_SIMULATE_H
