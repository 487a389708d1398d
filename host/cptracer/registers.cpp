// SPDX-License-Identifier: MIT
// registers.cpp: see registers.h. kRegisters is THE register table.
#include "registers.h"

#include <ini.h>
#include <cerrno>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "ini_value.h"
#include "json_text.h"

namespace mabutrace::cptracer {

using exporter::JsonString;
namespace {

struct FieldDef {
  const char* name;
  uint8_t lsb, width;
  const char* doc;
};
struct RegDef {
  const char* name;
  uint32_t offset;
  bool read_only;
  std::vector<FieldDef> fields;
};

// CP_Tracer register block (128 bytes per tracer, facts §4.1). Offsets and
// bit positions: design assumption (U, facts §4.2); names: seed 002 §3.2.
constexpr uint32_t kMidsPerSelect = 32;
constexpr uint32_t kMaxMid = 127;
constexpr uint32_t kMaxSid = 31;                    // MODULE_CTRL_STATUS SID: 5 bits
constexpr uint32_t kMaxExportShift = 63;            // ADDRESS_MASK EXPORT_SHIFT: 6 bits
constexpr uint64_t kMaxAddress = (1ull << 48) - 1;  // ADDRESS_MODE 4: 48-bit addresses
// Description-file bounds, the same as the CLI's --clock-hz (1 Hz .. 1e12)
// and a window up to 1000 s.
constexpr double kMaxClockHz = 1e12;
constexpr double kMaxWindowMs = 1e6;
const std::vector<RegDef>& Table() {
  static const std::vector<RegDef> t = {
      {"TRANSACTION_QUALIFIER",
       0x04,
       false,
       {{"EMU0_TRIGGER", 0, 1, "drive EMU0 on a qualified event B"},
        {"EMU1_TRIGGER", 1, 1, "drive EMU1 on a qualified event B"},
        {"QUALIF_EMU", 2, 1, "count only between EMU0 and EMU1"},
        {"QUALIF_TRIGGER", 4, 2, "trigger R/W: bit0 reads, bit1 writes"},
        {"QUALIF_TH0", 6, 2, "throughput 0 R/W: bit0 reads, bit1 writes"},
        {"QUALIF_TH1", 8, 2, "throughput 1 R/W: bit0 reads, bit1 writes"},
        {"QUALIF_TRACE", 10, 2, "event export R/W: bit0 reads, bit1 writes"},
        {"QUALIF_DTYPE_TRIGGER", 12, 4, "trigger data types: bit0 CPU data, bit1 CPU instr, bit2 DMA"},
        {"QUALIF_DTYPE_TH0", 16, 4, "throughput 0 data types"},
        {"QUALIF_DTYPE_TH1", 20, 4, "throughput 1 data types"},
        {"QUALIF_DTYPE_TRACE", 24, 4, "event export data types"}}},
      {"MODULE_CTRL_STATUS",
       0x08,
       false,
       {{"EXPORT_SELECT", 0, 5, "bit0 statistics, bit1 event B, bit2 event C, bit3 event E, bit4 status"},
        {"ACC_WAIT_CNT_EN", 5, 1, "accumulated wait-time counter enable"},
        {"NUM_GRANT_CNT_EN", 6, 1, "grant counter enable"},
        {"EXCL_ADDR_FILTER_EN", 7, 1, "address filter enable (only START..END counted)"},
        {"ADDRESS_MODE", 8, 3, "read-only: 0..4 = 32/36/40/44/48-bit addresses"},
        {"SID", 11, 5, "read-only: tracer source ID"},
        {"UPPER_ADDRESS_BITS", 16, 16, "address bits above 31 for the filter"}}},
      {"SLIDING_TIME_WINDOW", 0x0C, false, {{"WINDOW", 0, 32, "window length in tracer cycles"}}},
      {"MASTER_ID_SELECT_A", 0x10, false, {{"MID_0_31", 0, 32, "bit i: MID i (throughput 0, events)"}}},
      {"MASTER_ID_SELECT_B", 0x14, false, {{"MID_32_63", 0, 32, "bit i: MID 32+i"}}},
      {"MASTER_ID_SELECT_C", 0x18, false, {{"MID_64_95", 0, 32, "bit i: MID 64+i"}}},
      {"MASTER_ID_SELECT_D", 0x1C, false, {{"MID_96_127", 0, 32, "bit i: MID 96+i"}}},
      {"MASTER_ID_SELECT_TH1_A", 0x20, false, {{"MID_0_31", 0, 32, "bit i: MID i (throughput 1)"}}},
      {"MASTER_ID_SELECT_TH1_B", 0x24, false, {{"MID_32_63", 0, 32, "bit i: MID 32+i"}}},
      {"MASTER_ID_SELECT_TH1_C", 0x28, false, {{"MID_64_95", 0, 32, "bit i: MID 64+i"}}},
      {"MASTER_ID_SELECT_TH1_D", 0x2C, false, {{"MID_96_127", 0, 32, "bit i: MID 96+i"}}},
      {"START_ADDRESS", 0x30, false, {{"ADDRESS", 0, 32, "filter start, address bits 31..0"}}},
      {"END_ADDRESS", 0x34, false, {{"ADDRESS", 0, 32, "filter end (inclusive), bits 31..0"}}},
      {"ADDRESS_MASK", 0x38, false, {{"EXPORT_SHIFT", 0, 6, "event messages carry address bits [SHIFT+9:SHIFT]"}}},
      {"DESTINATION_ADDRESS", 0x3C, false, {{"ADDRESS", 0, 32, "STM stimulus address the tracer writes"}}},
      {"THROUGHPUT_COUNT0", 0x40, true, {{"BYTES", 0, 32, "last window's throughput 0"}}},
      {"THROUGHPUT_COUNT1", 0x44, true, {{"BYTES", 0, 32, "last window's throughput 1"}}},
      {"ACC_WAIT_COUNT", 0x48, true, {{"CYCLES", 0, 32, "last window's accumulated wait"}}},
      {"NUM_GRANT_COUNT", 0x4C, true, {{"GRANTS", 0, 32, "last window's grants"}}},
  };
  return t;
}

// MIPI STM (facts §4.3) and TBR (§4.4): verified values (dsptop, CToolsLib).
constexpr uint32_t kStmBase = 0x03018000, kTbrBase = 0x03019000;
constexpr uint32_t kCoreSightUnlock = 0xC5ACCE55;
constexpr uint32_t kStmSwMstCntl0Enable = (2u << 30) | (1u << 16);  // enabled + trace enable
constexpr uint32_t kStmHwMasterSelect = 0x80808080;                 // HW master 0x80
constexpr uint32_t kStmAtbEnable = 1u << 16;
constexpr uint32_t kStmAtbId = 0x40;
constexpr uint32_t kStmStimulusBase = 0x20000000, kStmChannelStride = 0x1000;
constexpr uint32_t kStmChannels = 256;  // stimulus channels (facts §4.3)
constexpr struct {
  uint32_t bytes, sync;
} kAtbSync[] = {{4096, 245}, {8192, 355}, {16384, 510}, {32768, 730}, {65536, 1040}, {131072, 1480}, {262144, 2090}};

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string Upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',' || c == ' ' || c == '|' || c == '\t') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

uint32_t Put(uint32_t reg, const FieldDef& f, uint32_t v) {
  const uint64_t mask = ((1ull << f.width) - 1) << f.lsb;
  return static_cast<uint32_t>((reg & ~mask) | ((static_cast<uint64_t>(v) << f.lsb) & mask));
}

RegisterValue Explain(const RegDef& d, uint32_t value) {
  RegisterValue r{d.name, d.offset, value, d.read_only, {}};
  for (const auto& f : d.fields) {
    const uint32_t v = static_cast<uint32_t>((value >> f.lsb) & ((1ull << f.width) - 1));
    r.fields.push_back({f.name, v, f.doc});
  }
  return r;
}

const RegDef* FindDef(const std::string& name) {
  for (const auto& d : Table())
    if (Upper(name) == d.name) return &d;
  return nullptr;
}

RegisterValue Plain(const char* name, uint32_t address, uint32_t value, const char* doc) {
  return RegisterValue{name, address, value, false, {{"VALUE", value, doc}}};
}

std::string Hex8(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08X", v);
  return b;
}

}  // namespace

