// SPDX-License-Identifier: MIT
// trbe_simulate.cpp: drive the TRBU model like a driver (sheet §1.12).
#include "trbe_simulate.h"
#include "json_text.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace mabutrace::trbe {
namespace {

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool Reported(EventKind k) { return k != EventKind::kRegisterWrite && k != EventKind::kIgnoredWrite; }

}  // namespace

bool Simulate(std::span<const uint8_t> trace, const SimulationConfig& c, SimulationResult* out, std::string* error) {
  *out = {};
  if (c.base & 0xFFF) {
    *error = "base " + Hex(c.base) + " is not 4 KB aligned";
    return false;
  }
  if (c.size == 0 || (c.size & 0xFFF)) {
    *error = "buffer size " + std::to_string(c.size) + " is not a non-zero multiple of 4096";
    return false;
  }
  if (c.size > (uint64_t{1} << 32)) {
    *error = "buffer size above 4 GiB is not simulated";
    return false;
  }
  if (c.start_offset >= c.size) {
    *error = "start offset " + std::to_string(c.start_offset) + " is outside the buffer";
    return false;
  }
  if (c.fault_offset && *c.fault_offset >= c.size) {
    *error = "fault offset " + std::to_string(*c.fault_offset) + " is outside the buffer";
    return false;
  }
  FlatMemory mem(c.base, c.size, c.fill_byte);
  if (c.fault_offset) mem.InjectFault(c.base + *c.fault_offset, c.base + c.size, Fault{});
  ModelOptions mo;
  mo.trbidr = c.trbidr;
  mo.flush_latency_bytes = c.flush_latency;
  TraceBufferUnit tbu(&mem, mo);

  Limitr l;
  l.limit = c.base + c.size;
  l.fm = c.fill_mode;
  l.tm = c.trigger_mode;
  l.nvm = c.nvm;
  l.e = false;
  (void)tbu.WriteRegister(Reg::kTrblimitrEl1, l.Encode());
  (void)tbu.WriteRegister(Reg::kTrbsrEl1, 0);
  (void)tbu.WriteRegister(Reg::kTrbbaserEl1, c.base);
  (void)tbu.WriteRegister(Reg::kTrbptrEl1, c.base + c.start_offset);
  (void)tbu.WriteRegister(Reg::kTrbtrgEl1, c.trigger_count);
  l.e = true;
  (void)tbu.WriteRegister(Reg::kTrblimitrEl1, l.Encode());

  for (uint64_t i = 0; i < trace.size(); ++i) {
    if (c.trigger_at && *c.trigger_at == i) tbu.DetectTrigger();
    tbu.Collect(trace[i]);
  }
  if (c.trigger_at && *c.trigger_at >= trace.size()) tbu.DetectTrigger();

  out->events = tbu.events();
  out->trbptr = tbu.ReadRegister(Reg::kTrbptrEl1);
  out->trbsr = tbu.ReadRegister(Reg::kTrbsrEl1);
  out->trblimitr = tbu.ReadRegister(Reg::kTrblimitrEl1);
  out->trbbaser = tbu.ReadRegister(Reg::kTrbbaserEl1);
  out->trbtrg = tbu.ReadRegister(Reg::kTrbtrgEl1);
  out->irq = tbu.irq_line();
  out->bytes_in = trace.size();
  out->bytes_written = tbu.bytes_written();
  out->bytes_discarded = tbu.bytes_discarded();
  out->trb_wrap = tbu.trb_wrap_events();
  out->trb_trig = tbu.trb_trig_events();
  out->memory = mem.bytes();
  if (out->irq)
    out->linux_class = std::string(LinuxIrqClassName(ClassifyLikeLinux(tbu.status(), tbu.ptr(), tbu.base())));
  return true;
}