bool ParseExportList(const std::string& s, uint32_t* bits, std::string* error) {
  *bits = 0;
  for (const auto& t : Split(Lower(s))) {
    if (t == "statistics" || t == "stats")
      *bits |= kExportStatistics;
    else if (t == "event_b" || t == "b")
      *bits |= kExportEventB;
    else if (t == "event_c" || t == "c")
      *bits |= kExportEventC;
    else if (t == "event_e" || t == "e")
      *bits |= kExportEventE;
    else if (t == "status")
      *bits |= kExportStatus;
    else {
      *error = "unknown message '" + t + "' (statistics, event_b, event_c, event_e, status)";
      return false;
    }
  }
  return true;
}

bool ParseDtypeList(const std::string& s, uint32_t* bits, std::string* error) {
  *bits = 0;
  for (const auto& t : Split(Lower(s))) {
    if (t == "cpu_data")
      *bits |= kDtypeCpuData;
    else if (t == "cpu_inst" || t == "cpu_instruction")
      *bits |= kDtypeCpuInst;
    else if (t == "dma")
      *bits |= kDtypeDma;
    else if (t == "all")
      *bits |= kDtypeCpuData | kDtypeCpuInst | kDtypeDma;
    else {
      *error = "unknown data type '" + t + "' (cpu_data, cpu_inst, dma, all)";
      return false;
    }
  }
  return true;
}

bool ParseRw(const std::string& s, uint32_t* bits, std::string* error) {
  const std::string t = Lower(s);
  if (t == "read" || t == "reads")
    *bits = kRwRead;
  else if (t == "write" || t == "writes")
    *bits = kRwWrite;
  else if (t == "both" || t == "read_write" || t == "rw")
    *bits = kRwBoth;
  else {
    *error = "access must be read, write or both, not '" + s + "'";
    return false;
  }
  return true;
}

bool ParseMidList(const std::string& s, std::vector<uint32_t>* mids, std::string* error) {
  mids->clear();
  for (const auto& t : Split(s)) {
    char* end;
    unsigned long v = std::strtoul(t.c_str(), &end, 0);
    if (*end || v > kMaxMid) {
      *error = "bad master ID '" + t + "' (0..127)";
      return false;
    }
    mids->push_back(static_cast<uint32_t>(v));
  }
  return true;
}

bool WindowCycles(double seconds, double clock_hz, uint64_t* cycles, std::string* error) {
  const double c = std::round(seconds * clock_hz);
  if (!(c >= 1) || c > 4294967295.0) {
    *error = "window of " + std::to_string(seconds) + " s at " + std::to_string(clock_hz) + " Hz is " +
             std::to_string(c) + " cycles: must be 1..0xFFFFFFFF";
    return false;
  }
  *cycles = static_cast<uint64_t>(c);
  return true;
}