std::string SimulationToText(const SimulationConfig& c, const SimulationResult& r) {
  std::string s;
  char line[256];
  std::snprintf(line, sizeof line, "buffer [%s, %s) %llu bytes, fill mode %s, trigger mode %s, TRBTRG %u\n",
                Hex(c.base).c_str(), Hex(c.base + c.size).c_str(), static_cast<unsigned long long>(c.size),
                std::string(FillModeName(c.fill_mode)).c_str(), std::string(TriggerModeName(c.trigger_mode)).c_str(),
                c.trigger_count);
  s += line;
  s += "  byte  event               TRBPTR_EL1          TRBSR_EL1   detail\n";
  for (const auto& e : r.events) {
    if (!Reported(e.kind)) continue;
    std::snprintf(line, sizeof line, "%6llu  %-18s  %-18s  %-10s  ", static_cast<unsigned long long>(e.byte_index),
                  std::string(EventKindName(e.kind)).c_str(), Hex(e.ptr).c_str(), Hex(e.trbsr).c_str());
    std::string row = line + e.detail;
    while (!row.empty() && row.back() == ' ') row.pop_back();
    s += row + "\n";
  }
  std::snprintf(line, sizeof line,
                "bytes in %llu, written %llu, discarded %llu; TRB_WRAP %llu, TRB_TRIG %llu; IRQ %s\n",
                static_cast<unsigned long long>(r.bytes_in), static_cast<unsigned long long>(r.bytes_written),
                static_cast<unsigned long long>(r.bytes_discarded), static_cast<unsigned long long>(r.trb_wrap),
                static_cast<unsigned long long>(r.trb_trig), r.irq ? "asserted" : "not asserted");
  s += line;
  s += "TRBPTR_EL1 = " + Hex(r.trbptr) + " (offset " + std::to_string(r.trbptr - c.base) + ")\n";
  s += "TRBTRG_EL1 = " + std::to_string(r.trbtrg) + "\n";
  s += ExplanationToText(Explain(Reg::kTrbsrEl1, r.trbsr));
  if (!r.linux_class.empty()) s += "Linux TRBE driver would classify this IRQ as: " + r.linux_class + "\n";
  return s;
}

std::string SimulationToJson(const SimulationConfig& c, const SimulationResult& r) {
  nlohmann::ordered_json j;
  j["config"] = {{"base", Hex(c.base)},
                 {"size", c.size},
                 {"fill_mode", FillModeName(c.fill_mode)},
                 {"trigger_mode", TriggerModeName(c.trigger_mode)},
                 {"trigger_count", c.trigger_count},
                 {"start_offset", c.start_offset}};
  if (c.trigger_at) j["config"]["trigger_at"] = *c.trigger_at;
  auto events = nlohmann::ordered_json::array();
  for (const auto& e : r.events) {
    if (!Reported(e.kind)) continue;
    events.push_back({{"byte", e.byte_index},
                      {"event", EventKindName(e.kind)},
                      {"TRBPTR_EL1", Hex(e.ptr)},
                      {"TRBSR_EL1", Hex(e.trbsr)},
                      {"detail", e.detail}});
  }
  j["events"] = std::move(events);
  const auto ex = Explain(Reg::kTrbsrEl1, r.trbsr);
  nlohmann::ordered_json st;
  for (const auto& f : ex.fields) st[f.name] = f.value;
  st["summary"] = ex.summary;
  j["final"] = {{"TRBPTR_EL1", Hex(r.trbptr)},
                {"TRBSR_EL1", Hex(r.trbsr)},
                {"TRBTRG_EL1", r.trbtrg},
                {"IRQ", r.irq ? 1 : 0},
                {"status", st}};
  if (!r.linux_class.empty()) j["final"]["linux_irq_class"] = r.linux_class;
  j["counters"] = {{"bytes_in", r.bytes_in},
                   {"bytes_written", r.bytes_written},
                   {"bytes_discarded", r.bytes_discarded},
                   {"TRB_WRAP", r.trb_wrap},
                   {"TRB_TRIG", r.trb_trig}};
  return exporter::JsonText(j);
}

}  // namespace mabutrace::trbe