bool ComputeConfig(const TracerConfig& cfg, ConfigResult* out, std::string* error) {
  *out = {};
  uint64_t window = cfg.window_cycles;
  if (window == 0) {
    if (!(cfg.clock_hz > 0)) {
      *error = "the window needs --window-cycles, or --window-ms with --clock-hz";
      return false;
    }
    if (!WindowCycles(cfg.window_s, cfg.clock_hz, &window, error)) return false;
  } else if (window > 0xFFFFFFFFull) {
    *error = "window of " + std::to_string(window) + " cycles does not fit 32 bits";
    return false;
  }
  out->window_cycles = window;
  if (cfg.sid > kMaxSid) {
    *error = "SID " + std::to_string(cfg.sid) + " does not fit 5 bits";
    return false;
  }
  if (cfg.stm_channel >= kStmChannels) {
    *error = "STM channel " + std::to_string(cfg.stm_channel) + " is not one of the 256";
    return false;
  }
  for (uint32_t m : cfg.masters)
    if (m > kMaxMid) {
      *error = "master ID " + std::to_string(m) + " > 127";
      return false;
    }
  if (cfg.address_filter) {
    if (cfg.address_start > cfg.address_end) {
      *error = "address start is above the end";
      return false;
    }
    if ((cfg.address_start >> 32) != (cfg.address_end >> 32)) {
      *error = "address start and end must share the upper address bits (above bit 31)";
      return false;
    }
    if ((cfg.address_start >> 48) != 0) {
      *error = "addresses are at most 48 bits";
      return false;
    }
  }
  auto value_of = [&](const char* reg, std::initializer_list<std::pair<const char*, uint32_t>> kv) {
    const RegDef* d = FindDef(reg);
    uint32_t v = 0;
    for (const auto& [name, fv] : kv)
      for (const auto& f : d->fields)
        if (!std::strcmp(f.name, name)) v = Put(v, f, fv);
    out->tracer.push_back(Explain(*d, v));
  };
  const uint32_t rw = cfg.rw, dt = cfg.dtypes;
  value_of("TRANSACTION_QUALIFIER", {{"QUALIF_TRIGGER", rw},
                                     {"QUALIF_TH0", rw},
                                     {"QUALIF_TH1", rw},
                                     {"QUALIF_TRACE", rw},
                                     {"QUALIF_DTYPE_TRIGGER", dt},
                                     {"QUALIF_DTYPE_TH0", dt},
                                     {"QUALIF_DTYPE_TH1", dt},
                                     {"QUALIF_DTYPE_TRACE", dt}});
  value_of("MODULE_CTRL_STATUS", {{"EXPORT_SELECT", cfg.export_select},
                                  {"ACC_WAIT_CNT_EN", cfg.wait_and_grant},
                                  {"NUM_GRANT_CNT_EN", cfg.wait_and_grant},
                                  {"EXCL_ADDR_FILTER_EN", cfg.address_filter},
                                  {"ADDRESS_MODE", cfg.address_mode},
                                  {"SID", cfg.sid},
                                  {"UPPER_ADDRESS_BITS", static_cast<uint32_t>(cfg.address_start >> 32)}});
  value_of("SLIDING_TIME_WINDOW", {{"WINDOW", static_cast<uint32_t>(window)}});
  auto selects = [&](const std::vector<uint32_t>& mids, const char* prefix) {
    uint32_t sel[4] = {0, 0, 0, 0};
    if (mids.empty()) std::fill(sel, sel + 4, 0xFFFFFFFFu);
    for (uint32_t m : mids) sel[m / kMidsPerSelect] |= 1u << (m % kMidsPerSelect);
    for (int i = 0; i < 4; ++i) {
      const std::string name = std::string(prefix) + static_cast<char>('A' + i);
      out->tracer.push_back(Explain(*FindDef(name), sel[i]));
    }
  };
  selects(cfg.masters, "MASTER_ID_SELECT_");
  selects(cfg.masters1.empty() ? cfg.masters : cfg.masters1, "MASTER_ID_SELECT_TH1_");
  value_of("START_ADDRESS", {{"ADDRESS", cfg.address_filter ? static_cast<uint32_t>(cfg.address_start) : 0u}});
  value_of("END_ADDRESS", {{"ADDRESS", cfg.address_filter ? static_cast<uint32_t>(cfg.address_end) : 0xFFFFFFFFu}});
  value_of("ADDRESS_MASK", {{"EXPORT_SHIFT", cfg.address_export_shift}});
  const uint32_t channel = cfg.stm_channel ? cfg.stm_channel : cfg.sid;
  value_of("DESTINATION_ADDRESS", {{"ADDRESS", kStmStimulusBase + channel * kStmChannelStride}});

  uint32_t sync = kAtbSync[0].sync;
  for (const auto& e : kAtbSync)
    if (cfg.stm_buffer_bytes >= e.bytes) sync = e.sync;
  out->stm = {
      Plain("STM_LOCK_ACCESS", kStmBase + 0xFB0, kCoreSightUnlock, "unlock key"),
      Plain("STM_SWMSTCNTL_0", kStmBase + 0x024, kStmSwMstCntl0Enable,
            "after claim (0x60000000): enabled [31:30]=10, trace enable bit16"),
      Plain("STM_SWMSTCNTL_1", kStmBase + 0x028, 0x0C080400, "software master selects 0x00/04/08/0C"),
      Plain("STM_SWMSTCNTL_2", kStmBase + 0x02C, 0x03030303, "software master select masks"),
      Plain("STM_SWMSTCNTL_3", kStmBase + 0x030, 0x07070707, "as written by dsptop"),
      Plain("STM_SWMSTCNTL_4", kStmBase + 0x034, 0x07070707, "as written by dsptop"),
      Plain("STM_HWMSTCNTL", kStmBase + 0x038, kStmHwMasterSelect, "hardware master 0x80 = CP tracers"),
      Plain("STM_PTICNTDOWN", kStmBase + 0x040, 0xFC, "master-ID re-emission period"),
      Plain("STM_ATBCONFIG", kStmBase + 0x044, kStmAtbEnable, "ATB port enable (STM 2.0)"),
      Plain("STM_ATBSYNCCNT", kStmBase + 0x048, sync, "ASYNC period for the trace buffer size"),
      Plain("STM_ATBID", kStmBase + 0x04C, kStmAtbId, "ATB trace ID of the MIPI STM"),
  };
  out->tbr = {
      Plain("TBR_LOCK_ACCESS", kTbrBase + 0xFB0, kCoreSightUnlock, "unlock key"),
      Plain("TBR_FFCR", kTbrBase + 0x304, 0x1, "bit0 TWP formatter enable"),
      Plain("TBR_ID_PERIOD", kTbrBase + 0x108, 8, "re-insert the ATB ID every 8 frames"),
      Plain("TBR_SEQCNTL", kTbrBase + 0x10C, (0x6Fu << 16) | 0x10, "sequence markers on ATB ID 0x6F"),
      Plain("TBR_CONTROL", kTbrBase + 0x020, 0x1, "bit0 capture enable, bit1 0 = buffer mode"),
  };
  return true;
}

namespace {
struct LoadCtx {
  TracerConfig* cfg;
  std::string error;
};
// Each numeric key is checked against its range here, where the error can
// name the file, the key and the value (ComputeConfig's checks cannot).
int CfgHandler(void* user, const char* section, const char* name, const char* value) {
  auto* ctx = static_cast<LoadCtx*>(user);
  TracerConfig& c = *ctx->cfg;
  const IniValue v(section, name, value, &ctx->error);
  const std::string key = std::string(section) + "." + name;
  // A list or a word: its parser's message after the key.
  std::string err;
  auto parsed = [&](bool ok) { return ok ? 1 : v.Fail(err); };
  if (key == "tracer.name") {
    c.name = value;
    return 1;
  }
  if (key == "tracer.sid") return v.ReadUnsigned(0, kMaxSid, &c.sid);
  if (key == "tracer.clock_hz") return v.ReadReal(1, kMaxClockHz, &c.clock_hz);
  if (key == "tracer.window_ms") {
    double ms = 0;
    if (!v.ReadPositive(kMaxWindowMs, &ms)) return 0;
    c.window_s = ms / 1e3;
    return 1;
  }
  if (key == "tracer.window_cycles") return v.ReadUnsigned(1, 0xFFFFFFFF, &c.window_cycles);
  if (key == "tracer.messages") return parsed(ParseExportList(value, &c.export_select, &err));
  if (key == "tracer.wait_and_grant") return v.ReadBoolean(&c.wait_and_grant);
  if (key == "tracer.stm_channel") return v.ReadUnsigned(0, kStmChannels - 1, &c.stm_channel);
  if (key == "filter.masters") return parsed(ParseMidList(value, &c.masters, &err));
  if (key == "filter.masters_counter1") return parsed(ParseMidList(value, &c.masters1, &err));
  if (key == "filter.access") return parsed(ParseRw(value, &c.rw, &err));
  if (key == "filter.data_types") return parsed(ParseDtypeList(value, &c.dtypes, &err));
  if (key == "filter.address_start" || key == "filter.address_end") {
    c.address_filter = true;
    return v.ReadUnsigned(0, kMaxAddress, key == "filter.address_start" ? &c.address_start : &c.address_end);
  }
  if (key == "filter.address_export_shift") return v.ReadUnsigned(0, kMaxExportShift, &c.address_export_shift);
  return v.Fail("unknown key");
}
}  // namespace

bool LoadTracerConfig(const std::string& path, TracerConfig* cfg, std::string* error) {
  LoadCtx ctx{cfg, {}};
  const int rc = ini_parse(path.c_str(), CfgHandler, &ctx);
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

bool DecodeRegister(const std::string& name, uint32_t value, double clock_hz, RegisterValue* out, std::string* error) {
  if (const RegDef* d = FindDef(name)) {
    *out = Explain(*d, value);
    if (out->name == "SLIDING_TIME_WINDOW" && clock_hz > 0)
      out->fields.push_back({"WINDOW_US", static_cast<uint32_t>(std::llround(value * 1e6 / clock_hz)),
                             "window in microseconds at --clock-hz"});
    return true;
  }
  *error = "unknown register '" + name + "'; known: ";
  for (const auto& n : RegisterNames()) *error += n + " ";
  return false;
}

std::vector<std::string> RegisterNames() {
  std::vector<std::string> v;
  for (const auto& d : Table()) v.push_back(d.name);
  return v;
}

std::string RegisterJson(const RegisterValue& r) {
  std::string s =
      "{\"name\":" + JsonString(r.name) + ",\"offset\":\"" + Hex8(r.offset) + "\",\"value\":\"" + Hex8(r.value) + "\"";
  if (r.read_only) s += ",\"read_only\":true";
  s += ",\"fields\":{";
  for (size_t i = 0; i < r.fields.size(); ++i)
    s += (i ? "," : "") + JsonString(r.fields[i].name) + ":" + std::to_string(r.fields[i].value);
  return s + "}}";
}

std::string ConfigJson(const ConfigResult& r) {
  std::string s = "{\"window_cycles\":" + std::to_string(r.window_cycles) + ",\"registers\":{";
  for (size_t i = 0; i < r.tracer.size(); ++i)
    s += (i ? "," : "") + JsonString(r.tracer[i].name) + ":\"" + Hex8(r.tracer[i].value) + "\"";
  s += "},\"details\":[";
  for (size_t i = 0; i < r.tracer.size(); ++i) s += (i ? "," : "") + RegisterJson(r.tracer[i]);
  auto list = [&](const char* key, const std::vector<RegisterValue>& v) {
    s += std::string("],\"") + key + "\":[";
    for (size_t i = 0; i < v.size(); ++i)
      s += std::string(i ? "," : "") + "{\"name\":" + JsonString(v[i].name) + ",\"address\":\"" + Hex8(v[i].offset) +
           "\",\"value\":\"" + Hex8(v[i].value) + "\"}";
  };
  list("stm_setup", r.stm);
  list("trace_buffer_setup", r.tbr);
  return s + "]}";
}

std::string RegistersJson(const std::vector<RegisterValue>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + RegisterJson(v[i]);
  return s + "]";
}

std::string RegistersText(const std::vector<RegisterValue>& v) {
  std::string s;
  for (const auto& r : v) s += RegisterText(r);
  return s;
}

std::string RegisterText(const RegisterValue& r) {
  char b[160];
  std::snprintf(b, sizeof b, "%-24s @0x%02X = 0x%08X%s\n", r.name.c_str(), r.offset, r.value,
                r.read_only ? "  (read-only)" : "");
  std::string s = b;
  for (const auto& f : r.fields) {
    std::snprintf(b, sizeof b, "    %-22s = 0x%X", f.name.c_str(), f.value);
    s += b;
    s += "  " + f.meaning + "\n";
  }
  return s;
}

std::string ConfigText(const ConfigResult& r) {
  std::string s = "CP_Tracer registers (offsets/fields: design assumption, docs/cptracer.md)\n";
  for (const auto& x : r.tracer) s += RegisterText(x);
  s += "\nMIPI STM set-up (write in this order after the tracer):\n";
  char b[160];
  for (const auto& x : r.stm) {
    std::snprintf(b, sizeof b, "  %-18s [0x%08X] = 0x%08X  ", x.name.c_str(), x.offset, x.value);
    s += b + x.fields[0].meaning + "\n";
  }
  s += "\nTrace buffer (TBR) set-up:\n";
  for (const auto& x : r.tbr) {
    std::snprintf(b, sizeof b, "  %-18s [0x%08X] = 0x%08X  ", x.name.c_str(), x.offset, x.value);
    s += b + x.fields[0].meaning + "\n";
  }
  return s;
}

}  // namespace mabutrace::cptracer
